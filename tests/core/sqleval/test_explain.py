"""sqlglot's explanations of a failing answer: the missing ROUND, the differing alias, the frame."""

import pytest

from desktop_app.core.sqleval.explain import explain_sql
from desktop_app.core.sqleval.types import Question
from desktop_app.report.judge_words import finding_text

GOLD = ("WITH m AS (SELECT month, SUM(amount) AS rev FROM sales GROUP BY month) "
        "SELECT month, ROUND(rev, 2) AS net_revenue, ROUND(SUM(rev) OVER (ORDER BY month "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), 2) AS running FROM m ORDER BY month")


def question(**kw) -> Question:
    base = dict(id="q", tier="hard", text_en="Monthly net revenue and running total.",
                gold_sql=GOLD, database="sales",
                required_columns=("month", "net_revenue", "running"),
                rounding={"net_revenue": 2, "running": 2})
    base.update(kw)
    return Question(**base)


def found(sql, **kw):
    return [(f.code, finding_text(f)) for f in explain_sql(sql, question(**kw))]


def test_the_gold_itself_has_nothing_to_explain():
    assert found(GOLD) == []


def test_missing_round_on_the_right_column():
    sql = GOLD.replace("ROUND(rev, 2) AS net_revenue", "rev AS net_revenue")
    assert found(sql) == [("missing_round", "Column net_revenue has no ROUND; the question asks "
                           "for ROUND(x, 2).")]


def test_round_with_other_decimals_or_inside_an_aggregate():
    sql = GOLD.replace("ROUND(rev, 2)", "ROUND(rev, 1)")
    assert found(sql)[0][1].startswith("Column net_revenue is rounded to 1 decimal; the question "
                                       "asks for 2")
    inner = "SELECT month, SUM(ROUND(amount, 2)) AS net_revenue FROM sales GROUP BY month"
    (code, message), = found(inner, required_columns=("month", "net_revenue"),
                             rounding={"net_revenue": 2})
    assert code == "missing_round" and "ROUND only inside" in message


def test_round_in_a_cte_counts():
    sql = ("WITH m AS (SELECT month, ROUND(SUM(amount), 2) AS net_revenue FROM sales GROUP BY 1) "
           "SELECT month, net_revenue FROM m")
    assert found(sql, required_columns=("month", "net_revenue"), rounding={"net_revenue": 2}) == []


def test_alias_differs_names_the_position():
    sql = GOLD.replace("AS net_revenue", "AS revenue")
    (code, message), = found(sql)
    assert code == "alias_differs"
    assert message == "The 2nd column is named revenue; the question asks for net_revenue."
    assert "only the case differs" in found(GOLD.replace("AS running", "AS Running"))[0][1]


@pytest.mark.parametrize("sql, columns", [
    # SQLite names a bare column as its table declares it: "language" reads "Language".
    ("SELECT language, COUNT(*) FROM films GROUP BY language", ("Language", "count(*)")),
    # An expression is named by its text: "count(*)", not sqlglot's "*".
    ("SELECT name, age, count(*) FROM people GROUP BY 1, 2", ("name", "age", "count(*)")),
    # An unaliased ROUND is "ROUND(avg(x), 2)", not "(none)".
    ("SELECT ROUND(avg(x), 2) FROM t", ("ROUND(avg(x), 2)",)),
])
def test_no_name_is_explained_that_only_sqlite_gives(sql, columns):
    """#28: "The 3rd column is named *; the question asks for count(*)" for an answer whose
    column is count(*), as the gold's; "named LANGUAGE; the question asks for Language" for
    the gold's own SELECT list; "named (none)" for an unaliased ROUND. Only an AS names a
    column in the SQL; the judge compares the names the result carries."""
    assert found(sql, gold_sql=sql, required_columns=columns, rounding={}) == []
    # An AS that differs is still explained.
    renamed = sql.replace("FROM", "AS other FROM", 1)
    assert [code for code, _ in found(renamed, gold_sql=sql, required_columns=columns,
                                      rounding={})] == ["alias_differs"]


def test_window_frame_differs_from_the_gold():
    sql = GOLD.replace("UNBOUNDED PRECEDING", "1 PRECEDING")
    (code, message), = found(sql)
    assert code == "window_frame"
    assert "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW" in message
    assert "the gold query uses ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW" in message
    default = GOLD.replace(" ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "")
    assert [c for c, _ in found(default)] == ["window_frame"]


@pytest.mark.parametrize("sql", ["SELEC )) nonsense (", "", "SELECT * FROM sales",
                                 "SELECT month FROM sales UNION SELECT month FROM returns"])
def test_nothing_to_say_never_raises(sql):
    assert found(sql) == []
