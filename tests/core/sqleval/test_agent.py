"""The SQL agent loop against scripted models (httpx.MockTransport) and a real sandbox."""

import asyncio
import json
import sqlite3

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.sqleval.agent import HISTORY_REPLY_CHARS, first_sql_block, run_question
from desktop_app.core.sqleval.sandbox import Sandbox
from desktop_app.core.sqleval.strategies import check_submission, user_message
from desktop_app.core.sqleval.tools import TOOLS, execute_tool
from desktop_app.core.sqleval.types import Question, QueryResult

CONFIG = EndpointConfig("http://model.test", model="scripted")
GOLD = "SELECT region, ROUND(SUM(amount), 2) AS total FROM sales GROUP BY region ORDER BY region"
UNROUNDED = "SELECT region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY region"
QUESTION = Question(
    id="q1", tier="hard", text_en="Total sales per region? Columns: region, total (2 decimals).",
    text_zh="每个地区的销售总额？列：region, total（保留两位小数）。", gold_sql=GOLD, database="main",
    required_columns=("region", "total"), rounding={"total": 2}, order_matters=True,
    glossary="A sale counts when it is recorded in the sales table.")


@pytest.fixture
def sandbox(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE sales (region TEXT, amount REAL)")
        conn.executemany("INSERT INTO sales VALUES (?, ?)",
                         [("north", 10.123), ("north", 5.111), ("south", 7.0)]
                         + [("west", 1.0)] * 30)
    conn.close()
    with Sandbox(path) as box:
        yield box


def call(name, args, call_id=None):
    raw = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id or f"c_{name}", "type": "function",
            "function": {"name": name, "arguments": raw}}


def reply(content=None, calls=(), *, prompt=100, completion=10, finish=None):
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return {"choices": [{"index": 0, "message": message,
                         "finish_reason": finish or ("tool_calls" if calls else "stop")}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


class Model:
    """A scripted model: answers each chat request with the next reply (the last one repeats)."""

    def __init__(self, *replies, delay_s=0.0, status=200):
        self.replies = list(replies)
        self.requests: list[dict] = []
        self.delay_s = delay_s
        self.status = status

    async def handler(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        self.requests.append(json.loads(request.content))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.status != 200:
            return httpx.Response(self.status, json={"error": {"message": "bad request"}})
        index = min(len(self.requests) - 1, len(self.replies) - 1)
        return httpx.Response(200, json=self.replies[index])

    async def run(self, sandbox, question=QUESTION, **kw):
        async with httpx.AsyncClient(transport=httpx.MockTransport(self.handler)) as client:
            return await run_question(client, CONFIG, question, sandbox, **kw)


@pytest.mark.asyncio
async def test_a_model_that_explores_then_submits_is_recorded_step_by_step(sandbox):
    model = Model(
        reply("Let me look.", [call("list_tables", {})], prompt=500, completion=20),
        reply(None, [call("describe_table", {"table": "sales"})], prompt=700, completion=15),
        reply(None, [call("run_sql", {"sql": "SELECT * FROM sales"})], prompt=900),
        reply(None, [call("submit_answer", {"sql": GOLD})], prompt=1200, completion=30),
    )
    seen = []
    steps, stop, final_sql = await model.run(sandbox, on_step=seen.append)
    assert (stop, final_sql) == ("submitted", GOLD)
    assert [s.index for s in steps] == [0, 1, 2, 3] and seen == steps
    assert [s.prompt_tokens for s in steps] == [500, 700, 900, 1200]
    assert sum(s.completion_tokens for s in steps) == 75
    assert all(s.latency_s >= 0 for s in steps)
    # The first user message is exactly the question; the tools are offered natively.
    first = model.requests[0]
    assert first["messages"][1] == {"role": "user", "content": QUESTION.text_en}
    assert first["tools"] == TOOLS and first["tool_choice"] == "auto"
    # Each tool result went back as a role=tool message answering its call id.
    tool_msgs = [m for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_msgs == [{"role": "tool", "tool_call_id": "c_list_tables", "content": "sales"}]
    assert "CREATE TABLE sales" in steps[1].tool_calls[0].result
    # run_sql shows 20 of the 33 rows and says so; the step records the cut.
    run_sql = steps[2].tool_calls[0]
    assert run_sql.result_truncated and "33" in run_sql.result
    assert run_sql.result.count("west") == 17  # 3 other rows + 17 = 20 shown
    # new_messages rebuild the conversation: each step adds the reply and its tool results.
    assert [m["role"] for m in steps[0].new_messages] == ["system", "user"]
    assert [m["role"] for m in steps[1].new_messages] == ["assistant", "tool"]
    assert steps[3].request_messages == len(model.requests[3]["messages"])


@pytest.mark.asyncio
async def test_a_model_that_never_calls_a_tool_is_nudged_once_then_has_no_answer(sandbox):
    model = Model(reply("I think the answer is north."))
    steps, stop, final_sql = await model.run(sandbox)
    assert (stop, final_sql, len(steps)) == ("no_answer", None, 2)
    assert "nudged" in steps[0].error
    assert "submit_answer" in model.requests[1]["messages"][-1]["content"]


@pytest.mark.asyncio
async def test_unknown_tools_and_invalid_json_are_errors_the_model_sees(sandbox):
    model = Model(
        reply(None, [call("drop_database", {}, "a"), call("run_sql", '{"sql": "SELECT', "b"),
                     call("run_sql", {"query": "SELECT 1"}, "c"),
                     call("run_sql", {"sql": "SELECT nope FROM sales"}, "d")]),
        reply(None, [call("submit_answer", {"sql": GOLD})]),
    )
    steps, stop, _ = await model.run(sandbox)
    assert stop == "submitted"
    records = steps[0].tool_calls
    assert [r.call_id for r in records] == ["a", "b", "c", "d"]
    assert all(r.error for r in records)
    assert "unknown tool 'drop_database'" in records[0].error
    assert "not valid JSON" in records[1].error and records[1].arguments == '{"sql": "SELECT'
    assert "missing argument 'sql'" in records[2].error
    assert "no such column: nope" in records[3].result
    sent = {m["tool_call_id"]: m["content"] for m in model.requests[1]["messages"]
            if m["role"] == "tool"}
    assert set(sent) == {"a", "b", "c", "d"} and all(v.startswith("Error") for v in sent.values())


@pytest.mark.asyncio
async def test_tool_arguments_nested_past_python_recursion_are_an_error_the_model_sees(sandbox):
    # Within the 100,000-character cap on arguments, 20,000 brackets deep: json.loads raised
    # RecursionError (not a ValueError), which ended the whole question with a traceback.
    deep = '{"sql": ' + "[" * 20_000 + "]" * 20_000 + "}"
    model = Model(reply(None, [call("run_sql", deep, "a")]),
                  reply(None, [call("submit_answer", {"sql": GOLD})]))
    steps, stop, final = await model.run(sandbox)
    assert stop == "submitted" and final == GOLD
    (record,) = steps[0].tool_calls
    assert "not valid JSON" in record.error and "nested" in record.error


@pytest.mark.asyncio
async def test_a_model_looping_on_the_same_call_stops_before_the_step_budget(sandbox):
    model = Model(reply(None, [call("run_sql", {"sql": "SELECT 1"})]))
    steps, stop, final_sql = await model.run(sandbox, max_steps=5)
    assert (stop, final_sql, len(steps), len(model.requests)) == ("repeated_call", None, 3, 3)
    assert "same call (run_sql) 3 replies in a row" in steps[-1].error
    # Calls that differ from one step to the next run until the step budget.
    model = Model(*(reply(None, [call("run_sql", {"sql": f"SELECT {i}"})]) for i in range(9)))
    steps, stop, final_sql = await model.run(sandbox, max_steps=5)
    assert (stop, final_sql, len(steps), len(model.requests)) == ("step_budget", None, 5, 5)


@pytest.mark.asyncio
async def test_the_token_budget_counts_prompt_and_completion_over_steps(sandbox):
    model = Model(reply(None, [call("list_tables", {})], prompt=900, completion=100))
    steps, stop, _ = await model.run(sandbox, max_tokens=2500)
    # Step 2's own prompt is at least step 1's prompt (900, the server's count) plus the reply
    # and the tool's result: its reply may take at most 2,500 - 1,000 spent - 900; a third
    # step's prompt would not fit at all.
    assert (stop, len(steps)) == ("token_budget", 2)
    assert 0 < model.requests[1]["max_tokens"] <= 600  # the reply may not exceed what is left
    assert sum(s.prompt_tokens + s.completion_tokens for s in steps) <= 2500


@pytest.mark.asyncio
async def test_a_huge_reply_is_cut_before_it_goes_back_and_ends_at_the_output_budget(sandbox):
    huge = "word " * 20_000
    model = Model(reply(huge, completion=25_000, finish="length"))
    steps, stop, _ = await model.run(sandbox)
    assert (stop, len(steps)) == ("output_budget", 2)
    assert steps[0].reply["content"] == huge  # the step keeps what was received
    echoed = model.requests[1]["messages"][2]["content"]
    assert len(echoed) < HISTORY_REPLY_CHARS + 100 and "cut" in echoed
    assert "max_tokens" in steps[0].error


@pytest.mark.asyncio
async def test_text_mode_takes_the_first_fenced_sql_block_as_the_answer(sandbox):
    model = Model(reply(f"Here it is:\n```sql\n{GOLD}\n```\nand also\n```sql\nSELECT 2\n```"))
    steps, stop, final_sql = await model.run(sandbox, tool_mode="text", language="zh")
    assert (stop, final_sql, len(steps)) == ("submitted", GOLD, 1)
    body = model.requests[0]
    assert "tools" not in body
    assert "CREATE TABLE sales" in body["messages"][0]["content"]
    assert body["messages"][1]["content"] == QUESTION.text_zh


@pytest.mark.asyncio
async def test_validate_retry_sends_feedback_exactly_once(sandbox):
    model = Model(reply(None, [call("submit_answer", {"sql": UNROUNDED})]))
    steps, stop, final_sql = await model.run(sandbox, strategies={"validate-retry"})
    assert (stop, final_sql, len(steps)) == ("submitted", UNROUNDED, 2)
    feedback = steps[0].tool_calls[0]
    assert "validate-retry" in feedback.error and "ROUND(..., 2)" in feedback.result
    sent = [m for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert len(sent) == 1 and "only retry" in sent[0]["content"]
    # A clean first submission is accepted at once.
    model = Model(reply(None, [call("submit_answer", {"sql": GOLD})]))
    steps, stop, _ = await model.run(sandbox, strategies={"validate-retry"})
    assert (stop, len(steps)) == ("submitted", 1)


@pytest.mark.asyncio
async def test_endpoint_errors_and_the_time_budget_end_the_question(sandbox):
    steps, stop, _ = await Model(status=400).run(sandbox)
    assert stop == "endpoint_error" and "400" in steps[0].error
    slow = Model(reply(None, [call("list_tables", {})]), delay_s=1.0)
    steps, stop, _ = await slow.run(sandbox, time_limit_s=0.2)
    assert stop == "time_budget" and "time budget" in steps[0].error


def test_strategy_texts_keep_the_question_first():
    text = user_message(QUESTION, {"glossary"}, glossary={"online": "web or app channel"})
    assert text.startswith(QUESTION.text_en + "\n\n")
    assert QUESTION.glossary in text and "- online: web or app channel" in text
    assert user_message(QUESTION, set()) == QUESTION.text_en
    assert first_sql_block("```SQL\nSELECT 1;\n```") == "SELECT 1;"
    assert first_sql_block("```python\nprint()\n```") is None


def test_check_submission_names_what_is_off():
    ok = QueryResult(("region", "total"), (("north", 15.23),), 1)
    assert check_submission(QUESTION, ok) == []
    bad = QueryResult(("Region", "sum_total"), (), 0)
    problems = check_submission(QUESTION, bad)
    assert any("no rows" in p for p in problems) and any("['region', 'total']" in p
                                                        for p in problems)
    unrounded = QueryResult(("region", "total"), (("north", 15.234),), 1)
    assert "rounded to 2 decimals" in check_submission(QUESTION, unrounded)[0]
    assert "failed" in check_submission(QUESTION, None, "no such table: x")[0]


def test_execute_tool_reports_refusals_as_text(sandbox):
    out = execute_tool(sandbox, "run_sql", json.dumps({"sql": "DELETE FROM sales"}), call_id="x")
    assert out.record.error and out.record.result.startswith("Error: ")
    out = execute_tool(sandbox, "describe_table", {"table": "nope"})
    assert "no such table" in out.record.result
    out = execute_tool(sandbox, "submit_answer", '{"sql": "SELECT 1"}')
    assert out.submitted_sql == "SELECT 1" and out.record.error is None


@pytest.mark.asyncio
async def test_a_prose_answer_with_tools_offered_is_taken_and_said(sandbox):
    """A real model (SmolLM2) answers in prose with a ```sql block and no tool call: the block
    is the answer, and the step says so; text mode, where that is the protocol, says nothing."""
    model = Model(reply(f"The answer is:\n```sql\n{GOLD}\n```"))
    steps, stop, final_sql = await model.run(sandbox)
    assert (stop, final_sql) == ("submitted", GOLD)
    assert "answered in prose with a ```sql block and no tool call" in steps[0].error
    model = Model(reply(f"```sql\n{GOLD}\n```"))
    steps, _, _ = await model.run(sandbox, tool_mode="text")
    assert steps[0].error is None


def _sse(*events) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + (
        b"data: [DONE]\n\n")


def _delta(delta, finish=None):
    return {"id": "s", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


@pytest.mark.asyncio
async def test_a_tool_call_streamed_in_pieces_is_put_together_and_run(sandbox):
    """The agent streams its calls: a call's id and name come first, its arguments in pieces
    (as vLLM and llama.cpp send them), the usage last."""
    args = json.dumps({"sql": GOLD})
    body = _sse(_delta({"role": "assistant"}),
                _delta({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                        "function": {"name": "submit_answer", "arguments": ""}}]}),
                *[_delta({"tool_calls": [{"index": 0, "function": {"arguments": args[i:i + 9]}}]})
                  for i in range(0, len(args), 9)],
                _delta({}, "tool_calls"),
                {"id": "s", "choices": [], "usage": {"prompt_tokens": 321, "completion_tokens": 17}})
    sent = []

    async def handler(request):
        sent.append(json.loads(request.content))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        steps, stop, final_sql = await run_question(client, CONFIG, QUESTION, sandbox)
    assert sent[0]["stream"] is True
    assert (stop, final_sql) == ("submitted", GOLD)
    assert (steps[0].prompt_tokens, steps[0].completion_tokens) == (321, 17)
    assert steps[0].tool_calls[0].name == "submit_answer"


@pytest.mark.asyncio
async def test_a_stopped_run_keeps_what_the_reply_had_streamed(sandbox):
    """Cancelling a question mid-reply (the user's Stop) records the reply so far, cut: five
    chunks of text, five tokens, the prompt estimated, before CancelledError goes on."""
    streamed = asyncio.Event()

    async def chunks():
        for word in ("Let ", "me ", "look ", "at ", "sales"):
            yield b"data: " + json.dumps(_delta({"content": word})).encode() + b"\n\n"
        # Reached when the client asks for more: it has read all five chunks.
        streamed.set()
        await asyncio.Event().wait()  # the server never finishes

    async def handler(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=chunks())

    seen = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        task = asyncio.create_task(run_question(client, CONFIG, QUESTION, sandbox,
                                                on_step=seen.append))
        await asyncio.wait_for(streamed.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    (cut,) = seen
    assert cut.reply == {"role": "assistant", "content": "Let me look at sales", "cut": True}
    assert cut.completion_tokens == 5 and cut.prompt_tokens > 50
    assert cut.error.startswith("cancelled while the reply streamed; kept what streamed: 5 tokens")
