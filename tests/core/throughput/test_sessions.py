"""Multi-turn sessions (#29, part 3): conversations whose history grows (each reply in the next
turn's prompt), a think time between turns, a system prompt the cell's sessions share, and the
cell's figures per turn."""

import asyncio
import time

import pytest

from desktop_app.cli import main
from desktop_app.core.compare.session import compare
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.export import sweep_to_json
from desktop_app.core.throughput.records import load_sweep
from desktop_app.core.throughput.sweep import run_sweep
from tests.lang_check import english_runs


@pytest.fixture(scope="module")
def instant():
    with start_simulator("instant") as sim:
        yield sim


def _config(url, **kw):
    base = dict(endpoint=EndpointConfig(url, model="sim/llama-sim-8b"), input_tokens=(128,),
                output_tokens=(16,), concurrency=(2,), warmup=1, metrics_interval_s=0.1,
                turns=3, system_tokens=256)
    base.update(kw)
    return SweepConfig(**base)


def test_a_three_turn_session_carries_each_reply_into_the_next_turn(instant, tmp_path):
    config = _config(instant.url)
    (spec,) = config.cells()
    assert (spec.requests, spec.label) == (12, "3×128+256 in / 16 out / c=2")  # 4 sessions
    with Store.open(tmp_path / "r.db") as store:
        result = asyncio.run(asyncio.wait_for(run_sweep(config, store), 60))
        stored = load_sweep(store, result.run_id)
    cell = result.cells[0]
    assert cell.summary.ok == 12
    first, second, third = cell.turn_figures
    assert [t["n"] for t in (first, second, third)] == [4, 4, 4]
    # The shared system prompt and the first turn, then each reply and the next turn on top
    # (each message is built to its length as a chat of its own: joined, the template's
    # tokens count once, a few fewer than the sum).
    assert first["prompt_tokens_mean"] >= 0.9 * (256 + 128)
    for before, after in ((first, second), (second, third)):
        grew = after["prompt_tokens_mean"] - before["prompt_tokens_mean"]
        assert grew >= 0.9 * (128 + 16), (before, after)
    assert all(t["ttft_p50_s"] is not None for t in cell.turn_figures)
    assert first["cached_share"] is None  # the simulator does not say what it cached
    # Stored with the cell and read back, per turn too.
    (back,) = stored.cells
    assert (back.spec.turns, back.spec.system_tokens, back.spec.label) == (3, 256, spec.label)
    assert [t["n"] for t in back.result.turn_figures] == [4, 4, 4]
    assert sweep_to_json(result)["cells"][0]["turns"][2]["turn"] == 3


def test_the_think_time_is_kept_between_turns(instant):
    config = _config(instant.url, concurrency=(1,), requests_per_cell=3, think_s=0.25,
                     system_tokens=0, warmup=0)
    started = time.perf_counter()
    result = asyncio.run(asyncio.wait_for(run_sweep(config, None), 60))
    assert result.cells[0].summary.ok == 3
    assert time.perf_counter() - started >= 0.5  # two pauses of 0.25 s in one conversation


def test_a_failed_turn_ends_its_session():
    with start_simulator("instant", faults="http500=1,seed=3") as sim:
        config = _config(sim.url, warmup=0)
        result = asyncio.run(asyncio.wait_for(run_sweep(config, None), 60))
    cell = result.cells[0]
    assert (cell.summary.count, cell.summary.ok) == (4, 0)  # one turn of each of 4 sessions
    assert [t["n"] for t in cell.turn_figures] == [4, 0, 0]


def test_sessions_are_compared_only_with_sessions(instant, tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        single = asyncio.run(run_sweep(_config(instant.url, turns=None, system_tokens=0), store))
        sessions = asyncio.run(run_sweep(_config(instant.url), store))
        comparison = compare(store, [single.run_id, sessions.run_id])
    assert [r for r in comparison.rows if r.scope == "cell"] == []


def test_sessions_need_a_chat_endpoint_in_a_closed_loop(capsys, monkeypatch, instant):
    with pytest.raises(InputError, match="multi-turn sessions are sent to a chat endpoint"):
        _config("http://x", endpoint=EndpointConfig("http://x", model="m",
                                                    api="completions")).validate()
    with pytest.raises(InputError, match="turns: 0 must be a whole number from 1"):
        _config("http://x", turns=0).validate()
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["throughput", "--base-url", instant.url, "--input-tokens", "64",
                 "--think-time", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith("--think-time：仅可与 --turns N 一起使用"), err
    assert main(["throughput", "--base-url", instant.url, "--input-tokens", "64", "--turns", "2",
                 "--request-rate", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "多轮会话只能以闭环方式" in err and english_runs(err.split("（")[0]) == [], err
