"""The prompts of the SQL agent and its four optional strategies (the seeds' "quality first" knobs).

- format-guard: the system prompt insists on the exact output column names and the rounding the
  question states (the reference run lost 15 of 25 answers to a missing ROUND, DOMAIN.md).
- examples: worked window-function examples (LAG, ROW_NUMBER, running SUM) in the system prompt,
  for hard questions only (they cost prompt tokens on every step).
- glossary: the question's glossary entry and the set's glossary appended to the first user
  message, after a blank line (the message still starts with exactly the question's text).
- validate-retry: `check_submission` looks at a submitted answer's result; when something is off
  the model gets that feedback once and may submit again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from desktop_app.core.parsing import InputError
from desktop_app.core.sqleval.types import LAYERED_ROUTES, STRATEGIES, TIERS, Question, QueryResult

__all__ = ["LOOP_STRATEGIES", "NUDGE_NATIVE", "NUDGE_TEXT", "check_submission",
           "layered_loop_strategies", "parse_layered_route", "retry_feedback",
           "structured_reason", "system_prompt", "unknown_strategies", "user_message"]

# What the layered strategy's tool loop adds to the strategies chosen: the format guard and the
# worked examples (the seeds' "strict format, retry with an example").
LOOP_STRATEGIES = ("format-guard", "examples")

_BASE_NATIVE = """\
You answer a question about a SQLite database by writing one SQL query.{database}

You have four tools:
- list_tables(): the tables of the database;
- describe_table(table): a table's columns and 3 sample rows;
- run_sql(sql): run a read-only query and see its columns, first 20 rows and row count;
- submit_answer(sql): submit your final SQL query. Its result is your answer.

Explore the schema, test your query with run_sql, then call submit_answer exactly once with the
final query. The result of that query is judged, not your prose: it must have exactly the columns
the question asks for. Only SELECT (or WITH ... SELECT) statements are allowed."""

_BASE_TEXT = """\
You answer a question about a SQLite database by writing one SQL query.{database}

The schema, with 3 sample rows per table:

{schema}

Reply with your final SQL query in one fenced ```sql block; the first such block in your reply is
taken as your answer and its result is judged, not your prose. It must have exactly the columns
the question asks for. Only SELECT (or WITH ... SELECT) statements are allowed."""

_FORMAT_GUARD = """\
Output format (this is checked exactly):
- Name every output column exactly as the question states it, with AS aliases, in the order the
  question lists them, and return no other columns.
- When the question asks to round a value to n decimals, apply ROUND(expression, n) in the SQL
  itself; do not leave rounding to the reader.
- Order the rows only when the question asks for an order, and then use ORDER BY."""

_EXAMPLES = """\
Worked examples of window functions (SQLite supports them):
- Change against the previous period, per group:
    SELECT region, month, revenue,
           revenue - LAG(revenue) OVER (PARTITION BY region ORDER BY month) AS change
    FROM monthly_revenue;
  LAG gives NULL on each group's first row; filter those out only if the question says so.
- The top row per group:
    SELECT * FROM (
      SELECT category, product, sales,
             ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS rn
      FROM product_sales) WHERE rn = 1;
- A running total:
    SELECT day, amount,
           SUM(amount) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
             AS running_total
    FROM daily_sales;
  State the frame (ROWS ...): the default RANGE frame adds up rows that tie on the order key.
- Aggregate first in a CTE, then apply the window function to the aggregated rows."""

NUDGE_NATIVE = ("You have not submitted an answer. If you have it, call submit_answer with the "
                "final SQL query now; otherwise keep using the tools.")
NUDGE_TEXT = "Reply with your final SQL query in one fenced ```sql block."


def unknown_strategies(strategies: Collection[str]) -> list[str]:
    """The names in `strategies` that are not in STRATEGIES (for validation messages)."""
    return [s for s in strategies if s not in STRATEGIES]


def system_prompt(question: Question, strategies: Collection[str], *, tool_mode: str = "native",
                  database_note: str = "", schema: str = "") -> str:
    """The system prompt for one question.

    `database_note` says what the database is (a sentence, e.g. from the set's description);
    `schema` is the full schema text, used in text mode (no tools to explore with).
    """
    database = f"\n\nThe database: {database_note.strip()}" if database_note.strip() else ""
    if tool_mode == "text":
        parts = [_BASE_TEXT.format(database=database, schema=schema.strip() or "(unavailable)")]
    else:
        parts = [_BASE_NATIVE.format(database=database)]
    if "format-guard" in strategies:
        parts.append(_FORMAT_GUARD)
    if "examples" in strategies and question.tier == "hard":
        parts.append(_EXAMPLES)
    return "\n\n".join(parts)


def user_message(question: Question, strategies: Collection[str], *, language: str = "en",
                 glossary: Mapping[str, str] | None = None) -> str:
    """The first user message: exactly `question.text(language)`, then (glossary strategy) a blank
    line and the question's glossary entry and the set's glossary (term: definition)."""
    text = question.text(language)
    if "glossary" not in strategies:
        return text
    lines = []
    if question.glossary:
        lines.append(f"Definition to use for this question: {question.glossary}")
    others = {t: d for t, d in (glossary or {}).items() if d != question.glossary}
    if others:
        lines.append("Business glossary:")
        lines += [f"- {term}: {definition}" for term, definition in others.items()]
    return text + ("\n\n" + "\n".join(lines) if lines else "")


def _decimals(value: float) -> int:
    """Decimals of a float as SQLite prints it (repr is the shortest round-tripping form)."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        return 99 if abs(value) < 1 else 0  # 1e-07: many decimals; 1e+20: none
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def check_submission(question: Question, result: QueryResult | None,
                     error: str | None = None) -> list[str]:
    """What is off with a submitted answer, in words for the model (empty: nothing found).

    Checks, without knowing the right answer: the query ran; it returned rows; its column names
    are the question's `required_columns` (in order); every column the question asks to round has
    no value with more decimals than asked (looking at the rows the sandbox returned).
    """
    if error is not None or result is None:
        return [f"the query failed: {error or 'no result'}"]
    problems = []
    if not result.rows:
        problems.append("the query returned no rows; check the filters and joins")
    required = list(question.required_columns)
    columns = list(result.columns)
    if required and columns != required:
        problems.append(f"the output columns are {columns} but the question asks for exactly "
                        f"{required} (same names, same order, no others)")
    lowered = [c.lower() for c in columns]
    for name, decimals in question.rounding.items():
        if name.lower() not in lowered:
            continue
        i = lowered.index(name.lower())
        bad = next((row[i] for row in result.rows
                    if isinstance(row[i], float) and _decimals(row[i]) > decimals), None)
        if bad is not None:
            problems.append(f"column {name} must be rounded to {decimals} decimals "
                            f"(ROUND(..., {decimals})) but has values like {bad!r}")
    return problems


def retry_feedback(problems: list[str], *, tool_mode: str = "native") -> str:
    """The one-time feedback when validate-retry finds problems with a submission."""
    how = ("call submit_answer again" if tool_mode == "native"
           else "reply with the corrected query in one fenced ```sql block")
    return ("Your answer was not accepted yet:\n" + "\n".join(f"- {p}" for p in problems)
            + f"\nFix the query and {how}. This is your only retry: the next answer is final.")


# --------------------------------------------------------------------------- layered


def parse_layered_route(route: str) -> tuple[str, tuple[str, ...]]:
    """("validate", ()), ("always-loop", ()) or ("tier", tiers) for a `--layered-route` value
    ("validate", "always-loop", "tier:hard,medium"); InputError("layered route", code) else."""
    text = (route or "").strip()
    if text in LAYERED_ROUTES:
        return text, ()
    if text.startswith("tier:"):
        tiers = tuple(dict.fromkeys(t.strip() for t in text[5:].split(",") if t.strip()))
        bad = [t for t in tiers if t not in TIERS]
        if tiers and not bad:
            return "tier", tiers
        raise InputError("layered route", code="route_tiers", item=repr(text)[:80],
                         tiers=", ".join(TIERS))
    raise InputError("layered route", code="route_unknown", item=repr(text)[:80])


def structured_reason(question: Question, route: str) -> str | None:
    """Why the route sends `question` straight to the tool loop (None: fast path first)."""
    kind, tiers = parse_layered_route(route)
    if kind == "always-loop":
        return "always-loop"
    if kind == "tier" and question.tier in tiers:
        return f"structured: tier {question.tier}"
    return None


def layered_loop_strategies(strategies: Collection[str]) -> tuple[str, ...]:
    """The strategies of the layered tool loop: those chosen (but layered) plus LOOP_STRATEGIES."""
    return tuple(dict.fromkeys([s for s in strategies if s != "layered"] + list(LOOP_STRATEGIES)))
