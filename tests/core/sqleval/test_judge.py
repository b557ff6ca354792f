"""The judges as a user reads their verdicts: which judge passes, which finding names the problem,
the counterfactual line, SQLite's rounding, and `throughline judge` end to end."""

import argparse
import json
import random
import sqlite3

import pytest

from desktop_app.cli import judge as cli_judge
from desktop_app.core.sqleval.judge import (
    canonical,
    classify_error,
    counterfactual,
    gold_orders,
    judge,
    judge_all,
    sqlite_round,
)
from desktop_app.core.sqleval.types import Question, QueryResult
from desktop_app.report.judge_words import finding_text, headline_text

GOLD_SQL = ("SELECT region, ROUND(AVG(price), 2) AS avg_price FROM sales GROUP BY region "
            "ORDER BY region")


def question(**kw) -> Question:
    base = dict(id="q1", tier="easy", text_en="Average price per region, rounded to 2 decimals.",
                gold_sql=GOLD_SQL, database="sales", required_columns=("region", "avg_price"),
                rounding={"avg_price": 2}, order_matters=True)
    base.update(kw)
    return Question(**base)


def result(columns, *rows, total=None) -> QueryResult:
    return QueryResult(tuple(columns), tuple(tuple(r) for r in rows),
                       len(rows) if total is None else total)


GOLD = result(("region", "avg_price"), ("east", 12.35), ("north", 7.5), ("west", 3.0))


def codes(verdict) -> list[str]:
    return [f.code for f in verdict.findings]


def passed(verdicts) -> dict[str, bool]:
    return {m: v.passed for m, v in verdicts.items()}


def test_exact_match_passes_every_judge():
    verdicts = judge_all(question(), GOLD, GOLD)
    assert passed(verdicts) == {"strict": True, "tolerant": True, "full": True}
    assert all(v.findings == () for v in verdicts.values())
    assert headline_text(counterfactual(verdicts)) == "passes every judge"
    assert verdicts["strict"].tolerance is None and verdicts["tolerant"].tolerance == 1e-6


def test_missing_round_fails_strict_only_and_says_so():
    actual = result(GOLD.columns, ("east", 12.3456), ("north", 7.5), ("west", 3.0))
    verdicts = judge_all(question(), GOLD, actual,
                         final_sql="SELECT region, AVG(price) AS avg_price FROM sales GROUP BY 1")
    assert passed(verdicts) == {"strict": False, "tolerant": True, "full": True}
    finding = verdicts["strict"].findings[0]
    assert finding.code == "rounding_only"
    assert finding.cells == ((0, "avg_price", "12.35", "12.3456"),)
    assert "ROUND(x, 2) missing on avg_price: got 12.3456, expected 12.35" in finding_text(finding)
    # The sqlglot explanation rides along on the failing verdict only.
    assert "missing_round" in codes(verdicts["strict"])
    assert verdicts["tolerant"].findings == ()
    assert headline_text(counterfactual(verdicts)) == (
        "fails strict, passes tolerant and full: only rounding differs in avg_price")


def test_wrong_column_name_is_named():
    actual = result(("region", "avg"), *GOLD.rows)
    verdicts = judge_all(question(), GOLD, actual)
    assert not any(passed(verdicts).values())
    finding = verdicts["strict"].findings[0]
    assert finding.code == "column_names"
    assert "got avg, expected avg_price" in finding_text(finding)
    assert headline_text(counterfactual(verdicts)) == (
        "fails every judge: wrong column names (got avg, expected avg_price)")
    assert judge("full", question(), GOLD, actual, ignore_names=True).passed


def test_the_line_across_judges_quotes_the_difference_every_judge_still_sees():
    """#28: with names ignored, full failed an answer on its values while the line across
    judges quoted strict's "wrong column names", a difference full did not judge."""
    actual = result(("region", "avg"), ("east", 99.0), ("north", 7.5), ("west", 3.0))
    verdicts = judge_all(question(), GOLD, actual, ignore_names=True)
    assert not any(passed(verdicts).values())
    assert codes(verdicts["strict"])[0] == "column_names"
    assert codes(verdicts["full"])[0] == "value_mismatch"
    line = headline_text(counterfactual(verdicts))
    assert line.startswith("fails every judge: ") and "avg_price" in line
    assert "column names" not in line
    assert counterfactual(verdicts).reason == verdicts["full"].findings[0]


def test_case_only_name_difference_fails_strict_only_and_says_case():
    actual = result(("region", "AVG_PRICE"), *GOLD.rows)
    verdicts = judge_all(question(), GOLD, actual)
    assert passed(verdicts) == {"strict": False, "tolerant": True, "full": True}
    assert "only in case" in finding_text(verdicts["strict"].findings[0])


def test_order_only():
    shuffled = result(GOLD.columns, GOLD.rows[2], GOLD.rows[0], GOLD.rows[1])
    ordered = judge_all(question(), GOLD, shuffled)
    assert [codes(v) for v in ordered.values()] == [["order_only"]] * 3
    unordered_q = question(order_matters=False, gold_sql=GOLD_SQL.replace(" ORDER BY region", ""))
    verdicts = judge_all(unordered_q, GOLD, shuffled)
    assert passed(verdicts) == {"strict": False, "tolerant": False, "full": True}
    assert headline_text(counterfactual(verdicts)).startswith(
        "fails strict and tolerant, passes full: only the row order differs")


def test_gold_order_by_counts_as_ordered_even_when_the_question_does_not_say():
    assert gold_orders(GOLD_SQL) and not gold_orders("SELECT 1")
    assert not gold_orders("SELECT * FROM (SELECT a FROM t ORDER BY a)")
    shuffled = result(GOLD.columns, GOLD.rows[1], GOLD.rows[0], GOLD.rows[2])
    assert not judge("full", question(order_matters=False), GOLD, shuffled).passed


def test_duplicates_only():
    actual = result(GOLD.columns, *GOLD.rows, GOLD.rows[0])
    for verdict in judge_all(question(order_matters=False), GOLD, actual).values():
        assert codes(verdict) == ["duplicates_only"]
        assert "got 4 rows, expected 3" in finding_text(verdict.findings[0])


def test_row_count_and_empty_result():
    fewer = result(GOLD.columns, GOLD.rows[0])
    verdicts = judge_all(question(), GOLD, fewer)
    assert [codes(v) for v in verdicts.values()] == [["row_count"]] * 3
    empty = result(GOLD.columns)
    verdicts = judge_all(question(), GOLD, empty)
    assert codes(verdicts["full"]) == ["empty_result"]
    assert headline_text(counterfactual(verdicts)) == (
        "fails every judge: empty result (got 0 rows, expected 3)")
    # Both empty with the same structure is a pass.
    assert all(passed(judge_all(question(), empty, empty)).values())


def test_column_count():
    actual = result(("region",), ("east",), ("north",), ("west",))
    verdicts = judge_all(question(), GOLD, actual)
    assert codes(verdicts["strict"]) == ["column_count"]
    assert "got 1, expected 2" in finding_text(verdicts["strict"].findings[0])


def test_value_mismatch_lists_cells():
    actual = result(GOLD.columns, ("east", 99.0), ("north", 7.5), ("west", 1.0))
    verdict = judge("full", question(), GOLD, actual)
    assert codes(verdict) == ["value_mismatch"]
    assert verdict.findings[0].cells == ((0, "avg_price", "12.35", "99.0"),
                                         (2, "avg_price", "3.0", "1.0"))
    assert "Row 1 avg_price: got 99.0, expected 12.35 (2 cells differ)" in (
        finding_text(verdict.findings[0]))


def test_at_most_ten_cells_listed():
    gold = result(("n",), *[(i,) for i in range(50)])
    actual = result(("n",), *[(i + 1000,) for i in range(50)])
    q = question(rounding={}, required_columns=("n",))
    finding = judge("full", q, gold, actual).findings[0]
    assert len(finding.cells) == 10 and "50 cells differ" in finding_text(finding)


def test_nulls_compare_equal_to_nulls_only():
    gold = result(("a", "b"), (None, 1))
    assert all(passed(judge_all(question(rounding={}), gold, gold)).values())
    other = result(("a", "b"), ("", 1))
    verdicts = judge_all(question(rounding={}), gold, other)
    assert not any(passed(verdicts).values())
    assert verdicts["strict"].findings[0].cells == ((0, "a", "NULL", "''"),)


def test_int_and_float_are_the_same_number_except_for_strict():
    gold = result(("n",), (3,))
    actual = result(("n",), (3.0,))
    verdicts = judge_all(question(rounding={}, required_columns=("n",)), gold, actual)
    assert passed(verdicts) == {"strict": False, "tolerant": True, "full": True}
    assert "Only the number format differs" in finding_text(verdicts["strict"].findings[0])


def test_text_vs_number():
    q = question(rounding={}, required_columns=("n",))
    # A number spelled as text compares as that number outside strict; strict compares text.
    assert all(passed(judge_all(q, result(("n",), (12.35,)), result(("n",), ("12.35",)))).values())
    # Text that is not a number never equals a number.
    verdicts = judge_all(q, result(("n",), (12,)), result(("n",), ("twelve",)))
    assert not any(passed(verdicts).values())
    assert codes(verdicts["tolerant"]) == ["value_mismatch"]


def test_tolerance_is_relative_above_one_and_absolute_below():
    q = question(rounding={}, required_columns=("n",))
    assert judge("tolerant", q, result(("n",), (1e9,)), result(("n",), (1e9 + 100,))).passed
    assert not judge("tolerant", q, result(("n",), (1e9,)), result(("n",), (1e9 + 10_000,))).passed
    assert judge("tolerant", q, result(("n",), (0.0,)), result(("n",), (5e-7,))).passed
    assert not judge("tolerant", q, result(("n",), (0.0,)), result(("n",), (5e-6,))).passed
    # Within 1e-2 but not 1e-6 is a wrong value: rounded to the 2 decimals the gold shows,
    # 12.34 is still not 12.35.
    verdict = judge("tolerant", q, result(("n",), (12.35,)), result(("n",), (12.34,)))
    assert codes(verdict) == ["value_mismatch"]
    assert judge("tolerant", q, result(("n",), (12.35,)), result(("n",), (12.34,)),
                 tolerance=0.02).passed


def test_sqlite_round_matches_sqlite():
    assert sqlite_round(2.675, 2) == 2.68  # Python's round gives 2.67
    assert sqlite_round(-2.5, 0) == -3.0 and sqlite_round(0.125, 2) == 0.13
    assert sqlite_round(3, 1) == 3.0 and isinstance(sqlite_round(3, 1), float)
    rng = random.Random(4)
    values = [rng.randint(-10**7, 10**7) / 10 ** rng.randint(1, 5) for _ in range(3000)]
    values += [rng.uniform(-1e5, 1e5) for _ in range(1000)]
    with sqlite3.connect(":memory:") as conn:
        for x in values:
            n = rng.randint(0, 4)
            assert sqlite_round(x, n) == conn.execute("SELECT ROUND(?, ?)", (x, n)).fetchone()[0], (
                x, n)


def test_rounding_applies_sqlite_semantics_in_tolerant():
    gold = result(("region", "avg_price"), ("east", 2.68))  # what SQLite's ROUND(2.675, 2) gives
    actual = result(("region", "avg_price"), ("east", 2.675))
    assert judge("tolerant", question(), gold, actual).passed


def test_canonical_text():
    assert [canonical(v) for v in (None, 12.35, 3.0, 3, "x", b"\x01")] == [
        "NULL", "12.35", "3.0", "3", "x", "x'01'"]


@pytest.mark.parametrize("error, stop, code", [
    ("no such column: prce", "submitted", "sql_error"),
    ("DELETE refused: the database is read-only (only queries can run)", "submitted", "refused"),
    ("query interrupted after 5.0 s (time limit)", "submitted", "timeout"),
    (None, "step_budget", "step_budget"),
    (None, "no_answer", "no_answer"),
    (None, "time_budget", "no_answer"),
])
def test_no_result_findings(error, stop, code):
    verdicts = judge_all(question(), GOLD, None, error=error, stop_reason=stop,
                         final_sql="SELECT prce FROM sales" if error else None)
    assert [codes(v) for v in verdicts.values()] == [[code]] * 3
    assert headline_text(counterfactual(verdicts)).startswith("fails every judge: ")


def test_classify_error_takes_exceptions_by_class():
    class SqlTimeout(Exception):
        pass

    assert classify_error(SqlTimeout("whatever")) == "timeout"


def test_unparseable_final_sql_never_breaks_judging():
    actual = result(GOLD.columns, ("east", 1.0), *GOLD.rows[1:])
    verdict = judge("strict", question(), GOLD, actual, final_sql="SELEC )) garbage (")
    assert codes(verdict) == ["value_mismatch"]


def test_unknown_judge_is_refused():
    with pytest.raises(ValueError, match="unknown judge"):
        judge("lenient", question(), GOLD, GOLD)


# --- throughline judge ---------------------------------------------------------------------------

@pytest.fixture
def sales_db(tmp_path):
    path = tmp_path / "sales.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE sales (region TEXT, price REAL)")
        conn.executemany("INSERT INTO sales VALUES (?, ?)", [
            ("east", 12.0), ("east", 12.7037), ("north", 7.5), ("west", 3.0)])
    conn.close()
    return path


def parse(*argv):
    parser = argparse.ArgumentParser()
    cli_judge.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["judge", *argv])


def test_cli_writes_the_verdict_and_the_counterfactual(sales_db, tmp_path, capsys):
    out = tmp_path / "verdict.json"
    before = sales_db.read_bytes()
    args = parse("--db", str(sales_db), "--gold-sql", GOLD_SQL, "--sql",
                 "SELECT region, AVG(price) AS avg_price FROM sales GROUP BY region",
                 "--round", "avg_price=2", "--order-sensitive", "--json", str(out))
    assert cli_judge.run_judge_command(args) == 0
    doc = json.loads(out.read_text())
    assert doc["mode"] == "strict" and doc["passed"] is False
    assert doc["findings"][0]["code"] == "rounding_only"
    assert doc["findings"][0]["cells"] == [[0, "avg_price", "12.35", repr((12.0 + 12.7037) / 2)]]
    assert {"code": "missing_round"}.items() <= doc["findings"][1].items()
    assert doc["counterfactual"] == {"strict": False, "tolerant": True, "full": True}
    assert doc["counterfactual_text"].startswith("fails strict, passes tolerant and full")
    assert "strict: FAIL" in capsys.readouterr().out
    assert sales_db.read_bytes() == before


def test_cli_candidate_error_is_a_verdict_not_an_exit_code(sales_db, tmp_path):
    out = tmp_path / "v.json"
    args = parse("--db", str(sales_db), "--gold-sql", GOLD_SQL, "--sql", "DELETE FROM sales",
                 "--mode", "full", "--json", str(out))
    assert cli_judge.run_judge_command(args) == 0
    doc = json.loads(out.read_text())
    assert doc["mode"] == "full" and doc["findings"][0]["code"] == "refused"
    assert doc["counterfactual_text"].startswith("fails every judge")


@pytest.mark.parametrize("argv, message", [
    (["--db", "MISSING", "--gold-sql", "SELECT 1", "--sql", "SELECT 1"], "--db: no such database file"),
    (["--gold-sql", "SELECT nope FROM sales", "--sql", "SELECT 1"], "--gold-sql: the gold query"),
    (["--gold-sql", "SELECT 1", "--sql", "SELECT 1", "--round", "avg_price"], "--round: "),
    (["--gold-sql", "SELECT 1", "--sql", "SELECT 1", "--round", "a=two"], "--round: 'a=two'"),
])
def test_cli_exits_2_when_it_cannot_judge(sales_db, tmp_path, capsys, argv, message):
    if "--db" not in argv:
        argv = ["--db", str(sales_db), *argv]
    else:
        argv = [str(tmp_path / a) if a == "MISSING" else a for a in argv]
    assert cli_judge.run_judge_command(parse(*argv)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_full_matches_rows_within_tolerance_in_any_order():
    q = question(rounding={}, order_matters=False, gold_sql="SELECT region, x FROM t",
                 required_columns=("region", "x"))
    gold = result(("region", "x"), ("a", 1.0), ("a", 1.0000000001), ("b", 2.0))
    actual = result(("region", "x"), ("b", 2.0000000001), ("a", 1.0000000002), ("a", 0.9999999999))
    verdicts = judge_all(q, gold, actual)
    assert verdicts["full"].passed
    assert codes(verdicts["tolerant"]) == ["order_only"]


def test_text_is_compared_exactly_outside_strict_too():
    q = question(rounding={}, required_columns=("region",), order_matters=False)
    verdicts = judge_all(q, result(("region",), ("East",)), result(("region",), ("east",)))
    assert not any(passed(verdicts).values())


def test_a_pass_carries_no_explanation():
    verdicts = judge_all(question(), GOLD, GOLD, final_sql="SELECT region, price AS p FROM sales")
    assert all(v.findings == () for v in verdicts.values())



def test_float_noise_in_a_column_that_must_be_rounded_is_a_missing_round():
    gold = result(("region", "avg_price"), ("east", 1234.5))
    actual = result(("region", "avg_price"), ("east", 1234.5000000000002))
    verdicts = judge_all(question(), gold, actual)
    assert passed(verdicts) == {"strict": False, "tolerant": True, "full": True}
    assert "ROUND(x, 2) missing on avg_price" in finding_text(verdicts["strict"].findings[0])
