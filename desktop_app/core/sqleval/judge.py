"""Judging an answer: the checks every judge shares, the comparisons the judges are made of,
each judge's verdict with named findings, and the counterfactual across them.

The judges themselves are descriptors in `judges/`, one module each (`judges/__init__.py`);
this module holds what they share: the column count, column name and row count checks (names
compared as the judge says), and `first_row_findings` / `all_rows_findings`, the value
comparisons they use. The three built in:

- strict (the reference harness's): row count, column count, column names (case-sensitive) and
  the FIRST row, every value compared as its canonical text (`canonical`; NULL equals only NULL,
  never the text 'NULL'). Order-sensitive, as the reference was: its first row depends on the
  row order.
- tolerant: strict with its number comparisons relaxed, and nothing more: the same row count,
  column count, column names (case-insensitive) and FIRST row; a cell passes when strict would
  pass it or when it is a number (or text spelling one) equal within the tolerance after the
  question's rounding (SQLite's own ROUND) is applied to the answer; 3 equals 3.0. So nothing
  passes strict and fails tolerant. Every row is full's job.
- full: every row as a multiset (duplicates count), the order checked
  only when the question asks for one or the gold query has a top-level ORDER BY, the same numeric
  comparison as tolerant, column names optional (`ignore_names`, this judge only).

Numbers a and b (gold) are equal when abs(a - b) <= tol * max(1, |b|): absolute near zero,
relative for large values. A differing number is `rounding_only` when the answer, rounded to the
decimals the question requires for its column (else to the decimals the gold shows: 12.35 -> 2,
3.0 -> 0), equals the gold; any other difference is a `value_mismatch` (a SUM off by 0.28 % is
wrong, not rounded). Results truncated at the sandbox's row cap are compared on the rows present;
row counts use `total_rows` when known. A passing verdict on a gold that returned no rows or only
NULLs carries a `degenerate_gold` finding (the pass proves little). Findings show values with
`shown`: NULL bare, the text 'NULL' and the empty string '' quoted.

Findings and the counterfactual are values (a code, `params`, the cells; a `types.Headline`),
never words: `report/judge_words.py` says them in English or Chinese. `FINDING_FORMS` lists
every (code, form) made here, so a test can check that each has words.

Rounding is SQLite's exactly (`rounding.sqlite_round`): numpy away from ties, SQLite itself (an in-memory
connection per thread, cached per value) near a tie and for odd cases. Every judge is pure and
cheap on an exact match (one list comparison); rounding runs column-wise and the per-cell path
only on rows that still differ. `judge_all` shares that work across the judges. Safe to call
from `asyncio.to_thread`.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from operator import itemgetter
from typing import Any

from desktop_app.core.sqleval import judges as registry
from desktop_app.core.sqleval.rounding import _round_column, sqlite_round
from desktop_app.core.sqleval.types import (
    Headline,
    JudgeFinding,
    Question,
    QueryResult,
    Verdict,
)

MAX_CELLS = 10  # differing cells listed in a finding
_MAX_GREEDY = 500  # unmatched rows beyond this are not paired up one by one (O(n^2))

# The no_answer finding's forms: the stop reasons that end a question without an answer, and
# "stopped" (the model stopped without submitting SQL).
NO_ANSWER_STOPS = ("token_budget", "time_budget", "endpoint_error", "cancelled",
                   "output_budget", "unknown_tool", "bad_arguments", "repeated_call", "stopped")
# Every finding the judges make, as (code, form): a code with several wordings says which in
# `params["form"]` (None: one wording). report/judge_words.py has words for each (a test
# checks), and for explain.EXPLAIN_FORMS and golds.NOTE_FORMS.
FINDING_FORMS: tuple[tuple[str, str | None], ...] = (
    ("sql_error", "failed"), ("sql_error", "syntax"), ("sql_error", "no_result"),
    ("timeout", None), ("refused", None), ("step_budget", None),
    *(("no_answer", stop) for stop in NO_ANSWER_STOPS),
    ("column_count", None), ("column_names", "names"), ("column_names", "case"),
    ("empty_result", None), ("duplicates_only", None), ("row_count", None),
    ("rounding_only", "missing"), ("rounding_only", "question"), ("rounding_only", "gold"),
    ("value_mismatch", "format"), ("value_mismatch", "values"), ("value_mismatch", "rows"),
    ("order_only", "first_row"), ("order_only", "asked"), ("order_only", "gold_orders"),
    ("degenerate_gold", "empty"), ("degenerate_gold", "null_only"),
    # the benchmarks' own rules (judges/spider2.py, bird.py, test_suite.py)
    ("official_mismatch", "spider2_column"), ("official_mismatch", "bird_set"),
    ("official_mismatch", "test_suite_rows"), ("official_mismatch", "test_suite_undecided"),
)
# The forms of the counterfactual line (`Headline.code`, plus a failure with no finding).
HEADLINE_CODES = ("passes_all", "fails_all", "fails_some", "no_finding")


def canonical(value) -> str:
    """The text strict compares: NULL -> "NULL", floats in Python's shortest round-trip form
    (12.35 -> "12.35", 3.0 -> "3.0"), ints as digits, text as is, blobs as x'hex'."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "x'" + bytes(value).hex() + "'"
    return str(value)


def shown(value) -> str:
    """A value as findings show it: like `canonical`, except that text which could be read as
    something else is quoted: the text 'NULL' (NULL itself is bare), the empty string '' and
    text with spaces at either end."""
    if isinstance(value, str) and (value.strip().upper() == "NULL" or value != value.strip()
                                   or not value):
        return "'" + value.replace("'", "''") + "'"
    return canonical(value)


def _number(value) -> float | None:
    """The value as a number when it is one (or text spelling one), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(b))


@lru_cache(maxsize=512)
def gold_orders(gold_sql: str) -> bool:
    """True when the gold query has a top-level ORDER BY (parsed with sqlglot, SQLite dialect;
    unparseable SQL counts as unordered)."""
    try:
        import sqlglot

        tree = sqlglot.parse_one(gold_sql, read="sqlite")
    except Exception:  # noqa: BLE001 - any parse failure means "cannot tell"
        return False
    return tree is not None and tree.args.get("order") is not None


def order_required(question: Question) -> bool:
    """Whether row order is part of the answer: the question asks for it or the gold orders."""
    return question.order_matters or gold_orders(question.gold_sql)


def _count(result: QueryResult) -> int:
    return result.total_rows if result.total_rows is not None else len(result.rows)


# --- answers that never produced a result ------------------------------------------------------

def classify_error(error: str | BaseException) -> str:
    """The finding code for a failed final query: refused, timeout or sql_error. Takes the
    sandbox exception (SqlRefused / SqlTimeout by class name) or its text."""
    if isinstance(error, BaseException):
        name = type(error).__name__
        if name == "SqlRefused":
            return "refused"
        if name == "SqlTimeout":
            return "timeout"
        error = str(error)
    text = error.lower()
    # The sandbox's own wording (sandbox.py); SQLite's errors never use these phrases.
    if any(w in text for w in ("time limit", "interrupted", "timed out")):
        return "timeout"
    if any(w in text for w in ("refused", "not authorized", "read-only")):
        return "refused"
    return "sql_error"


def _no_result(final_sql: str | None, error, stop_reason: str) -> JudgeFinding:
    if error is not None:
        code = classify_error(error)
        params = {"error": str(error)}  # the sandbox's or SQLite's own message, quoted as is
        if code == "sql_error":
            params["form"] = "syntax" if "syntax error" in str(error).lower() else "failed"
        return JudgeFinding(code, params)
    if stop_reason == "step_budget":
        return JudgeFinding("step_budget")
    if stop_reason in NO_ANSWER_STOPS:
        return JudgeFinding("no_answer", {"form": stop_reason})
    if final_sql:
        return JudgeFinding("sql_error", {"form": "no_result"})
    return JudgeFinding("no_answer", {"form": "stopped"})


# --- structure ---------------------------------------------------------------------------------

def _structure(pair: "Pair", names: str) -> tuple[list[JudgeFinding], bool]:
    """Column count, column names, row count. Returns the findings and whether the values can
    be compared (same column count and row count). `names` is "exact", "nocase" or "ignore"."""
    gold, actual = pair.gold, pair.actual
    found: list[JudgeFinding] = []
    if len(gold.columns) != len(actual.columns):
        found.append(JudgeFinding("column_count", {
            "got": len(actual.columns), "expected": len(gold.columns),
            "got_columns": list(actual.columns), "expected_columns": list(gold.columns)}))
    elif names != "ignore":
        pairs = [(a, g) for a, g in zip(actual.columns, gold.columns)
                 if (a != g if names == "exact" else a.lower() != g.lower())]
        if pairs:
            case_only = all(a.lower() == g.lower() for a, g in pairs)
            found.append(JudgeFinding("column_names", {
                "form": "case" if case_only else "names",
                "pairs": [[a, g] for a, g in pairs]}, tuple((-1, g, g, a) for a, g in pairs)))
    n_gold, n_actual = _count(gold), _count(actual)
    if n_gold != n_actual:
        if n_actual == 0:
            found.append(JudgeFinding("empty_result", {"got": 0, "expected": n_gold}))
        elif (len(gold.columns) == len(actual.columns) and not gold.truncated
              and not actual.truncated
              and set(pair.rounded()[0]) == set(pair.rounded()[1])):
            found.append(JudgeFinding("duplicates_only", {"got": n_actual, "expected": n_gold}))
        else:
            found.append(JudgeFinding("row_count", {"got": n_actual, "expected": n_gold}))
    comparable = len(gold.columns) == len(actual.columns) and n_gold == n_actual
    return found, comparable


def _round_plan(question: Question, columns: tuple[str, ...]) -> dict[int, int]:
    """Column index -> decimals, matching the question's rounding to result columns by name
    (case-insensitive), else by the required column's position."""
    plan: dict[int, int] = {}
    lowered = [c.lower() for c in columns]
    required = [c.lower() for c in question.required_columns]
    for col, n in question.rounding.items():
        key = col.lower()
        if key in lowered:
            plan[lowered.index(key)] = n
        elif key in required and required.index(key) < len(columns):
            plan[required.index(key)] = n
    return plan


def _transpose(rows) -> list[list]:
    """The columns of `rows` as lists (itemgetter per column: faster than zip(*rows))."""
    if not rows:
        return []
    return [list(map(itemgetter(i), rows)) for i in range(len(rows[0]))]


class Pair:
    """A gold and an actual result with the work the judges share done once (judge_all asks
    three judges about the same pair). The question's rounding is applied to the actual only
    (the gold query rounds as its question says), column by column."""

    def __init__(self, gold: QueryResult, actual: QueryResult, plan: dict[int, int], *,
                 gold_label: str = "", gold_from_file: bool = False,
                 same_rows: bool = False):
        self.gold, self.actual, self.plan = gold, actual, plan
        self.same_rows_whole = same_rows  # equal as multisets in SQLite, past the cap
        # Which accepted answer the gold is ("gold SQL", "local002_a.csv") and whether it was
        # read from a result file: a benchmark's rule may differ per gold file (Spider2's
        # condition columns) and read a file as its evaluator reads it.
        self.gold_label, self.gold_from_file = gold_label, gold_from_file
        self._cache: dict = {}

    def _memo(self, key, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def same_rows(self) -> bool:
        return self._memo("same", lambda: self.gold.rows == self.actual.rows)

    def _columns(self) -> tuple[list, list]:
        """(gold columns, actual columns with the planned ones rounded), as lists."""
        def compute():
            gold, actual = _transpose(self.gold.rows), _transpose(self.actual.rows)
            for i, n in self.plan.items():
                if i < len(actual):
                    actual[i] = _round_column(actual[i], n)
            return gold, actual
        return self._memo("columns", compute)

    def rounded_equal(self) -> bool:
        """Every cell equal once the answer is rounded (compared column by column, in C)."""
        if self.same_rows():
            return True
        gold, actual = self._columns()
        return len(gold) == len(actual) and all(g == a for g, a in zip(gold, actual))

    def rounded(self) -> tuple[list, list]:
        """(gold rows, the answer's rows rounded) as lists of tuples."""
        def compute():
            if not self.plan or not self.actual.rows:
                return list(self.gold.rows), list(self.actual.rows)
            return list(self.gold.rows), list(zip(*self._columns()[1]))
        return self._memo("rounded", compute)

    def multiset_equal(self, tol: float) -> bool:
        if self.same_rows_whole:
            return True
        return self._memo(("multiset", tol), lambda: _multiset_equal(*self.rounded(), tol))


# --- values ------------------------------------------------------------------------------------

def _strict_equal(g, a) -> bool:
    """Strict's cell comparison: the same canonical text, and NULL only equals NULL (never the
    text 'NULL')."""
    return canonical(g) == canonical(a) and (g is None) == (a is None)


def _shown_decimals(g) -> int | None:
    """The decimals a gold number shows (12.35 -> 2, 3.0 -> 0, the text '7.50' -> 2); None for an
    integer, text that is no number, or a number in exponent form."""
    if isinstance(g, float):
        text = repr(g)
        if not math.isfinite(g) or "e" in text:
            return None
        fraction = text.partition(".")[2]
        return 0 if fraction == "0" else len(fraction)
    if isinstance(g, str) and _number(g) is not None and "e" not in g.lower():
        return len(g.strip().partition(".")[2])
    return None


def _rounding_decimals(g, n: int | None) -> int | None:
    """The decimals "only rounding differs" rounds the answer to: the question's for this
    column, else the ones the gold shows."""
    return n if n is not None else _shown_decimals(g)


def _cell_kind(g, a, n: int | None, tol: float, strict: bool) -> str | None:
    """None when equal, else "rounding" (rounded to the question's decimals, or the gold's when
    the question sets none, the answer equals the gold), "format" (same number, other text) or
    "value". Outside strict, a cell strict calls equal is equal, so tolerant never fails what
    strict passes."""
    if _strict_equal(g, a) or (not strict and g == a):
        return None  # g == a: 3 == 3.0; "1" != 1 goes on to the numeric comparison
    gn, an = _number(g), _number(a)
    if gn is None or an is None or (isinstance(g, str) and isinstance(a, str)):
        return "value"
    an_r = an if n is None else sqlite_round(an, n)
    if _close(an_r, gn, tol):
        if strict:  # unrounded where the question rounds is rounding, even if only float noise
            return "rounding" if an_r != an or not _close(an, gn, tol) else "format"
        return None
    d = _rounding_decimals(g, n)
    if d is not None and d != n and _close(sqlite_round(an, d), gn, tol):
        return "rounding"
    return "value"


def _value_finding(diffs: list, total: int, columns, plan: dict[int, int]) -> JudgeFinding:
    """One finding for the differing cells [(row, col_index, expected, actual, kind)] (rows
    0-based in `cells`, 1-based in `params["row"]`; a column-name finding uses row -1)."""
    kinds = {d[4] for d in diffs}
    cells = tuple((r, columns[c], shown(g), shown(a))
                  for r, c, g, a, _ in diffs[:MAX_CELLS])

    def params(form: str, diff) -> dict:
        r, c, g, a, _ = diff
        return {"form": form, "columns": list(dict.fromkeys(columns[d[1]] for d in diffs)),
                "row": r + 1, "column": columns[c], "got": shown(a), "expected": shown(g),
                "differ": total}

    if kinds <= {"rounding", "format"} and "rounding" in kinds:
        first = next(d for d in diffs if d[4] == "rounding")
        n = plan.get(first[1])
        a_num = _number(first[3])
        if n is not None and a_num is not None and sqlite_round(a_num, n) != a_num:
            return JudgeFinding("rounding_only", {**params("missing", first), "digits": n},
                                cells)
        return JudgeFinding("rounding_only", {
            **params("question" if n is not None else "gold", first),
            "digits": _rounding_decimals(first[2], n)}, cells)
    form = "format" if kinds == {"format"} else "values"
    return JudgeFinding("value_mismatch", params(form, diffs[0]), cells)


def _positional(gold_rows, actual_rows, plan, tol, strict, *, limit=None, skip=None):
    """Differing cells row by row: (the first MAX_CELLS diffs, the total count). `skip(r)` says
    row r is known equal (the rounded rows matched), so only differing rows cost Python time."""
    diffs: list[tuple[int, int, Any, Any, str]] = []
    total = 0
    for r, (g_row, a_row) in enumerate(zip(gold_rows, actual_rows)):
        if limit is not None and r >= limit:
            break
        if not strict and (g_row == a_row or (skip is not None and skip(r))):
            continue
        for c, (g, a) in enumerate(zip(g_row, a_row)):
            kind = _cell_kind(g, a, plan.get(c), tol, strict)
            if kind is not None:
                total += 1
                if len(diffs) < MAX_CELLS:
                    diffs.append((r, c, g, a, kind))
    return diffs, total


def _sort_key(row):
    key = []
    for v in row:
        if v is None:
            key.append((0, 0.0, ""))
        elif isinstance(v, (int, float)):
            key.append((1, float(v), ""))
        elif isinstance(v, str):
            key.append((2, 0.0, v))
        else:
            key.append((3, 0.0, canonical(v)))
    return key


def _rows_equal(g_row, a_row, tol) -> bool:
    return g_row == a_row or all(_cell_kind(g, a, None, tol, False) is None
                                 for g, a in zip(g_row, a_row))


def _multiset_equal(rg: list, ra: list, tol: float) -> bool:
    """Same (rounded) rows with the same multiplicities in any order, numbers within `tol`."""
    if len(rg) != len(ra):
        return False
    if Counter(rg) == Counter(ra):
        return True
    rg, ra = sorted(rg, key=_sort_key), sorted(ra, key=_sort_key)
    left_g, left_a = [], []
    for g_row, a_row in zip(rg, ra):
        if not _rows_equal(g_row, a_row, tol):
            left_g.append(g_row)
            left_a.append(a_row)
    if len(left_g) > _MAX_GREEDY:
        return False
    for g_row in left_g:  # values within tol that sorted apart: pair the leftovers one by one
        for i, a_row in enumerate(left_a):
            if _rows_equal(g_row, a_row, tol):
                del left_a[i]
                break
        else:
            return False
    return True


def first_row_findings(mode: str, pair: Pair, tol: float, *, exact: bool) -> list[JudgeFinding]:
    """Value findings on the FIRST row only (the reference's check): every value as its
    canonical text when `exact` (strict), numbers within `tol` after the question's rounding
    otherwise (tolerant). A first row that differs only because the rows came in another order
    is `order_only`, quoting `mode`."""
    gold, actual, plan, columns = pair.gold, pair.actual, pair.plan, pair.gold.columns
    diffs, total = _positional(gold.rows, actual.rows, plan, tol, exact, limit=1)
    if diffs and any(d[4] == "value" for d in diffs) and pair.multiset_equal(tol):
        return [JudgeFinding("order_only", {"form": "first_row", "judge": mode})]
    return [_value_finding(diffs, total, columns, plan)] if diffs else []


def all_rows_findings(question: Question, pair: Pair, tol: float, *, ordered: bool
                      ) -> list[JudgeFinding]:
    """Value findings on every row, as a multiset (duplicates count), in order when
    `ordered`; numbers within `tol` after the question's rounding."""
    gold, actual, plan, columns = pair.gold, pair.actual, pair.plan, pair.gold.columns
    if pair.rounded_equal():
        return []
    diffs, total = [], 0
    if ordered:
        rg, ra = pair.rounded()
        diffs, total = _positional(gold.rows, actual.rows, plan, tol, False,
                                   skip=lambda r: rg[r] == ra[r])
        if not diffs:
            return []
    if pair.multiset_equal(tol):
        if not diffs:  # unordered
            return []
        return [JudgeFinding("order_only", {
            "form": "asked" if question.order_matters else "gold_orders"})]
    if not diffs:  # unordered mismatch: show the first differing rows after sorting both sides
        rg, ra = (sorted(rows, key=_sort_key) for rows in pair.rounded())
        diffs, total = _positional(rg, ra, {}, tol, False)
        if not diffs:
            return [JudgeFinding("value_mismatch", {"form": "rows"})]
    return [_value_finding(diffs, total, columns, plan)]


# --- the judges --------------------------------------------------------------------------------

def judge(mode: str, question: Question, gold: QueryResult, actual: QueryResult | None, *,
          final_sql: str | None = None, error: str | None = None, stop_reason: str = "submitted",
          tolerance: float = 1e-6, ignore_names: bool = False) -> Verdict:
    """One judge's verdict on an answer. `actual` is None when there is no result (then `error`,
    the final query's error text or sandbox exception, and `stop_reason` say why). `tolerance` is
    relative above 1 and absolute below (see the module doc); `ignore_names` applies to full only.
    With `final_sql`, a failing verdict also carries `explain.explain_sql`'s findings."""
    verdict = _verdict(mode, question, gold, actual, final_sql, error, stop_reason, tolerance,
                       ignore_names)
    return _with_explanation(verdict, final_sql, question, None)


def judge_all(question: Question, gold: QueryResult, actual: QueryResult | None, *,
              modes: tuple[str, ...] | None = None, final_sql: str | None = None,
              error: str | None = None, stop_reason: str = "submitted", tolerance: float = 1e-6,
              ignore_names: bool = False, gold_label: str = "",
              gold_from_file: bool = False, same_rows: bool = False) -> dict[str, Verdict]:
    """Every judge in `modes` (None: Throughline's own, strict, tolerant and full and any judge
    added without a benchmark; the runner asks for every registered one) on the same answer (arguments as
    for `judge`; `gold_label` and `gold_from_file` say which accepted answer `gold` is), keyed
    by judge; `same_rows`: SQLite found the whole results equal as multisets, past the rows
    held here (`golds.same_rows_in_sql`). The sqlglot explanation is computed once and shared
    by the failing verdicts."""
    modes = registry.default_judges(True) if modes is None else modes
    pair = None if actual is None else Pair(gold, actual, _round_plan(question, gold.columns),
                                            gold_label=gold_label, gold_from_file=gold_from_file,
                                            same_rows=same_rows)
    verdicts = {m: _verdict(m, question, gold, actual, final_sql, error, stop_reason, tolerance,
                            ignore_names, pair) for m in modes}
    extra: list | None = None
    if final_sql and actual is not None and any(not v.passed for v in verdicts.values()):
        extra = _explain(final_sql, question)
    return {m: _with_explanation(v, final_sql, question, extra) for m, v in verdicts.items()}


def _verdict(mode, question, gold, actual, final_sql, error, stop_reason, tolerance,
             ignore_names, pair: Pair | None = None) -> Verdict:
    spec = registry.get_judge(mode)
    if spec is None:
        raise ValueError(f"unknown judge {mode!r}: choose one of "
                         f"{', '.join(registry.judge_names())}")
    tol = tolerance if spec.uses_tolerance else None
    if actual is None:
        return Verdict(mode, False, (_no_result(final_sql, error, stop_reason),), tol)
    names = "ignore" if spec.names_optional and ignore_names else spec.names
    if pair is None:
        pair = Pair(gold, actual, _round_plan(question, gold.columns))
    if spec.whole:
        found = list(spec.compare(question, pair, tolerance))
    else:
        found, comparable = _structure(pair, names)
        if comparable:
            found += spec.compare(question, pair, tolerance)
    passed = not found
    if passed:
        found += _degenerate_gold(gold)
    return Verdict(mode, passed, tuple(found), tol)


def degenerate(result: QueryResult) -> str | None:
    """"empty" when a result has no rows, "null_only" when every value is NULL, else None."""
    if _count(result) == 0:
        return "empty"
    if not result.truncated and all(v is None for row in result.rows for v in row):
        return "null_only"
    return None


def _degenerate_gold(gold: QueryResult) -> list[JudgeFinding]:
    """A note for a PASSING verdict whose gold returned no rows or only NULLs: then any empty
    (or all-NULL) answer passes, whatever its SQL does."""
    kind = degenerate(gold)
    if kind is None:
        return []
    return [JudgeFinding("degenerate_gold", {"form": kind})]


def _with_explanation(verdict: Verdict, final_sql, question, extra) -> Verdict:
    """A failing verdict on a result with the sqlglot findings appended (none on a pass, and
    none when there was no result: then the SQL error is the story)."""
    if verdict.passed or not final_sql or verdict.findings[0].code in _NO_RESULT_CODES:
        return verdict
    extra = _explain(final_sql, question) if extra is None else extra
    if not extra:
        return verdict
    return Verdict(verdict.judge, verdict.passed, verdict.findings + tuple(extra),
                   verdict.tolerance)


_NO_RESULT_CODES = {"sql_error", "refused", "timeout", "step_budget", "no_answer"}


def _explain(final_sql: str, question: Question) -> list[JudgeFinding]:
    try:
        from desktop_app.core.sqleval.explain import explain_sql

        return list(explain_sql(final_sql, question))
    except Exception:  # noqa: BLE001 - an explanation must never break judging
        return []


def counterfactual(verdicts: dict[str, Verdict]) -> Headline:
    """What differs across judges, as a Headline: the failing and passing judges and the reason,
    the first finding of the most lenient judge that failed: the difference that is left when
    every leniency is applied (strict's "wrong column names" was quoted for an answer that full,
    names ignored, failed on its values). `report/judge_words.headline_text` says it ("passes
    every judge", "fails every judge: wrong row count (got 0, expected 4)", "fails strict,
    passes tolerant and full: only rounding differs in avg_price").

    The line is across Throughline's own judges: a benchmark's official rule (spider2, bird,
    test-suite) is computed and stored beside them, and where it disagrees with full is said
    on its own (`official.disagreements`), not folded into this line."""
    def own(name: str) -> bool:
        spec = registry.get_judge(name)
        return spec is None or spec.benchmark is None

    order = [m for m in registry.in_judge_order(verdicts) if own(m)]
    failing = tuple(m for m in order if not verdicts[m].passed)
    passing = tuple(m for m in order if verdicts[m].passed)
    last = verdicts[failing[-1]].findings if failing else ()
    return Headline(failing, passing, last[0] if last else None)
