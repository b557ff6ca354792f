"""Typed run records: every view of one stored run reads the same figures through them, the
diagnosis is kept with a sweep, and the noise statistics behave as docs/COMPARE.md states."""

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.compare import load_run
from desktop_app.core.exchange import export_run, import_file
from desktop_app.core.overview import overview
from desktop_app.core.runs import load_label, pass_count, run_info
from desktop_app.core.sqleval.records import load_eval
from desktop_app.core.stats import bootstrap, differ, mcnemar_exact, point
from desktop_app.core.store import Store
from desktop_app.core.throughput.records import load_sweep

IMPORTS = Path(__file__).resolve().parents[1] / "data" / "imports"


# --------------------------------------------------------------------------- statistics


def test_bootstrap_is_repeatable_and_brackets_the_statistic():
    values = [1.0, 2.0, 2.5, 3.0, 10.0, 2.2, 2.1, 1.9]
    a, b = bootstrap(values, "median"), bootstrap(list(values), "median")
    assert a == b  # seeded from the data: every view prints the same interval
    assert a.low <= a.value <= a.high and a.n == 8 and a.method == "bootstrap-median"
    assert a.low < a.high
    mean = bootstrap(values, "mean")
    assert mean.value == pytest.approx(sum(values) / len(values))


def test_one_observation_has_no_interval_and_never_differs():
    one = bootstrap([5.0])
    assert one is not None and not one.has_interval
    assert bootstrap([]) is None
    wide_apart = bootstrap([100.0, 101.0, 99.0, 100.5])
    assert not differ(one, wide_apart) and not differ(point(5.0), point(500.0))


def test_differ_needs_non_overlapping_intervals():
    low = bootstrap([10.0, 11.0, 10.5, 9.5, 10.2, 10.8])
    high = bootstrap([20.0, 21.0, 20.5, 19.5, 20.2, 20.8])
    close = bootstrap([10.1, 11.1, 10.4, 9.6, 10.3, 10.9])
    assert differ(low, high) and differ(high, low)
    assert not differ(low, close)


def test_exact_mcnemar_matches_the_binomial_tail():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(13, 0) == pytest.approx(2 / 2**13)
    assert mcnemar_exact(3, 3) == 1.0
    # 1 vs 6: P[X <= 1] for Binomial(7, 1/2) = 8/128, doubled
    assert mcnemar_exact(1, 6) == pytest.approx(16 / 128)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_one_load_label_and_one_pass_count():
    assert load_label(4, None) == "c=4"
    assert load_label(None, 2.0) == "2 req/s"
    assert load_label(None, None) == "load unknown"
    c = pass_count([True, True, False, None, None])
    assert (c.passed, c.judged, c.unfinished, c.text) == (2, 3, 2, "2/3")
    assert c.rate == pytest.approx(2 / 3)
    assert pass_count([None]).rate is None


# --------------------------------------------------------------------------- one run, every view


def _cancelled_sql_run(store: Store) -> int:
    """A SQL run stopped after 6 of 9 questions: 6 judged (5 pass strict), 3 never finished."""
    run_id = store.create_run("sql", name="stopped early", model="m",
                              config={"judges": ["strict", "tolerant"], "tolerance": 1e-6})
    writer = store.writer()
    for i in range(9):
        done = i < 6
        verdicts = {"verdicts": {
            "strict": {"passed": i != 0, "findings": [] if i else
                       [{"code": "rounding_only", "message": "m", "cells": []}]},
            "tolerant": {"passed": True, "findings": []}}} if done else None
        writer.add_sql_question({
            "run_id": run_id, "question_id": f"q{i}", "tier": "easy" if i % 2 else "hard",
            "status": "completed" if done else "cancelled",
            "failure_class": "rounding_only" if i == 0 else None,
            "verdicts_json": verdicts, "steps": 2, "prompt_tokens": 100,
            "completion_tokens": 10, "seconds": 1.0})
    writer.close()
    store.finish_run(run_id, "cancelled")
    return run_id


def test_a_cancelled_sql_run_shows_the_same_counts_in_every_view(tmp_path, monkeypatch, capsys):
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        run_id = _cancelled_sql_run(store)
        run = load_eval(store, run_id)
        strict = run.pass_count("strict")
        assert (strict.passed, strict.judged, strict.unfinished) == (5, 6, 3)
        assert run.pass_rate("strict") == pytest.approx(5 / 6)
        assert run.summary["strict"].passed == 5 and run.summary["strict"].total == 6
        assert overview(store, run_info(store.get_run(run_id))).passes["strict"] == strict
        compared = load_run(store, run_id)
        assert compared.pass_count("strict") == strict
        (json_file,) = export_run(store, run_id, "json", tmp_path / "json")
        csv_questions, _ = export_run(store, run_id, "csv", tmp_path / "csv")
    summary = json.loads(json_file.read_text(encoding="utf-8"))["summary"]["judges"]["strict"]
    assert (summary["passed"], summary["total"], summary["unfinished"]) == (5, 6, 3)
    lines = csv_questions.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 10  # every stored question, unfinished ones with empty verdicts
    monkeypatch.setenv("THROUGHLINE_DB", str(db))
    assert main(["runs"]) == 0
    out = capsys.readouterr().out
    assert "stopped early" in out and "strict 5/6 +3 unfinished" in out


def test_an_import_without_its_load_reads_as_load_unknown_everywhere(tmp_path, monkeypatch,
                                                                      capsys):
    alone = tmp_path / "profile_export.jsonl"
    shutil.copy(IMPORTS / "profile_export.jsonl", alone)
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        run_id = import_file(store, alone)
        sweep = load_sweep(store, run_id)
        (cell,) = sweep.cells
        assert cell.load_label == "load unknown" and cell.requests == 8 and cell.ok == 7
        assert cell.ttft is not None and cell.ttft.has_interval  # from the imported requests
        info = run_info(store.get_run(run_id))
        assert overview(store, info).loads == ("load unknown",)
        (json_file,) = export_run(store, run_id, "json", tmp_path / "json")
    (exported,) = json.loads(json_file.read_text(encoding="utf-8"))["cells"]
    assert exported["concurrency"] is None and exported["requests"] == 8
    assert exported["intervals"]["ttft_p50_s"]["low"] <= exported["intervals"]["ttft_p50_s"][
        "high"]
    monkeypatch.setenv("THROUGHLINE_DB", str(db))
    assert main(["runs"]) == 0
    assert "1/1 cells load unknown" in capsys.readouterr().out


def test_a_sweep_keeps_its_diagnosis_and_its_export_carries_it(tmp_path):
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.profiles import load_profile
    from desktop_app.core.simulator.server import serve_in_thread
    from desktop_app.core.throughput.config import SweepConfig
    from desktop_app.core.throughput.sweep import run_sweep

    with serve_in_thread(load_profile("instant")) as sim:
        config = SweepConfig(EndpointConfig(sim.url, model="sim/llama-sim-8b"), input_tokens=(64,), output_tokens=(8,),
                             concurrency=(1, 2), requests_per_cell=6, warmup=1, name="kept")
        with Store.open(tmp_path / "r.db") as store:
            result = asyncio.run(run_sweep(config, store))
            sweep = load_sweep(store, result.run_id)
            assert sweep.diagnosis_kept
            assert [f.code for f in sweep.findings] == [f.code for f in result.findings]
            assert [c.requests for c in sweep.cells] == [c.summary.count for c in result.cells]
            assert all(c.prefill is not None and c.prefill.has_interval for c in sweep.cells)
            assert sweep.info.settings.get("simulator_profile") == "instant"
            (json_file,) = export_run(store, result.run_id, "json", tmp_path / "out")
    doc = json.loads(json_file.read_text(encoding="utf-8"))
    assert doc["diagnosis"]["kept"] is True
    assert [f["code"] for f in doc["diagnosis"]["findings"]] == [f.code for f in result.findings]
    assert doc["run"]["server_settings"]["simulator_profile"] == "instant"


def _interrupted_sweep(store: Store) -> int:
    """A sweep stopped by a crash after its first cell: 1 of 2 cells finished (6 requests)."""
    run_id = store.create_run("throughput", name="crashed", model="m",
                              config={"input_tokens": [128]})
    writer = store.writer()
    done = store.add_cell(run_id, cell_index=0, input_tokens=128, output_tokens=8,
                          concurrency=1, status="completed")
    store.add_cell(run_id, cell_index=1, input_tokens=128, output_tokens=8, concurrency=4,
                   status="running")
    t0 = 1_700_000_000.0
    for seq in range(6):
        writer.add_request({"run_id": run_id, "cell_id": done, "seq": seq, "sent_at": t0 + seq,
                            "ttft_s": 0.05 + 0.001 * seq, "e2e_s": 0.2, "prompt_tokens": 128,
                            "completion_tokens": 8, "prefill_tps": 128 / (0.05 + 0.001 * seq),
                            "decode_tps": 40.0})
    writer.close()
    store.update_cell(done, summary={"count": 6, "ok": 6, "failures_by_class": {},
                                     "ttft_s": {"n": 6, "mean": 0.0525, "p50": 0.0525,
                                                "p90": 0.055, "p99": 0.055, "min": 0.05,
                                                "max": 0.055}})
    store.finish_run(run_id, "interrupted")
    return run_id


def test_an_interrupted_sweep_and_a_cancelled_sql_run_read_the_same_in_compare_and_the_pdf(
        tmp_path, monkeypatch, capsys, qapp):
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        sql_id = _cancelled_sql_run(store)
        other = _cancelled_sql_run(store)
        sweep_id = _interrupted_sweep(store)
        sweep = load_sweep(store, sweep_id)
        assert [c.requests for c in sweep.cells] == [6, 0]
        assert [c.load_label for c in sweep.cells] == ["c=1", "c=4"]
        assert overview(store, sweep.info).cells_finished == 1
    monkeypatch.setenv("THROUGHLINE_DB", str(db))
    assert main(["runs"]) == 0
    assert "1/2 cells c=1,c=4" in capsys.readouterr().out
    out = tmp_path / "cmp.json"
    assert main(["compare", "--runs", f"{sql_id},{other}", "--json", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    strict = next(r for r in rows if r["dimension"] == "pass_rate"
                  and r["params"].get("judge") == "strict")
    assert [(v["value"], v["n"]) for v in strict["values"]] == [(pytest.approx(5 / 6), 6)] * 2
    pdf = tmp_path / "r.pdf"
    assert main(["report", "--runs", f"{sql_id},{other},{sweep_id}", "--pdf", str(pdf)]) == 0
    capsys.readouterr()
    import subprocess

    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "5/6" in text and "crashed" in text
