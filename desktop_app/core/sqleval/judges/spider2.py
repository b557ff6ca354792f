"""spider2: Spider2-lite's own comparison, as its evaluator scores a local (SQLite) instance.

Spider2 (xlang-ai/Spider2, spider2-lite/evaluation_suite/evaluate.py, `compare_pandas_table`)
runs the answer with pandas, writes it to CSV, reads it back with `pandas.read_csv` and reads
each gold file the same way; then every gold column it checks (the instance's
`condition_cols`, else every column) must equal SOME column of the answer, compared as a
vector: the same length, numbers within 0.01 absolute (`math.isclose(abs_tol=1e-2)`), other
values equal, a missing value read as 0; with `ignore_order` each vector is sorted on its own
first (by its values' text). Extra answer columns, column names and column order do not
matter. An answer passes when it matches any gold file (`_a.csv`, `_b.csv`, each with its
own condition columns).

The CSV round trip is emulated here without pandas (`_frame`): a column whose every value
reads as an integer is integers (floats when one is missing), one whose values read as
numbers is floats, true/false text is booleans, anything else is text; pandas' missing
markers ("", "NA", "NULL", "nan", "None", ...) are missing. tests/core/sqleval/test_official_judges.py
checks this judge against the evaluator's own function, run with pandas, on every pair of its
fixtures.
"""

from __future__ import annotations

import math
import re

from desktop_app.core.sqleval.judges import Judge, register
from desktop_app.core.sqleval.types import JudgeFinding

TOLERANCE = 1e-2  # the evaluator's, fixed
# pandas.read_csv's default missing-value markers (pandas 2.x, `STR_NA_VALUES`).
_NA = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                 "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                 "nan", "null"})
_INT = re.compile(r"[+-]?\d+")
_TRUE, _FALSE = frozenset({"True", "TRUE", "true"}), frozenset({"False", "FALSE", "false"})
_MISSING = object()


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sql_texts(column: list) -> list[str]:
    """A query result's column as pandas writes it to CSV after `read_sql_query`: a column of
    numbers with a NULL or a float among them is float64 (3 -> "3.0"), NULL is empty."""
    floats = all(v is None or _is_number(v) for v in column) and any(
        _is_number(v) for v in column) and any(v is None or isinstance(v, float) for v in column)
    out = []
    for v in column:
        if v is None:
            out.append("")
        elif floats:
            out.append(repr(float(v)))
        elif isinstance(v, float):
            out.append(repr(v))
        elif isinstance(v, (bytes, bytearray, memoryview)):
            out.append(repr(bytes(v)))  # pandas writes a blob as its Python repr: b'...'
        else:
            out.append(str(v))
    return out


def _file_texts(column: list) -> list[str]:
    """A gold file's column as its text again (the loader read "3.50" as 3.5, "" as NULL)."""
    return ["" if v is None else repr(v) if isinstance(v, float) else str(v) for v in column]


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _read_column(texts: list[str]) -> list:
    """One column as `pandas.read_csv` reads it (missing values as _MISSING)."""
    present = [t for t in texts if t not in _NA]
    if present and all(_INT.fullmatch(t) for t in present):
        if len(present) == len(texts):
            return [int(t) for t in texts]
        return [_MISSING if t in _NA else float(int(t)) for t in texts]
    if present and all(_float(t) is not None for t in present):
        return [_MISSING if t in _NA else float(t) for t in texts]
    if present and all(t in _TRUE or t in _FALSE for t in present):
        return [_MISSING if t in _NA else t in _TRUE for t in texts]
    return [_MISSING if t in _NA else t for t in texts]


def _frame(result, from_file: bool) -> list[list]:
    """The result's columns as the evaluator holds them (`transpose().values.tolist()` of the
    frame): missing values become 0 (its `normalize`), and a frame of only numeric columns is
    one numeric array (integers become floats beside a float column)."""
    rows = result.rows
    columns = [[row[i] for row in rows] for i in range(len(result.columns))]
    read = [_read_column((_file_texts if from_file else _sql_texts)(c)) for c in columns]
    kinds = set()
    for col in read:
        present = [v for v in col if v is not _MISSING]
        if any(isinstance(v, str) for v in present) or (
                any(isinstance(v, bool) for v in present) and _MISSING in col):
            kinds.add("object")
        elif present and all(isinstance(v, bool) for v in present):
            kinds.add("bool")
        elif any(isinstance(v, float) for v in present) or _MISSING in col:
            kinds.add("float")
        else:
            kinds.add("int")
    as_float = "object" not in kinds and "bool" not in kinds and "float" in kinds
    out = []
    for col in read:
        if as_float:
            out.append([0 if v is _MISSING else float(v) for v in col])
        else:
            out.append([0 if v is _MISSING else v for v in col])
    return out


def _sort_key(x):
    return (x is None, str(x), isinstance(x, (int, float)))


def vectors_match(v1: list, v2: list, ignore_order: bool) -> bool:
    """The evaluator's `vectors_match`, with its 0.01 tolerance."""
    if ignore_order:
        v1, v2 = sorted(v1, key=_sort_key), sorted(v2, key=_sort_key)
    if len(v1) != len(v2):
        return False
    for a, b in zip(v1, v2):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if not math.isclose(float(a), float(b), abs_tol=TOLERANCE):
                return False
        elif a != b:
            return False
    return True


def condition_columns(question, pair) -> list[int]:
    """The gold columns this gold file is checked on (empty: every column)."""
    lists = question.evaluation.get("condition_cols") or []
    files = [f.replace("\\", "/").rsplit("/", 1)[-1] for f in question.gold_files]
    index = files.index(pair.gold_label) if pair.gold_label in files else 0
    return list(lists[index]) if index < len(lists) else []


def compare(question, pair, tolerance):
    gold = _frame(pair.gold, pair.gold_from_file)
    pred = _frame(pair.actual, False)
    wanted = condition_columns(question, pair)
    if any(i >= len(gold) for i in wanted):
        wanted = []  # an index past the gold's columns: the evaluator's iloc would fail
    checked = [(i, gold[i]) for i in (wanted or range(len(gold)))]
    ignore_order = bool(question.evaluation.get("ignore_order", False))
    n_gold, n_pred = len(pair.gold.rows), len(pair.actual.rows)
    unmatched = [i for i, vector in checked
                 if not any(vectors_match(vector, p, ignore_order) for p in pred)]
    if not unmatched:
        return []
    if n_gold != n_pred:
        return [JudgeFinding("row_count", {"got": n_pred, "expected": n_gold})]
    first = unmatched[0]
    return [JudgeFinding("official_mismatch", {
        "form": "spider2_column", "column": pair.gold.columns[first], "index": first + 1,
        "unmatched": len(unmatched), "checked": len(checked),
        "ignore_order": ignore_order})]


JUDGE = register(Judge("spider2", rank=60, compare=compare, names="ignore",
                       uses_tolerance=False, whole=True, benchmark="spider2-lite"))
