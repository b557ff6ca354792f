"""bird: BIRD's own comparison (bird-bench/mini_dev, evaluation/evaluation_ex.py,
`calculate_ex`): the answer passes when its rows, as a SET of tuples, equal the gold's.

Values are compared exactly as SQLite returns them (3 equals 3.0, 0.30000000000000004 does not
equal 0.3); row order, duplicates and column names do not matter, column order does. So BIRD
passes an answer that lacks the gold's DISTINCT (or has one too many), which full fails
("only duplicates differ"): the number to quote for BIRD's leaderboard is this one, and full's
the stricter reading.
"""

from __future__ import annotations

from desktop_app.core.sqleval.judges import Judge, register
from desktop_app.core.sqleval.types import JudgeFinding


def _as_set(rows) -> set:
    return {tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in rows}


def compare(question, pair, tolerance):
    gold, actual = _as_set(pair.gold.rows), _as_set(pair.actual.rows)
    if gold == actual:
        return []
    if gold and actual and len(pair.gold.columns) != len(pair.actual.columns):
        return [JudgeFinding("column_count", {
            "got": len(pair.actual.columns), "expected": len(pair.gold.columns),
            "got_columns": list(pair.actual.columns),
            "expected_columns": list(pair.gold.columns)})]
    return [JudgeFinding("official_mismatch", {
        "form": "bird_set", "missing": len(gold - actual), "extra": len(actual - gold)})]


JUDGE = register(Judge("bird", rank=50, compare=compare, names="ignore", uses_tolerance=False,
                       whole=True, benchmark="bird"))
