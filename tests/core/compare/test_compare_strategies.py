"""The fast path, the tool loop and the layered strategy compared on the same endpoint: the
figures per strategy, a winner only outside the noise, and a layered run's split per path."""

import asyncio
import json

import httpx
import pytest

from desktop_app.core.compare import compare, compare_strategies
from desktop_app.core.compare.strategies import (
    LayeredPath,
    check_problems,
    ratio_estimate,
    route_code,
    strategy_of,
)
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.report.strategy_section import strategies, strategy_json, strategy_text
from tests.core.sqleval.test_sqleval_runner import ANSWERS, QUESTIONS, question_set  # noqa: F401


class Scripted:
    """Without tools: one ```sql block (t01 right; h01 without its ROUND, which the layered
    checks catch). With tools: run_sql, then submit_answer with the ROUND put back. Every
    reply's usage is fixed, so the tokens per strategy are known exactly."""

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "scripted"}]})
        if request.url.path != "/v1/chat/completions":
            return httpx.Response(404)
        body = json.loads(request.content)
        first = body["messages"][1]["content"]
        q = next(q for q in QUESTIONS if first.startswith(q["text_en"]))
        usage = {"prompt_tokens": 300, "completion_tokens": 20}
        if not body.get("tools"):
            message = {"role": "assistant", "content": f"```sql\n{ANSWERS[q['id']]}\n```"}
            return httpx.Response(200, json={"choices": [{"message": message}],
                                             "usage": usage})
        done = sum(m["role"] == "assistant" for m in body["messages"])
        name = "run_sql" if done == 0 else "submit_answer"
        call = {"id": f"c{done}", "type": "function",
                "function": {"name": name, "arguments": json.dumps({"sql": q["gold_sql"]})}}
        return httpx.Response(200, json={
            "choices": [{"message": {"role": "assistant", "content": None,
                                     "tool_calls": [call]}}], "usage": usage})


def _run(question_set, tmp_path, store, name, **kw):
    config = EvalConfig(EndpointConfig("http://scripted.test", model="scripted"),
                        questions=str(question_set), name=name, **kw)

    async def go():
        async with httpx.AsyncClient(transport=httpx.MockTransport(Scripted().handler)) as c:
            return await run_eval(config, store, sets_dir=tmp_path, cache_dir=tmp_path / "c",
                                  client=c)
    return asyncio.run(go()).run_id


@pytest.fixture
def three_runs(question_set, tmp_path):  # noqa: F811 - the fixture imported above
    with Store.open(tmp_path / "r.db") as store:
        ids = [_run(question_set, tmp_path, store, "fast", tool_mode="text"),
               _run(question_set, tmp_path, store, "loop"),
               _run(question_set, tmp_path, store, "layered", strategies=("layered",))]
        comp = compare(store, ids)
        report = compare_strategies(comp.runs)
    return ids, comp, report


def test_three_strategies_on_one_endpoint_give_their_figures(three_runs):
    ids, comp, report = three_runs
    assert len(report.groups) == 1
    group = report.groups[0]
    assert [(r.run_id, r.kind) for r in group.runs] == list(zip(ids, ["fast", "loop",
                                                                     "layered"]))
    assert group.judges == ("strict", "tolerant", "full")
    n = len(QUESTIONS)
    # Strict: the fast path keeps h01's missing ROUND; the loop submits the gold.
    fast, loop, layered = group.row("strict", "pass_rate").values
    assert fast.detail["passed"] == n - 1 and loop.detail["passed"] == n
    assert layered.detail["passed"] == n  # h01 failed the checks, so the loop answered it
    # Tokens per correct answer: every reply is 320 tokens; the fast path asks once a
    # question, the loop twice (run_sql, submit_answer).
    tpc = group.row("strict", "tokens_per_correct").values
    assert tpc[0].value == pytest.approx(320 * n / (n - 1))
    assert tpc[1].value == pytest.approx(640.0)
    # Correct answers per hour: 3600 x passed / the questions' seconds summed.
    cph = group.row("tolerant", "correct_per_hour")
    run = group.runs[1].run
    secs = sum(q.seconds for q in run.judged)
    assert cph.values[1].value == pytest.approx(3600 * n / secs)
    # A layered run's split: h01 went to the loop because its fast answer failed the checks.
    (split,) = [r.split for r in report.layered]
    paths = {p.path: p for p in split}
    assert paths["loop"].questions == 1 and paths["fast"].questions == n - 1
    assert paths["loop"].reasons == (("validation_failed", 1),)
    assert paths["loop"].passed["strict"] == 1
    assert paths["fast"].tokens_per_question == pytest.approx(320.0)


def test_a_difference_inside_the_noise_names_no_winner(three_runs):
    _, _, report = three_runs
    group = report.groups[0]
    # 1 discordant question of a handful: McNemar cannot tell; nor can 2 vs 3 questions' cost.
    for row in group.rows:
        if row.params["figure"] == "pass_rate":
            assert row.verdict.code == "within_noise" and row.verdict.winner is None
            assert row.verdict.method == "mcnemar-exact"
    # Nor does any pair of the three on the pass rate; the fixed 320-token replies make the
    # cost rows exact, so a pair may win there (the fast path's 320 vs the loop's 640 tokens
    # per tolerant-correct answer), never on equal figures.
    assert not [b for b in group.beats if b[1] == "pass_rate"]
    assert ("tolerant", "tokens_per_correct", 0, 1) in group.beats
    assert not [b for b in group.beats if b[:2] == ("strict", "tokens_per_correct")
                and {b[2], b[3]} == {0, 1}]  # 640 vs 640
    words = strategy_text(report, "en")
    # One line per criterion; what wins there besides the exact token counts rests on the
    # measured seconds, so it is not asserted.
    assert [w.split(":")[0] for w in words if w.startswith("- ")][:3] == [
        "- Strict", "- Tolerant", "- Full"]
    assert any("fast path settled" in line for line in words)
    zh = "\n".join(strategy_text(report, "zh"))
    assert "快速路径解决了" in zh and "工具循环" in zh
    data = strategy_json(report)
    assert {r["figure"] for r in data["groups"][0]["rows"]} == {
        "pass_rate", "correct_per_hour", "tokens_per_correct"}
    assert data["layered"][0]["paths"][1]["reasons"] == {"validation_failed": 1}


def test_a_real_difference_wins_and_a_tiny_one_does_not():
    # Tokens per correct answer of 40 questions each: 1,000 vs 3,000 tokens a question.
    a = ratio_estimate([1000.0] * 40, [1.0] * 40)
    b = ratio_estimate([3000.0 + (i % 3) for i in range(40)], [1.0] * 40)
    assert a.value == 1000 and a.high < b.low
    # Noise only: the same questions resampled give overlapping intervals.
    c = ratio_estimate([300.0, 320, 310, 900, 305], [1.0, 1, 1, 0, 1])
    d = ratio_estimate([305.0, 318, 900, 312, 300], [1.0, 1, 0, 1, 1])
    assert not (c.high < d.low or d.high < c.low)
    assert ratio_estimate([1.0, 2.0], [0.0, 0.0]) is None  # nothing passed: no figure


def test_runs_of_one_strategy_or_other_endpoints_are_not_grouped(three_runs):
    _, comp, _ = three_runs
    fast = comp.runs[0]
    assert not compare_strategies([fast]).groups
    assert strategy_of(fast.info) == ("fast", ())


def test_route_reasons_become_codes():
    assert route_code("validated") == ("validated", "")
    assert route_code("structured: tier hard") == ("structured", "hard")
    assert route_code("always-loop") == ("always_loop", "")
    assert route_code("fast path ended step_budget without an answer") == (
        "no_fast_answer", "step_budget")
    code, detail = route_code("validation failed: column avg_amount must be rounded to 2 "
                              "decimals (ROUND(..., 2)) but has values like 7.6665; the query "
                              "returned no rows; check the filters and joins")
    assert code == "validation_failed"
    assert check_problems(detail) == [
        ("rounding", {"column": "avg_amount", "decimals": "2", "value": "7.6665"}),
        ("no_rows", {})]
    assert LayeredPath("loop", "always-loop").code == "always_loop"


def test_the_pdf_section_is_empty_without_strategies_and_worded_in_both_languages(three_runs):
    _, comp, _ = three_runs
    en, zh = strategies(comp, "en"), strategies(comp, "zh")
    assert "correct answers per hour" in en and "每小时正确答案数" in zh
    assert strategies(type(comp)(comp.runs[:1], ()), "en") == ""


def test_what_differs_names_the_strategy_and_tool_mode_of_sql_runs(three_runs):
    ids, comp, _ = three_runs
    differs = comp.settings_differ
    assert differs["strategy"] == dict(zip(ids, ["fast", "loop", "layered"]))
    assert differs["tool_mode"] == dict(zip(ids, ["text", "native", "native"]))
    assert "judges" not in differs  # the same judges in every run are not a difference
