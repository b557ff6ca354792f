"""The throughput sweep end to end against the simulated endpoint (a process of its own)."""

import asyncio
import json
from collections import Counter

import httpx
import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.export import sweep_to_json
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.report.diagnosis_words import finding_text


@pytest.fixture(scope="module")
def fast_sim():
    with start_simulator("fast") as sim:
        yield sim


def _config(url, **kw):
    base = dict(endpoint=EndpointConfig(url, model="sim/llama-sim-8b"), input_tokens=(256, 1024),
                concurrency=(1, 2), output_tokens=(16,), requests_per_cell=4, warmup=1,
                metrics_interval_s=0.1)
    base.update(kw)
    return SweepConfig(**base)


def _trace(url):
    return httpx.get(f"{url}/sim/trace", timeout=5).json()


@pytest.mark.asyncio
async def test_a_sweep_stores_every_request_and_exports_what_it_measured(fast_sim, tmp_path):
    httpx.delete(f"{fast_sim.url}/sim/trace", timeout=5)
    seen = []
    with Store.open(tmp_path / "r.db") as store:
        result = await asyncio.wait_for(
            run_sweep(_config(fast_sim.url), store, seen.append), 60)
        run = store.get_run(result.run_id)
        assert run.status == "completed" and run.kind == "throughput"
        assert "simulated" in run.engine
        cells = store.cells(result.run_id)
        assert [c.status for c in cells] == ["completed"] * 4
        assert all(c.summary["ttft_s"]["mean"] > 0 for c in cells)
        assert store.count_requests(result.run_id) == 4 * 4 + 1  # plus the warm-up
        rows = store.requests(result.run_id, cells[0].id)
        assert len(rows) == 4 and not any(r["warmup"] for r in rows)
    # Token-exact prompts, checked against what the server counted.
    assert {r.prompt_tokens for r in result.requests if r.prompt_tokens_target == 1024} == {1024}
    assert all(r.completion_tokens == 16 for r in result.requests)
    # Every response id the client recorded is one the server handed out.
    trace_ids = {t["id"] for t in _trace(fast_sim.url)["records"]}
    assert {r.response_id for r in result.requests} <= trace_ids
    # Progress went through every phase and counted up to the last request.
    assert [p.phase for p in seen][:2] == ["discovering", "prompts"]
    assert seen[-1].phase == "diagnosing" and seen[-1].run_done == seen[-1].run_total == 17
    doc = json.loads(json.dumps(sweep_to_json(result)))
    cell = doc["cells"][1]
    assert (cell["input_tokens"], cell["concurrency"], cell["output_tokens"]) == (256, 2, 16)
    for key in ("ttft_s", "prefill_tok_s", "decode_tok_s", "tpot_s", "itl_s", "e2e_s"):
        assert set(cell[key]) >= {"mean", "p50", "p90", "p99"}
    assert cell["output_tok_s"] > 0 and doc["server_metrics"]
    assert {"cell", "response_id", "prompt_tokens", "completion_tokens", "ttft_s", "e2e_s",
            "error"} <= set(doc["requests"][0])


@pytest.mark.asyncio
async def test_cancelling_a_sweep_leaves_the_store_consistent(fast_sim, tmp_path):
    finished = asyncio.Event()

    def on_progress(p):
        if p.phase == "running" and p.run_done >= 6:
            finished.set()

    config = _config(fast_sim.url, input_tokens=(512,), concurrency=(2, 4), requests_per_cell=40)
    with Store.open(tmp_path / "r.db") as store:
        task = asyncio.ensure_future(run_sweep(config, store, on_progress))
        await asyncio.wait_for(finished.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        runs = store.list_runs()
        assert runs[0].status == "cancelled"
        cells = store.cells(runs[0].id)
        assert cells[0].status == "cancelled" and cells[1].status == "pending"
        stored = store.count_requests(runs[0].id)
    assert 6 <= stored < 1 + 40 + 40


@pytest.mark.asyncio
async def test_open_loop_cells_send_at_the_requested_rate(fast_sim):
    config = _config(fast_sim.url, input_tokens=(128,), request_rates=(40.0,),
                     requests_per_cell=20, warmup=0)
    result = await asyncio.wait_for(run_sweep(config), 30)
    cell = result.cells[0]
    assert cell.spec.request_rate == 40.0 and cell.summary.ok == 20
    sent = sorted(t.sent_s for t in cell.timings)
    assert 0.2 < sent[-1] - sent[0] < 1.5  # 19 gaps of 1/40 s on average


@pytest.mark.asyncio
async def test_goodput_is_the_share_of_requests_meeting_the_targets(fast_sim):
    easy = _config(fast_sim.url, input_tokens=(128,), concurrency=(2,), warmup=0,
                   ttft_target_s=30.0, tpot_target_s=30.0)
    hard = _config(fast_sim.url, input_tokens=(128,), concurrency=(2,), warmup=0,
                   ttft_target_s=1e-6)
    assert (await asyncio.wait_for(run_sweep(easy), 30)).cells[0].goodput == 1.0
    assert (await asyncio.wait_for(run_sweep(hard), 30)).cells[0].goodput == 0.0
    assert (await asyncio.wait_for(run_sweep(_config(fast_sim.url, input_tokens=(128,),
                                                     concurrency=(1,), warmup=0)), 30)
            ).cells[0].goodput is None


@pytest.mark.asyncio
async def test_injected_faults_are_counted_by_class_exactly():
    with start_simulator("fast", faults="reset=0.15,http500=0.1,seed=11") as sim:
        config = _config(sim.url, input_tokens=(256,), concurrency=(4,), requests_per_cell=40,
                         warmup=0)
        result = await asyncio.wait_for(run_sweep(config), 60)
        injected = Counter(t["fault"] for t in _trace(sim.url)["records"] if t["fault"])
    summary = result.cells[0].summary
    assert injected["reset"] > 0 and injected["http500"] > 0
    assert summary.failures_by_class == {"stream_cut": injected["reset"],
                                         "http_status": injected["http500"]}
    assert summary.ok == 40 - injected["reset"] - injected["http500"]


@pytest.mark.asyncio
async def test_seed_reference_in_real_time_names_the_cap_of_two():
    """The issue's acceptance: short prompts against seed-reference (max_num_seqs=2)."""
    with start_simulator("seed-reference") as sim:
        config = SweepConfig(
            endpoint=EndpointConfig(sim.url, model="sim/reference-large"), input_tokens=(128,),
            concurrency=(6,), output_tokens=(16,), requests_per_cell=6, warmup=0,
            metrics_interval_s=0.1)
        result = await asyncio.wait_for(run_sweep(config), 90)
    cap = [f for f in result.findings if f.code == "concurrency_cap"]
    assert cap, [f.code for f in result.findings]
    words = finding_text(cap[0], "en")
    assert "at most 2 requests at once" in words
    assert "vllm:num_requests_running" in words


@pytest.mark.parametrize("args, expected", [
    (["--simulator", "fast", "--input-tokens", "512", "--concurrency", "0"], "--concurrency: '0'"),
    (["--simulator", "no-such-profile", "--input-tokens", "512"], "no-such-profile"),
    (["--base-url", "http://127.0.0.1:9", "--input-tokens", "512"], "127.0.0.1:9"),
    (["--base-url", "ftp://x", "--input-tokens", "512"], "--base-url"),
    (["--simulator", "fast"], "--input-tokens"),
    (["--simulator", "fast", "--model", "gpt-9", "--input-tokens", "64"], "model: 'gpt-9' is not served"),
])
def test_bad_input_stops_before_the_sweep_with_one_line(capsys, tmp_path, args, expected):
    assert main(["--db", str(tmp_path / "r.db"), "throughput", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert expected in err[-1], err
    assert not (tmp_path / "r.db").exists() or not Store.open(tmp_path / "r.db").list_runs()


def test_a_sweep_from_a_config_file_prints_the_table_and_writes_json(tmp_path, capsys):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text("input_tokens = [256]\nconcurrency = [1, 2]\noutput_tokens = [8]\n"
                     "requests_per_cell = 3\nwarmup = 0\n")
    out = tmp_path / "out.json"
    assert main(["--db", str(tmp_path / "r.db"), "throughput", "--simulator", "fast",
                 "--config", str(sweep), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Prefill tok/s" in printed and "Diagnosis" in printed
    doc = json.loads(out.read_text())
    assert [c["concurrency"] for c in doc["cells"]] == [1, 2] and doc["simulated"] is True
    assert len(doc["requests"]) == 6
    with Store.open(tmp_path / "r.db") as store:
        assert store.get_run(doc["run_id"]).status == "completed"
