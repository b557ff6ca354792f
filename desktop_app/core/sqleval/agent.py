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
- output_budget: as no_answer, but that next reply was cut at max_tokens too (a model that
  rambles rather than answers);
- unknown_tool / bad_arguments: MISBEHAVIOUR_STEPS replies in a row whose every tool call named
  a tool that does not exist / sent arguments that are not a JSON object with the required
  string (each bad call first comes back to the model as an error text it can act on);
- repeated_call: the very same tool calls (names and arguments) in MISBEHAVIOUR_STEPS replies in
  a row: the model is looping, and more steps would only burn the budgets;
- endpoint_error: the call failed. With `retries` > 0 a transient failure (no answer,
  408, 429, 5xx) is retried after an exponential backoff (1 s, 2 s, 4 s ...) that waits at
  least the server's Retry-After; retries are off by default, so a fault ends the question
  where it happened and is counted there.

The step that ends a question this way says why in its `error`. A huge reply is cut to
HISTORY_REPLY_CHARS characters before it goes back into the conversation (the step keeps the
reply as received).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable, Collection, Mapping

import httpx

from desktop_app.core.endpoint.client import EndpointError, complete
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.sqleval import strategies as prompts
from desktop_app.core.sqleval.sandbox import SandboxError
from desktop_app.core.sqleval.tools import TOOLS, ToolOutcome, clip, execute_tool
from desktop_app.core.sqleval.types import AgentStep, Question, ToolCallRecord

__all__ = ["HISTORY_REPLY_CHARS", "MAX_RETRIES", "MISBEHAVIOUR_STEPS", "REPLY_MAX_TOKENS",
           "backoff_s", "database_schema", "first_sql_block", "run_question"]

REPLY_MAX_TOKENS = 4096  # max_tokens of one reply: bounds a runaway generation per step
HISTORY_REPLY_CHARS = 8000  # an assistant text longer than this is cut before it is sent back
# Replies in a row calling only unknown tools, only with bad arguments, or making the same
# calls, before the question stops: one bad reply is a slip the error text lets the model fix;
# three in a row is a model that will not, and every further step costs a whole prompt.
MISBEHAVIOUR_STEPS = 3
MAX_RETRIES = 10
RETRY_BASE_S = 1.0  # the first backoff; it doubles per retry
RETRY_MAX_S = 60.0  # the backoff's own ceiling (a longer Retry-After is still honoured)
RETRY_AFTER_GIVE_UP_S = 600.0  # a longer Retry-After is not waited for, time budget or not
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
        self.retried: list[str] = []  # the failures retried during the current model call
        self.same_calls = 0  # replies in a row making exactly the previous reply's calls
        self.last_calls: tuple | None = None
        self.streaks = {"unknown_tool": 0, "bad_arguments": 0}

    def remaining_s(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()


def backoff_s(attempt: int, retry_after_s: float | None) -> float:
    """Seconds to wait before retry number `attempt` (0-based): RETRY_BASE_S doubled per
    retry up to RETRY_MAX_S, and never less than the server's Retry-After."""
    return max(min(RETRY_BASE_S * 2 ** attempt, RETRY_MAX_S), retry_after_s or 0.0)


def _transient(exc: EndpointError) -> bool:
    """A failure worth retrying: no HTTP answer (connection, timeout), 408, 429 or 5xx."""
    return exc.status_code is None or exc.status_code in (408, 429) or exc.status_code >= 500


async def _call(client: httpx.AsyncClient, config: EndpointConfig, body: dict, loop: _Loop,
                retries: int, sleep: Callable[[float], Awaitable[object]]) -> dict:
    """One chat completion within the time budget, retried up to `retries` times when the
    failure is transient. A backoff that would outlast the time budget is not waited for:
    the failure is raised at once. Each retried failure is noted in `loop.retried`."""
    loop.retried = []
    for attempt in range(retries + 1):
        try:
            async with asyncio.timeout(loop.remaining_s()):
                return await complete(client, config, body, path="/chat/completions")
        except EndpointError as exc:
            if attempt == retries or not _transient(exc):
                raise
            if (exc.retry_after_s or 0.0) > RETRY_AFTER_GIVE_UP_S:
                raise  # "come back in an hour": the question fails rather than wait for it
            delay = backoff_s(attempt, exc.retry_after_s)
            remaining = loop.remaining_s()
            if remaining is not None and remaining <= delay:
                raise
            loop.retried.append(str(exc))
            await sleep(delay)
    raise AssertionError("unreachable")


def _retry_note(loop: _Loop) -> str | None:
    if not loop.retried:
        return None
    return f"retried {len(loop.retried)}x after: " + "; ".join(loop.retried)


def _misbehaviour(loop: _Loop, calls: list[dict], outcomes: list[ToolOutcome]
                  ) -> tuple[str, str] | None:
    """(stop reason, why) when this reply makes MISBEHAVIOUR_STEPS bad replies in a row."""
    for kind in loop.streaks:
        bad = bool(outcomes) and all(o.problem == kind for o in outcomes)
        loop.streaks[kind] = loop.streaks[kind] + 1 if bad else 0
    signature = tuple((c["function"]["name"], _canonical(c["function"]["arguments"]))
                      for c in calls)
    loop.same_calls = loop.same_calls + 1 if signature == loop.last_calls else 1
    loop.last_calls = signature
    names = ", ".join(sorted({c["function"]["name"] or "(no name)" for c in calls}))
    n = MISBEHAVIOUR_STEPS
    if loop.streaks["unknown_tool"] >= n:
        return "unknown_tool", f"stopped: {n} replies in a row called only unknown tools ({names})"
    if loop.streaks["bad_arguments"] >= n:
        return "bad_arguments", (f"stopped: {n} replies in a row sent only invalid tool "
                                 f"arguments ({names})")
    if loop.same_calls >= n:
        return "repeated_call", f"stopped: the same call ({names}) {n} replies in a row"
    return None


def _canonical(arguments: str) -> str:
    """Arguments as compared for repeats: key order and spacing do not make a new call."""
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except ValueError:
        return arguments


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
    retries: int = 0,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> tuple[list[AgentStep], str, str | None]:
    """Run the agent on one question; returns (steps, stop_reason, final_sql).

    `sandbox` is the question's database `Sandbox`. `max_tokens` budgets prompt + completion
    tokens over all steps (as the server's usage reports them); `time_limit_s` is wall time in
    seconds; `tool_mode` is "native" (OpenAI tool calls) or "text" (the schema in the system
    prompt, a fenced ```sql block as the answer). `glossary` is the set's glossary (term ->
    definition) for the glossary strategy; `database_note` says what the database is.
    `on_step` gets each AgentStep as soon as it is done. `retries` is how many times a model
    call that failed transiently is tried again (0: never), waiting `backoff_s` seconds through
    `sleep` (tests pass a fake). Cancelling the task cancels the model call in flight and
    re-raises CancelledError (the steps so far have reached `on_step`).
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
            data = await _call(client, config, body, loop, retries, sleep)
        except TimeoutError:
            record(AgentStep(index, sent, new, {}, latency_s=time.perf_counter() - t0,
                             error=f"no reply within the time budget of {time_limit_s:g} s"))
            return steps, "time_budget", final_sql
        except EndpointError as exc:
            note = _retry_note(loop)
            record(AgentStep(index, sent, new, {}, latency_s=time.perf_counter() - t0,
                             error=f"{exc}; {note}" if note else str(exc)))
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
        outcomes: list[ToolOutcome] = []
        stop: str | None = None
        step_error: str | None = None
        retry_note = _retry_note(loop)
        if calls:
            for call in calls:
                fn = call["function"]
                outcome: ToolOutcome = await asyncio.to_thread(
                    execute_tool, sandbox, fn["name"], fn["arguments"], call_id=call["id"])
                outcomes.append(outcome)
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
            bad = _misbehaviour(loop, calls, outcomes) if stop is None else None
            # A budget this step used up is the harder stop, and is the one reported.
            if bad is not None and _budget_spent(loop, prompt_tokens + completion_tokens) is None:
                stop, step_error = bad
        else:
            loop.last_calls, loop.same_calls = None, 0
            loop.streaks = dict.fromkeys(loop.streaks, 0)
            sql = first_sql_block(reply.get("content"))
            if sql is not None:
                final_sql = sql
                feedback = await _validate(question, strategies, sandbox, sql, loop, tool_mode)
                if feedback is None:
                    stop = "submitted"
                else:
                    messages.append({"role": "user", "content": feedback})
            elif loop.nudged:
                stop = "output_budget" if finish == "length" else "no_answer"
                step_error = ("stopped: the reply hit max_tokens again with no tool call and no "
                              "answer" if finish == "length" else
                              f"stopped: no tool call and no answer again (finish_reason {finish})")
            else:
                loop.nudged = True
                step_error = (f"no tool call and no answer (finish_reason {finish}); nudged once"
                              if finish != "length" else
                              "the reply hit max_tokens with no answer; nudged once")
                messages.append({"role": "user", "content": prompts.NUDGE_NATIVE
                                 if tool_mode == "native" else prompts.NUDGE_TEXT})
        step_error = "; ".join(n for n in (step_error, retry_note) if n) or None
        record(AgentStep(index, sent, new, reply, tuple(records), prompt_tokens,
                         completion_tokens, latency, step_error, finish))
        if stop is None:
            stop = _budget_spent(loop)
        if stop is not None:
            return steps, stop, final_sql
    return steps, "step_budget", final_sql


def _budget_spent(loop: _Loop, pending_tokens: int = 0) -> str | None:
    """The budget that is used up (counting `pending_tokens` not yet recorded), or None."""
    if loop.max_tokens is not None and loop.tokens + pending_tokens >= loop.max_tokens:
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
