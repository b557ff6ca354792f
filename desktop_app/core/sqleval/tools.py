"""The agent's four tools: their JSON schemas (OpenAI `tools` format) and how the harness runs them.

`execute_tool` never raises for anything the model did wrong: invalid JSON arguments, an unknown
tool, a missing argument, a SQL error or a refused statement all come back as text for the model
(a SQL error in SQLite's own words: "Error: no such column: x", 'Error: near "SELEC": syntax
error') and are recorded in the `ToolCallRecord.error` of the step. Only programming errors and
cancellation escape.

It blocks on SQLite (through the sandbox, bounded by its time limit): the agent loop calls it
through `asyncio.to_thread`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from desktop_app.core.endpoint.limits import MAX_JSON_DEPTH, JSONTooDeep, clean_text, loads_limited
from desktop_app.core.sqleval.sandbox import SandboxError, format_result_for_model
from desktop_app.core.sqleval.types import ToolCallRecord

__all__ = ["MAX_RESULT_CHARS", "MODEL_ROWS", "TOOL_NAMES", "TOOLS", "ToolOutcome",
           "clip", "execute_tool"]

MODEL_ROWS = 20  # rows of a run_sql result shown to the model
# Any tool result longer than this is cut (a wide table's sample rows, huge text cells): the model's
# context is the scarce resource, and the cut is recorded in the step.
MAX_RESULT_CHARS = 8000


def _function(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required,
                       "additionalProperties": False}}}


_SQL_ARG = {"sql": {"type": "string", "description": "one SQLite SELECT statement"}}

TOOLS: list[dict] = [
    _function("list_tables", "List the tables of the database.", {}, []),
    _function("describe_table", "Show a table's columns (CREATE statement) and 3 sample rows.",
              {"table": {"type": "string", "description": "the table's name"}}, ["table"]),
    _function("run_sql", "Run a read-only SQL query and see its columns, the first "
              f"{MODEL_ROWS} rows and the total row count.", _SQL_ARG, ["sql"]),
    _function("submit_answer", "Submit the final SQL query; its result is your answer. "
              "Call it once, when you are done.", _SQL_ARG, ["sql"]),
]
TOOL_NAMES = tuple(t["function"]["name"] for t in TOOLS)


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call did: the record for the step, and the SQL when it was submit_answer.

    `problem` says what the model did wrong in the call itself, for the loop's misbehaviour
    checks: "unknown_tool", "bad_arguments" (invalid JSON, not an object, a missing or empty
    argument), or None (a SQL error or refusal is not the call's fault: it is None then).
    """

    record: ToolCallRecord
    submitted_sql: str | None = None
    problem: str | None = None


def clip(text: str, limit: int = MAX_RESULT_CHARS) -> tuple[str, bool]:
    """`text` cut to `limit` characters with a note saying so; returns (text, was_cut)."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n... [cut: {len(text) - limit} more characters not shown]", True


def _arguments(arguments_json: str | dict | None) -> tuple[dict | None, str | None]:
    """Parsed arguments or an error text. Some servers send a dict instead of JSON text."""
    if isinstance(arguments_json, dict):
        return arguments_json, None
    if arguments_json is None or not str(arguments_json).strip():
        return {}, None
    try:
        value = loads_limited(arguments_json)
    except JSONTooDeep:
        # json.loads would recurse once per level: a model's [[[[...]]]] must not end the run.
        return None, f"the arguments are not valid JSON (nested deeper than {MAX_JSON_DEPTH} levels)"
    except json.JSONDecodeError as exc:
        return None, f"the arguments are not valid JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(value, dict):
        return None, "the arguments must be a JSON object"
    return value, None


def _string_arg(args: dict, key: str) -> tuple[str | None, str | None]:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        return None, f"missing argument {key!r} (a non-empty string)"
    return clean_text(value), None  # a lone surrogate ("\ud800") cannot reach SQLite


def execute_tool(sandbox, name: str, arguments_json: str | dict | None, *,
                 call_id: str = "", time_limit_s: float | None = None) -> ToolOutcome:
    """Run one tool call against `sandbox` (a `Sandbox`) and return what the model is shown.

    `arguments_json` is the raw argument text the model sent. run_sql shows at most MODEL_ROWS
    rows (via `format_result_for_model`); every result is cut at MAX_RESULT_CHARS characters;
    both cuts set `result_truncated`. submit_answer does not run the SQL: it only records it
    (the loop then ends, or validate-retry checks it). `time_limit_s` (None: the sandbox's own)
    bounds run_sql's query: the agent passes the question's time left when that is shorter.
    """
    raw = arguments_json if isinstance(arguments_json, str) else json.dumps(arguments_json or {})

    def done(result: str, *, error: str | None = None, truncated: bool = False,
             submitted: str | None = None, problem: str | None = None) -> ToolOutcome:
        text, cut = clip(result)
        return ToolOutcome(ToolCallRecord(call_id, name, raw, text, truncated or cut, error),
                           submitted, problem)

    def failed(why: str | None, problem: str | None = None) -> ToolOutcome:
        # `why` is None only where a helper's (value, why) pair could not say it was set.
        why = why or "invalid arguments"
        return done(f"Error: {why}", error=why, problem=problem)

    if name not in TOOL_NAMES:
        return failed(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}",
                      "unknown_tool")
    args, why = _arguments(arguments_json)
    if args is None:
        return failed(why, "bad_arguments")
    try:
        if name == "list_tables":
            tables = sandbox.list_tables()
            return done("\n".join(tables) if tables else "(the database has no tables)")
        if name == "describe_table":
            table, why = _string_arg(args, "table")
            if table is None:
                return failed(why, "bad_arguments")
            try:
                return done(sandbox.describe_table(table))
            except (LookupError, ValueError) as exc:  # an unknown table, if not a SandboxError
                return failed(str(exc) or f"no table {table!r}")
        sql, why = _string_arg(args, "sql")
        if sql is None:
            return failed(why, "bad_arguments")
        if name == "submit_answer":
            return done("Answer submitted.", submitted=sql)
        result = (sandbox.run(sql) if time_limit_s is None
                  else sandbox.run(sql, time_limit_s=time_limit_s))
        text, truncated = format_result_for_model(result, max_rows=MODEL_ROWS)
        return done(text, truncated=truncated)
    except SandboxError as exc:
        return failed(str(exc))
