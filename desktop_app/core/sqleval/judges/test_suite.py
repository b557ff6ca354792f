"""test-suite: Spider's execution match as test-suite-sql-eval scores it (taoyds/
test-suite-sql-eval, exec_eval.py, `result_eq`): the same number of rows and columns, and some
order of the answer's columns under which its rows equal the gold's: as a multiset, or in
order when the gold's text contains "order by" anywhere (the evaluator's own test, so a
subquery's ORDER BY counts too). Values are compared exactly; column names do not matter.

Two things this judge does not do that the evaluator does: it does not remove DISTINCT from
both queries before running them (the evaluator's default, `--keep_distinct` off), and it runs
the answer on the question's one database, not on the test suite's distilled copies. Both are
said in docs/QUESTION-SETS.md.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

from desktop_app.core.sqleval.judges import Judge, register
from desktop_app.core.sqleval.types import JudgeFinding

MAX_PERMUTATIONS = 40_320  # every order of 8 columns; more columns are pruned far below it


def _unorder(row: tuple) -> tuple:
    return tuple(sorted(row, key=lambda x: str(x) + str(type(x))))


def _candidates(gold_rows, actual_rows, n: int):
    """Column orders that could work: gold column i may come from answer column j only when
    every value of answer column j occurs in gold column i (the evaluator prunes the same way
    on 20 sampled rows; all rows prune at least as much, never a right order)."""
    gold_sets = [{row[i] for row in gold_rows} for i in range(n)]
    allowed = [[j for j in range(n) if all(row[j] in gold_sets[i] for row in actual_rows)]
               for i in range(n)]
    return allowed


def result_eq(gold_rows: list, actual_rows: list, order_matters: bool) -> bool | None:
    """The evaluator's `result_eq` (gold first); None when the orders left to try exceed
    MAX_PERMUTATIONS (not decided)."""
    if not gold_rows and not actual_rows:
        return True
    if len(gold_rows) != len(actual_rows):
        return False
    n = len(gold_rows[0])
    if len(actual_rows[0]) != n:
        return False
    s1, s2 = [_unorder(r) for r in gold_rows], [_unorder(r) for r in actual_rows]
    if (s1 != s2) if order_matters else (set(s1) != set(s2)):
        return False
    allowed = _candidates(gold_rows, actual_rows, n)
    if math.prod(len(a) for a in allowed) > MAX_PERMUTATIONS:
        return None
    gold_counts = Counter(gold_rows) if not order_matters else None
    for perm in itertools.product(*allowed):
        if len(set(perm)) != n:
            continue
        permuted = [tuple(row[j] for j in perm) for row in actual_rows] if n > 1 else actual_rows
        if order_matters:
            if permuted == gold_rows:
                return True
        elif set(permuted) == set(gold_rows) and Counter(permuted) == gold_counts:
            return True
    return False


def order_by_in(gold_sql: str) -> bool:
    return "order by" in gold_sql.lower()


def compare(question, pair, tolerance):
    gold, actual = list(pair.gold.rows), list(pair.actual.rows)
    ordered = order_by_in(question.gold_sql)
    same = result_eq(gold, actual, ordered)
    if same:
        return []
    if len(gold) != len(actual):
        return [JudgeFinding("row_count", {"got": len(actual), "expected": len(gold)})]
    if gold and len(pair.gold.columns) != len(pair.actual.columns):
        return [JudgeFinding("column_count", {
            "got": len(pair.actual.columns), "expected": len(pair.gold.columns),
            "got_columns": list(pair.actual.columns),
            "expected_columns": list(pair.gold.columns)})]
    return [JudgeFinding("official_mismatch", {
        "form": "test_suite_undecided" if same is None else "test_suite_rows",
        "ordered": ordered})]


JUDGE = register(Judge("test-suite", rank=40, compare=compare, names="ignore",
                       uses_tolerance=False, whole=True, benchmark="spider"))
