"""Misbehaving models of the built-in simulator: what a harness must survive from a real model.

Each is a responder registered under its own `sim/...` id (listed by `/v1/models`, owned by
"throughline-simulator", like every simulator model) and answers any question the same way,
whatever the conversation says:

* `sim/mute` never calls a tool and never writes SQL: a sentence about what it would do.
* `sim/unknown-tools` calls tools nobody offered (`execute_query`, `search_web`, ...).
* `sim/bad-json` calls run_sql with arguments that are not valid JSON (cut short, single
  quotes, a trailing comma: a different mistake each time).
* `sim/looper` calls list_tables with the same (empty) arguments on every step.
* `sim/rambler` answers with RAMBLE_TOKENS (100,000) tokens of words and no tool call; the
  server cuts it at the request's `max_tokens` (finish_reason "length"), as a real engine does.

They exist to test the SQL agent's stop reasons (no_answer, unknown_tool, bad_arguments,
repeated_call, output_budget) end to end through HTTP, the runner and the store; their
replies are scripted, never a model's.
"""

from __future__ import annotations

import functools

from desktop_app.core.simulator import responders, tokenizer
from desktop_app.core.simulator.responders import Plan, ResponderContext, ToolCall

MUTE = "sim/mute"
UNKNOWN_TOOLS = "sim/unknown-tools"
BAD_JSON = "sim/bad-json"
LOOPER = "sim/looper"
RAMBLER = "sim/rambler"
MISBEHAVING = (MUTE, UNKNOWN_TOOLS, BAD_JSON, LOOPER, RAMBLER)

RAMBLE_TOKENS = 100_000
_UNKNOWN = ("execute_query", "search_web", "drop_database", "python")
_BAD_JSON = ('{"sql": "SELECT count(*) FROM orders"',  # cut short
             "{'sql': 'SELECT 1'}",  # single quotes
             '{"sql": "SELECT 2",}',  # trailing comma
             "SELECT 3")  # not JSON at all


def _step(body: dict) -> int:
    """How many replies the model has given so far in this conversation."""
    return sum(1 for m in body.get("messages") or []
               if isinstance(m, dict) and m.get("role") == "assistant")


def mute(body: dict, ctx: ResponderContext) -> Plan:
    """A plan in words, never a tool call nor a SQL block."""
    return Plan(text="I would sum the amounts per region from the orders table, then sort "
                     "them. That should answer the question.", finish_reason="stop")


def unknown_tools(body: dict, ctx: ResponderContext) -> Plan:
    """One call per reply to a tool that was never offered."""
    name = _UNKNOWN[_step(body) % len(_UNKNOWN)]
    return Plan(text="Let me query the database directly.",
                tool_calls=(ToolCall(name, '{"query": "SELECT 1"}'),),
                finish_reason="tool_calls")


def bad_json(body: dict, ctx: ResponderContext) -> Plan:
    """run_sql with arguments that are never a valid JSON object."""
    args = _BAD_JSON[_step(body) % len(_BAD_JSON)]
    return Plan(text="Running the query.", tool_calls=(ToolCall("run_sql", args),),
                finish_reason="tool_calls")


def looper(body: dict, ctx: ResponderContext) -> Plan:
    """The same call, with the same arguments, every time."""
    return Plan(text="Let me check the tables first.", tool_calls=(ToolCall("list_tables", "{}"),),
                finish_reason="tool_calls")


@functools.cache
def _ramble_text() -> str:
    """RAMBLE_TOKENS tokens of words (built once: it is about 600 kB)."""
    return tokenizer.filler_text(RAMBLE_TOKENS)


def rambler(body: dict, ctx: ResponderContext) -> Plan:
    """100,000 tokens of text and no answer; max_tokens cuts it on the server."""
    return Plan(text=_ramble_text(), finish_reason="stop")


def register_misbehaving() -> None:
    """Serve the misbehaving models in every simulator of this process."""
    for model_id, responder in ((MUTE, mute), (UNKNOWN_TOOLS, unknown_tools),
                                (BAD_JSON, bad_json), (LOOPER, looper), (RAMBLER, rambler)):
        responders.register(model_id, responder)
