"""Every fault the simulator injects, against the throughput sweep and the SQL loop, at
concurrency 1 and 64: each ends as a classified failure on its own request or step, the run
completes, and the per-class counts equal what the simulator's trace says it injected.

The simulator's trace (`GET /sim/trace`, here `server.state.trace`) records the fault injected
into each request, or none where a kind cannot strike (bad_tool_json on an answer without a
tool call; the SQL agent's calls stream, as the sweep's do): it is the ground truth compared with.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.faults import KINDS, parse_faults
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.sqleval import agent
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from tests.core.sqleval.test_agent import CONFIG, QUESTION, call, reply
from tests.core.sqleval.test_agent import sandbox  # noqa: F401  (fixture)

READ_TIMEOUT_S = 2.0  # a stalled stream ends as a client timeout after this long (2 s: a
# loaded machine can pause a healthy stream for a second, which must not count as a stall)


def _spec(p: float, seed: int, **params) -> str:
    items = [f"{kind}={p}" for kind in KINDS] + [f"seed={seed}"]
    return ",".join(items + [f"{k}={v}" for k, v in params.items()])


def _report(what: str, injected: Counter, seen: Counter) -> None:
    """One line for docs/RELIABILITY.md (shown with pytest -s)."""
    print(f"\nRELIABILITY {what}: injected {dict(sorted(injected.items()))} "
          f"seen {dict(sorted(seen.items()))}")


def _injected(server) -> Counter:
    return Counter(r["fault"] for r in list(server.state.trace) if r["fault"])


# --------------------------------------------------------------------------- throughput


def _sweep_kind(row: dict) -> str | None:
    """The fault kind a stored request's failure points to, from what the client saw."""
    cls, status = row["error_class"], row["status_code"]
    if cls is None:
        return None
    if cls == "http_status":
        return {500: "http500", 429: "http429"}.get(status, f"http {status}")
    if cls == "connection_closed":  # a FIN before any header
        return "disconnect"
    if cls == "stream_cut":  # a RST mid-stream
        return "reset"
    return {"timeout": "stall", "malformed_stream": "bad_sse", "no_usage": "no_usage"}.get(cls,
                                                                                          cls)


@pytest.mark.parametrize(("concurrency", "requests"), [(1, 48), (64, 160)])
def test_every_fault_in_a_sweep_is_one_classified_failed_request(tmp_path, concurrency,
                                                                 requests):
    spec = parse_faults(_spec(0.07, seed=3, stall_s=60, after=2))
    with serve_in_thread(load_profile("instant"), spec) as sim, \
            Store.open(tmp_path / "r.db") as store:
        config = SweepConfig(
            EndpointConfig(sim.url, model="sim/llama-sim-8b", first_byte_timeout_s=READ_TIMEOUT_S),
            input_tokens=(64,), output_tokens=(8,), concurrency=(concurrency,),
            requests_per_cell=requests, warmup=0, scrape_metrics=False)
        result = asyncio.run(asyncio.wait_for(run_sweep(config, store), 60))
        trace = list(sim.state.trace)
        injected = _injected(sim)
        run = store.get_run(result.run_id)
        (cell,) = store.cells(result.run_id)
        rows = store.requests(result.run_id, cell.id, limit=10_000)
    # The run completes; every request is stored once. The only request sent twice is one
    # whose kept-alive connection was closed under it with nothing answered (a `disconnect` on
    # a reused connection): flagged `resent`, and counted as that fault below.
    assert result.status == run.status == cell.status == "completed"
    resent = result.cells[0].resent
    assert resent == sum("resent" in r.flags for r in result.requests)
    assert len(rows) == requests and len(trace) == requests + resent
    # Every kind that can strike a plain stream did, and bad_tool_json (no tools) never did.
    assert set(injected) == set(KINDS) - {"bad_tool_json"}
    # Per class, exactly what was injected; the cell summary agrees.
    seen = Counter(_sweep_kind(r) for r in rows if r["error_class"])
    seen["disconnect"] += resent
    _report(f"sweep c={concurrency}: {requests} requests", injected, seen)
    assert seen == injected
    summary = result.cells[0].summary
    assert summary.ok == requests - sum(injected.values()) + resent
    assert summary.failures_by_class == dict(Counter(r["error_class"] for r in rows
                                                     if r["error_class"]))
    # Request by request where the client learnt the response id: the fault is that request's.
    fault_of = {r["id"]: r["fault"] for r in trace}
    matched = [(fault_of[r["response_id"]], _sweep_kind(r)) for r in rows if r["response_id"]]
    assert all(server == client for server, client in matched)
    assert {k for k, _ in matched} >= {"reset", "stall", "bad_sse", "no_usage", None}


# --------------------------------------------------------------------------- the SQL loop


def _step_kind(error: str) -> str:
    """The fault kind an agent step's endpoint error points to (the words of its failure)."""
    if "429 Too Many Requests" in error:
        return "http429"
    if "500 Internal Server Error" in error:
        return "http500"
    if "before answering" in error:  # a FIN before any header
        return "disconnect"
    if "read timeout" in error:
        return "stall"
    if "unparseable SSE data" in error:
        return "bad_sse"
    assert "the connection broke after" in error, error  # a RST mid-stream
    return "reset"


def _cut(step: dict) -> bool:
    """A step whose reply did not complete (the agent's calls stream: `reply.cut`)."""
    return isinstance(step["reply_json"], dict) and step["reply_json"].get("cut") is True


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """The sales-25 database, built once for the module."""
    return tmp_path_factory.mktemp("databases")


def _stored_steps(store: Store, run_id: int) -> list[tuple[dict, list[dict]]]:
    return [(q, store.sql_steps(q["id"])) for q in store.sql_questions(run_id)]


def _retry_parts(error: str) -> tuple[str, list[str]]:
    """A step's error split into what ended it (if anything) and the failures retried."""
    head, found, tail = error.partition("retried ")
    return head.rstrip("; "), (tail.split(" after: ", 1)[1].split("; ") if found else [])


@pytest.mark.parametrize(("concurrency", "epochs"), [(1, 1), (64, 2)])
def test_every_fault_in_the_sql_loop_ends_its_step_classified(tmp_path, cache_dir,
                                                              concurrency, epochs):
    spec = parse_faults(_spec(0.04, seed=5, stall_s=60, after=2))
    with serve_in_thread(load_profile("instant"), spec) as sim, \
            Store.open(tmp_path / "r.db") as store:
        config = EvalConfig(EndpointConfig(sim.url, model="sim/careful",
                                           first_byte_timeout_s=READ_TIMEOUT_S),
                            concurrency=concurrency, epochs=epochs)
        assert config.retries == 0  # off by default
        result = asyncio.run(asyncio.wait_for(run_eval(
            config, store, sets_dir=paths.questions_dir(), cache_dir=cache_dir), 120))
        trace = list(sim.state.trace)
        injected = _injected(sim)
        questions = _stored_steps(store, result.run_id)
        run = store.get_run(result.run_id)
    assert result.status == run.status == "completed"
    assert len(questions) == 25 * epochs and all(q["status"] == "completed" for q, _ in questions)
    # The agent's calls stream: every kind strikes them.
    assert set(injected) == set(KINDS)
    # One model call per stored step, but for a request sent again on a new connection after
    # a kept-alive one was closed under it with nothing answered (a `disconnect`, flagged
    # resent by the client): nothing was retried, nothing is missing.
    resent = len(trace) - sum(len(steps) for _, steps in questions)
    assert 0 <= resent <= injected["disconnect"]
    seen: Counter = Counter({"disconnect": resent})
    for q, steps in questions:
        endpoint_errors = [s for s in steps if _cut(s)]
        if q["stop_reason"] == "endpoint_error":
            # The fault ended the question on its last step, and that step says which.
            assert endpoint_errors == [steps[-1]]
            seen[_step_kind(steps[-1]["error"])] += 1
        else:
            assert not endpoint_errors and q["stop_reason"] in ("submitted", "bad_arguments")
        for s in steps:
            if "no usage from the server" in (s["error"] or ""):  # estimated and said
                seen["no_usage"] += 1
            for r in s["tool_result_json"] or []:
                if r["error"] and "not valid JSON" in r["error"]:
                    seen["bad_tool_json"] += 1
    stops = Counter(q["stop_reason"] for q, _ in questions)
    _report(f"sql c={concurrency}: {len(trace)} calls, {len(questions)} questions, stops "
            f"{dict(stops)}", injected, seen)
    assert seen == injected


def test_with_retries_every_transient_fault_is_retried_and_noted(tmp_path, cache_dir,
                                                                 monkeypatch):
    """--retries 3 at concurrency 64: each transient fault shows as a retry note on its step
    (or, retried out, as the step's final error); the backoff is shortened, not skipped."""
    monkeypatch.setattr(agent, "RETRY_BASE_S", 0.001)
    spec = parse_faults("disconnect=0.06,reset=0.06,http500=0.06,http429=0.06,seed=9,"
                        "retry_after=0,after=2")
    with serve_in_thread(load_profile("instant"), spec) as sim, \
            Store.open(tmp_path / "r.db") as store:
        config = EvalConfig(EndpointConfig(sim.url, model="sim/careful"), concurrency=64,
                            retries=3)
        result = asyncio.run(asyncio.wait_for(run_eval(
            config, store, sets_dir=paths.questions_dir(), cache_dir=cache_dir), 120))
        trace = list(sim.state.trace)
        injected = _injected(sim)
        questions = _stored_steps(store, result.run_id)
    assert sum(injected.values()) >= 15
    seen: Counter = Counter()
    retried = 0
    for _, steps in questions:
        for s in steps:
            final, notes = _retry_parts(s["error"] or "")
            for part in notes:
                seen[_step_kind(part)] += 1
            retried += len(notes)
            if _cut(s):
                seen[_step_kind(final)] += 1
    resent = len(trace) - sum(len(steps) for _, steps in questions) - retried
    assert 0 <= resent <= injected["disconnect"]
    seen["disconnect"] += resent  # sent again by the client itself, flagged resent
    assert seen == injected
    # A question is lost only when all 1 + 3 attempts of one call failed; the rest pass.
    for o in result.outcomes:
        if o.stop_reason != "submitted":
            assert o.stop_reason == "endpoint_error"
            assert len(_retry_parts(o.steps[-1].error)[1]) == 3
        else:
            assert all(v.passed for v in o.verdicts.values())
    lost = sum(o.stop_reason != "submitted" for o in result.outcomes)
    # Each call is lost with odds of 0.24 ** 4 (1 in 300): about 0.3 of some 100 calls.
    assert lost <= 5, lost
    _report(f"sql c=64 retries=3: {len(trace)} calls, {retried} retried, {lost} lost",
            injected, seen)


# --------------------------------------------------------------------------- backoff


class Flaky:
    """A model that fails with the given responses first, then submits the answer."""

    def __init__(self, *failures: httpx.Response) -> None:
        self.failures = list(failures)
        self.calls = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.failures:
            return self.failures.pop(0)
        return httpx.Response(200, json=reply(None, [call("submit_answer", {"sql": "SELECT 1"})]))


def _error(status: int, retry_after: str | None = None) -> httpx.Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return httpx.Response(status, json={"error": {"message": "try later"}}, headers=headers)


async def _ask(model: Flaky, sandbox, **kw):  # noqa: F811
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    async with httpx.AsyncClient(transport=httpx.MockTransport(model.handler)) as client:
        steps, stop, _ = await agent.run_question(client, CONFIG, QUESTION, sandbox,
                                                  sleep=fake_sleep, **kw)
    return steps, stop, waits


@pytest.mark.asyncio
async def test_backoff_doubles_and_never_waits_less_than_retry_after(sandbox):  # noqa: F811
    soon = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=40), usegmt=True)
    model = Flaky(_error(429, "7"), _error(500), _error(503, soon), _error(502), _error(429, "0"))
    steps, stop, waits = await _ask(model, sandbox, retries=5)
    assert stop == "submitted" and model.calls == 6 and len(steps) == 1
    assert waits[0] == 7.0  # Retry-After 7 s beats the 1 s first backoff
    assert waits[1] == 2.0  # no Retry-After: 1 s doubled
    assert 35.0 <= waits[2] <= 40.0  # an HTTP date, about 40 s from now, beats 4 s
    assert waits[3:] == [8.0, 16.0]
    assert all(w >= agent.backoff_s(i, None) for i, w in enumerate(waits))
    assert steps[0].error.startswith("retried 5x after: 429 Too Many Requests")


@pytest.mark.asyncio
async def test_retries_are_off_by_default_and_never_for_a_client_error(sandbox):  # noqa: F811
    steps, stop, waits = await _ask(Flaky(_error(503, "1")), sandbox)
    assert (stop, waits) == ("endpoint_error", []) and "503" in steps[0].error
    model = Flaky(_error(400), _error(400))
    steps, stop, waits = await _ask(model, sandbox, retries=3)
    assert (stop, waits, model.calls) == ("endpoint_error", [], 1)
    # Out of retries: the last failure ends the question and says how many were made.
    steps, stop, waits = await _ask(Flaky(*(_error(500) for _ in range(3))), sandbox, retries=2)
    assert stop == "endpoint_error" and waits == [1.0, 2.0]
    final, retried = _retry_parts(steps[0].error)
    assert final.startswith("500 Internal Server Error") and len(retried) == 2


@pytest.mark.asyncio
async def test_a_retry_after_longer_than_the_time_budget_is_not_waited_for(sandbox):  # noqa: F811
    steps, stop, waits = await _ask(Flaky(_error(429, "3600")), sandbox, retries=3,
                                    time_limit_s=30)
    assert (stop, waits) == ("endpoint_error", []) and "429" in steps[0].error


def test_retries_on_the_command_line(monkeypatch):
    from desktop_app.cli import sqleval as cli_sqleval

    parser = argparse.ArgumentParser(prog="throughline")
    cli_sqleval.add_parser(parser.add_subparsers(dest="command"))
    base = ["sqleval", "--base-url", "http://127.0.0.1:9"]
    assert cli_sqleval.build_config(parser.parse_args(base), "http://127.0.0.1:9").retries == 0
    args = parser.parse_args([*base, "--retries", "4"])
    assert cli_sqleval.build_config(args, "http://127.0.0.1:9").retries == 4
    for bad in ("-1", "11"):
        args = parser.parse_args([*base, "--retries", bad])
        with pytest.raises(InputError, match="^--retries: .*from 0 to 10"):
            cli_sqleval.build_config(args, "http://127.0.0.1:9")
