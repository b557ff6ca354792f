"""The judges' words (#12): every finding, line across judges, failure class and stop reason the
core can produce has English and Chinese; real verdicts read in Chinese hold no English sentence;
English reads as it always did; a verdict stored before findings carried values still shows."""

import json
import sqlite3

import pytest

from desktop_app.core.sqleval import explain, golds, judge
from desktop_app.core.sqleval.export import finding_json, headline_json, headline_line
from desktop_app.core.sqleval.golds import judge_answer
from desktop_app.core.sqleval.judge import counterfactual
from desktop_app.core.sqleval.records import question_from_row
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError
from desktop_app.core.sqleval.types import (
    FINDING_CODES,
    STOP_REASONS,
    Headline,
    Question,
    QueryResult,
)
from desktop_app.report import judge_words
from desktop_app.report.judge_words import ENGLISH, JudgeWords, finding_key
from tests.lang_check import english_runs

ALL_FORMS = judge.FINDING_FORMS + explain.EXPLAIN_FORMS + golds.NOTE_FORMS
ZH = JudgeWords("zh")

GOLD_SQL = ("SELECT region, ROUND(AVG(price), 2) AS avg_price FROM sales GROUP BY region "
            "ORDER BY region")


def test_every_code_the_core_can_emit_has_english_and_chinese():
    keys = [finding_key(code, form) for code, form in ALL_FORMS]
    for lang in ("en", "zh"):
        missing = [k for k in keys if k not in judge_words.WORDS[lang]]
        assert not missing, f"{lang} lacks words for {missing}"
        for code in judge.HEADLINE_CODES:
            assert code in judge_words.WORDS[lang], (lang, code)
    # Every finding code is made somewhere (a code without a form has no words either).
    assert set(FINDING_CODES) == {code for code, _ in ALL_FORMS}
    assert set(FINDING_CODES) <= set(judge_words.FAILURE_CLASSES["zh"])
    assert set(STOP_REASONS) <= set(judge_words.STOP_REASONS["zh"])
    for stop in STOP_REASONS:  # English shows the code, as it always did
        assert ENGLISH.stop_reason(stop) == stop
        assert not english_runs(ZH.stop_reason(stop)), stop
    for code in FINDING_CODES:
        assert ENGLISH.failure_class(code) == code
        assert not english_runs(ZH.failure_class(code)), code


@pytest.fixture(scope="module")
def sales(tmp_path_factory):
    path = tmp_path_factory.mktemp("words") / "sales.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT, price REAL, "
                "month TEXT)")
    rows = [(1, "east", 12.3456, "2024-01"), (2, "east", 12.3456, "2024-02"),
            (3, "north", 7.5, "2024-01"), (4, "west", 3.0, "2024-01"),
            (5, "west", 3.0, "2024-02")]
    con.executemany("INSERT INTO sales VALUES (?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    with Sandbox(path) as box:
        yield box


def question(**kw) -> Question:
    base = dict(id="q1", tier="easy", text_en="Average price per region, rounded to 2 decimals.",
                gold_sql=GOLD_SQL, database="sales", required_columns=("region", "avg_price"),
                rounding={"avg_price": 2}, order_matters=True)
    base.update(kw)
    return Question(**base)


def verdicts_of(box, sql, q=None, stop_reason="submitted"):
    """Every judge's verdict on `sql` (None: no answer), as the run and the Inspector judge."""
    q = q or question()
    accepted = golds.gold_answers(q, box)
    actual, error = None, None
    if sql is not None:
        try:
            actual = box.run(sql)
        except SandboxError as exc:
            error = exc
    return judge_answer(q, accepted, actual, sandbox=box, final_sql=sql, error=error,
                        stop_reason=stop_reason)


def zh_lines(verdicts, explained=()) -> list[str]:
    found = [f for v in verdicts.values() for f in v.findings] + list(explained)
    return [ZH.headline(counterfactual(verdicts))] + [ZH.finding(f) for f in found]


CASES = {
    "wrong column names": "SELECT region AS area, ROUND(AVG(price), 2) AS avg FROM sales "
                          "GROUP BY region ORDER BY region",
    "missing ROUND": "SELECT region, AVG(price) AS avg_price FROM sales GROUP BY region "
                     "ORDER BY region",
    "empty result": "SELECT region, ROUND(AVG(price), 2) AS avg_price FROM sales WHERE 0 "
                    "GROUP BY region",
    "wrong values": "SELECT region, ROUND(SUM(price), 2) AS avg_price FROM sales GROUP BY "
                    "region ORDER BY region",
    "row count": "SELECT region, ROUND(AVG(price), 2) AS avg_price FROM sales GROUP BY region "
                 "ORDER BY region LIMIT 2",
    "order": "SELECT region, ROUND(AVG(price), 2) AS avg_price FROM sales GROUP BY region "
             "ORDER BY region DESC",
    "syntax error": "SELEC region FROM sales",
    "no such column": "SELECT regio, price FROM sales",
    "rounded elsewhere": "SELECT region, ROUND(AVG(price), 1) AS avg_price FROM sales GROUP BY "
                         "region ORDER BY region",
    "duplicates": "SELECT s.region, ROUND(a.p, 2) AS avg_price FROM sales s JOIN (SELECT "
                  "region, AVG(price) AS p FROM sales GROUP BY region) a USING (region) "
                  "ORDER BY s.region",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_real_verdicts_read_in_chinese_hold_no_english_sentence(sales, case):
    verdicts = verdicts_of(sales, CASES[case])
    assert not all(v.passed for v in verdicts.values())
    for line in zh_lines(verdicts):
        assert english_runs(line) == [], (case, line)
        assert any("\u4e00" <= c <= "\u9fff" for c in line), line


@pytest.mark.parametrize("stop", ["step_budget", "repeated_call", "token_budget", "no_answer",
                                  "endpoint_error", "cancelled"])
def test_no_answer_reads_in_chinese(sales, stop):
    verdicts = verdicts_of(sales, None, stop_reason=stop)
    line = ZH.headline(counterfactual(verdicts))
    assert line.startswith("所有判定均未通过：")
    for text in zh_lines(verdicts):
        assert english_runs(text) == [], text


def test_four_verdicts_in_both_languages(sales):
    names = verdicts_of(sales, CASES["wrong column names"])
    assert ENGLISH.headline(counterfactual(names)) == (
        "fails every judge: wrong column names (got area, expected region, got avg, expected "
        "avg_price)")
    assert ZH.headline(counterfactual(names)) == (
        "所有判定均未通过：列名错误（得到 area，应为 region；得到 avg，应为 avg_price）")
    rounding = verdicts_of(sales, CASES["missing ROUND"])
    assert ENGLISH.headline(counterfactual(rounding)) == (
        "fails strict, passes tolerant and full: only rounding differs in avg_price")
    assert ZH.headline(counterfactual(rounding)) == (
        "严格未通过，容差和完整通过：仅取整不同（avg_price）")
    assert ZH.finding(rounding["strict"].findings[0]) == (
        "仅取整不同（avg_price）。avg_price 缺少 ROUND(x, 2)：得到 12.3456，应为 12.35。")
    assert ENGLISH.finding(rounding["strict"].findings[0]) == (
        "Only rounding differs in avg_price. ROUND(x, 2) missing on avg_price: got 12.3456, "
        "expected 12.35.")
    explained = [f for f in rounding["strict"].findings if f.code == "missing_round"]
    assert [ENGLISH.finding(f) for f in explained] == [
        "Column avg_price has no ROUND; the question asks for ROUND(x, 2)."]
    assert [ZH.finding(f) for f in explained] == [
        "列 avg_price 没有 ROUND；题目要求 ROUND(x, 2)。"]
    empty = verdicts_of(sales, CASES["empty result"])
    assert ZH.headline(counterfactual(empty)) == "所有判定均未通过：结果为空（得到 0 行，应为 3 行）"
    stopped = verdicts_of(sales, None, stop_reason="step_budget")
    assert ENGLISH.headline(counterfactual(stopped)) == (
        "fails every judge: stopped at the step budget without an answer")
    assert ZH.headline(counterfactual(stopped)) == "所有判定均未通过：已达步数上限，仍未作答"


def test_a_syntax_error_quotes_sqlite_in_chinese(sales):
    verdicts = verdicts_of(sales, CASES["syntax error"])
    finding = verdicts["strict"].findings[0]
    assert finding.code == "sql_error" and finding.params["form"] == "syntax"
    assert ZH.finding(finding).startswith("最终查询有语法错误。错误信息：“")
    assert 'near "SELEC": syntax error' in ZH.finding(finding)
    assert ZH.headline(counterfactual(verdicts)) == "所有判定均未通过：最终查询有语法错误"


def test_an_alternative_answer_and_a_cut_comparison_read_in_chinese(sales):
    alt = ("SELECT region, ROUND(AVG(price), 2) AS avg_price FROM sales WHERE region <> 'west' "
           "GROUP BY region ORDER BY region")
    q = question(gold_sql=GOLD_SQL + " LIMIT 1", gold_alternatives=(alt,))
    verdicts = verdicts_of(sales, alt, q)
    assert all(v.passed for v in verdicts.values())
    note = verdicts["full"].findings[-1]
    assert note.code == "matched_alternative"
    assert ENGLISH.finding(note) == ("Matched accepted answer 2 of 2 (alternative gold SQL 1), "
                                     "not the first (gold SQL).")
    assert ZH.finding(note) == "与第 2 个可接受答案（共 2 个）一致：备选标准 SQL 1，而不是第一个（标准 SQL）。"
    missed = verdicts_of(sales, CASES["wrong values"], q)
    texts = [ZH.finding(f) for f in missed["full"].findings]
    assert any(t.startswith("2 个可接受答案均不一致") for t in texts)
    for text in texts + [ZH.headline(counterfactual(missed))]:
        assert english_runs(text) == [], text
    cut = QueryResult(("a",), ((1,),) * 3, 12_000, truncated=True)
    (finding,) = golds._truncation(cut, QueryResult(("a",), ((1,),), 1))
    assert ENGLISH.finding(finding) == ("The comparison rests on the answer's first 3 of 12,000 "
                                        "rows; the rest was not compared.")
    assert ZH.finding(finding) == "比较仅基于答案的前 3 行（共 12,000 行）；其余部分未比较。"


def test_explanations_read_in_chinese():
    q = question(required_columns=("region", "avg_price"),
                 gold_sql="SELECT region, SUM(price) OVER (ORDER BY month ROWS BETWEEN "
                          "UNBOUNDED PRECEDING AND CURRENT ROW) AS avg_price FROM sales")
    for sql in ("SELECT Region, ROUND(price, 1) AS avg_price FROM sales",
                "SELECT region, SUM(ROUND(price, 2)) AS avg_price FROM sales",
                "SELECT region, SUM(price) OVER (ORDER BY month) AS avg_price FROM sales",
                "SELECT region, price AS p FROM sales"):
        found = explain.explain_sql(sql, q)
        assert found, sql
        for f in found:
            assert english_runs(ZH.finding(f)) == [], (sql, ZH.finding(f))
            assert "{" not in ENGLISH.finding(f) and "{" not in ZH.finding(f)


def test_an_old_stored_verdict_with_messages_only_still_shows():
    row = {"id": 7, "question_id": "m01", "tier": "medium", "status": "completed",
           "failure_class": "rounding_only", "verdicts_json": {
               "verdicts": {
                   "strict": {"passed": False, "tolerance": None, "findings": [{
                       "code": "rounding_only", "cells": [[0, "avg_price", "12.35", "12.3456"]],
                       "message": "Only rounding differs in avg_price. ROUND(x, 2) missing on "
                                  "avg_price: got 12.3456, expected 12.35."}]},
                   "tolerant": {"passed": True, "tolerance": 1e-6, "findings": []},
                   "full": {"passed": True, "tolerance": 1e-6, "findings": []}},
               "counterfactual": "fails strict, passes tolerant and full: only rounding "
                                 "differs in avg_price",
               "findings": [{"code": "missing_round", "message": "Column avg_price has no "
                             "ROUND; the question asks for ROUND(x, 2).", "cells": []}]}}
    q = question_from_row(row)
    strict = q.verdicts["strict"].findings[0]
    assert strict.params == {} and strict.cells == ((0, "avg_price", "12.35", "12.3456"),)
    assert ENGLISH.finding(strict).startswith("Only rounding differs in avg_price. ROUND(x, 2)")
    assert ZH.finding(strict) == ENGLISH.finding(strict)  # as stored: no values to translate
    assert ENGLISH.headline(q.counterfactual) == (
        "fails strict, passes tolerant and full: only rounding differs in avg_price")
    # In Chinese the judges' outcome is said from the stored verdicts, the reason as stored.
    assert ZH.headline(q.counterfactual) == (
        "严格未通过，容差和完整通过：only rounding differs in avg_price")
    assert ENGLISH.finding(q.findings[0]) == (
        "Column avg_price has no ROUND; the question asks for ROUND(x, 2).")
    assert ENGLISH.finding(q.verdicts["strict"].findings[0]) == strict.stored_text
    # Saved again (a re-judge replaces it; an export copies it), it keeps its words.
    assert finding_json(strict) == {"code": "rounding_only", "message": strict.stored_text,
                                    "cells": [[0, "avg_price", "12.35", "12.3456"]]}
    assert headline_json(q.counterfactual) == row["verdicts_json"]["counterfactual"]


def test_new_verdicts_store_values_and_read_back_the_same(sales):
    verdicts = verdicts_of(sales, CASES["missing ROUND"])
    line = counterfactual(verdicts)
    stored = {"verdicts": {j: {"passed": v.passed, "tolerance": v.tolerance,
                               "findings": [finding_json(f) for f in v.findings]}
                           for j, v in verdicts.items()},
              "counterfactual": headline_json(line), "findings": []}
    assert "message" not in stored["verdicts"]["strict"]["findings"][0]
    assert stored["counterfactual"]["failing"] == ["strict"]
    back = question_from_row({"id": 1, "question_id": "q1", "verdicts_json": stored,
                              "status": "completed"})
    assert back.counterfactual == line
    assert back.verdicts["strict"].findings == verdicts["strict"].findings
    for lang in ("en", "zh"):
        words = JudgeWords(lang)
        assert words.headline(back.counterfactual) == words.headline(line)
    # The exports' English words come with the values beside them.
    exported = finding_json(verdicts["strict"].findings[0], ENGLISH)
    assert exported["params"]["digits"] == 2
    assert exported["message"].startswith("Only rounding differs in avg_price.")


def test_the_headline_has_a_language_free_form_for_plain_exports():
    # Passing judges named before a failing one still come in the judges' order.
    assert headline_line(Headline(("full",), ("tolerant", "strict"))) == (
        "strict PASS, tolerant PASS, full FAIL")
    assert headline_line(Headline(("strict",), ("tolerant", "full"))) == (
        "strict FAIL, tolerant PASS, full PASS")
    assert headline_line(Headline(stored_text="fails every judge: x")) == "fails every judge: x"
    assert ZH.headline(Headline(("strict", "tolerant", "full"))) == "所有判定均未通过：未记录发现"
    assert ENGLISH.headline(Headline()) == ZH.headline(Headline()) == ""  # never judged


def test_throughline_judge_prints_in_chinese_and_keeps_english_json(tmp_path, capsys,
                                                                     monkeypatch):
    from desktop_app.cli import main

    monkeypatch.delenv("THROUGHLINE_LANG", raising=False)
    db = tmp_path / "sales.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE sales (region TEXT, price REAL)")
    con.executemany("INSERT INTO sales VALUES (?, ?)", [("east", 12.3456), ("west", 3.0)])
    con.commit()
    con.close()
    out = tmp_path / "v.json"
    argv = ["judge", "--db", str(db), "--gold-sql", GOLD_SQL, "--sql",
            "SELECT region, AVG(price) AS avg_price FROM sales GROUP BY region ORDER BY region",
            "--round", "avg_price=2", "--json", str(out)]
    assert main([*argv, "--lang", "zh"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "严格：未通过"
    assert printed[-1] == "各判定对比：严格未通过，容差和完整通过：仅取整不同（avg_price）"
    for line in printed:
        assert english_runs(line) == [], line
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["counterfactual_text"] == (
        "fails strict, passes tolerant and full: only rounding differs in avg_price")
    assert doc["findings"][0]["params"]["digits"] == 2
    assert doc["findings"][0]["message"].startswith("Only rounding differs in avg_price.")
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")  # the default language of the words
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("严格：未通过")


def test_throughline_sqleval_prints_its_table_and_lines_in_chinese(capsys, monkeypatch):
    from desktop_app.cli import main

    monkeypatch.delenv("THROUGHLINE_LANG", raising=False)
    assert main(["sqleval", "--simulator", "instant", "--model", "sim/seed-reference",
                 "--ids", "e02,h01", "--no-store", "--lang", "zh", "--language", "en"]) == 0
    printed = capsys.readouterr().out
    assert "难度" in printed and "严格" in printed and "全部" in printed
    assert "模拟数据" in printed
    assert "2 个答案中有 2 个遗漏了题目要求的 ROUND(x, n)" in printed
    for line in printed.splitlines():
        assert english_runs(line) == [], line


def test_a_wrong_column_count_names_the_golds_columns_not_a_question_that_named_none():
    """#28: "the question asks for [...]" on sets whose questions name no columns (Spider,
    BIRD): the columns quoted are the gold's, whatever the question says."""
    from desktop_app.core.sqleval.types import JudgeFinding
    from desktop_app.report.judge_words import finding_text

    finding = JudgeFinding("column_count", {"got": 1, "expected": 2, "got_columns": ["n"],
                                            "expected_columns": ["region", "n"]})
    en, zh = finding_text(finding, "en"), finding_text(finding, "zh")
    assert "the gold returns" in en and "question" not in en
    assert "参考答案返回" in zh and "题目" not in zh
