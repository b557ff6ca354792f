"""The layered strategy: a fast one-shot answer first, the tool loop only when it fails the
harness's own checks (or the route marks the question structured); the gold is never read
before judging."""

import asyncio
import json

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator import personas
from desktop_app.core.sqleval import runner
from desktop_app.core.sqleval import strategies as prompts
from desktop_app.core.sqleval.export import eval_to_json
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.report.judge_words import tier_table
# The same tiny set and scripted answers as the runner's tests: t01 right; h01 without its
# ROUND, which the harness's rounding check catches (avg 7.6665 for north).
from tests.core.sqleval.test_sqleval_runner import ANSWERS, QUESTIONS, question_set  # noqa: F401


class Endpoint:
    """Without tools: one ```sql block. With tools: run_sql, then submit_answer. Records every
    request as (question id, tools offered, system prompt)."""

    def __init__(self, events=None):
        self.requests: list[tuple[str, bool, str]] = []
        self.events = events

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "scripted"}]})
        if request.url.path != "/v1/chat/completions":
            return httpx.Response(404)
        body = json.loads(request.content)
        first = body["messages"][1]["content"]
        qid = next(q["id"] for q in QUESTIONS if first.startswith(q["text_en"]))
        tools = bool(body.get("tools"))
        self.requests.append((qid, tools, body["messages"][0]["content"]))
        if self.events is not None:
            self.events.append(("model", qid, tools))
        usage = {"prompt_tokens": 300, "completion_tokens": 20}
        if not tools:
            message = {"role": "assistant",
                       "content": f"Here it is.\n\n```sql\n{ANSWERS[qid]}\n```"}
            return httpx.Response(200, json={"choices": [{"message": message,
                                                          "finish_reason": "stop"}],
                                             "usage": usage})
        done = sum(m["role"] == "assistant" for m in body["messages"])
        name = "run_sql" if done == 0 else "submit_answer"
        call = {"id": f"c{done}", "type": "function",
                "function": {"name": name, "arguments": json.dumps({"sql": ANSWERS[qid]})}}
        return httpx.Response(200, json={
            "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]},
                         "finish_reason": "tool_calls"}], "usage": usage})

    def client(self):
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))

    def of(self, qid):
        return [(tools, system) for q, tools, system in self.requests if q == qid]


def _run(question_set, tmp_path, endpoint, store=None, **kw):
    config = EvalConfig(EndpointConfig("http://scripted.test", model="scripted"),
                        questions=str(question_set), strategies=("layered",), **kw)

    async def go():
        async with endpoint.client() as client:
            return await run_eval(config, store, sets_dir=tmp_path, cache_dir=tmp_path / "c",
                                  client=client)
    return asyncio.run(go())


def test_a_validated_fast_answer_never_enters_the_loop_and_a_failing_one_does(question_set,
                                                                            tmp_path):
    endpoint = Endpoint()
    result = _run(question_set, tmp_path, endpoint)
    items = {i.outcome.question_id: i for i in result.items}
    # t01: one request, without tools; its answer passed the checks and is final.
    assert endpoint.of("t01") == [(False, endpoint.of("t01")[0][1])]
    assert items["t01"].outcome.path == "fast"
    assert items["t01"].outcome.route_reason == "validated"
    assert items["t01"].outcome.stop_reason == "submitted" and items["t01"].steps == 1
    # h01: the fast answer lacks the ROUND: the tool loop follows, with the format guard and
    # (a hard question) the worked examples.
    h01 = endpoint.of("h01")
    assert [tools for tools, _ in h01] == [False, True, True]
    assert "Output format (this is checked exactly)" in h01[1][1]
    assert "Worked examples of window functions" in h01[1][1]
    assert "Output format" not in h01[0][1]
    assert items["h01"].outcome.path == "loop"
    assert items["h01"].outcome.route_reason.startswith("validation failed: column avg_amount")
    assert items["h01"].steps == 3
    assert [s.index for s in items["h01"].outcome.steps] == [0, 1, 2]
    data = eval_to_json(result)
    by_id = {i["id"]: i for i in data["items"]}
    assert by_id["t01"]["path"] == "fast" and by_id["h01"]["path"] == "loop"
    assert data["layered"]["fast"]["questions"] == 1
    assert data["layered"]["loop"]["passed"]["strict"] == 0
    assert ("layered: fast path settled 1 of 2 (strict 1/1), the tool loop 1 (strict 0/1)"
            in tier_table(result))


def test_the_stored_path_survives_in_verdicts_json(question_set, tmp_path):
    from desktop_app.core.sqleval.records import question_rows

    with Store.open(tmp_path / "r.db") as store:
        result = _run(question_set, tmp_path, Endpoint(), store)
        rows = question_rows(store, result.run_id)
    assert {r["question_id"]: r["verdicts_json"]["layered"]["path"] for r in rows} == {
        "t01": "fast", "h01": "loop"}


def test_always_loop_sends_every_question_to_the_loop(question_set, tmp_path):
    endpoint = Endpoint()
    result = _run(question_set, tmp_path, endpoint, layered_route="always-loop")
    assert {i.outcome.path for i in result.items} == {"loop"}
    assert {i.outcome.route_reason for i in result.items} == {"always-loop"}
    assert all(tools for _, tools, _ in endpoint.requests)  # no fast request at all


def test_a_tier_route_sends_only_those_tiers_straight_to_the_loop(question_set, tmp_path):
    endpoint = Endpoint()
    result = _run(question_set, tmp_path, endpoint, layered_route="tier:hard,medium")
    paths = {i.outcome.question_id: (i.outcome.path, i.outcome.route_reason)
             for i in result.items}
    assert paths == {"t01": ("fast", "validated"), "h01": ("loop", "structured: tier hard")}
    assert [tools for tools, _ in endpoint.of("h01")] == [True, True]


def test_the_gold_is_never_consulted_before_judging(question_set, tmp_path, monkeypatch):
    """The golds are opaque until judge_answer runs: any use of one before (by the fast path,
    the checks or the loop) raises; and each question's checks come before its judging."""
    events: list[tuple] = []

    class Sealed:
        def __init__(self, gold):
            object.__setattr__(self, "_gold", gold)

        def __getattr__(self, name):
            raise AssertionError(f"gold read before judging ({name})")

    real_answers, real_judge = runner.gold_answers, runner.judge_answer
    real_check = prompts.check_submission

    def sealed_answers(q, sandbox):
        return tuple(Sealed(g) for g in real_answers(q, sandbox))

    def judge(question, golds, *args, **kw):
        events.append(("judge", question.id))
        return real_judge(question, tuple(object.__getattribute__(g, "_gold") for g in golds),
                          *args, **kw)

    def check(question, result, error=None):
        events.append(("check", question.id))
        return real_check(question, result, error)

    monkeypatch.setattr(runner, "gold_answers", sealed_answers)
    monkeypatch.setattr(runner, "judge_answer", judge)
    monkeypatch.setattr(prompts, "check_submission", check)
    result = _run(question_set, tmp_path, Endpoint(events))
    assert {i.outcome.path for i in result.items} == {"fast", "loop"}
    for qid in ("t01", "h01"):
        mine = [e for e in events if e[1] == qid]
        assert mine[-1] == ("judge", qid)
        assert ("check", qid) in mine and mine.count(("judge", qid)) == 1
    # The verdicts are real: t01 passes, h01 (no ROUND) fails strict.
    verdicts = {i.outcome.question_id: i.outcome.verdicts["strict"].passed for i in result.items}
    assert verdicts == {"t01": True, "h01": False}


def test_the_route_is_validated_by_name():
    config = EvalConfig(EndpointConfig("http://x.test", model="m"), strategies=("layered",),
                        layered_route="tier:expert")
    with pytest.raises(InputError) as info:
        config.validate()
    assert info.value.field == "layered route"
    with pytest.raises(InputError):
        EvalConfig(EndpointConfig("http://x.test", model="m"), layered_route="sometimes"
                   ).validate()
    assert prompts.parse_layered_route("tier:hard, medium") == ("tier", ("hard", "medium"))


def test_cli_route_flag(tmp_path):
    from desktop_app.cli import sqleval as cli_sqleval
    from desktop_app.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["sqleval", "--base-url", "http://x.test", "--strategy",
                              "layered", "--layered-route", "tier:hard,medium"])
    assert cli_sqleval.build_config(args, args.base_url).layered_route == "tier:hard,medium"
    for flags in (["--strategy", "layered", "--layered-route", "never"],
                  ["--layered-route", "always-loop"]):
        args = parser.parse_args(["sqleval", "--base-url", "http://x.test", *flags])
        with pytest.raises(InputError) as info:
            cli_sqleval.build_config(args, args.base_url)
        assert info.value.field == "--layered-route"


def test_personas_answer_the_fast_path(tmp_path):
    """A request without tools gets one ```sql block: sim/careful the gold, sim/seed-reference
    its usual faults (no ROUND; h01's columns misnamed)."""
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    book = personas.QuestionBook(path)
    body = {"messages": [{"role": "system", "content": "Reply with one fenced sql block."},
                         {"role": "user", "content": QUESTIONS[1]["text_en"]}]}
    careful = personas.SqlPersona("careful", book)(body, None)
    seed = personas.SqlPersona("seed-reference", book)(body, None)
    assert not careful.tool_calls and not seed.tool_calls
    assert "ROUND(AVG(amount), 2)" in careful.text
    assert "```sql" in seed.text and "ROUND" not in seed.text.upper()


def test_cli_layered_run_on_the_simulator_says_which_path_answered(tmp_path, capsys):
    from desktop_app.cli import main

    out = tmp_path / "out.json"
    assert main(["sqleval", "--simulator", "fast", "--model", "sim/seed-reference",
                 "--strategy", "layered", "--ids", "t01,h01", "--no-store",
                 "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    paths = {i["id"]: i["path"] for i in data["items"]}
    assert paths == {"t01": "fast", "h01": "loop"}
    assert "validation failed" in next(i for i in data["items"] if i["id"] == "h01"
                                       )["route_reason"]
    assert "layered: fast path settled 1 of 2" in capsys.readouterr().out


@pytest.mark.parametrize(("route", "zh"), [
    ("tier:impossible", "'tier:impossible'：tier: 后请写难度，可选 trivial, easy, medium, hard"),
    ("fastest", "'fastest'：请选择 validate、always-loop 或 tier:<难度>"),
])
def test_a_route_that_is_not_one_is_refused_naming_its_field(route, zh):
    from desktop_app.core.parsing import InputError
    from desktop_app.core.sqleval.strategies import parse_layered_route
    from desktop_app.report.input_words import input_error_text

    assert parse_layered_route(" tier:hard,medium ") == ("tier", ("hard", "medium"))
    with pytest.raises(InputError) as caught:
        parse_layered_route(route)
    assert caught.value.field == "layered route"
    assert zh in input_error_text(caught.value, "zh")
