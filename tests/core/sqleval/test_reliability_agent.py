"""A model that misbehaves: each ends the question with a named stop reason inside its budgets.

The models are the simulator's misbehaving personas (desktop_app/core/simulator/misbehaving.py),
reached over HTTP through the real runner, so the stop reason is also checked in the store and
the bad step in the Inspector's data (`sql_steps`).
"""

from __future__ import annotations

import asyncio

import pytest

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator import misbehaving
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.sqleval.agent import MISBEHAVIOUR_STEPS, REPLY_MAX_TOKENS
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.sqleval.types import STOP_REASONS
from desktop_app.core.store import Store
from desktop_app.report.judge_words import finding_text

MAX_STEPS = 20
TIME_LIMIT_S = 60.0
QUESTIONS = ("t01", "h01")  # the easiest and the longest question of sales-25

# model -> (stop reason, steps it takes, what the last step's error says)
EXPECTED = {
    misbehaving.MUTE: ("no_answer", 2, "no tool call and no answer again"),
    misbehaving.UNKNOWN_TOOLS: ("unknown_tool", MISBEHAVIOUR_STEPS,
                                "replies in a row called only unknown tools"),
    misbehaving.BAD_JSON: ("bad_arguments", MISBEHAVIOUR_STEPS,
                           "replies in a row sent only invalid tool arguments"),
    misbehaving.LOOPER: ("repeated_call", MISBEHAVIOUR_STEPS,
                         "the same call (list_tables) 3 replies in a row"),
    misbehaving.RAMBLER: ("output_budget", 2, "hit max_tokens again"),
}

FINDING = {misbehaving.MUTE: "stopped without submitting SQL",
           misbehaving.UNKNOWN_TOOLS: "tools that do not exist",
           misbehaving.BAD_JSON: "invalid tool arguments",
           misbehaving.LOOPER: "repeating the same call",
           misbehaving.RAMBLER: "hitting max_tokens"}


@pytest.fixture(scope="module")
def sim():
    with serve_in_thread(load_profile("instant")) as server:
        yield server


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("databases")


def _run(sim, cache_dir, store, model, **kw):
    config = EvalConfig(EndpointConfig(sim.url, model=model), question_ids=QUESTIONS,
                        max_steps=MAX_STEPS, time_limit_s=TIME_LIMIT_S, concurrency=2, **kw)
    return asyncio.run(asyncio.wait_for(
        run_eval(config, store, sets_dir=paths.questions_dir(), cache_dir=cache_dir), 60))


@pytest.mark.parametrize("model", list(EXPECTED))
def test_a_misbehaving_model_ends_with_a_named_stop_inside_its_budgets(sim, cache_dir, tmp_path,
                                                                       model):
    reason, steps, says = EXPECTED[model]
    assert reason in STOP_REASONS
    with Store.open(tmp_path / "r.db") as store:
        result = _run(sim, cache_dir, store, model)
        assert result.status == "completed" and store.get_run(result.run_id).status == "completed"
        assert len(result.outcomes) == len(QUESTIONS)
        for outcome in result.outcomes:
            assert (outcome.stop_reason, len(outcome.steps), outcome.final_sql) == (
                reason, steps, None)
            # Inside every budget: far fewer steps than allowed, well within the time.
            assert len(outcome.steps) < MAX_STEPS and outcome.seconds < TIME_LIMIT_S
            assert all(not v.passed for v in outcome.verdicts.values())
            finding = outcome.verdicts["strict"].findings[0]  # what the judge tells the user
            assert finding.code == "no_answer" and FINDING[model] in finding_text(finding)
        rows = store.sql_questions(result.run_id)
        assert [r["stop_reason"] for r in rows] == [reason] * len(QUESTIONS)
        assert all(r["status"] == "completed" and r["steps"] == steps for r in rows)
        for row in rows:
            stored = store.sql_steps(row["id"])
            assert len(stored) == steps
            assert says in stored[-1]["error"]  # the Inspector shows why it stopped
            if model in (misbehaving.UNKNOWN_TOOLS, misbehaving.BAD_JSON):
                # Every bad call is recorded with the error text the model was sent back.
                results = [r for s in stored for r in s["tool_result_json"]]
                assert len(results) == steps and all(r["error"] for r in results)
                assert all(r["result"].startswith("Error: ") for r in results)


def test_the_bad_calls_are_what_the_inspector_shows(sim, cache_dir, tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        unknown = _run(sim, cache_dir, store, misbehaving.UNKNOWN_TOOLS)
        bad = _run(sim, cache_dir, store, misbehaving.BAD_JSON)
        row = store.sql_questions(unknown.run_id)[0]
        steps = store.sql_steps(row["id"])
        assert [s["tool_name"] for s in steps] == ["execute_query", "search_web", "drop_database"]
        assert "unknown tool 'execute_query'; the tools are list_tables" in (
            steps[0]["tool_result_json"][0]["error"])
        row = store.sql_questions(bad.run_id)[0]
        steps = store.sql_steps(row["id"])
        args = [s["tool_args_json"][0]["arguments"] for s in steps]
        assert args[0] == '{"sql": "SELECT count(*) FROM orders"'  # stored as sent, not fixed
        assert all("not valid JSON" in s["tool_result_json"][0]["error"] for s in steps)


def test_a_rambling_model_costs_at_most_two_capped_replies(sim, cache_dir, tmp_path):
    """100k tokens asked of the server, REPLY_MAX_TOKENS sent each time, then output_budget;
    under a token budget no reply may take more than the budget leaves after its own prompt,
    so the question never goes past it."""
    with Store.open(tmp_path / "r.db") as store:
        result = _run(sim, cache_dir, store, misbehaving.RAMBLER)
        for outcome in result.outcomes:
            assert [s.completion_tokens for s in outcome.steps] == [REPLY_MAX_TOKENS] * 2
            assert all(s.finish_reason == "length" for s in outcome.steps)
        budget = 6000
        capped = _run(sim, cache_dir, store, misbehaving.RAMBLER, max_tokens=budget)
        for outcome in capped.outcomes:
            # Each reply is bounded by what the budget leaves after its own prompt (issue #17):
            # the second step's prompt alone (the first's prompt + its reply) leaves too little,
            # so the question stops before it, within the budget, and the nudge is never sent.
            assert outcome.stop_reason == "token_budget"
            assert outcome.prompt_tokens + outcome.completion_tokens <= budget
            assert "not nudged" in outcome.steps[-1].error


def test_a_time_budget_still_ends_a_looping_model_that_is_slow(cache_dir, tmp_path):
    """The looper on a slow server: the time budget stops it before the loop check can."""
    with serve_in_thread(load_profile("seed-reference")) as slow, \
            Store.open(tmp_path / "r.db") as store:
        config = EvalConfig(EndpointConfig(slow.url, model=misbehaving.LOOPER),
                            question_ids=("t01",), time_limit_s=0.5)
        result = asyncio.run(asyncio.wait_for(run_eval(
            config, store, sets_dir=paths.questions_dir(), cache_dir=cache_dir), 60))
        (outcome,) = result.outcomes
        assert outcome.stop_reason == "time_budget" and len(outcome.steps) < MISBEHAVIOUR_STEPS
        assert "time budget" in store.sql_steps(store.sql_questions(result.run_id)[0]["id"])[-1][
            "error"]
