"""Imports of other tools' results: each fixture (tests/core/data/imports, shapes from the tools'
own code) becomes a run with the file's figures, missing metrics stay missing, and every bad file
is refused with one line naming it, storing nothing."""

import json
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.exchange import ExchangeError, export_run, import_file
from desktop_app.core.store import Store
from desktop_app.report.input_words import input_error_text
from tests.lang_check import english_runs
from desktop_app.core.throughput.types import CellSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "r.db") as s:
        yield s


def _load(name):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_vllm_summary_result_keeps_its_figures_and_names_what_it_lacks(store):
    doc = _load("vllm_bench_serve.json")
    run = store.get_run(import_file(store, DATA / "vllm_bench_serve.json"))
    assert run.kind == "throughput" and run.status == "completed"
    assert run.name == "vllm bench serve: vllm_bench_serve.json"
    assert run.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert run.config["source"] == "vllm-bench-serve" and run.config["detailed"] is False
    assert run.config["missing"] == ["prefill_tps", "decode_tps", "effective_prefill_tps",
                                     "effective_decode_tps"]
    (cell,) = store.cells(run.id)
    s = cell.summary
    assert (cell.concurrency, cell.request_rate) == (4, None)  # request_rate "inf": no rate
    assert cell.input_tokens is None  # the file states totals only, not each request's length
    assert s["ttft_s"]["mean"] == pytest.approx(doc["mean_ttft_ms"] / 1000)
    assert s["ttft_s"]["p50"] == pytest.approx(doc["median_ttft_ms"] / 1000)
    assert s["tpot_s"]["p99"] == pytest.approx(doc["p99_tpot_ms"] / 1000)
    assert s["e2e_s"]["mean"] == pytest.approx(doc["mean_e2el_ms"] / 1000)
    assert s["ttft_s"]["p90"] is None and s["ttft_s"]["min"] is None  # not in the file
    assert s["prefill_tps"] is None and s["decode_tps"] is None
    assert s["output_tps"] == doc["output_throughput"] and s["wall_s"] == doc["duration"]
    assert (s["count"], s["ok"], s["completion_tokens"]) == (16, 16, 2048)
    assert store.count_requests(run.id) == 0


def test_vllm_detailed_result_is_recomputed_and_agrees_with_vllm(store):
    doc = _load("vllm_bench_serve_detailed.json")
    run_id = import_file(store, DATA / "vllm_bench_serve_detailed.json")
    (cell,) = store.cells(run_id)
    s = cell.summary
    # Our definitions on vLLM's per-request data give vLLM's own aggregates.
    for ours, vllm in (("ttft_s", "ttft"), ("tpot_s", "tpot"), ("itl_s", "itl"),
                       ("e2e_s", "e2el")):
        assert s[ours]["mean"] == pytest.approx(doc[f"mean_{vllm}_ms"] / 1000, rel=1e-6)
        assert s[ours]["p99"] == pytest.approx(doc[f"p99_{vllm}_ms"] / 1000, rel=1e-6)
    assert s["decode_tps"]["mean"] > 0 and s["prefill_tps"]["mean"] > 0
    assert s["effective_decode_tps"] is not None  # start_times give the overlap
    assert (s["count"], s["ok"], s["failures_by_class"]) == (6, 5, {"vllm_error": 1})
    assert (cell.input_tokens, cell.output_tokens, cell.concurrency) == (1024, 128, 2)
    assert store.get_run(run_id).config["missing"] == []
    rows = store.requests(run_id)
    assert len(rows) == 6 and rows[5]["error_class"] == "vllm_error"
    assert "ServerDisconnectedError" in rows[5]["error_message"]
    assert rows[0]["itl_s"] == pytest.approx(doc["itls"][0])


def test_a_vllm_run_where_every_request_failed_has_its_nan_means_missing(store, tmp_path):
    doc = _load("vllm_bench_serve.json")
    doc.update(completed=0, failed=16, total_output_tokens=0, output_throughput=0.0)
    for key in [k for k in doc if k.endswith("_ms")]:
        doc[key] = float("nan")  # what numpy gives vLLM for the mean of no values
    run = store.get_run(import_file(store, _write(tmp_path, "dead.json", json.dumps(doc))))
    s = store.cells(run.id)[0].summary
    assert s["ttft_s"] is None and s["e2e_s"] is None and "ttft_s" in run.config["missing"]
    assert (s["count"], s["ok"], s["failures_by_class"]) == (16, 0, {"vllm_error": 16})


def test_vllm_appended_results_become_one_cell_each(store):
    run_id = import_file(store, DATA / "vllm_bench_serve_append.jsonl")
    assert [c.concurrency for c in store.cells(run_id)] == [1, 4]


def test_aiperf_json_maps_its_metrics_onto_ours(store):
    doc = _load("profile_export_aiperf.json")
    run = store.get_run(import_file(store, DATA / "profile_export_aiperf.json"))
    assert run.config["source"] == "aiperf" and run.config["aiperf_version"] == "0.3.0"
    assert (run.model, run.endpoint_url) == ("meta-llama/Llama-3.1-8B-Instruct",
                                             "http://localhost:8000")
    (cell,) = store.cells(run.id)
    s = cell.summary
    assert (cell.concurrency, cell.input_tokens, cell.output_tokens) == (8, 1024, 128)
    assert s["ttft_s"]["p90"] == pytest.approx(doc["time_to_first_token"]["p90"] / 1000)
    # AIPerf's inter_token_latency is (latency - TTFT) / (OSL - 1): our TPOT, not our ITL.
    assert s["tpot_s"]["mean"] == pytest.approx(doc["inter_token_latency"]["avg"] / 1000)
    assert s["itl_s"]["max"] == pytest.approx(doc["inter_chunk_latency"]["max"] / 1000)
    assert s["decode_tps"]["mean"] == doc["output_token_throughput_per_user"]["avg"]
    assert (s["count"], s["ok"], s["failures_by_class"]) == (66, 64, {"error": 2})
    assert s["wall_s"] == 16.36 and s["output_tps"] == 500.74
    assert run.config["missing"] == ["prefill_tps", "effective_prefill_tps",
                                     "effective_decode_tps"]


def test_credentials_in_an_aiperf_command_line_are_not_stored(store, tmp_path):
    doc = _load("profile_export_aiperf.json")
    doc["input_config"]["cli_command"] += (' -H "Authorization: Bearer sk-live-123456"'
                                           " --api-key sk-other-987654")
    run = store.get_run(import_file(store, _write(tmp_path, "k.json", json.dumps(doc))))
    stored = json.dumps(run.config)
    assert "sk-live-123456" not in stored and "sk-other-987654" not in stored
    assert "--concurrency 8" in run.config["cli_command"]


def test_aiperf_csv_agrees_with_its_json_to_the_csv_rounding(store):
    from_json = store.cells(import_file(store, DATA / "profile_export_aiperf.json"))[0].summary
    run = store.get_run(import_file(store, DATA / "profile_export_aiperf.csv"))
    from_csv = store.cells(run.id)[0].summary
    assert run.model is None and run.config["format"] == "csv"
    for metric in ("ttft_s", "tpot_s", "e2e_s", "itl_s", "decode_tps"):
        for stat in ("mean", "p50", "p90", "p99", "min", "max"):
            assert from_csv[metric][stat] == pytest.approx(from_json[metric][stat], abs=1e-2)
    assert (from_csv["count"], from_csv["ok"]) == (66, 64)
    assert from_csv["prompt_tokens"] == 65536 and from_csv["completion_tokens"] == 8192
    # The CSV says nothing of the load: it stays unknown, and tables say so instead of failing.
    cell = store.cells(run.id)[0]
    assert (cell.concurrency, cell.request_rate) == (None, None)
    assert CellSpec(1024, 128, 0).label == "1024 in / 128 out / load unknown"


def test_aiperf_csv_metric_name_broken_over_lines_reads_as_one(store, tmp_path):
    # A spreadsheet saves a wrapped cell as a quoted value with a line break in it; before, the
    # name failed to parse and the whole file was refused with a TypeError.
    text = (DATA / "profile_export_aiperf.csv").read_text(encoding="utf-8")
    wrapped = text.replace("Time to First Token (ms),", '"Time to\nFirst  Token (ms)",', 1)
    assert wrapped != text
    plain = store.cells(import_file(store, DATA / "profile_export_aiperf.csv"))[0].summary
    broken = store.cells(import_file(store, _write(tmp_path, "w.csv", wrapped)))[0].summary
    assert broken["ttft_s"] == plain["ttft_s"]


def test_aiperf_prefill_per_user_is_our_prefill_rate(store, tmp_path):
    doc = _load("profile_export_aiperf.json")
    doc["prefill_throughput_per_user"] = {"unit": "tokens/sec/user", "avg": 2483.3,
                                          "p50": 2528.9, "p90": 3097.0, "min": 1702.8}
    path = _write(tmp_path, "newer.json", json.dumps(doc))
    run = store.get_run(import_file(store, path))
    prefill = store.cells(run.id)[0].summary["prefill_tps"]
    assert (prefill["mean"], prefill["p90"], prefill["p99"]) == (2483.3, 3097.0, None)
    assert "prefill_tps" not in run.config["missing"]


def test_aiperf_records_are_recomputed_and_take_the_load_from_the_summary_beside(store,
                                                                                tmp_path):
    records = [json.loads(line) for line in
               (DATA / "profile_export.jsonl").read_text(encoding="utf-8").splitlines()]
    run = store.get_run(import_file(store, DATA / "profile_export.jsonl"))
    assert run.config["config_from"] == "profile_export_aiperf.json"
    assert run.model == "meta-llama/Llama-3.1-8B-Instruct" and run.config["missing"] == []
    (cell,) = store.cells(run.id)
    assert (cell.concurrency, cell.input_tokens, cell.output_tokens) == (8, 1024, 128)
    s = cell.summary
    ok = [r for r in records if r["error"] is None]
    ttfts = [r["metrics"]["time_to_first_token"]["value"] / 1000 for r in ok]
    assert s["ttft_s"]["mean"] == pytest.approx(sum(ttfts) / len(ttfts))
    tpots = [r["metrics"]["inter_token_latency"]["value"] / 1000 for r in ok]
    assert s["tpot_s"]["max"] == pytest.approx(max(tpots), rel=1e-5)  # AIPerf's ITL = our TPOT
    assert s["decode_tps"]["mean"] == pytest.approx(sum(1 / t for t in tpots) / len(tpots),
                                                    rel=1e-5)
    assert s["itl_s"]["n"] == 127 * len(ok)  # every chunk gap
    assert (s["count"], s["ok"], s["failures_by_class"]) == (8, 7, {"InternalServerError": 1})
    rows = store.requests(run.id)
    assert len(rows) == 8 and rows[6]["error_message"] == "Server encountered an internal error"
    assert rows[0]["sent_at"] == pytest.approx(records[0]["metadata"]["request_start_ns"] / 1e9)
    # Alone, the records do not say the load or the model: both stay unknown.
    alone = _write(tmp_path, "profile_export.jsonl",
                   (DATA / "profile_export.jsonl").read_text(encoding="utf-8"))
    run = store.get_run(import_file(store, alone))
    assert run.model is None and store.cells(run.id)[0].concurrency is None


def test_a_line_separator_inside_a_json_lines_string_does_not_split_the_record(store,
                                                                                tmp_path):
    # orjson (AIPerf) writes U+2028 raw inside strings; only "\n" ends a JSON line.
    lines = (DATA / "profile_export.jsonl").read_text(encoding="utf-8").split("\n")
    lines[6] = lines[6].replace("internal error", "internal\u2028error")
    run_id = import_file(store, _write(tmp_path, "profile_export.jsonl", "\n".join(lines)))
    rows = store.requests(run_id)
    assert len(rows) == 8
    assert rows[6]["error_message"] == "Server encountered an internal\u2028error"


def test_guidellm_report_gives_one_cell_per_benchmark(store):
    doc = _load("guidellm_benchmarks.json")
    run = store.get_run(import_file(store, DATA / "guidellm_benchmarks.json"))
    assert run.config["source"] == "guidellm" and run.config["guidellm_version"] == "0.4.0"
    assert (run.model, run.endpoint_url) == ("Qwen/Qwen2.5-7B-Instruct", "http://localhost:8000")
    cells = store.cells(run.id)
    assert [c.concurrency for c in cells] == [1, 4]
    assert {(c.input_tokens, c.output_tokens) for c in cells} == {(512, 128)}
    bench = doc["benchmarks"][1]
    s = cells[1].summary
    itl = bench["metrics"]["inter_token_latency_ms"]["successful"]
    assert s["tpot_s"]["mean"] == pytest.approx(itl["mean"] / 1000)  # GuideLLM ITL = our TPOT
    assert s["tpot_s"]["p90"] == pytest.approx(itl["percentiles"]["p90"] / 1000)
    assert s["e2e_s"]["p50"] == bench["metrics"]["request_latency"]["successful"]["median"]
    assert (s["count"], s["ok"], s["failures_by_class"]) == (21, 20, {"errored": 1})
    assert s["output_tps"] == pytest.approx(20 * 128 / bench["duration"])
    assert s["decode_tps"] is None and s["itl_s"] is None and s["prefill_tps"] is None
    rows = store.requests(run.id, cells[1].id)
    assert len(rows) == 4 and run.config["requests_are_sampled"] is True
    assert rows[-1]["error_class"] == "errored" and "503" in rows[-1]["error_message"]


def test_every_imported_run_exports_with_its_missing_figures_empty(store, tmp_path):
    doc = _load("vllm_bench_serve.json")
    del doc["failed"]  # older vLLM: no count of failures, so no total either
    files = sorted(DATA.glob("*.json*")) + [DATA / "profile_export_aiperf.csv",
                                            _write(tmp_path, "old.json", json.dumps(doc))]
    for path in files:
        run_id = import_file(store, path)
        cells_csv, _ = export_run(store, run_id, "csv", tmp_path / str(run_id))
        (json_file,) = export_run(store, run_id, "json", tmp_path / str(run_id))
        exported = json.loads(json_file.read_text(encoding="utf-8"))
        assert exported["run"]["config"]["source"] in ("vllm-bench-serve", "aiperf", "guidellm")
        header, *rows = cells_csv.read_text(encoding="utf-8").splitlines()
        assert len(rows) == len(exported["cells"]) == len(store.cells(run_id))
    last = exported["cells"][0]
    assert last["requests"] is None and last["failed"] is None and last["completed"] == 16
    assert last["prefill_tok_s"] is None
    assert last["mean_ttft_ms"] == pytest.approx(doc["mean_ttft_ms"])
    row = dict(zip(header.split(","), rows[0].split(",")))
    # A cell of an exported import is itself importable (no send times: no overlap figures).
    detailed = next(r for r in store.list_runs()
                    if r.name.endswith("vllm_bench_serve_detailed.json"))
    (doc_file,) = export_run(store, detailed.id, "json", tmp_path / "again")
    cell = json.loads(doc_file.read_text(encoding="utf-8"))["cells"][0]
    back = store.cells(import_file(store, _write(tmp_path, "again.json", json.dumps(cell))))[0]
    assert back.summary["ttft_s"]["mean"] == pytest.approx(
        store.cells(detailed.id)[0].summary["ttft_s"]["mean"])
    assert back.summary["effective_decode_tps"] is None
    assert row["requests"] == "" and row["prefill_tps_mean"] == "" and row["ok"] == "16"


def _write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_bad_files_are_refused_with_their_name_and_leave_the_store_empty(store, tmp_path):
    aiperf = _load("profile_export_aiperf.json")
    aiperf.update(schema_version="2.0", aiperf_version="0.9.1")
    guide = _load("guidellm_benchmarks.json")
    guide["metadata"].update(version=2, guidellm_version="0.9.0")
    cut = (DATA / "profile_export_aiperf.json").read_text(encoding="utf-8")[:900]
    appended = (DATA / "vllm_bench_serve_append.jsonl").read_text(encoding="utf-8")
    wrong = _load("vllm_bench_serve_detailed.json")
    wrong["ttfts"][2] = "fast"
    negative = _load("vllm_bench_serve.json")
    negative["mean_ttft_ms"] = -5
    minutes = _load("profile_export_aiperf.json")
    minutes["time_to_first_token"]["unit"] = "furlongs"
    cases = [
        (_write(tmp_path, "new.json", json.dumps(aiperf)),
         r"new\.json: written by AIPerf 0\.9\.1 with export schema 2\.0; this Throughline "
         r"reads AIPerf export schema 1\.x"),
        (_write(tmp_path, "g.json", json.dumps(guide)),
         r"g\.json: written by GuideLLM 0\.9\.0 with report schema version 2"),
        (_write(tmp_path, "cut.json", cut),
         r"cut\.json: line 47: ends before the JSON is complete"),
        (_write(tmp_path, "cut.jsonl", appended[: len(appended) - 200]),
         r"cut\.jsonl: line 2: ends before the JSON is complete"),
        (_write(tmp_path, "wrong.json", json.dumps(wrong)),
         r"wrong\.json: looks like a vllm bench serve result but holds a value it should not "
         r"\(ValueError: could not convert string to float: 'fast'\)"),
        (_write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000),
         r"deep\.json: JSON nested too deeply"),
        (_write(tmp_path, "broken.json", '{"completed": 3,\n "mean_ttft_ms": ,}'),
         r"broken\.json: line 2: not valid JSON"),
        (_write(tmp_path, "latin1.csv", "Metric,avg\nDur\xe9e (s),1\n".encode("latin-1")),
         r"latin1\.csv: line 2: not UTF-8 text"),
        (_write(tmp_path, "other.json", '{"accuracy": 0.9, "model": "x"}'),
         r"other\.json: JSON with accuracy, model; not a result file of vllm bench serve, "
         "AIPerf or GuideLLM"),
        (_write(tmp_path, "notes.txt", "hello\n"), r"notes\.txt: line 1 is neither JSON"),
        (_write(tmp_path, "list.json", "[1, 2]"), r"list\.json: a JSON list; not a result"),
        (_write(tmp_path, "empty.json", "\n"), r"empty\.json: is empty"),
        (tmp_path / "missing.json", r"missing\.json: no such file"),
        (_write(tmp_path, "ours.json", '{"format": "throughline-run-export", "cells": []}'),
         r"ours\.json: is a Throughline export"),
        (_write(tmp_path, "negative.json", json.dumps(negative)),
         r"negative\.json: result 1: ttft_s mean is -0\.005, negative; the file is damaged"),
        (_write(tmp_path, "unit.json", json.dumps(minutes)),
         r"unit\.json: time_to_first_token: unit 'furlongs' is not a time unit"),
    ]
    for path, message in cases:
        with pytest.raises(ExchangeError, match=message) as caught:
            import_file(store, path)
        # The same refusal in Chinese: the file named first, no English sentence left but
        # Python's own words about the value (the wrong.json case).
        zh = input_error_text(caught.value, "zh")
        assert zh.startswith(f"{path}："), zh
        assert english_runs(zh, allowed=("could not convert string to float",)) == [], zh
    assert store.list_runs() == []


def test_import_command_stores_a_run_that_runs_lists(tmp_path, capsys):
    db = tmp_path / "cli.db"
    assert main(["import", str(DATA / "guidellm_benchmarks.json"), "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert "as run 1 (GuideLLM: guidellm_benchmarks.json; 2 cell(s))" in out
    assert "Missing from the file" in err and "decode_tps" in err
    assert main(["--db", str(db), "runs"]) == 0
    listing = capsys.readouterr().out
    assert "throughput" in listing and "Qwen/Qwen2.5-7B-Instruct" in listing
    assert "http://localhost:8000" in listing
    bad = _write(tmp_path, "x.json", "[1, 2")
    assert main(["import", str(bad), "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"throughline import: {bad}: line 1: ends before the JSON is complete " \
                  "(truncated?)"
