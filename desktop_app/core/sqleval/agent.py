"""The SQL agent loop: one question, one model, tools against a read-only sandbox, budgets.

`run_question` sends the system prompt and the question (the first user message starts with
exactly `question.text(language)`), then loops: one non-streamed chat completion per step, every
tool call of the reply executed in order and answered with a `role: tool` message, one
`AgentStep` recorded per model call and handed to `on_step` as soon as it is done.

It stops with one of STOP_REASONS:
- submitted: submit_answer was called (text mode, or a native reply without tool calls: the
  first fenced ```sql block of the reply is the answer);
- step_budget / token_budget / time_budget: max_steps model calls, max_tokens prompt +
  completion tokens summed over the steps, time_limit_s seconds of wall time;
- no_answer: a reply without a tool call or an answer, after one nudge: the first such reply
  gets one user message ("call submit_answer ...") because models often end a turn with a plan;
  the next one (any time later in the question) ends the loop;
- endpoint_error: the call failed (one retry after 1 s for connection errors, 429 and 5xx).

A model looping on the same call ends at the step budget; a huge reply is cut to
HISTORY_REPLY_CHARS characters before it goes back into the conversation (the step keeps the
reply as received); invalid tool arguments come back to the model as an error text.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Collection, Mapping

import httpx

from desktop_app.core.endpoint.client import EndpointError, complete
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.sqleval import strategies as prompts
from desktop_app.core.sqleval.sandbox import SandboxError
from desktop_app.core.sqleval.tools import TOOLS, ToolOutcome, clip, execute_tool
from desktop_app.core.sqleval.types import AgentStep, Question, ToolCallRecord

__all__ = ["HISTORY_REPLY_CHARS", "REPLY_MAX_TOKENS", "database_schema", "first_sql_block",
           "run_question"]

REPLY_MAX_TOKENS = 4096  # max_tokens of one reply: bounds a runaway generation per step
HISTORY_REPLY_CHARS = 8000  # an assistant text longer than this is cut before it is sent back
_RETRY_DELAY_S = 1.0
_SQL_BLOCK = re.compile(r"```[ \t]*(?:sql|sqlite)[ \t]*\r?\n(.*?)```", re.IGNORECASE | re.DOTALL)

StepCallback = Callable[[AgentStep], None]


def first_sql_block(text: str | None) -> str | None:
    """The first fenced ```sql block of `text`, stripped, or None."""
    match = _SQL_BLOCK.search(text or "")
    return match.group(1).strip() or None if match else None


def database_schema(sandbox) -> str:
    """Every table's description (schema + sample rows), for text mode's system prompt."""
    return "\n\n".join(sandbox.describe_table(t) for t in sandbox.list_tables())


class _Loop:
    """The state of one question's loop."""

    def __init__(self, time_limit_s: float | None, max_tokens: int | None) -> None:
        self.t0 = time.monotonic()
        self.deadline = None if time_limit_s is None else self.t0 + time_limit_s
        self.max_tokens = max_tokens
        self.tokens = 0
        self.sent = 0  # messages already sent in an earlier step
        self.nudged = False
        self.retry_used = False

    def remaining_s(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()


async def _call(client: httpx.AsyncClient, config: EndpointConfig, body: dict,
                loop: _Loop) -> dict:
    """One chat completion within the time budget; one retry for a transient failure."""
    for attempt in (0, 1):
        remaining = loop.remaining_s()
        try:
            async with asyncio.timeout(remaining):
                return await complete(client, config, body, path="/chat/completions")
        except EndpointError as exc:
            transient = exc.status_code is None or exc.status_code == 429 or exc.status_code >= 500
            remaining = loop.remaining_s()
            if attempt or not transient or (remaining is not None and remaining < 2 * _RETRY_DELAY_S):
                raise
            await asyncio.sleep(_RETRY_DELAY_S)
    raise AssertionError("unreachable")


def _usage(data: dict) -> tuple[int, int]:
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    p, c = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (p if isinstance(p, int) else 0), (c if isinstance(c, int) else 0)


def _history_message(reply: dict, calls: list[dict]) -> dict:
    """The assistant message as it goes back into the conversation (long text cut)."""
    content = reply.get("content")
    if isinstance(content, str):
        content, _ = clip(content, HISTORY_REPLY_CHARS)
    message: dict = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return message


def _normalise_calls(reply: dict, step: int) -> list[dict]:
    """The reply's tool calls with an id and JSON-text arguments each (servers vary)."""
    calls = []
    for i, call in enumerate(reply.get("tool_calls") or []):
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = json.dumps(args) if args is not None else "{}"
        calls.append({"id": str(call.get("id") or f"call_{step}_{i}"), "type": "function",
                      "function": {"name": str(fn.get("name") or ""), "arguments": args}})
    return calls


async def run_question(
    client: httpx.AsyncClient,
    config: EndpointConfig,
    question: Question,
    sandbox,
    *,
    strategies: Collection[str] = (),
    max_steps: int = 20,
    max_tokens: int | None = None,
    time_limit_s: float | None = None,
    language: str = "en",
    tool_mode: str = "native",
    on_step: StepCallback | None = None,
    glossary: Mapping[str, str] | None = None,
    database_note: str = "",
    temperature: float = 0.0,
) -> tuple[list[AgentStep], str, str | None]:
    """Run the agent on one question; returns (steps, stop_reason, final_sql).

    `sandbox` is the question's database `Sandbox`. `max_tokens` budgets prompt + completion
    tokens over all steps (as the server's usage reports them); `time_limit_s` is wall time in
    seconds; `tool_mode` is "native" (OpenAI tool calls) or "text" (the schema in the system
    prompt, a fenced ```sql block as the answer). `glossary` is the set's glossary (term ->
    definition) for the glossary strategy; `database_note` says what the database is.
    `on_step` gets each AgentStep as soon as it is done. Cancelling the task cancels the model
    call in flight and re-raises CancelledError (the steps so far have reached `on_step`).
    """
    loop = _Loop(time_limit_s, max_tokens)
    schema = ""
    if tool_mode == "text":
        schema = await asyncio.to_thread(database_schema, sandbox)
    messages: list[dict] = [
        {"role": "system", "content": prompts.system_prompt(
            question, strategies, tool_mode=tool_mode, database_note=database_note,
            schema=schema)},
        {"role": "user", "content": prompts.user_message(question, strategies, language=language,
                                                         glossary=glossary)},
    ]
    steps: list[AgentStep] = []
    final_sql: str | None = None

    def record(step: AgentStep) -> None:
        steps.append(step)
        loop.tokens += step.prompt_tokens + step.completion_tokens
        loop.sent = step.request_messages
        if on_step is not None:
            on_step(step)

    for index in range(max_steps):
        spent = _budget_spent(loop)
        if spent is not None:
            return steps, spent, final_sql
        body: dict = {"model": config.model, "messages": messages, "temperature": temperature,
                      "max_tokens": REPLY_MAX_TOKENS}
        if loop.max_tokens is not None:
            body["max_tokens"] = max(1, min(REPLY_MAX_TOKENS, loop.max_tokens - loop.tokens))
        if tool_mode == "native":
            body["tools"] = TOOLS
            body["tool_choice"] = "auto"
        new = tuple(messages[loop.sent:])
        sent = len(messages)
        t0 = time.perf_counter()
        try:
            data = await _call(client, config, body, loop)
        except TimeoutError:
            record(AgentStep(index, sent, new, {}, latency_s=time.perf_counter() - t0,
                             error=f"no reply within the time budget of {time_limit_s:g} s"))
            return steps, "time_budget", final_sql
        except EndpointError as exc:
            record(AgentStep(index, sent, new, {}, latency_s=time.perf_counter() - t0,
                             error=str(exc)))
            return steps, "endpoint_error", final_sql
        latency = time.perf_counter() - t0
        prompt_tokens, completion_tokens = _usage(data)
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        reply = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(reply, dict):
            record(AgentStep(index, sent, new, data, prompt_tokens=prompt_tokens,
                             completion_tokens=completion_tokens, latency_s=latency,
                             error="the reply has no choices[0].message"))
            return steps, "endpoint_error", final_sql
        finish = choice.get("finish_reason")
        calls = _normalise_calls(reply, index) if tool_mode == "native" else []
        messages.append(_history_message(reply, calls))
        records: list[ToolCallRecord] = []
        stop: str | None = None
        step_error: str | None = None
        if calls:
            for call in calls:
                fn = call["function"]
                outcome: ToolOutcome = await asyncio.to_thread(
                    execute_tool, sandbox, fn["name"], fn["arguments"], call_id=call["id"])
                rec, text = outcome.record, outcome.record.result
                if outcome.submitted_sql is not None:
                    final_sql = outcome.submitted_sql
                    feedback = await _validate(question, strategies, sandbox, final_sql, loop,
                                               tool_mode)
                    if feedback is None:
                        records.append(rec)
                        stop = "submitted"
                        break
                    text = feedback
                    rec = ToolCallRecord(rec.call_id, rec.name, rec.arguments, text, False,
                                         "validate-retry: answer sent back once")
                records.append(rec)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        else:
            sql = first_sql_block(reply.get("content"))
            if sql is not None:
                final_sql = sql
                feedback = await _validate(question, strategies, sandbox, sql, loop, tool_mode)
                if feedback is None:
                    stop = "submitted"
                else:
                    messages.append({"role": "user", "content": feedback})
            elif loop.nudged:
                stop = "no_answer"
            else:
                loop.nudged = True
                step_error = (f"no tool call and no answer (finish_reason {finish}); nudged once"
                              if finish != "length" else
                              "the reply hit max_tokens with no answer; nudged once")
                messages.append({"role": "user", "content": prompts.NUDGE_NATIVE
                                 if tool_mode == "native" else prompts.NUDGE_TEXT})
        record(AgentStep(index, sent, new, reply, tuple(records), prompt_tokens,
                         completion_tokens, latency, step_error, finish))
        if stop is None:
            stop = _budget_spent(loop)
        if stop is not None:
            return steps, stop, final_sql
    return steps, "step_budget", final_sql


def _budget_spent(loop: _Loop) -> str | None:
    if loop.max_tokens is not None and loop.tokens >= loop.max_tokens:
        return "token_budget"
    remaining = loop.remaining_s()
    if remaining is not None and remaining <= 0:
        return "time_budget"
    return None


async def _validate(question: Question, strategies: Collection[str], sandbox, sql: str,
                    loop: _Loop, tool_mode: str) -> str | None:
    """validate-retry: the feedback for a first flawed submission, else None (accept it)."""
    if "validate-retry" not in strategies or loop.retry_used:
        return None
    try:
        result, error = await asyncio.to_thread(sandbox.run, sql), None
    except SandboxError as exc:
        result, error = None, str(exc)
    problems = prompts.check_submission(question, result, error)
    if not problems:
        return None
    loop.retry_used = True
    return prompts.retry_feedback(problems, tool_mode=tool_mode)
