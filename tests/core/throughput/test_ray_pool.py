"""Ray actors as load generators (`throughput.ray_pool`): the clock-offset estimate, stamps put on
this process's clock, the `ray` option (config, sweep file, CLI, resume), the error when Ray is
not installed; and, where Ray is installed, sweeps run on a local Ray instance of this machine,
one of them from actors whose clock is set 5 s ahead. Ray is optional: those tests are skipped
without it, the others run everywhere."""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig, StreamResult
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig, load_sweep_toml
from desktop_app.core.throughput.ray_pool import (
    CLOCKS_KEY,
    RayPool,
    StreamActor,
    default_actors,
    estimate_offset,
    on_local_clock,
)
from desktop_app.core.throughput.records import iter_request_rows, load_sweep
from desktop_app.core.throughput.resume import sweep_config_from_json
from desktop_app.core.throughput.sweep import run_sweep

MODEL = "sim/llama-sim-8b"
SKEW_NS = 5_000_000_000  # the skewed actors' clock: 5 s ahead of this process's


# --- without Ray ------------------------------------------------------------------------------

def test_the_offset_of_a_remote_clock_from_asymmetric_round_trips():
    """A remote clock 3.2 s ahead, reached over links whose two directions differ: the estimate
    comes from the shortest round trip and is off by no more than the uncertainty it states."""
    offset = 3_200_000_000
    samples = []
    t = 1_000_000_000
    for there, back in [(900_000, 100_000), (40_000, 260_000), (2_000_000, 5_000_000),
                        (150_000, 150_000)]:
        samples.append((t, t + there + offset, t + there + back))
        t += 10_000_000
    samples.append((t, t + offset, t - 1))  # t1 before t0: not a round trip, ignored
    est = estimate_offset(samples)
    assert est.round_trips == 4
    assert est.uncertainty_ns == 150_000  # the 300 us round trips: the shortest
    assert abs(est.offset_ns - offset) <= est.uncertainty_ns
    # The (40 us, 260 us) trip is as short; which of the two is taken, the bound holds.
    assert est.offset_ns in (offset, offset + (40_000 - 260_000) // 2)
    behind = estimate_offset([(t0, r - 2 * offset, t1) for t0, r, t1 in samples[:4]])
    assert abs(behind.offset_ns + offset) <= behind.uncertainty_ns
    with pytest.raises(ValueError):
        estimate_offset([(10, 5, 9)])


def test_an_actors_stamps_are_moved_onto_this_clock_and_its_latencies_kept():
    res = StreamResult(sent_ns=5_000, queued_ns=4_900, first_byte_ns=6_000, first_token_ns=7_000,
                       last_token_ns=9_000, chunk_times_ns=(7_000, 8_000, 9_000),
                       first_answer_ns=None, completion_tokens=3)
    moved = on_local_clock(res, 4_000)
    assert (moved.sent_ns, moved.queued_ns, moved.first_byte_ns, moved.first_token_ns,
            moved.last_token_ns, moved.chunk_times_ns) == (1_000, 900, 2_000, 3_000, 5_000,
                                                           (3_000, 4_000, 5_000))
    assert moved.first_answer_ns is None and moved.completion_tokens == 3
    # Every stamp a StreamResult has moves (a new one added later would too).
    for f in dataclasses.fields(StreamResult):
        if f.name.endswith("_ns") and getattr(res, f.name) not in (None, ()):
            assert getattr(moved, f.name) != getattr(res, f.name), f.name
    assert moved.first_token_ns - moved.sent_ns == res.first_token_ns - res.sent_ns


def test_default_actors_are_each_nodes_cpus_less_one():
    nodes = [{"Alive": True, "Resources": {"CPU": 8.0}}, {"Alive": True, "Resources": {"CPU": 1.0}},
             {"Alive": False, "Resources": {"CPU": 64.0}}, {"Alive": True, "Resources": {}}]
    assert default_actors(nodes) == 7 + 1
    assert default_actors([]) == 1


def _config(**kw) -> SweepConfig:
    return SweepConfig(EndpointConfig("http://h:1", model="m"), input_tokens=(64,), **kw)


def test_the_ray_option_is_checked_and_stored():
    for good in ("auto", "local", "ray://head.example:10001", "10.0.0.5:6379", "[fd00::1]:6379"):
        _config(ray=good).validate()
        assert _config(ray=good).to_json()["ray"] == good
    for bad in ("", "head", "ray://user:secret@head:10001", "head:0", "head:99999", "a b:1", 7):
        with pytest.raises(InputError) as err:
            _config(ray=bad).validate()
        assert err.value.field == "ray"
    _config(ray="auto", workers=0).validate()  # 0 actors: one per CPU of each node, less one
    with pytest.raises(InputError) as err:
        _config(workers=0).validate()
    assert err.value.field == "workers"


def test_the_cli_and_the_sweep_file_take_ray(tmp_path):
    import argparse

    from desktop_app.cli.throughput import add_parser, build_config
    from desktop_app.core.throughput.workers import default_workers

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    base = ["throughput", "--input-tokens", "64"]
    config, _ = build_config(parser.parse_args(base), "http://h:1", "m")
    assert (config.ray, config.workers) == (None, default_workers())
    config, _ = build_config(parser.parse_args([*base, "--ray", "auto"]), "http://h:1", "m")
    assert (config.ray, config.workers) == ("auto", 0)
    config, _ = build_config(parser.parse_args([*base, "--ray", "ray://head:10001",
                                                "--workers", "12"]), "http://h:1", "m")
    assert (config.ray, config.workers) == ("ray://head:10001", 12)
    with pytest.raises(InputError) as err:
        build_config(parser.parse_args([*base, "--ray", "head"]), "http://h:1", "m")
    assert err.value.field == "--ray"
    toml = tmp_path / "s.toml"
    toml.write_text('input_tokens = [64]\nray = "head:6379"\nworkers = 4\n')
    assert load_sweep_toml(toml)["ray"] == "head:6379"
    config, _ = build_config(parser.parse_args(["throughput", "--config", str(toml)]),
                             "http://h:1", "m")
    assert (config.ray, config.workers) == ("head:6379", 4)
    toml.write_text('input_tokens = [64]\nray = 6379\n')
    with pytest.raises(InputError, match="ray"):
        load_sweep_toml(toml)


def test_a_stored_ray_run_resumes_on_ray_and_older_runs_without_it():
    stored = {**_config(ray="ray://head:10001", workers=6).to_json(),
              CLOCKS_KEY: [{"actors": 6, "per_actor": []}]}
    config = sweep_config_from_json(stored, EndpointConfig("http://h:1"))
    assert (config.ray, config.workers) == ("ray://head:10001", 6)
    older = _config(workers=2).to_json()
    older.pop("ray")
    assert sweep_config_from_json(older, EndpointConfig("http://h:1")).ray is None


@pytest.fixture(scope="module")
def sim():
    with start_simulator("fast") as server:
        yield server


@pytest.mark.asyncio
async def test_without_ray_installed_the_sweep_says_how_to_install_it(sim, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as when not installed
    store = Store.open(tmp_path / "r.db")
    config = SweepConfig(EndpointConfig(sim.url, model=MODEL), input_tokens=(64,),
                         output_tokens=(4,), requests_per_cell=2, warmup=0, ray="auto")
    try:
        with pytest.raises(InputError) as err:
            await asyncio.wait_for(run_sweep(config, store), 60)
        assert store.list_runs() == []  # refused before the run was stored
    finally:
        store.close()
    assert err.value.field == "--ray"
    assert "pip install 'throughline[ray]'" in str(err.value)


# --- on a local Ray instance ------------------------------------------------------------------

@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    root = Path(__file__).resolve().parents[3]
    # The actors import this module (SkewedActor) and the app from the source tree.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(root)}})
    yield ray
    ray.shutdown()


class SkewedActor(StreamActor):
    """An actor on a 'host' whose CLOCK_MONOTONIC reads 5 s ahead: every stamp it takes and
    every deadline it reads are on that clock."""

    def __init__(self, *args) -> None:
        real_ns, real_s = time.perf_counter_ns, time.perf_counter
        time.perf_counter_ns = lambda: real_ns() + SKEW_NS  # its own process only
        time.perf_counter = lambda: real_s() + SKEW_NS / 1e9
        super().__init__(*args)


class SkewedPool(RayPool):
    actor_class = SkewedActor


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


@pytest.mark.asyncio
async def test_a_sweep_on_ray_actors_is_one_run_on_this_clock(local_ray, sim, tmp_path):
    """Two cells on two actors: one stored run, every request sent within its cell's time on
    this process's clock, TTFTs like those of the worker processes, the clocks stated."""
    store = Store.open(tmp_path / "r.db")
    shape = dict(input_tokens=(512,), output_tokens=(8,), concurrency=(1, 4),
                 requests_per_cell=12, warmup=1)
    try:
        result = await asyncio.wait_for(run_sweep(SweepConfig(
            EndpointConfig(sim.url, model=MODEL), **shape, workers=2, ray="auto"), store), 180)
        stored = load_sweep(store, result.run_id)
        rows = [r for r in iter_request_rows(store, result.run_id) if not r["warmup"]]
        config = store.get_run(result.run_id).config
        processes = await asyncio.wait_for(run_sweep(SweepConfig(
            EndpointConfig(sim.url, model=MODEL), **shape, workers=2)), 120)
    finally:
        store.close()
    assert result.status == "completed"
    assert [c.summary.ok for c in result.cells] == [12, 12]
    assert [len(c.result.timings) for c in stored.cells] == [12, 12]
    assert all(c.client_load is not None for c in result.cells)
    windows = {c.id: (_epoch(c.started_at), _epoch(c.ended_at)) for c in stored.cells}
    for row in rows:
        start, end = windows[row["cell_id"]]
        assert start - 0.05 <= row["sent_at"] <= end + 0.05
        assert row["ttft_s"] > 0
    ray_ttft = statistics.median(r.ttft_s for r in result.requests)
    process_ttft = statistics.median(r.ttft_s for r in processes.requests)
    assert process_ttft / 3 <= ray_ttft <= 3 * process_ttft + 0.05  # same measurement
    assert config["ray"] == "auto"
    [clocks] = config[CLOCKS_KEY]
    assert clocks["actors"] == 2 and clocks["measurements"] == 4  # start, 2 cells, end
    for actor in clocks["per_actor"]:
        # One host, one CLOCK_MONOTONIC: the offset is zero to within the measurement's bound.
        for key in ("offset_start_ms", "offset_end_ms"):
            assert abs(actor[key]) <= actor["uncertainty_max_ms"] + 1e-6
        assert actor["uncertainty_max_ms"] < 100


@pytest.mark.asyncio
async def test_actors_on_a_clock_5_s_ahead_are_put_on_this_clock(local_ray, sim):
    """The server's own stamp of each request's arrival falls between the actor's stamps of
    sending it and of the answer's headers once corrected (5 s off otherwise), and a cell's
    deadline reaches the actors on their clock: requests are sent, and cut at it."""
    httpx.delete(f"{sim.url}/sim/trace", timeout=5)
    endpoint = EndpointConfig(sim.url, model=MODEL)
    body = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    long_body = {**body, "max_tokens": 4000, "ignore_eos": True, "min_tokens": 4000}
    pool = SkewedPool(2, endpoint)
    results: dict = {}
    cut: dict = {}
    try:
        await asyncio.wait_for(pool.start(), 120)
        sent = await pool.run_cell([(i, body) for i in range(12)], concurrency=4,
                                   rate_per_s=None, seed=0, deadline=None,
                                   on_result=lambda i, res: results.setdefault(i, res))
        deadline = time.perf_counter() + 2.0
        cut_sent = await pool.run_cell([(i, long_body) for i in range(4)], concurrency=2,
                                       rate_per_s=None, seed=0, deadline=deadline,
                                       on_result=lambda i, res: cut.setdefault(i, res))
        clocks = await pool.clock_record()
    finally:
        await pool.close()
    assert sent == 12 and sorted(results) == list(range(12))
    trace = {r["id"]: r for r in httpx.get(f"{sim.url}/sim/trace", timeout=5).json()["records"]}
    # Corrected to within what the ping-pong before that cell could tell (about 1 ms here).
    bound_s = max(c.uncertainty_ns for c in pool.measured[1]) / 1e9
    for res in results.values():
        assert res.error_class is None
        arrival_s = trace[res.response_id]["arrival_s"]
        assert res.sent_ns / 1e9 - bound_s <= arrival_s <= res.first_byte_ns / 1e9 + bound_s
    assert cut_sent >= 2 and cut
    for res in cut.values():
        assert res.error_class == "timeout"
    # Streams cut at the deadline, on this clock (5 s off if the actors read it on theirs); a
    # loaded machine may start one so late that no token came before it.
    ended = [res.last_token_ns / 1e9 for res in cut.values() if res.last_token_ns is not None]
    assert ended and all(deadline - 0.5 <= t <= deadline + 0.5 for t in ended)
    for actor in clocks["per_actor"]:
        assert abs(actor["offset_start_ms"] - SKEW_NS / 1e6) <= actor["uncertainty_max_ms"] + 1e-6
        assert abs(actor["drift_ms"]) <= 2 * actor["uncertainty_max_ms"] + 1e-6


@pytest.mark.asyncio
async def test_a_cancelled_ray_run_resumes_on_ray_into_the_same_run(local_ray, sim, tmp_path):
    from desktop_app.core.throughput.resume import resume_sweep

    store = Store.open(tmp_path / "r.db")
    config = SweepConfig(EndpointConfig(sim.url, model=MODEL), input_tokens=(64,),
                         output_tokens=(8, 256), concurrency=(2,), requests_per_cell=8,
                         warmup=0, workers=2, ray="auto")
    seen = []
    try:
        task = asyncio.create_task(run_sweep(config, store, seen.append))
        for _ in range(1200):
            await asyncio.sleep(0.05)
            if any(p.finished is not None for p in seen):
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        [run] = store.list_runs()
        assert run.status == "cancelled"
        result = await asyncio.wait_for(resume_sweep(store, run.id, EndpointConfig(sim.url)), 180)
        config_after = store.get_run(run.id).config
    finally:
        store.close()
    assert result.status == "completed" and result.run_id == run.id
    assert [c.summary.ok for c in result.cells] == [8, 8]
    assert config_after["ray"] == "auto"
    assert len(config_after[CLOCKS_KEY]) == 2  # the first session's clocks, and the resumed one's


class SlowClockActor(StreamActor):
    """An actor whose clock answers 4 ms late, as over a slow link: every round trip is at
    least that long, so its offset is known to +/- 2 ms at best, beyond the 1 ms tolerance."""

    async def now_ns(self) -> int:
        await asyncio.sleep(0.004)
        return time.perf_counter_ns()


@pytest.mark.asyncio
async def test_clocks_known_beyond_a_millisecond_are_a_finding_in_the_cli_and_read_back(
        local_ray, sim, tmp_path, monkeypatch, capsys):
    from desktop_app.cli.throughput import print_sweep
    from desktop_app.core.throughput import ray_pool
    from desktop_app.report.diagnosis_words import finding_text
    from tests.lang_check import english_runs

    monkeypatch.setattr(ray_pool.RayPool, "actor_class", SlowClockActor)
    store = Store.open(tmp_path / "r.db")
    try:
        result = await asyncio.wait_for(run_sweep(SweepConfig(
            EndpointConfig(sim.url, model=MODEL), input_tokens=(64,), output_tokens=(4,),
            concurrency=(2,), requests_per_cell=4, warmup=0, workers=2, ray="auto"),
            store), 180)
        stored = load_sweep(store, result.run_id)
    finally:
        store.close()
    assert result.status == "completed"
    [live] = [f for f in result.findings if f.code == "ray_clocks_uncertain"]
    [back] = [f for f in stored.findings if f.code == "ray_clocks_uncertain"]
    assert back == live and live.severity == "warning"
    assert live.params["actors"] == live.params["actors_total"] == 2
    assert live.params["uncertainty_ms"] >= 2.0 and live.params["end_failed"] is False
    print_sweep(result, None, "zh")
    out = capsys.readouterr().out
    assert finding_text(live, "zh") in out and english_runs(finding_text(live, "zh")) == []
