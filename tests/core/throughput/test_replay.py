"""Agentic replay (#29, part 4 in part): a stored SQL evaluation's conversations sent again as
concurrent agents, with the recorded history and reply lengths, measured in tasks per hour."""

import asyncio
from dataclasses import replace

import httpx
import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.virtual import simulate_agents
from desktop_app.core.sqleval.records import recorded_tasks
from desktop_app.core.store import Store
from desktop_app.core.throughput.replay import replay, step_body, stored_replay, tasks_per_hour
from tests.core.sim_helpers import record_eval
from tests.lang_check import english_runs


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A SQL evaluation of four questions on the simulator, stored, and the simulator."""
    db = tmp_path_factory.mktemp("replay") / "r.db"
    with start_simulator("instant") as sim:
        record_eval(db, sim.url, "m01,m02,h01,h02")
        yield sim, db


def test_a_stored_run_gives_its_conversations_as_they_were_sent(recorded):
    sim, db = recorded
    with Store.open(db) as store:
        tasks = recorded_tasks(store, 1)
        rows = {q["id"]: q for q in store.sql_questions(1)}
        sent = [[s["request_json"]["messages"] for s in store.sql_steps(q)] for q in rows]
    assert [t.question_id for t in tasks] == ["m01", "m02", "h01", "h02"]
    info = asyncio.run(discover(EndpointConfig(sim.url)))
    for task, counts in zip(tasks, sent):
        # Each step sends the whole recorded history up to it, as many messages as then.
        assert [len(step_body("m", task, k, info)["messages"])
                for k in range(len(task.steps))] == counts
        body = step_body("m", task, 1, info)
        assert body["max_tokens"] == task.steps[1].completion_tokens == body["min_tokens"]
        assert body["messages"][0]["role"] == "system"
        assert task.between_steps_s >= 0


def test_the_replay_sends_every_step_held_to_its_recorded_length(recorded):
    sim, db = recorded
    with Store.open(db) as store:
        tasks = recorded_tasks(store, 1)
    endpoint = EndpointConfig(sim.url, model="sim/llama-sim-8b")
    info = asyncio.run(discover(endpoint))
    httpx.delete(f"{sim.url}/sim/trace", timeout=5)
    points = asyncio.run(asyncio.wait_for(replay(endpoint, info, tasks, [1, 2]), 60)).points
    steps = sum(len(t.steps) for t in tasks)
    assert [(p.sessions, p.tasks, p.failed, p.steps) for p in points] == [(1, 4, 0, steps),
                                                                        (2, 4, 0, steps)]
    for p in points:
        # A agents each always busy: A x 3,600 / the mean task time, with its interval.
        tph = p.tasks_per_hour
        assert tph is not None and tph.value == pytest.approx(
            min(p.sessions, 4) * 3600 / (sum(p.task_s) / len(p.task_s)))
        assert tph.low <= tph.value <= tph.high
        assert p.step_ttft_p50_s is not None and p.task_s_mean is not None
    trace = httpx.get(f"{sim.url}/sim/trace", timeout=5).json()["records"]
    recorded_tokens = sum(s.completion_tokens for t in tasks for s in t.steps)
    assert sum(r["completion_tokens"] for r in trace) == 2 * recorded_tokens


def test_the_cli_replays_and_refuses_a_run_that_is_not_an_evaluation(recorded, capsys,
                                                                      monkeypatch, tmp_path):
    sim, db = recorded
    monkeypatch.setenv("THROUGHLINE_DB", str(db))
    out = tmp_path / "replay.json"
    assert main(["throughput", "--base-url", sim.url, "--replay-eval", "1", "--sessions", "2",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr()
    assert "Replaying 4 recorded tasks of run 1" in printed.err
    assert "2 agent(s): 4 tasks in" in printed.out and "tasks per hour" in printed.out
    assert out.read_text().count('"sessions": 2') == 1
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["throughput", "--base-url", sim.url, "--replay-eval", "99"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "中没有运行 99" in err and english_runs(err) == [], err


def test_the_measured_figure_is_set_beside_the_capacity_models(recorded, capsys, monkeypatch):
    sim, db = recorded
    monkeypatch.setenv("THROUGHLINE_DB", str(db))
    assert main(["throughput", "--base-url", sim.url, "--input-tokens", "512,2k",
                 "--output-tokens", "16", "--concurrency", "1,2", "--requests", "4",
                 "--warmup", "0"]) == 0
    with Store.open(db) as store:
        sweep = max(r.id for r in store.list_runs() if r.kind == "throughput")
    capsys.readouterr()
    assert main(["throughput", "--base-url", sim.url, "--replay-eval", "1", "--sessions", "1,3",
                 "--beside-sweep", str(sweep)]) == 0
    out = capsys.readouterr().out
    # instant sends every token at once: the sweep has no decode rate for the model to use.
    assert f"the capacity model from sweep {sweep}: no figure at 1 concurrent (decode not " \
        "measured" in out, out
    assert f"the capacity model from sweep {sweep}: that sweep measured no 3 concurrent" in out
    assert main(["throughput", "--base-url", sim.url, "--replay-eval", "1",
                 "--beside-sweep", "1"]) == 2
    assert "run 1 is not a throughput sweep" in capsys.readouterr().err


def test_on_a_server_with_a_decode_rate_the_measured_share_of_the_model_is_said(
        capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "r.db"))
    with start_simulator("fast") as sim:
        assert main(["sqleval", "--base-url", sim.url, "--questions", "sales-25",
                     "--ids", "m01,h01"]) == 0
        assert main(["throughput", "--base-url", sim.url, "--input-tokens", "512,2k",
                     "--output-tokens", "32", "--concurrency", "1", "--requests", "4",
                     "--warmup", "0"]) == 0
        capsys.readouterr()
        assert main(["throughput", "--base-url", sim.url, "--replay-eval", "1",
                     "--beside-sweep", "2"]) == 0
    out = capsys.readouterr().out
    assert "the capacity model from sweep 2: " in out and " tasks per hour at 1 concurrent " \
        "(measured: " in out, out


def _virtual(profile, tasks, agents):
    """Tasks per hour in the simulator's virtual time for the same conversations: each step's
    recorded prompt and reply lengths, the recorded time between steps (one definition,
    `replay.tasks_per_hour`)."""
    times = simulate_agents(profile, [[(s.prompt_tokens, s.completion_tokens) for s in t.steps]
                                      for t in tasks], [t.between_steps_s for t in tasks], agents)
    return tasks_per_hour(min(agents, len(tasks)), times)


def test_a_replay_at_1_and_4_agents_is_within_15_percent_of_the_simulators_virtual_time(
        recorded, tmp_path):
    """The measurement is checked against the simulator's own clock: the same recorded
    conversations, driven through the same engine in virtual time."""
    _, db = recorded
    with Store.open(db) as store:
        tasks = recorded_tasks(store, 1)
    assert all(s.prompt_tokens > 0 for t in tasks for s in t.steps)
    with start_simulator("fast") as sim, Store.open(tmp_path / "replay.db") as store:
        endpoint = EndpointConfig(sim.url, model="sim/llama-sim-8b")
        info = asyncio.run(discover(endpoint))
        result = asyncio.run(asyncio.wait_for(
            replay(endpoint, info, tasks, [1, 4], store=store, sql_run=1), 60))
        stored = stored_replay(store, result.run_id)
    fast = load_profile("fast")
    for point in result.points:
        virtual = _virtual(fast, tasks, point.sessions).value
        assert point.tasks_per_hour.value == pytest.approx(virtual, rel=0.15), (
            point.sessions, point.tasks_per_hour, virtual)
    # Stored as a run of its own, read back the same; four agents finish more tasks an hour.
    assert stored is not None and stored.sql_run == 1 and stored.points == result.points
    assert stored.info.kind == "replay" and stored.info.simulator_profile == "fast"
    one, four = (p.tasks_per_hour for p in result.points)
    assert four.low > one.high


def test_a_cap_on_running_requests_costs_tasks_per_hour_only_where_it_binds(recorded):
    """The seeds' capacity question, answered by the simulator's clock rather than the model.
    On `fast` (cheap decode, 16 slots) against `fast-capped` (2 slots), 4 agents finish more
    tasks an hour uncapped, outside both intervals. On `seed-reference`, whose prefill budget
    (138 tokens a step at 960 tok/s) is what every step waits for, lifting its cap of 2 buys
    under 10 % at 4 agents: about even, which is what a comparison must then say."""
    _, db = recorded
    with Store.open(db) as store:
        tasks = recorded_tasks(store, 1)

    fast = _virtual(load_profile("fast"), tasks, 4)
    capped = _virtual(load_profile("fast-capped"), tasks, 4)
    assert capped.high < fast.low and fast.value > 1.15 * capped.value, (fast, capped)
    seed = load_profile("seed-reference")
    lifted = replace(seed, name="seed-reference-uncapped", max_num_seqs=256)
    assert _virtual(lifted, tasks, 4).value == pytest.approx(_virtual(seed, tasks, 4).value,
                                                             rel=0.1)
    assert _virtual(lifted, tasks, 1).value == pytest.approx(_virtual(seed, tasks, 1).value)


def test_two_replays_of_the_same_conversations_are_compared_task_by_task():
    """A long task is long on both servers: paired, the ratio's interval is narrow where
    the two figures' own intervals overlap."""
    from desktop_app.core.throughput.replay import ReplayPoint, paired_ratio

    times = [1.0, 9.0, 2.0, 7.0, 3.0, 12.0, 1.5, 6.0]
    ids = tuple(f"q{i}:0" for i in range(len(times)))
    slow = ReplayPoint(4, 4, 8, 0, 32, 20.0, 0.1, tuple(times), ids)
    quick = ReplayPoint(4, 4, 8, 0, 32, 17.0, 0.1, tuple(t / 1.15 for t in times), ids)
    a, b = quick.tasks_per_hour, slow.tasks_per_hour
    assert a.low < b.high  # apart by 15 %, yet each interval reaches the other
    ratio, n = paired_ratio(quick, slow)
    assert n == 8 and ratio.value == pytest.approx(1.15) and ratio.low > 1.1
    # Only the tasks both finished are paired; fewer than two: no figure.
    lone = ReplayPoint(4, 4, 1, 7, 8, 5.0, 0.1, (1.0,), ("q0:0",))
    assert paired_ratio(quick, lone) == (None, 1)
    assert ReplayPoint.from_json(quick.to_json()) == quick
