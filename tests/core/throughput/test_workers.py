"""Worker processes (`throughput.workers`): one clock across processes, a cell spread over
workers recorded as one run, the busiest worker's load flagging the cell, cancellation; and
which path the sweep streams on, and the CLI's --workers / --http-client."""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import time

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.checks import unreliable_cells
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.core.throughput.types import ClientLoad
from desktop_app.core.throughput.workers import WorkerPool, merge_loads, plan_shares, split

MODEL = "sim/llama-sim-8b"


def _echo_stamps(conn) -> None:
    while True:
        msg = conn.recv()
        if msg is None:
            return
        conn.send((time.perf_counter_ns(), time.monotonic_ns()))


def test_perf_counter_is_one_clock_across_processes():
    """A ping-pong with a spawned process: the child's stamp of each message falls between
    the parent's stamps of sending it and of receiving the answer, on both clocks."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    process = ctx.Process(target=_echo_stamps, args=(child,), daemon=True)
    process.start()
    try:
        for _ in range(50):
            before = (time.perf_counter_ns(), time.monotonic_ns())
            parent.send("ping")
            theirs = parent.recv()
            after = (time.perf_counter_ns(), time.monotonic_ns())
            for clock in (0, 1):
                assert before[clock] <= theirs[clock] <= after[clock]
        parent.send(None)
    finally:
        process.join(10)
        if process.is_alive():
            process.kill()


def test_shares_and_the_busiest_worker():
    assert split(64, 3) == [22, 21, 21] and split(2, 4) == [1, 1, 0, 0]
    calm = ClientLoad(0.1, 1.0, 2.0, 20.0, 100)
    busy = ClientLoad(3.0, 40.0, 90.0, 97.0, 100)
    merged = merge_loads([calm, None, busy])
    assert (merged.loop_lag_p99_ms, merged.loop_lag_max_ms, merged.cpu_percent) == (40.0, 90.0,
                                                                                    97.0)
    assert merged.samples == 200 and merge_loads([None]) is None


def test_a_cell_is_shared_out_whole_and_at_its_load():
    """What the process workers and the Ray actors are each given: every request once, the
    concurrency or the rate split, each its own arrival seed."""
    items = [(i, {}) for i in range(11)]
    closed = plan_shares(items, 2, concurrency=5, rate_per_s=None, seed=3, deadline=9.5)
    assert [s.concurrency for s in closed] == [3, 2]
    assert sorted(i for s in closed for i, _ in s.items) == list(range(11))
    assert all(s.deadline == 9.5 for s in closed)
    opened = plan_shares(items, 4, concurrency=None, rate_per_s=8.0, seed=3, deadline=None)
    assert [s.rate_per_s for s in opened] == [2.0] * 4
    assert [len(s.items) for s in opened] == [3, 3, 3, 2]
    assert len({s.seed for s in opened}) == 4
    # A cell smaller than the pool uses fewer workers, never an empty share.
    assert len(plan_shares(items[:1], 4, concurrency=4, rate_per_s=None, seed=0,
                           deadline=None)) == 1


@pytest.fixture(scope="module")
def sim():
    with start_simulator("fast") as server:
        yield server


@pytest.mark.asyncio
async def test_worker_stamps_line_up_with_the_servers_trace(sim):
    """Requests sent by two workers: the server's arrival stamp (its own process) falls
    between the worker's stamps of sending and of the answer's headers."""
    config = EndpointConfig(sim.url, model=MODEL)
    httpx.delete(f"{sim.url}/sim/trace", timeout=5)
    body = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    pool = WorkerPool(2, config)
    results = {}
    try:
        await pool.start()
        sent = await pool.run_cell([(i, body) for i in range(12)], concurrency=4,
                                   rate_per_s=None, seed=0, deadline=None,
                                   on_result=lambda i, res: results.setdefault(i, res))
    finally:
        await pool.close()
    assert sent == 12 and sorted(results) == list(range(12))
    assert len(pool.loads) == 2 and all(load is not None for load in pool.loads)
    trace = {r["id"]: r for r in httpx.get(f"{sim.url}/sim/trace", timeout=5).json()["records"]}
    for res in results.values():
        assert res.error_class is None
        server = trace[res.response_id]
        # Causal order across processes: sent (worker) -> arrived (server) -> answer headers
        # in (worker). The server's first_token_s is its engine step's planned end, not a write.
        assert res.sent_ns / 1e9 <= server["arrival_s"] <= res.first_byte_ns / 1e9


@pytest.mark.asyncio
async def test_a_sweep_on_workers_is_one_stored_run(sim, tmp_path):
    store = Store.open(tmp_path / "r.db")
    config = SweepConfig(EndpointConfig(sim.url, model=MODEL), input_tokens=(64,),
                         output_tokens=(8,), concurrency=(1, 4), request_rates=(),
                         requests_per_cell=10, warmup=1, workers=2)
    try:
        result = await asyncio.wait_for(run_sweep(config, store), 120)
        from desktop_app.core.throughput.records import load_sweep

        stored = load_sweep(store, result.run_id)
    finally:
        store.close()
    assert [c.summary.ok for c in result.cells] == [10, 10]
    for cell in (0, 1):
        assert sorted(r.index for r in result.requests if r.cell == cell) == list(range(10))
    assert all(c.client_load is not None for c in result.cells)
    assert [c.requests for c in stored.cells] == [10, 10]
    assert [len(c.result.timings) for c in stored.cells] == [10, 10]
    # A worker that was overloaded flags its cell as today's check does.
    busy = ClientLoad(5.0, 80.0, 200.0, 99.0, 50)
    cells = [dataclasses.replace(c, client_load=merge_loads([c.client_load, busy]))
             if i == 1 else c for i, c in enumerate(result.cells)]
    assert 1 in unreliable_cells(cells)


@pytest.mark.asyncio
async def test_cancelling_a_sweep_on_workers_stops_them(sim):
    config = SweepConfig(EndpointConfig(sim.url, model=MODEL), input_tokens=(64,),
                         output_tokens=(512,), concurrency=(4,), requests_per_cell=400,
                         warmup=0, workers=2)
    seen = []
    task = asyncio.create_task(run_sweep(config, on_progress=seen.append))
    for _ in range(600):
        await asyncio.sleep(0.05)
        if any(p.phase == "running" and p.done for p in seen):
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    children = multiprocessing.active_children()
    assert not [p for p in children if p.name == "throughline-worker"]


@pytest.mark.asyncio
async def test_the_sweep_streams_on_the_lean_path_unless_told_or_proxied(sim, monkeypatch):
    from desktop_app.core.throughput import sweep as sweep_module

    used = []
    for name in ("stream_request", "stream_request_lean"):
        real = getattr(sweep_module, name)

        def counting(*args, _real=real, _name=name, **kwargs):
            used.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(sweep_module, name, counting)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy",
                 "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)

    async def sweep(**kw) -> set:
        used.clear()
        config = SweepConfig(EndpointConfig(sim.url, model=MODEL), input_tokens=(64,),
                             output_tokens=(4,), concurrency=(2,), requests_per_cell=2,
                             warmup=1, scrape_metrics=False, **kw)
        result = await asyncio.wait_for(run_sweep(config), 60)
        assert result.cells[0].summary.ok == 2
        return set(used)

    assert await sweep() == {"stream_request_lean"}
    assert await sweep(http_client="httpx") == {"stream_request"}
    # When a proxy applies to the endpoint `lean_supported` says no (test_lean_client checks
    # that with HTTP_PROXY set) and the sweep takes the httpx path, which honours the proxy.
    monkeypatch.setattr(sweep_module, "lean_supported", lambda endpoint: False)
    assert await sweep() == {"stream_request"}


def test_the_cli_passes_workers_and_the_http_client(tmp_path):
    import argparse

    from desktop_app.cli.throughput import add_parser, build_config
    from desktop_app.core.parsing import InputError
    from desktop_app.core.throughput.workers import default_workers

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    base = ["throughput", "--input-tokens", "64"]
    config, _ = build_config(parser.parse_args(base), "http://h:1", "m")
    assert (config.http_client, config.workers) == ("lean", default_workers())
    args = parser.parse_args([*base, "--workers", "3", "--http-client", "httpx"])
    config, _ = build_config(args, "http://h:1", "m")
    assert (config.http_client, config.workers) == ("httpx", 3)
    toml = tmp_path / "s.toml"
    toml.write_text('input_tokens = [64]\nworkers = 2\nhttp_client = "httpx"\n')
    config, _ = build_config(parser.parse_args(["throughput", "--config", str(toml)]),
                             "http://h:1", "m")
    assert (config.http_client, config.workers) == ("httpx", 2)
    with pytest.raises(InputError):
        build_config(parser.parse_args([*base, "--workers", "0"]), "http://h:1", "m")


@pytest.mark.asyncio
async def test_a_daemon_process_streams_in_process(sim, monkeypatch):
    """The app's sweep process is a daemon and may not start workers: a run stored with
    workers > 1 (resumed there) streams in that process instead of failing."""
    import multiprocessing
    from types import SimpleNamespace

    from desktop_app.core.throughput import workers as workers_module

    monkeypatch.setattr(multiprocessing, "current_process",
                        lambda: SimpleNamespace(daemon=True, name="daemon"))

    def no_pool(*args, **kwargs):
        raise AssertionError("no worker pool in a daemon process")

    monkeypatch.setattr(workers_module, "WorkerPool", no_pool)
    config = SweepConfig(EndpointConfig(sim.url, model=MODEL), input_tokens=(64,),
                         output_tokens=(4,), concurrency=(2,), requests_per_cell=2, warmup=0,
                         scrape_metrics=False, workers=3)
    result = await asyncio.wait_for(run_sweep(config), 60)
    assert result.cells[0].summary.ok == 2
