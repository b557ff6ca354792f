"""Exports of stored runs: a real simulator sweep and a scripted SQL evaluation, written as CSV
and JSON and read back; the vLLM keys re-imported; every bad input refused cleanly."""

import asyncio
import csv
import json
import os

import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.exchange import ExchangeError, export_run, import_file
from desktop_app.core.throughput.records import cell_result
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.diagnosis import unreliable_cells
from desktop_app.core.throughput.sweep import run_sweep
from tests.core.sqleval.test_sqleval_runner import _run, question_set  # noqa: F401 - a fixture
from tests.lang_check import english_runs


@pytest.fixture(scope="module")
def sweep_store(tmp_path_factory):
    """A store holding one real sweep (fast profile: 2 cells of 3 requests, 1 warm-up)."""
    path = tmp_path_factory.mktemp("sweep") / "r.db"
    with serve_in_thread(load_profile("fast")) as server:
        config = SweepConfig(endpoint=EndpointConfig(server.url, model="sim/llama-sim-8b"),
                             input_tokens=(128,), concurrency=(1, 2), output_tokens=(8,),
                             requests_per_cell=3, warmup=1, metrics_interval_s=0.05)
        with Store.open(path) as store:
            result = asyncio.run(asyncio.wait_for(run_sweep(config, store), 60))
    return path, result.run_id


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_throughput_csv_holds_every_cell_and_request_as_stored(sweep_store, tmp_path):
    db, run_id = sweep_store
    with Store.open(db) as store:
        files = export_run(store, run_id, "csv", tmp_path / "out")
        cells = store.cells(run_id)
        stored = store.requests(run_id)
    assert [f.name for f in files] == [f"run-{run_id}-cells.csv", f"run-{run_id}-requests.csv"]
    rows = _read_csv(files[0])
    assert [int(r["concurrency"]) for r in rows] == [1, 2]
    for row, cell in zip(rows, cells):
        assert float(row["ttft_s_mean"]) == cell.summary["ttft_s"]["mean"]
        assert float(row["decode_tps_p99"]) == cell.summary["decode_tps"]["p99"]
        assert int(row["requests"]) == 3 and row["failed"] == "0"
    requests = _read_csv(files[1])
    assert len(requests) == len(stored) == 7  # 2 x 3 plus the warm-up
    assert [r["warmup"] for r in requests].count("1") == 1
    measured = [r for r in requests if r["warmup"] == "0"]
    assert {r["cell_index"] for r in measured} == {"0", "1"}
    first = next(r for r in stored if not r["warmup"])
    row = next(r for r in measured if r["response_id"] == first["response_id"])
    assert float(row["ttft_s"]) == first["ttft_s"]
    assert json.loads(row["itl_s"]) == first["itl_s"] and int(row["itl_count"]) == 7


def test_throughput_json_uses_vllm_keys_and_reimports_to_the_same_figures(sweep_store, tmp_path):
    db, run_id = sweep_store
    with Store.open(db) as store:
        (path,) = export_run(store, run_id, "json", tmp_path)
        cells = store.cells(run_id)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == "throughline-run-export" and doc["kind"] == "throughput"
    assert doc["run"]["id"] == run_id and "ttft_s" in doc["definitions"]
    cell = doc["cells"][1]
    summary = cells[1].summary
    assert cell["max_concurrency"] == 2 and cell["completed"] == 3 and cell["failed"] == 0
    assert cell["mean_ttft_ms"] == pytest.approx(summary["ttft_s"]["mean"] * 1000)
    assert cell["median_tpot_ms"] == pytest.approx(summary["tpot_s"]["p50"] * 1000)
    assert cell["p99_e2el_ms"] == pytest.approx(summary["e2e_s"]["p99"] * 1000)
    assert cell["output_throughput"] == summary["output_tps"]
    # Beside vLLM's keys, the sweep JSON's own cell (docs/THROUGHPUT.md).
    assert cell["cell"] == 1 and cell["requests"] == 3 and cell["request_rate"] is None
    assert cell["prefill_tok_s"]["p90"] == summary["prefill_tps"]["p90"]
    assert cell["decode_change_vs_c1"] == summary["decode_change"]
    # The sweep's own verdict on the stored cell, whichever way it went on this machine.
    flagged = 1 in unreliable_cells([cell_result(c) for c in cells])
    assert cell["latencies_unreliable"] is flagged and cell["client_load"]["samples"] > 0
    assert len(cell["ttfts"]) == len(cell["itls"]) == len(cell["input_lens"]) == 3
    assert cell["output_lens"] == [8, 8, 8] and cell["errors"] == ["", "", ""]
    assert len(doc["requests"]) == 7 and doc["server_metrics"]
    # One cell on its own is a vLLM result: importing it recomputes the same figures.
    alone = tmp_path / "cell.json"
    alone.write_text(json.dumps(cell), encoding="utf-8")
    with Store.open(tmp_path / "other.db") as other:
        back = other.cells(import_file(other, alone))[0]
    for metric in ("ttft_s", "prefill_tps", "decode_tps", "tpot_s", "itl_s", "e2e_s"):
        for stat in ("mean", "p50", "p99"):
            assert back.summary[metric][stat] == pytest.approx(summary[metric][stat], rel=1e-9)
    assert back.summary["output_tps"] == pytest.approx(summary["output_tps"])
    assert (back.concurrency, back.input_tokens, back.output_tokens) == (2, 128, 8)


@pytest.mark.asyncio
async def test_sql_run_exports_questions_steps_and_pass_counts(
        question_set, tmp_path):  # noqa: F811
    with Store.open(tmp_path / "r.db") as store:
        result = await _run(question_set, tmp_path, store)
        csv_files = export_run(store, result.run_id, "csv", tmp_path / "csv")
        (json_file,) = export_run(store, result.run_id, "json", tmp_path / "json")
    questions = {r["question_id"]: r for r in _read_csv(csv_files[0])}
    assert set(questions) == {"t01", "h01"}
    assert questions["h01"]["passed_strict"] == "false"
    assert questions["h01"]["passed_tolerant"] == "true"
    assert questions["h01"]["failure_class"] == "rounding_only"
    # The core holds no words: the CSV's line is the language-free form of types.Headline.
    assert questions["h01"]["counterfactual"].startswith("strict FAIL, tolerant PASS")
    assert json.loads(questions["h01"]["result_columns"]) == ["region", "avg_amount"]
    steps = _read_csv(csv_files[1])
    assert len(steps) == 4 and {s["tool_name"] for s in steps} == {"run_sql", "submit_answer"}
    assert json.loads(steps[0]["tool_args"])[0]["name"] == "run_sql"
    doc = json.loads(json_file.read_text(encoding="utf-8"))
    judges = doc["summary"]["judges"]
    assert judges["strict"]["passed"] == result.summary["strict"].passed == 1
    assert judges["tolerant"]["passed"] == 2
    assert judges["strict"]["by_tier"]["hard"] == {"passed": 0, "total": 1, "unfinished": 0}
    assert doc["summary"]["tiers"]["hard"]["mean_steps"] == 2
    h01 = next(q for q in doc["questions"] if q["question_id"] == "h01")
    assert [s["step_index"] for s in h01["steps_detail"]] == [0, 1]


@pytest.mark.asyncio
async def test_exports_carry_the_sentences_in_the_chosen_language(
        question_set, tmp_path):  # noqa: F811
    from desktop_app.report.export_words import ExportWords

    with Store.open(tmp_path / "r.db") as store:
        result = await _run(question_set, tmp_path, store)
        (zh_csv, _) = export_run(store, result.run_id, "csv", tmp_path / "zh", ExportWords("zh"))
        (en_json,) = export_run(store, result.run_id, "json", tmp_path / "en", ExportWords("en"))
    line = {r["question_id"]: r for r in _read_csv(zh_csv)}["h01"]["counterfactual"]
    assert line.startswith("严格未通过") and english_runs(line) == [], line
    h01 = next(q for q in json.loads(en_json.read_text(encoding="utf-8"))["questions"]
               if q["question_id"] == "h01")
    assert h01["counterfactual_text"].startswith("fails strict, passes tolerant")
    # The diagnosis of a sweep: codes and values, and the sentences beside them.
    with serve_in_thread(load_profile("fast-capped")) as server:  # capped: findings to word
        config = SweepConfig(endpoint=EndpointConfig(server.url, model="sim/llama-sim-8b"),
                             input_tokens=(128,), concurrency=(1, 4), output_tokens=(8,),
                             requests_per_cell=8, warmup=1, metrics_interval_s=0.05)
        with Store.open(tmp_path / "tp.db") as store:
            swept = await asyncio.wait_for(run_sweep(config, store), 60)
            (doc_file,) = export_run(store, swept.run_id, "json", tmp_path / "tp",
                                     ExportWords("zh"))
    findings = json.loads(doc_file.read_text(encoding="utf-8"))["diagnosis"]["findings"]
    assert "concurrency_cap" in [f["code"] for f in findings]
    assert all(f["message"] for f in findings)
    assert all(english_runs(f["message"]) == [] for f in findings), findings


def test_bad_exports_fail_with_one_line_and_leave_nothing(sweep_store, tmp_path, monkeypatch):
    db, run_id = sweep_store
    out = tmp_path / "out"
    with Store.open(tmp_path / "other.db") as store:
        other_kind = store.create_run("calibration")
    with Store.open(db) as store:
        with pytest.raises(ExchangeError, match=r"--run: no run 999 in"):
            export_run(store, 999, "csv", out)
        with pytest.raises(ExchangeError, match="--format: 'xml' is not one of csv, json"):
            export_run(store, run_id, "xml", out)
        a_file = tmp_path / "a-file"
        a_file.write_text("x")
        with pytest.raises(ExchangeError, match="--out: .*a-file is a file, not a folder"):
            export_run(store, run_id, "csv", a_file)
        with pytest.raises(ExchangeError, match="--out: cannot create"):
            export_run(store, run_id, "csv", a_file / "sub")
        # An earlier export in the folder, then a new one fails: the earlier files stay.
        earlier = tmp_path / "earlier"
        before = {p.name: p.read_bytes() for p in export_run(store, run_id, "csv", earlier)}
        # The disk fills while the second file is renamed: neither file, nor a temp, is left.
        real_replace, calls = os.replace, []

        def failing_replace(src, dst):
            calls.append(dst)
            if len(calls) == 2:
                raise OSError(28, "No space left on device")
            return real_replace(src, dst)

        monkeypatch.setattr(os, "replace", failing_replace)
        with pytest.raises(ExchangeError, match="No space left on device"):
            export_run(store, run_id, "csv", out)
        calls.clear()
        with pytest.raises(ExchangeError, match="No space left on device"):
            export_run(store, run_id, "csv", earlier)
        monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in earlier.iterdir()} == before
    assert not out.exists()  # made for the export, removed with it: nothing is left
    with Store.open(tmp_path / "other.db") as store:
        with pytest.raises(ExchangeError, match=r"'calibration' run; only throughput and SQL"):
            export_run(store, other_kind, "json", out)


def test_export_command_prints_files_and_bad_input_is_one_line(sweep_store, tmp_path, capsys):
    db, run_id = sweep_store
    assert main(["--db", str(db), "export", "--run", str(run_id), "--format", "json",
                 "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / f"run-{run_id}.json")
    assert main(["--db", str(db), "export", "--run", "424242", "--format", "csv",
                 "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("throughline export: --run: no run 424242") and "\n" not in err
    assert not (tmp_path / "x").exists()
