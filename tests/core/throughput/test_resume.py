"""A sweep killed with SIGKILL loses nothing it finished, and `resume` completes it in place."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import httpx
import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.metrics import summarize_cell
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.diagnosis import diagnose
from desktop_app.core.throughput.resume import ResumeError, plan_resume, resume_sweep
from desktop_app.core.throughput.sweep import run_sweep

MODEL = "sim/llama-sim-8b"
CHAT = "chat"  # the trace names the endpoint

# The child: a headless sweep on the simulator at argv[1] into the store at argv[2], printing
# each cell's start and each finished request ("run cell done") as it happens, until killed.
SWEEP_UNTIL_KILLED = """
import asyncio, sys
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.metrics import summarize_cell
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep

def progress(p):
    if p.run_id is not None and p.phase == "running":  # a cell's start, then each request
        print(p.run_id, p.cell_index, p.done, flush=True)

config = SweepConfig(EndpointConfig(sys.argv[1], model="sim/llama-sim-8b"), input_tokens=(128,),
                     concurrency=(2, 1, 4), output_tokens=(32,), requests_per_cell=16,
                     warmup=1, metrics_interval_s=0.1)
asyncio.run(run_sweep(config, Store.open(sys.argv[2]), progress))
print("finished", flush=True)
"""


@pytest.fixture(scope="module")
def fast_sim():
    with start_simulator("fast") as sim:
        yield sim


def _chat_trace(url: str) -> list[dict]:
    records = httpx.get(f"{url}/sim/trace", timeout=5).json()["records"]
    return [r for r in records if r["endpoint"] == CHAT]


def _kill_mid_cell(url: str, db_path) -> tuple[int, float]:
    """Run the child until cell 1 (concurrency 1, about 1.7 s) has run for 1.2 s, SIGKILL it;
    (run id, perf_counter then). Cell 0 ended over 1 s before, so all its rows must be stored."""
    with subprocess.Popen([sys.executable, "-c", SWEEP_UNTIL_KILLED, url, str(db_path)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as child:
        try:
            run_id, cell1_seen = None, None
            while True:
                line = child.stdout.readline()
                assert line and line != "finished\n", (
                    f"the sweep ended first: {child.stderr.read()}")
                run_id, cell, done = map(int, line.split())
                assert cell < 2, "cell 1 ended before the kill"
                if cell == 1:
                    cell1_seen = cell1_seen or time.perf_counter()
                    if time.perf_counter() - cell1_seen >= 1.2:
                        break
            killed_at = time.perf_counter()
            child.kill()  # SIGKILL: no finally, no atexit, no last flush
            child.wait()
        finally:
            if child.poll() is None:
                child.kill()
    return run_id, killed_at


def test_sigkill_mid_sweep_keeps_finished_requests_and_resume_completes_the_same_run(
        fast_sim, tmp_path):
    db_path = tmp_path / "results.db"
    httpx.delete(f"{fast_sim.url}/sim/trace", timeout=5)
    run_id, killed_at = _kill_mid_cell(fast_sim.url, db_path)
    # The simulator's trace shares the clock (perf_counter, CLOCK_MONOTONIC on Linux).
    finished = [r for r in _chat_trace(fast_sim.url)
                if r["end_s"] is not None and r["end_s"] < killed_at - 1.0]
    assert len(finished) >= 12  # the warm-up and most of cell 0

    with Store.open(db_path) as store:  # opening the store notices the dead owner
        run = store.get_run(run_id)
        assert run.status == "interrupted" and run.error
        assert [r.id for r in store.list_runs(status="interrupted")] == [run_id]
        before = store.requests(run_id, limit=10_000)
        assert {r["id"] for r in finished} <= {r["response_id"] for r in before}
        cells = store.cells(run_id)
        assert [c.status for c in cells] == ["completed", "running", "pending"]
        kept_rows = store.requests(run_id, cells[0].id)
        kept_summary = cells[0].summary
        cut_ids = {r["response_id"] for r in store.requests(run_id, cells[1].id)}
        assert cut_ids  # the cut cell's first requests made it to disk

        result = asyncio.run(asyncio.wait_for(
            resume_sweep(store, run_id, EndpointConfig(fast_sim.url)), 60))

        assert result.run_id == run_id and result.status == "completed"
        run = store.get_run(run_id)
        assert run.status == "completed" and run.error is None
        assert len(store.list_runs()) == 1  # the same run, no new one
        cells = store.cells(run_id)
        assert [c.status for c in cells] == ["completed"] * 3
        # The finished cell is kept as it was: same rows, same figures.
        assert store.requests(run_id, cells[0].id) == kept_rows
        changed = {"prefill_change", "decode_change"}
        assert ({k: v for k, v in cells[0].summary.items() if k not in changed}
                == {k: v for k, v in kept_summary.items() if k not in changed})
        # The cut cell ran again from scratch: its partial requests are gone, it counts 16.
        again = store.requests(run_id, cells[1].id)
        assert len(again) == 16 and not cut_ids & {r["response_id"] for r in again}
        assert cells[1].summary["count"] == 16 and cells[2].summary["count"] == 16
        assert len(store.requests(run_id, cells[2].id)) == 16
        # The kept cell's change against concurrency 1 could not be known before the crash
        # (that cell had not finished); the resume computed it, and the diagnosis.
        assert kept_summary["decode_change"] is None
        assert cells[0].summary["decode_change"] is not None
        assert cells[1].summary["decode_change"] == 0.0
        # Every measured request, kept and new, is in the result, and so is the diagnosis
        # over all three cells.
        assert sorted((r.cell, r.index) for r in result.requests) == sorted(
            (c, i) for c in range(3) for i in range(16))
        assert [c.summary.count for c in result.cells] == [16, 16, 16]
        # The kept cell's timings, rebuilt from its rows for the diagnosis, give its figures.
        rebuilt = summarize_cell(result.cells[0].timings)
        for name in ("ttft_s", "e2e_s", "decode_tps", "itl_s"):
            assert getattr(rebuilt, name).mean == pytest.approx(kept_summary[name]["mean"])
        assert rebuilt.wall_s == pytest.approx(kept_summary["wall_s"])
        assert ([f.code for f in result.findings]
                == [f.code for f in diagnose(result.cells, result.info)])
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

        with pytest.raises(ResumeError, match="nothing to resume"):
            asyncio.run(resume_sweep(store, run_id, EndpointConfig(fast_sim.url)))


# --------------------------------------------------------------------------- the command


@pytest.fixture(scope="module")
def instant_sim():
    with start_simulator("instant") as sim:
        yield sim


def _sweep(url: str, db_path, **kw) -> int:
    config = SweepConfig(EndpointConfig(url, model=MODEL), input_tokens=(64,),
                         concurrency=(1, 2), output_tokens=(8,), requests_per_cell=6, warmup=1,
                         metrics_interval_s=0.1, **kw)
    with Store.open(db_path) as store:
        return asyncio.run(run_sweep(config, store)).run_id


def _crash(db_path, run_id: int) -> None:
    """Leave the store as a crash in the run's last cell does: the run owned by a dead
    process, the cell running with half its requests and no summary."""
    with Store.open(db_path) as store:
        last = store.cells(run_id)[-1]
        rows = store.requests(run_id, last.id)
        db = store.db
        with db.atomic():
            db.execute("DELETE FROM tp_requests WHERE id IN (%s)"
                       % ",".join(str(r["id"]) for r in rows[: len(rows) // 2]))
            db.execute("UPDATE tp_cells SET status = 'running', summary_json = NULL, "
                       "ended_at = NULL WHERE id = ?", (last.id,))
            db.execute("UPDATE runs SET status = 'running', pid = 0 WHERE id = ?", (run_id,))


def test_resume_command_finishes_a_crashed_run_and_writes_json(instant_sim, tmp_path, capsys):
    db_path = tmp_path / "r.db"
    run_id = _sweep(instant_sim.url, db_path)
    _crash(db_path, run_id)
    out_json = tmp_path / "out.json"
    code = main(["--db", str(db_path), "resume", str(run_id), "--base-url", instant_sim.url,
                 "--json", str(out_json)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"Run {run_id} resumed and completed" in out and "Diagnosis" in out
    with Store.open(db_path) as store:
        assert store.get_run(run_id).status == "completed"
        cells = store.cells(run_id)
        assert [c.summary["count"] for c in cells] == [6, 6]
        assert store.count_requests(run_id) == 12 + 2  # two warm-ups: the first run's, resume's
    assert out_json.read_text().count('"response_id"') == 12


def test_resume_with_the_stored_url_when_no_endpoint_is_given(instant_sim, tmp_path, capsys):
    db_path = tmp_path / "r.db"
    run_id = _sweep(instant_sim.url, db_path)
    _crash(db_path, run_id)
    assert main(["--db", str(db_path), "resume", str(run_id)]) == 0
    assert "resumed and completed" in capsys.readouterr().out


def test_resume_of_a_crashed_run_whose_simulator_is_gone_asks_for_one(tmp_path, capsys):
    db_path = tmp_path / "r.db"
    with start_simulator("instant") as sim:
        run_id = _sweep(sim.url, db_path)
    _crash(db_path, run_id)
    assert main(["--db", str(db_path), "resume", str(run_id)]) == 2
    err = capsys.readouterr().err
    assert "give --simulator PROFILE" in err and len(err.strip().splitlines()) == 1
    with Store.open(db_path) as store:
        assert store.get_run(run_id).status == "interrupted"  # untouched


def _one_line_error(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    return err


def test_runs_that_cannot_be_resumed_say_why(instant_sim, tmp_path, capsys):
    db_path = tmp_path / "r.db"
    done = _sweep(instant_sim.url, db_path)
    db = str(db_path)
    assert "no run 999" in _one_line_error(capsys, "--db", db, "resume", "999")
    assert "nothing to resume" in _one_line_error(capsys, "--db", db, "resume", str(done))
    with Store.open(db_path) as store:
        sql = store.create_run("sql", name="an evaluation")
        store.finish_run(sql, "interrupted")
        live = store.create_run("throughput", name="still going")  # this process: alive
    assert "throughput sweeps" in _one_line_error(capsys, "--db", db, "resume", str(sql))
    err = _one_line_error(capsys, "--db", db, "resume", str(live))
    assert "still running" in err
    err = _one_line_error(capsys, "--db", db, "resume", str(done), "--base-url",
                          instant_sim.url, "--simulator", "fast")
    assert "not both" in err


def test_a_completed_cell_missing_committed_rows_runs_again(instant_sim, tmp_path):
    # Killed between a cell's end and the writer's last commit: its count is short, so it is
    # not kept; cells with every row are.
    db_path = tmp_path / "r.db"
    run_id = _sweep(instant_sim.url, db_path)
    with Store.open(db_path) as store:
        first, last = store.cells(run_id)
        store.db.execute("DELETE FROM tp_requests WHERE id = ?",
                         (store.requests(run_id, last.id)[0]["id"],))
        store.finish_run(run_id, "interrupted")
        _config, plan = plan_resume(store, run_id, EndpointConfig(instant_sim.url))
        assert sorted(plan.kept) == [0]
        result = asyncio.run(resume_sweep(store, run_id, EndpointConfig(instant_sim.url)))
        assert result.status == "completed"
        assert len(store.requests(run_id, last.id)) == 6


def test_a_cancelled_run_resumes_and_a_different_engine_is_refused(instant_sim, tmp_path):
    db_path = tmp_path / "r.db"
    run_id = _sweep(instant_sim.url, db_path)
    with Store.open(db_path) as store:
        store.finish_run(run_id, "cancelled")
        store.db.execute("UPDATE runs SET engine = 'sglang' WHERE id = ?", (run_id,))
        with pytest.raises(ResumeError, match="measured a sglang endpoint"):
            asyncio.run(resume_sweep(store, run_id, EndpointConfig(instant_sim.url)))
        assert store.get_run(run_id).status == "cancelled"  # refused before touching it
        store.db.execute("UPDATE runs SET engine = 'simulated vllm' WHERE id = ?", (run_id,))
        # Every cell finished: nothing runs again, the diagnosis is recomputed, run completed.
        result = asyncio.run(resume_sweep(store, run_id, EndpointConfig(instant_sim.url)))
        assert result.status == "completed" and len(result.requests) == 12
        assert store.count_requests(run_id) == 13  # no new warm-up: nothing was sent


def test_a_cancelled_resume_can_be_resumed_again(fast_sim, tmp_path):
    db_path = tmp_path / "r.db"
    run_id = _sweep(fast_sim.url, db_path)
    _crash(db_path, run_id)

    async def resume_then_cancel(store):
        started = asyncio.Event()

        def on_progress(p):
            if p.phase == "running" and p.done >= 2:
                started.set()

        task = asyncio.create_task(
            resume_sweep(store, run_id, EndpointConfig(fast_sim.url), on_progress))
        await asyncio.wait_for(started.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with Store.open(db_path) as store:
        asyncio.run(resume_then_cancel(store))
        assert store.get_run(run_id).status == "cancelled"
        assert store.cells(run_id)[-1].status == "cancelled"
        result = asyncio.run(resume_sweep(store, run_id, EndpointConfig(fast_sim.url)))
        assert result.status == "completed"
        assert [c.summary["count"] for c in store.cells(run_id)] == [6, 6]
        assert len(store.requests(run_id, store.cells(run_id)[-1].id)) == 6


def test_a_resumed_runs_eta_counts_only_this_process_time():
    from desktop_app.core.throughput.sweep import _Run

    config = SweepConfig(EndpointConfig("http://x", model="m"), input_tokens=(128,),
                         concurrency=(1,), output_tokens=(8,), requests_per_cell=10, warmup=0)
    run = _Run(config, None, None)
    run.restart_clock(time.time() - 3600)  # the run started an hour ago, then was killed
    assert run.elapsed() > 3599  # cells stay on the run's own clock
    run.run_done = 1
    eta = run.eta()
    assert eta is not None and eta < 60  # not 9 hours: 1 of 10 done in a moment
