"""The judges on the cases that decide a report, as they come from public question sets and
databases nobody here wrote: SQLite's own rounding, tolerant never stricter than strict, what
"only rounding differs" means, syntax errors, degenerate golds and how NULL and '' are shown."""

import argparse
import sqlite3

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desktop_app.core.sqleval.judge import counterfactual, judge_all
from desktop_app.core.sqleval.rounding import _round_column, sqlite_round
from desktop_app.core.sqleval.sandbox import Sandbox, SqlError, SqlRefused
from desktop_app.core.sqleval.tools import execute_tool
from desktop_app.core.sqleval.types import Question, QueryResult
from desktop_app.report.judge_words import finding_text, headline_text

_SQLITE = sqlite3.connect(":memory:")


def sqlite_says(x: float, n: int) -> float:
    return _SQLITE.execute("SELECT round(?, ?)", (x, n)).fetchone()[0]


# Values near decimal ties: k / 10**d, nudged by a few ulps or a tiny offset, and products.
_near_ties = st.builds(
    lambda k, d, nudge: k / 10**d + nudge,
    st.integers(-10**12, 10**12), st.integers(0, 8),
    st.sampled_from([0.0, 1e-15, -1e-15, 1e-12, -1e-12, 1e-9, -1e-9, 5e-7, -5e-7]))
_products = st.builds(lambda a, b: a / 1000 * b / 1000, st.integers(1, 99_999),
                      st.integers(1, 99_999))
_averages = st.builds(lambda xs: sum(xs) / len(xs),
                      st.lists(st.integers(1, 10**6).map(lambda k: k / 100), min_size=1,
                               max_size=7))
_values = st.one_of(_near_ties, _products, _averages,
                    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e16,
                              max_value=1e16))


@settings(max_examples=3000, deadline=None)
@given(_values, st.integers(0, 6))
@example(1.9249999999999998, 2)
@example(2.675, 2)
@example(1.005, 2)
@example(0.285, 2)
@example(-2.675, 2)
@example(0.49999999999999994, 0)
@example(8.096692, 6)  # SQLite 3.40 divides in long double: 8.096692000000001
@example(123456789012.345, 2)
@example(2.5e15, 1)
def test_rounding_is_sqlites_own(x, n):
    want = sqlite_says(x, n)
    assert sqlite_round(x, n) == want
    assert _round_column((x, 1.5, x), n)[::2] == [want, want]  # the numpy path too


def test_avg_of_2_55_and_1_3_rounds_up_as_in_sqlite():
    x = (2.55 + 1.3) / 2
    assert x == 1.9249999999999998 and sqlite_round(x, 2) == 1.93 == sqlite_says(x, 2)


# --- the judges on answers ---------------------------------------------------------------------


def question(**kw) -> Question:
    base = dict(id="q", tier="easy", text_en="Average price per region, rounded to 2 decimals.",
                gold_sql="SELECT region, ROUND(AVG(price), 2) AS avg_price FROM sales "
                         "GROUP BY region ORDER BY region",
                database="sales", required_columns=("region", "avg_price"),
                rounding={"avg_price": 2}, order_matters=True)
    base.update(kw)
    return Question(**base)


def result(columns, *rows) -> QueryResult:
    return QueryResult(tuple(columns), tuple(tuple(r) for r in rows), len(rows))


def run(db, sql) -> QueryResult:
    cursor = db.execute(sql)
    return result([d[0] for d in cursor.description], *cursor.fetchall())


@pytest.fixture
def db():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE sales (region TEXT, price REAL, amount INTEGER)")
    conn.executemany("INSERT INTO sales VALUES (?, ?, ?)", [
        ("east", 2.55, 113_928_571), ("east", 1.3, 113_928_571), ("west", 4.0, 1)])
    yield conn
    conn.close()


def test_a_correct_answer_that_only_lacks_round_passes_tolerant_and_full(db):
    q = question()
    gold = run(db, q.gold_sql)
    assert gold.rows[0] == ("east", 1.93)  # SQLite: ROUND(1.9249999999999998, 2)
    sql = "SELECT region, AVG(price) AS avg_price FROM sales GROUP BY region ORDER BY region"
    verdicts = judge_all(q, gold, run(db, sql), final_sql=sql)
    assert {m: v.passed for m, v in verdicts.items()} == {
        "strict": False, "tolerant": True, "full": True}
    assert verdicts["strict"].findings[0].code == "rounding_only"
    assert headline_text(counterfactual(verdicts)).startswith(
        "fails strict, passes tolerant and full: only rounding differs in avg_price")


def test_the_tolerance_applies_after_the_rounding(db):
    q = question()
    gold = run(db, q.gold_sql)
    actual = run(db, "SELECT region, AVG(price) AS avg_price FROM sales GROUP BY region "
                     "ORDER BY region")
    for tol in (0.0, 1e-2, 1.0):
        verdicts = judge_all(q, gold, actual, tolerance=tol)
        assert verdicts["tolerant"].passed and verdicts["full"].passed, tol


# Cells a public data set holds: NULLs, the text 'NULL', '', ints, floats, numbers as text.
_cells = st.one_of(st.none(), st.sampled_from(["NULL", "", "east", "3", "3.0", "12.35", " x"]),
                   st.integers(-5, 5), st.sampled_from([3.0, 12.35, 12.3456, 1.9249999999999998,
                                                        1.93, -0.0, 0.0, 1e-7, 2.675]))
_names = st.sampled_from(["region", "Region", "avg_price", "AVG_PRICE", "n"])


@st.composite
def _pairs(draw):
    width = draw(st.integers(1, 3))
    names = tuple(draw(st.lists(_names, min_size=width, max_size=width)))
    rows = draw(st.lists(st.lists(_cells, min_size=width, max_size=width), max_size=4))
    gold = result(names, *rows)
    # The answer: the gold itself, the gold with cells, names or rows changed, or another draw.
    a_names = tuple(draw(st.sampled_from([names, tuple(n.upper() for n in names)])))
    a_rows = [list(r) for r in rows]
    for r in a_rows:
        if draw(st.booleans()):
            r[draw(st.integers(0, width - 1))] = draw(_cells)
    if a_rows and draw(st.booleans()):
        a_rows = a_rows[1:] + a_rows[:1]
    if draw(st.booleans()):
        a_rows = a_rows[:draw(st.integers(0, len(a_rows)))]
    rounding = draw(st.sampled_from([{}, {names[0]: 2}, {names[-1]: 0}]))
    return gold, result(a_names, *a_rows), rounding


@settings(max_examples=2000, deadline=None)
@given(_pairs(), st.sampled_from([0.0, 1e-6, 1e-2]), st.booleans())
def test_passing_strict_implies_passing_tolerant(pair, tol, ordered):
    gold, actual, rounding = pair
    q = question(required_columns=gold.columns, rounding=rounding, order_matters=ordered)
    verdicts = judge_all(q, gold, actual, tolerance=tol)
    if verdicts["strict"].passed:
        assert verdicts["tolerant"].passed, verdicts["tolerant"].findings
    line = headline_text(counterfactual(verdicts))
    assert "passes strict" not in line or verdicts["tolerant"].passed


def test_tolerant_checks_what_strict_checks_and_no_more():
    # Strict and tolerant compare the first row; a later wrong row is full's job.
    q = question()
    gold = result(("region", "avg_price"), ("east", 1.93), ("west", 4.0))
    actual = result(("region", "avg_price"), ("east", 1.93), ("west", 99.0))
    verdicts = judge_all(q, gold, actual)
    assert {m: v.passed for m, v in verdicts.items()} == {
        "strict": True, "tolerant": True, "full": False}
    assert headline_text(counterfactual(verdicts)) == (
        "fails full, passes strict and tolerant: wrong values in avg_price")


# --- what "only rounding differs" means ----------------------------------------------------------

def test_a_sum_off_by_638000_is_a_wrong_value_not_rounding(db):
    q = question(text_en="Total amount.", gold_sql="SELECT SUM(amount) AS total FROM sales",
                 required_columns=("total",), rounding={}, order_matters=False)
    gold = result(("total",), (227_857_143,))
    actual = result(("total",), (227_857_143 + 638_000,))
    verdicts = judge_all(q, gold, actual)
    assert not any(v.passed for v in verdicts.values())
    for verdict in verdicts.values():
        assert verdict.findings[0].code == "value_mismatch"
        assert "rounding" not in finding_text(verdict.findings[0]).lower()
    assert headline_text(counterfactual(verdicts)) == (
        "fails every judge: wrong values in total")
    # The same with floats that the gold shows with 1 decimal.
    gold = result(("total",), (227_857_142.5,))
    actual = result(("total",), (228_495_142.5,))
    assert judge_all(q, gold, actual)["strict"].findings[0].code == "value_mismatch"


def test_rounding_only_means_rounded_to_the_gold_it_equals_the_gold():
    q = question(rounding={}, required_columns=("region", "avg_price"))
    gold = result(("region", "avg_price"), ("east", 12.35))
    verdicts = judge_all(q, gold, result(gold.columns, ("east", 12.3456)))
    finding = verdicts["tolerant"].findings[0]
    assert finding.code == "rounding_only"
    assert "Rounded to 2 decimals as the gold shows, the answer equals the gold" in (
        finding_text(finding))
    assert "within" not in finding_text(finding).lower()
    # 12.34 is within 1 % of 12.35 but rounds to itself: a wrong value.
    verdicts = judge_all(q, gold, result(gold.columns, ("east", 12.34)))
    assert [v.findings[0].code for v in verdicts.values()] == ["value_mismatch"] * 3
    # The question's decimals win over the gold's: ROUND(x, 2) of 7.46 is not 7.5.
    q2 = question()
    verdicts = judge_all(q2, result(gold.columns, ("east", 7.5)),
                         result(gold.columns, ("east", 7.46)))
    assert verdicts["strict"].findings[0].code == "value_mismatch"


# --- errors are errors -------------------------------------------------------------------------


@pytest.fixture
def sandbox(tmp_path):
    path = tmp_path / "sales.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE sales (region TEXT, price REAL)")
        conn.execute("INSERT INTO sales VALUES ('east', 2.5)")
    conn.close()
    with Sandbox(path) as box:
        yield box


def test_a_typo_is_a_syntax_error_with_sqlites_message(sandbox):
    with pytest.raises(SqlError, match='near "SELEC": syntax error'):
        sandbox.run("SELEC region FROM sales")
    # The model sees the same message from run_sql ...
    outcome = execute_tool(sandbox, "run_sql", '{"sql": "SELEC region FROM sales"}')
    assert outcome.record.result == 'Error: near "SELEC": syntax error'
    assert "refused" not in outcome.record.result
    # ... and the judge says it is a syntax error, not a refusal.
    with pytest.raises(SqlError) as info:
        sandbox.run("SELEC region FROM sales")
    verdicts = judge_all(question(), result(("region", "avg_price"), ("east", 2.5)), None,
                         final_sql="SELEC region FROM sales", error=info.value)
    for verdict in verdicts.values():
        assert verdict.findings[0].code == "sql_error"
        assert finding_text(verdict.findings[0]) == (
            'The final query has a syntax error. near "SELEC": syntax error')
    assert headline_text(counterfactual(verdicts)) == (
        "fails every judge: the final query has a syntax error")


@pytest.mark.parametrize("sql, reason", [
    ("INSERT INTO sales VALUES ('x', 1)", "read-only"),
    ("UPDATE sales SET price = 0", "read-only"),
    ("ATTACH DATABASE 'x.sqlite' AS x", "ATTACH"),
    ("PRAGMA user_version = 3", "PRAGMA user_version"),
    ("DELETE FROM sales", "read-only"),
])
def test_real_writes_are_still_refused(sandbox, sql, reason):
    with pytest.raises(SqlRefused, match=reason) as info:
        sandbox.run(sql)
    for error in (info.value, str(info.value)):  # the exception, or its text as stored
        verdicts = judge_all(question(), result(("region",), ("east",)), None, final_sql=sql,
                             error=error)
        assert verdicts["strict"].findings[0].code == "refused"


# --- degenerate golds ----------------------------------------------------------------------------

@pytest.mark.parametrize("gold_rows, what", [((), "returned no rows"),
                                             (((None, None),), "returned only NULLs")])
def test_a_pass_on_a_degenerate_gold_says_it_proves_little(gold_rows, what):
    q = question()
    gold = result(("region", "avg_price"), *gold_rows)
    verdicts = judge_all(q, gold, gold, final_sql="SELECT region, price FROM sales WHERE 0")
    for verdict in verdicts.values():
        assert verdict.passed
        assert [f.code for f in verdict.findings] == ["degenerate_gold"]
        assert f"The gold query {what}, so the pass proves little" in (
            finding_text(verdict.findings[0]))
    assert headline_text(counterfactual(verdicts)) == "passes every judge"
    # A failing answer is not marked: its finding says what is wrong.
    wrong = judge_all(q, gold, result(gold.columns, ("east", 1.0), ("west", 2.0)))
    assert all("degenerate_gold" not in [f.code for f in v.findings] for v in wrong.values())


def test_an_ordinary_gold_pass_has_no_findings():
    gold = result(("region", "avg_price"), ("east", None), ("west", 2.0))
    assert all(v.findings == () for v in judge_all(question(), gold, gold).values())


# --- how values are shown ----------------------------------------------------------------------

def test_null_the_text_null_and_the_empty_string_are_shown_apart():
    q = question(rounding={}, required_columns=("a", "b"), order_matters=False)
    gold = result(("a", "b"), ("NULL", ""))
    actual = result(("a", "b"), (None, None))
    verdicts = judge_all(q, gold, actual)
    assert not any(v.passed for v in verdicts.values())  # strict too: NULL is not 'NULL'
    finding = verdicts["strict"].findings[0]
    assert finding.cells == ((0, "a", "'NULL'", "NULL"), (0, "b", "''", "NULL"))
    assert "Row 1 a: got NULL, expected 'NULL'" in finding_text(finding)
    # Ordinary text and numbers stay as they are.
    verdicts = judge_all(q, result(("a", "b"), ("east", 1.5)), result(("a", "b"), ("west", 2)))
    assert verdicts["full"].findings[0].cells == ((0, "a", "east", "west"), (0, "b", "1.5", "2"))


def test_the_tolerance_help_says_the_rounding_comes_first():
    from desktop_app.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("judge", "sqleval", "rejudge"):
        flag = next(a for a in sub.choices[name]._actions if "--tolerance" in a.option_strings)
        help_text = " ".join(flag.help.split())
        assert "applied BEFORE the tolerance" in help_text, name
        assert "0, 1e-2 or 1 can all give the same" in help_text, name
