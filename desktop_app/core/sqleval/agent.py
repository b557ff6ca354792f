"""The SQL agent loop: one question, one model, tools against a read-only sandbox, budgets.

`run_question` sends the system prompt and the question (the first user message starts with
exactly `question.text(language)`), then loops: one non-streamed chat completion per step, every
tool call of the reply executed in order and answered with a `role: tool` message, one
`AgentStep` recorded per model call and handed to `on_step` as soon as it is done.

It stops with one of STOP_REASONS:
- submitted: submit_answer was called (text mode, or a native reply without tool calls: the
  first fenced ```sql block of the reply is the answer);
- step_budget / token_budget / time_budget: max_steps model calls, max_tokens prompt +
  completion tokens summed over the steps, time_limit_s seconds of wall time. The time limit
  holds on what is in flight: the model call is bounded by the time left, every tool call by
  the time left (a query is interrupted there), and the deadline is checked between the tool
  calls of one reply. The token budget bounds each reply: its max_tokens is what the budget
  leaves after the tokens spent so far and this step's own prompt (`estimate_prompt_tokens`),
  so a question never spends more than max_tokens by the server's count (unless the estimate
  falls short of it); with less than MIN_REPLY_TOKENS left the question stops before the call;
- context_full (reported as token_budget, the step's error says so): the server reported its
  context (`context_tokens`, vLLM's max_model_len, llama.cpp's n_ctx) and this step's prompt
  leaves less than MIN_REPLY_TOKENS of it; otherwise each reply's max_tokens is at most what
  the context leaves after the prompt;
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

What a server answers is checked before it is used: a usage count that is negative or above
`limits.MAX_PLAUSIBLE_TOKENS` is not used (the client's estimate stands, the step says so);
content given as a list of parts (`[{"type": "text", "text": ...}]`) is read as its text;
content that is neither text nor parts, or `tool_calls` that is not a list, ends the question
`endpoint_error` with a step error "malformed reply: ...". A tool name longer than
MAX_TOOL_NAME_CHARS is cut (no real tool has such a name).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import time
from collections.abc import Awaitable, Callable, Collection, Mapping

import httpx

from desktop_app.core.endpoint import limits as _limits
from desktop_app.core.endpoint.client import EndpointError, stream_request
from desktop_app.core.endpoint.limits import clean_text
from desktop_app.core.endpoint.types import EndpointConfig, StreamResult
from desktop_app.core.parsing import dict_at
from desktop_app.core.sqleval import strategies as prompts
from desktop_app.core.sqleval.sandbox import SandboxError
from desktop_app.core.sqleval.tools import TOOLS, ToolOutcome, clip, execute_tool
from desktop_app.core.sqleval.types import AgentStep, Question, ToolCallRecord

__all__ = ["HISTORY_REPLY_CHARS", "MAX_RETRIES", "MIN_REPLY_TOKENS", "MISBEHAVIOUR_STEPS",
           "REPLY_MAX_TOKENS", "backoff_s", "content_text", "database_schema",
           "estimate_prompt_tokens", "estimate_tokens", "first_sql_block", "run_layered",
           "run_question", "LayeredRoute"]

REPLY_MAX_TOKENS = 4096  # max_tokens of one reply: bounds a runaway generation per step
# A reply that may not be this long cannot carry a tool call worth making: with less room left
# (in the token budget or the model's context) the question stops before the call.
MIN_REPLY_TOKENS = 32
MAX_TOOL_NAME_CHARS = 200  # a longer "tool name" is cut before it is quoted anywhere
# Tool arguments longer than this (a real query is a few thousand characters) are not run and
# not sent back: every step resends the whole conversation, so 4 MB of arguments a step grew the
# loop to 947 MiB over 20 steps. The call gets a bad-arguments answer instead.
MAX_TOOL_ARGUMENT_CHARS = 100_000
MAX_STEP_ERROR_CHARS = 4000  # a step's error text is cut here (it quotes names and messages)
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
    match = _SQL_BLOCK.search(text if isinstance(text, str) else "")
    return match.group(1).strip() or None if match else None


class MalformedReply(ValueError):
    """A reply whose message has a shape no server should send (content a number, tool_calls
    not a list): the step's error, not a crash."""


def content_text(content) -> str | None:
    """A message's content as text: a string as it is, a list of parts (`{"type": "text",
    "text": ...}` or plain strings) joined, None as None. Lone surrogates are replaced. Raises
    MalformedReply for anything else (a number, an object)."""
    if content is None or isinstance(content, str):
        return clean_text(content)
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif not isinstance(part, dict):
                raise MalformedReply(f"malformed reply: message.content has a part of type "
                                     f"{type(part).__name__}, not text")
        return clean_text("".join(texts))
    raise MalformedReply(f"malformed reply: message.content is {type(content).__name__}, "
                         "not text or a list of parts")


def estimate_tokens(text: str) -> int:
    """A deliberately high estimate of `text`'s token count, for budgets: one token per digit
    and per non-ASCII character (tokenizers that split numbers into digits; CJK), one per 3
    other characters (English and SQL run at about 4)."""
    ascii_ = text.encode("ascii", "ignore")
    digits = sum(ascii_.count(d) for d in b"0123456789")
    return (len(ascii_) - digits + 2) // 3 + digits + (len(text) - len(ascii_))


TEMPLATE_TOKENS = 8  # a chat template's tokens around one message, estimated high


def estimate_prompt_tokens(messages: list[dict], tools: list[dict] | None = None) -> int:
    """A high estimate of the prompt tokens `messages` (and `tools`) make: each message's
    JSON, plus TEMPLATE_TOKENS of chat template per message."""
    total = estimate_tokens(json.dumps(tools, ensure_ascii=False)) if tools else 0
    for message in messages:
        total += TEMPLATE_TOKENS + estimate_tokens(json.dumps(message, ensure_ascii=False))
    return total


def database_schema(sandbox) -> str:
    """Every table's description (schema + sample rows), for text mode's system prompt."""
    return "\n\n".join(sandbox.describe_table(t) for t in sandbox.list_tables())


class _Loop:
    """The state of one question's loop."""

    def __init__(self, time_limit_s: float | None, max_tokens: int | None,
                 context_tokens: int | None = None) -> None:
        self.t0 = time.monotonic()
        self.deadline = None if time_limit_s is None else self.t0 + time_limit_s
        self.max_tokens = max_tokens
        self.context_tokens = context_tokens
        self.tokens = 0
        # The previous step's prompt and completion as the server counted them (None: no usage).
        self.last_usage: tuple[int, int] | None = None
        self.sent = 0  # messages already sent in an earlier step
        self.nudged = False
        self.retry_used = False
        self.retried: list[str] = []  # the failures retried during the current model call
        self.partial: StreamResult | None = None  # what a cancelled call had streamed
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


class _Cut(Exception):
    """A model call that ended without a whole reply: `partial` is what had streamed (text,
    tool calls, tokens), `budget` whether the question's time budget cut it."""

    def __init__(self, message: str, partial: StreamResult | None, budget: bool) -> None:
        super().__init__(message)
        self.partial, self.budget = partial, budget


def _failure(res: StreamResult) -> EndpointError:
    # No HTTP status for what never got a whole answer (connect, close, timeout, a cut
    # stream): those are the transient failures, as for a non-streamed call.
    status = (None if res.error_class in ("connect", "connection_closed", "timeout", "stream_cut")
              else res.status_code)
    message = res.error_message or res.error_class or "the call failed"
    if res.error_class == "http_status":
        # As every other call of the app words it: "401 Unauthorized from URL: ..."
        message = message.removeprefix("HTTP ")
        if res.status_code in (401, 403):
            message = message.replace(": ", ": check the API key: ", 1)
    return EndpointError(message, status_code=status, retry_after_s=res.retry_after_s)


async def _call(client: httpx.AsyncClient, config: EndpointConfig, body: dict, loop: _Loop,
                retries: int, sleep: Callable[[float], Awaitable[object]]) -> StreamResult:
    """One chat completion, streamed, within the time budget (a reply still streaming when it
    runs out is cut there, keeping what came), retried up to `retries` times when the failure
    is transient. A backoff that would outlast the time budget is not waited for: the failure
    is raised at once. Each retried failure is noted in `loop.retried`. Raises _Cut for a reply
    that did not complete; on cancellation `loop.partial` holds what had streamed."""
    loop.retried = []
    loop.partial = None
    for attempt in range(retries + 1):
        remaining = loop.remaining_s()
        deadline = None if remaining is None else time.perf_counter() + max(0.0, remaining)
        snapshot: list[Callable[[], StreamResult]] = []
        try:
            res = await stream_request(client, config, body, path="/chat/completions",
                                       deadline=deadline, keep_calls=True, accept_json=True,
                                       live=snapshot.append)
        except asyncio.CancelledError:
            loop.partial = snapshot[0]() if snapshot else None
            raise
        if res.error_class in (None, "no_usage"):
            return res
        if (res.error_class == "timeout" and deadline is not None
                and time.perf_counter() >= deadline - 0.01):
            raise _Cut("", res, budget=True)
        exc = _failure(res)
        delay = backoff_s(attempt, exc.retry_after_s)
        remaining = loop.remaining_s()
        # Not retried: out of retries, not transient, "come back in an hour", or a backoff
        # that would outlast the time budget.
        if (attempt == retries or not _transient(exc)
                or (exc.retry_after_s or 0.0) > RETRY_AFTER_GIVE_UP_S
                or (remaining is not None and remaining <= delay)):
            raise _Cut(str(exc), res, budget=False)
        loop.retried.append(str(exc))
        await sleep(delay)
    raise AssertionError("unreachable")


def _as_completion(res: StreamResult) -> dict:
    """A streamed reply in the shape of a non-streamed chat completion (what the loop reads);
    a server's whole JSON answer as it came."""
    if res.whole is not None:
        return res.whole
    message: dict = {"role": "assistant", "content": res.text or None}
    if res.tool_calls:
        message["tool_calls"] = list(res.tool_calls)
    return {"choices": [{"message": message, "finish_reason": res.finish_reason}],
            "usage": res.raw_usage or {}}


def _cut_step(index: int, sent: int, new: tuple, res: StreamResult | None, prompt_est: int,
              latency: float, why: str, retry_note: str | None = None,
              tokenized: int | None = None) -> AgentStep:
    """The step of a reply that did not complete, keeping what it streamed: its text, its tool
    calls (shown, never run), its prompt tokens (the server's usage if it sent one, else its
    tokenizer's count of what was sent, else the estimate) and the tokens streamed;
    `reply["cut"]` marks it."""
    reply: dict = {"role": "assistant", "content": None, "cut": True}
    records: tuple[ToolCallRecord, ...] = ()
    prompt, completion, counted = prompt_est, 0, "estimated"
    if tokenized is not None:
        prompt, counted = tokenized, "the server's tokenizer"
    if res is not None:
        reply["content"] = res.text or None
        if res.tool_calls:
            reply["tool_calls"] = list(res.tool_calls)
        records = tuple(ToolCallRecord(
            str(c.get("id") or f"call_{index}_{i}"),
            clean_text(c["function"]["name"])[:MAX_TOOL_NAME_CHARS],
            c["function"]["arguments"][:MAX_TOOL_ARGUMENT_CHARS], "", False,
            "not run: the reply was cut before it was complete")
            for i, c in enumerate(res.tool_calls))
        if res.prompt_tokens is not None:
            prompt, counted = res.prompt_tokens, "the server's count"
        completion = res.completion_tokens  # the server's usage, else one per chunk
    kept = (f"; kept what streamed: {completion:,} tokens"
            + (f", {len(res.text):,} characters" if res is not None and res.text else "")
            + (f", {len(records)} unfinished tool call{'s' * (len(records) != 1)}"
               if records else "")
            + f"; prompt {prompt:,} tokens ({counted})")
    note = f"; {retry_note}" if retry_note else ""
    return AgentStep(index, sent, new, reply, records, prompt, completion, latency,
                     why + kept + note, res.finish_reason if res is not None else None)


PromptCounter = Callable[[list, "list | None"], Awaitable["int | None"]]
COUNT_TIMEOUT_S = 5.0  # asking the tokenizer after a cut: the question's budget is already spent


async def _server_count(count_prompt: PromptCounter | None, messages: list,
                        tools: list | None) -> int | None:
    """The server's tokenizer's count of this prompt, None if there is none or it does not
    answer within COUNT_TIMEOUT_S; a count beyond any context is not one."""
    if count_prompt is None:
        return None
    try:
        async with asyncio.timeout(COUNT_TIMEOUT_S):
            count = await count_prompt(messages, tools)
    except (TimeoutError, httpx.HTTPError):
        return None
    if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= _limits.MAX_PLAUSIBLE_TOKENS:
        return count
    return None


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
        return json.dumps(_limits.loads_limited(arguments), sort_keys=True)
    except ValueError:
        return arguments


def _usage(data: dict) -> tuple[int | None, int | None, list[str], list[str]]:
    """(prompt, completion, impossible, missing): a count that is negative or above
    MAX_PLAUSIBLE_TOKENS is None and quoted in `impossible`; one missing, null, NaN or not an
    integer is None and named in `missing`. Either way the caller counts its own estimate, so
    a server's null can no more switch the token budget off than a negative count can."""
    usage = dict_at(data, "usage")
    counts: list[int | None] = []
    impossible: list[str] = []
    missing: list[str] = []
    for key in ("prompt_tokens", "completion_tokens"):
        value = usage.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            counts.append(None)
            missing.append(key if key not in usage else f"{key} {str(value)[:20]}")
        elif value < 0 or value > _limits.MAX_PLAUSIBLE_TOKENS:
            counts.append(None)
            impossible.append(f"{key} {value:.3g}" if abs(value) >= 10**12
                              else f"{key} {value}")
        else:
            counts.append(value)
    return counts[0], counts[1], impossible, missing


def _history_message(reply: dict, calls: list[dict]) -> dict:
    """The assistant message as it goes back into the conversation (long text cut)."""
    content = content_text(reply.get("content"))
    if isinstance(content, str):
        content, _ = clip(content, HISTORY_REPLY_CHARS)
    message: dict = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return message


def _normalise_calls(reply: dict, step: int) -> list[dict]:
    """The reply's tool calls with an id and JSON-text arguments each (servers vary). A name
    is cut at MAX_TOOL_NAME_CHARS; raises MalformedReply when `tool_calls` is not a list."""
    raw = reply.get("tool_calls")
    if raw is not None and not isinstance(raw, list):
        raise MalformedReply(f"malformed reply: tool_calls is {type(raw).__name__}, not a list")
    calls = []
    for i, call in enumerate(raw or []):
        if not isinstance(call, dict):
            continue
        fn = dict_at(call, "function")
        args = fn.get("arguments")
        if not isinstance(args, str):
            try:
                args = json.dumps(args) if args is not None else "{}"
            except (TypeError, ValueError):
                args = "{}"
        name = clean_text(str(fn.get("name") or ""))
        if len(name) > MAX_TOOL_NAME_CHARS:
            name = name[:MAX_TOOL_NAME_CHARS] + f"...[{len(name):,} characters]"
        if len(args) > MAX_TOOL_ARGUMENT_CHARS:
            args = json.dumps({"arguments_too_long": len(args), "limit": MAX_TOOL_ARGUMENT_CHARS})
        call_id = clean_text(str(call.get("id") or f"call_{step}_{i}"))[:200]
        calls.append({"id": call_id, "type": "function",
                      "function": {"name": name, "arguments": clean_text(args)}})
    return calls


def _reply_room(loop: _Loop, prompt_est: int) -> tuple[int | None, str | None]:
    """(max_tokens for this reply, None) or (None, why the call is not made): the reply may take
    what the token budget and the model's context leave after this step's prompt."""
    cap = REPLY_MAX_TOKENS
    if loop.context_tokens is not None:
        room = loop.context_tokens - prompt_est
        if room < MIN_REPLY_TOKENS:
            return None, (f"not sent: the prompt (about {prompt_est:,} tokens) leaves no room "
                          f"for a reply in the model's context of {loop.context_tokens:,} "
                          "tokens (context full)")
        cap = min(cap, room)
    if loop.max_tokens is not None:
        left = loop.max_tokens - loop.tokens - prompt_est
        if left < MIN_REPLY_TOKENS:
            return None, ""
        cap = min(cap, left)
    return cap, None


def _step_prompt_estimate(loop: _Loop, messages: list[dict], tools: list[dict] | None) -> int:
    """This step's prompt, estimated high. When the server counted the previous prompt: that
    count plus the messages added since, each estimated high, the model's own reply at most
    its completion tokens (it goes back cut, never longer); else the whole conversation's
    estimate. The estimate alone runs far above a real tokenizer (SmolLM2: about 6,100 for a
    conversation llama.cpp counted at 3,600) and would call a context full that had room."""
    if loop.last_usage is None:
        return estimate_prompt_tokens(messages, tools)
    prompt, completion = loop.last_usage
    total = prompt
    for message in messages[loop.sent:]:
        estimate = estimate_prompt_tokens([message])
        if message.get("role") == "assistant":
            estimate = min(estimate, completion + TEMPLATE_TOKENS)
        total += estimate
    return total


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
    context_tokens: int | None = None,
    count_prompt: PromptCounter | None = None,
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
    re-raises CancelledError (the steps so far have reached `on_step`). `context_tokens` is the
    model's context as the server reports it (None: unknown): no reply asks for more than the
    context leaves after the step's prompt. `count_prompt(messages, tools)` is the server's
    tokenizer (None: there is none): a step whose reply came without the server's usage (cut,
    or a server that sends none) counts its prompt by it rather than by the high estimate.
    """
    schema = ""
    if tool_mode == "text":
        schema = await asyncio.to_thread(database_schema, sandbox)
    session = _Session(client, config, question, sandbox, strategies=strategies,
                       tool_mode=tool_mode, on_step=on_step, temperature=temperature,
                       retries=retries, sleep=sleep, count_prompt=count_prompt,
                       loop=_Loop(time_limit_s, max_tokens, context_tokens),
                       time_limit_s=time_limit_s)
    session.messages = [
        {"role": "system", "content": prompts.system_prompt(
            question, strategies, tool_mode=tool_mode, database_note=database_note,
            schema=schema)},
        {"role": "user", "content": prompts.user_message(question, strategies, language=language,
                                                         glossary=glossary)},
    ]
    for index in range(max_steps):
        stop = await session.step(index, last=index + 1 >= max_steps)
        if stop is not None:
            return session.steps, stop, session.final_sql
    return session.steps, "step_budget", session.final_sql


def _joined(*notes: str | None) -> str:
    """The notes a step carries, in order, "; " between them ("" for none)."""
    return "; ".join(n for n in notes if n)


@dataclasses.dataclass(frozen=True)
class _Counted:
    """A reply's tokens as they are counted: the server's usage where it is plausible, else the
    server's tokenizer or the client's estimate; `note` says which when it is not the usage."""

    prompt: int
    completion: int
    note: str | None


class _Session:
    """One question's conversation (run_question): the messages, the steps recorded so far,
    the final SQL and the loop's budgets; `step` makes one model call and runs what it asked."""

    def __init__(self, client: httpx.AsyncClient, config: EndpointConfig, question: Question,
                 sandbox, *, strategies: Collection[str], tool_mode: str,
                 on_step: StepCallback | None, temperature: float, retries: int,
                 sleep: Callable[[float], Awaitable[object]],
                 count_prompt: PromptCounter | None, loop: _Loop,
                 time_limit_s: float | None) -> None:
        self.client, self.config, self.question, self.sandbox = client, config, question, sandbox
        self.strategies, self.tool_mode, self.on_step = strategies, tool_mode, on_step
        self.temperature, self.retries, self.sleep = temperature, retries, sleep
        self.count_prompt, self.loop, self.time_limit_s = count_prompt, loop, time_limit_s
        self.tools = TOOLS if tool_mode == "native" else None
        self.messages: list[dict] = []
        self.steps: list[AgentStep] = []
        self.final_sql: str | None = None

    def record(self, step: AgentStep) -> None:
        if step.error and len(step.error) > MAX_STEP_ERROR_CHARS:
            step = dataclasses.replace(step, error=step.error[:MAX_STEP_ERROR_CHARS] + " ...")
        self.steps.append(step)
        self.loop.tokens += step.prompt_tokens + step.completion_tokens
        self.loop.sent = step.request_messages
        if self.on_step is not None:
            self.on_step(step)

    async def step(self, index: int, *, last: bool) -> str | None:
        """One model call and the tools it asks for; the stop reason, or None to go on (`last`:
        no step follows this one, so a nudge would never be sent)."""
        loop = self.loop
        spent = _budget_spent(loop)
        if spent is not None:
            return spent
        prompt_est = _step_prompt_estimate(loop, self.messages, self.tools)
        reply_tokens, why = _reply_room(loop, prompt_est)
        if reply_tokens is None:
            if why:  # the context is full: say so in a step of its own (nothing was sent)
                self.record(AgentStep(index, loop.sent, (), {}, error=why))
            return "token_budget"
        new = tuple(self.messages[loop.sent:])
        sent = len(self.messages)
        t0 = time.perf_counter()
        try:
            streamed = await _call(self.client, self.config, self._body(reply_tokens), loop,
                                   self.retries, self.sleep)
            data = _as_completion(streamed)
        except _Cut as cut:
            latency = time.perf_counter() - t0
            why = (f"no reply within the time budget of {self.time_limit_s:g} s" if cut.budget
                   else str(cut))
            tokenized = None
            if cut.partial is None or cut.partial.prompt_tokens is None:
                tokenized = await _server_count(self.count_prompt, self.messages, self.tools)
            self.record(_cut_step(index, sent, new, cut.partial, prompt_est, latency, why,
                                  _retry_note(loop), tokenized))
            return "time_budget" if cut.budget else "endpoint_error"
        except asyncio.CancelledError:
            # The run was stopped: what this reply streamed reaches the store before it ends.
            self.record(_cut_step(index, sent, new, loop.partial, prompt_est,
                                  time.perf_counter() - t0, "cancelled while the reply streamed"))
            raise
        latency = time.perf_counter() - t0
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        reply = choice.get("message") if isinstance(choice, dict) else None
        counted = await self._count(data, streamed, reply, prompt_est, reply_tokens)
        used = counted.prompt + counted.completion

        def recorded(message: dict, calls: tuple[ToolCallRecord, ...], error: str,
                     finish: str | None = None) -> None:
            self.record(AgentStep(index, sent, new, message, calls, counted.prompt,
                                  counted.completion, latency, error or None, finish))

        if not isinstance(reply, dict) or not isinstance(choice, dict):
            recorded(data, (), _joined("the reply has no choices[0].message", counted.note))
            return "endpoint_error"
        finish = choice.get("finish_reason")
        finish = clean_text(finish)[:40] if isinstance(finish, str) else None
        try:
            content = content_text(reply.get("content"))
            calls = _normalise_calls(reply, index) if self.tool_mode == "native" else []
        except MalformedReply as exc:
            recorded(reply, (), _joined(str(exc), counted.note), finish)
            return "endpoint_error"
        self.messages.append(_history_message(reply, calls))
        retry_note = _retry_note(loop)
        prose_note: str | None = None
        records: list[ToolCallRecord] = []
        if calls:
            stop, step_error = await self._run_tools(calls, records, used)
        else:
            stop, step_error, prose_note, nudge_note = await self._without_calls(content, finish)
            if nudge_note is not None:
                step_error = self._nudge_said(nudge_note, sent, used, last)
        recorded(reply, tuple(records), _joined(prose_note, step_error, counted.note,
                                                retry_note), finish)
        return stop if stop is not None else _budget_spent(loop)

    def _body(self, reply_tokens: int) -> dict:
        body: dict = {"model": self.config.model, "messages": self.messages,
                      "temperature": self.temperature, "max_tokens": reply_tokens}
        if self.tools is not None:
            body["tools"] = self.tools
            body["tool_choice"] = "auto"
        return body

    async def _count(self, data: dict, streamed: StreamResult, reply, prompt_est: int,
                     reply_tokens: int) -> _Counted:
        """The reply's tokens (`_Counted`); keeps the server's prompt count for the next step's
        estimate, or forgets it when the server sent none (the next step is estimated whole)."""
        prompt_tokens, completion_tokens, impossible, missing = _usage(data)
        server_counted = prompt_tokens is not None
        note = None
        if impossible or missing:
            note = (f"impossible usage from the server ({', '.join(impossible)}): the "
                    "client's estimate is counted instead" if impossible else
                    f"no usage from the server ({', '.join(missing)}): the client's "
                    "estimate is counted")
        if prompt_tokens is None:
            tokenized = await _server_count(self.count_prompt, self.messages, self.tools)
            prompt_tokens = prompt_est if tokenized is None else tokenized
            if tokenized is not None and not impossible:
                note = (f"no usage from the server ({', '.join(missing)}): the prompt as "
                        "the server's tokenizer counts it, the reply estimated")
        if completion_tokens is None:
            # A stream's chunks carry a token each at least; a whole reply is estimated.
            completion_tokens = (streamed.completion_tokens if streamed.whole is None
                                 else min(reply_tokens, estimate_tokens(json.dumps(
                                     reply, ensure_ascii=False, default=str))
                                     if isinstance(reply, dict) else 0))
        self.loop.last_usage = (prompt_tokens, completion_tokens) if server_counted else None
        return _Counted(prompt_tokens, completion_tokens, note)

    async def _run_tools(self, calls: list[dict], records: list[ToolCallRecord],
                         used: int) -> tuple[str | None, str | None]:
        """Run the reply's tool calls in order into `records` (an accepted answer ends them);
        (stop reason or None, the step's error or None). `used`: this step's tokens."""
        loop, sandbox = self.loop, self.sandbox
        outcomes: list[ToolOutcome] = []
        for done, call in enumerate(calls):
            remaining = loop.remaining_s()
            if remaining is not None and remaining <= 0:
                return "time_budget", (f"stopped: the time budget of {self.time_limit_s:g} s "
                                       f"ran out after {done} of the reply's {len(calls)} "
                                       "tool calls")
            fn = call["function"]
            outcome: ToolOutcome = await asyncio.to_thread(
                execute_tool, sandbox, fn["name"], fn["arguments"], call_id=call["id"],
                time_limit_s=_query_limit(sandbox, remaining))
            outcomes.append(outcome)
            rec, text = outcome.record, outcome.record.result
            if outcome.submitted_sql is not None:
                self.final_sql = outcome.submitted_sql
                feedback = await self._validate(outcome.submitted_sql)
                if feedback is None:
                    records.append(rec)
                    return "submitted", None
                text = feedback
                rec = ToolCallRecord(rec.call_id, rec.name, rec.arguments, text, False,
                                     "validate-retry: answer sent back once")
            records.append(rec)
            self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        bad = _misbehaviour(loop, calls, outcomes)
        # A budget this step used up is the harder stop, and is the one reported.
        if bad is not None and _budget_spent(loop, used) is None:
            return bad
        return None, None

    async def _without_calls(self, content: str | None, finish: str | None
                             ) -> tuple[str | None, str | None, str | None, str | None]:
        """A reply with no tool call: a ```sql block is the answer, else the model is nudged
        once. (stop reason, step error, note on a prose answer, note on the nudge)."""
        loop = self.loop
        loop.last_calls, loop.same_calls = None, 0
        loop.streaks = dict.fromkeys(loop.streaks, 0)
        sql = first_sql_block(content)
        if sql is not None:
            self.final_sql = sql
            prose_note = None
            if self.tool_mode == "native":
                # A real model does this (SmolLM2 did): said, so the Inspector shows why
                # a run with tools offered ended without a submit_answer call.
                prose_note = ("answered in prose with a ```sql block and no tool call: the "
                              "block is taken as the final answer")
            feedback = await self._validate(sql)
            if feedback is None:
                return "submitted", None, prose_note, None
            self.messages.append({"role": "user", "content": feedback})
            return None, None, prose_note, None
        if loop.nudged:
            if finish == "length":
                return ("output_budget", "stopped: the reply hit max_tokens again with no tool "
                        "call and no answer", None, None)
            return ("no_answer", f"stopped: no tool call and no answer again (finish_reason "
                    f"{finish})", None, None)
        loop.nudged = True
        self.messages.append({"role": "user", "content": prompts.NUDGE_NATIVE
                              if self.tool_mode == "native" else prompts.NUDGE_TEXT})
        return None, None, None, (f"no tool call and no answer (finish_reason {finish})"
                                  if finish != "length" else
                                  "the reply hit max_tokens with no answer")

    def _nudge_said(self, nudge_note: str, sent: int, used: int, last: bool) -> str:
        """The nudge's note: "nudged once" only when the nudge will really be sent (the next
        call is made), else the budget that ends the question first."""
        loop = self.loop
        ending = _budget_spent(loop, used)
        if ending is None and last:
            ending = "step_budget"
        if ending is None:
            saved = (loop.tokens, loop.sent)
            loop.tokens, loop.sent = loop.tokens + used, sent
            room, _ = _reply_room(loop, _step_prompt_estimate(loop, self.messages, self.tools))
            loop.tokens, loop.sent = saved
            ending = "token_budget" if room is None else None
        return (f"{nudge_note}; nudged once" if ending is None else
                f"{nudge_note}; not nudged: the question ends here ({ending})")

    async def _validate(self, sql: str) -> str | None:
        return await _validate(self.question, self.strategies, self.sandbox, sql, self.loop,
                               self.tool_mode)
def _budget_spent(loop: _Loop, pending_tokens: int = 0) -> str | None:
    """The budget that is used up (counting `pending_tokens` not yet recorded), or None."""
    if loop.max_tokens is not None and loop.tokens + pending_tokens >= loop.max_tokens:
        return "token_budget"
    remaining = loop.remaining_s()
    if remaining is not None and remaining <= 0:
        return "time_budget"
    return None


def _query_limit(sandbox, remaining_s: float | None) -> float | None:
    """A query's time limit: the sandbox's own, or the question's time left if shorter."""
    own = getattr(sandbox, "time_limit_s", None)
    if remaining_s is None:
        return own
    return max(0.001, remaining_s if own is None else min(own, remaining_s))


async def _validate(question: Question, strategies: Collection[str], sandbox, sql: str,
                    loop: _Loop, tool_mode: str) -> str | None:
    """validate-retry: the feedback for a first flawed submission, else None (accept it)."""
    if "validate-retry" not in strategies or loop.retry_used:
        return None
    remaining = loop.remaining_s()
    if remaining is not None and remaining <= 0:
        return None  # no time to check it: the answer stands as submitted
    try:
        limit = None if remaining is None else _query_limit(sandbox, remaining)
        kwargs = {} if limit is None else {"time_limit_s": limit}
        result, error = await asyncio.to_thread(sandbox.run, sql, **kwargs), None
    except SandboxError as exc:
        result, error = None, str(exc)
    problems = prompts.check_submission(question, result, error)
    if not problems:
        return None
    loop.retry_used = True
    return prompts.retry_feedback(problems, tool_mode=tool_mode)


# --------------------------------------------------------------------------- layered


@dataclasses.dataclass(frozen=True)
class LayeredRoute:
    """Which path answered a question under the layered strategy, and why.

    `path` is "fast" or "loop"; `reason` is "validated", "validation failed: ...",
    "fast path ended <stop reason>", "structured: tier hard" or "always-loop"; `fast_sql` is the
    fast path's answer (None when it was not asked or gave none); `fast_steps` the model calls
    it took (0 or 1).
    """

    path: str
    reason: str
    fast_sql: str | None = None
    fast_steps: int = 0

    def to_json(self) -> dict:
        return {"path": self.path, "reason": self.reason, "fast_sql": self.fast_sql,
                "fast_steps": self.fast_steps}


async def run_layered(
    client: httpx.AsyncClient,
    config: EndpointConfig,
    question: Question,
    sandbox,
    *,
    route: str = "validate",
    strategies: Collection[str] = ("layered",),
    max_steps: int = 20,
    max_tokens: int | None = None,
    time_limit_s: float | None = None,
    tool_mode: str = "native",
    on_step: StepCallback | None = None,
    **kwargs,
) -> tuple[list[AgentStep], str, str | None, LayeredRoute]:
    """The layered strategy on one question; returns (steps, stop_reason, final_sql, route).

    Unless `route` marks the question structured (`strategies.structured_reason`), the fast path
    first: ONE request without tools (the text-mode prompt: the whole schema, "reply with one
    fenced ```sql block"), then the harness's own checks of that answer in the sandbox
    (`strategies.check_submission`, what validate-retry checks: it ran, returned rows, the
    required column names, the required rounding; never the gold). An answer that passes them
    is final. Otherwise, and for a structured question, the full tool loop (`run_question`, in
    `tool_mode`) with the format guard and the worked examples added to `strategies`, on a
    fresh conversation, within what the fast path left of `max_steps` (at least one step),
    `max_tokens` and `time_limit_s`. Steps are numbered across both paths. Other keyword
    arguments go to `run_question` (language, glossary, database_note, retries ...).
    """
    chosen = [s for s in strategies if s != "layered"]
    steps: list[AgentStep] = []

    def collect(step: AgentStep) -> None:
        step = dataclasses.replace(step, index=len(steps))
        steps.append(step)
        if on_step is not None:
            on_step(step)

    t0 = time.monotonic()
    structured = prompts.structured_reason(question, route)
    fast_sql = None
    if structured is not None:
        reason = structured
    else:
        fast_strategies = [s for s in chosen if s not in ("validate-retry", "examples")]
        _, fast_stop, fast_sql = await run_question(
            client, config, question, sandbox, strategies=fast_strategies, max_steps=1,
            max_tokens=max_tokens, time_limit_s=time_limit_s, tool_mode="text",
            on_step=collect, **kwargs)
        if fast_sql is not None:
            problems = await _check(question, sandbox, fast_sql, time_limit_s, t0)
            if not problems:
                return steps, "submitted", fast_sql, LayeredRoute("fast", "validated",
                                                                   fast_sql, len(steps))
            reason = "validation failed: " + "; ".join(problems)
        else:
            reason = f"fast path ended {fast_stop} without an answer"
        if fast_stop in ("time_budget", "token_budget", "cancelled"):
            route_ = LayeredRoute("fast", reason, fast_sql, len(steps))
            return steps, fast_stop, fast_sql, route_  # nothing left for the loop
    fast_steps = len(steps)
    spent = sum(s.prompt_tokens + s.completion_tokens for s in steps)
    elapsed = time.monotonic() - t0
    if max_tokens is not None and spent >= max_tokens:
        return steps, "token_budget", fast_sql, LayeredRoute("fast", reason, fast_sql,
                                                             fast_steps)
    if time_limit_s is not None and elapsed >= time_limit_s:
        return steps, "time_budget", fast_sql, LayeredRoute("fast", reason, fast_sql,
                                                            fast_steps)
    _, stop, final_sql = await run_question(
        client, config, question, sandbox, strategies=prompts.layered_loop_strategies(chosen),
        max_steps=max(1, max_steps - fast_steps),
        max_tokens=None if max_tokens is None else max_tokens - spent,
        time_limit_s=None if time_limit_s is None else time_limit_s - elapsed,
        tool_mode=tool_mode, on_step=collect, **kwargs)
    return steps, stop, final_sql, LayeredRoute("loop", reason, fast_sql, fast_steps)


async def _check(question: Question, sandbox, sql: str, time_limit_s: float | None,
                 t0: float) -> list[str]:
    """The harness's checks of an answer (`strategies.check_submission`), run in the sandbox."""
    kwargs = {}
    if time_limit_s is not None:
        kwargs["time_limit_s"] = _query_limit(sandbox, max(0.001, time_limit_s
                                                           - (time.monotonic() - t0)))
    try:
        result, error = await asyncio.to_thread(sandbox.run, sql, **kwargs), None
    except SandboxError as exc:
        result, error = None, str(exc)
    return prompts.check_submission(question, result, error)
