"""The words of the SQL judges, in English and Simplified Chinese.

The core judges in values: a finding is a code and its `params` (`types.JudgeFinding`), the
line across judges a `types.Headline`, a failure class and a stop reason are codes. This is the
one place they become sentences: the Inspector, the PDF's failed questions, `throughline judge`,
`throughline sqleval` / `rejudge` (the per-tier table, the layered and missing-ROUND lines) and
the JSON exports' English `message` (`ENGLISH`) all render here. SQL, column names, values and
ROUND(x, 2) stay as they are; SQLite's own messages are quoted.

A finding read from a verdict stored before findings carried params has only its English
sentence (`stored_text`): it is shown as stored, in every language.
"""

from __future__ import annotations

import unicodedata

from desktop_app.report.question_words import gold_label
from desktop_app.report.strings import judge_name, lookup

__all__ = ["ENGLISH", "WORDS", "JudgeWords", "failure_class_text", "finding_key",
           "disagreement_lines", "finding_text", "headline_text", "layered_line",
           "missing_round_line",
           "stop_reason_text", "tier_table"]

MAX_QUOTED_CHARS = 200
"""Characters of a quoted value (a cell, a name) a finding's words show."""

WORDS = {
    "en": {
        # findings, keyed "code" or "code:form" (judge.FINDING_FORMS, explain.EXPLAIN_FORMS,
        # golds.NOTE_FORMS)
        "sql_error:failed": "The final query failed. {error}",
        "sql_error:syntax": "The final query has a syntax error. {error}",
        "sql_error:no_result": "The final query produced no result.",
        "timeout": "The final query timed out. {error}",
        "refused": "The final query was refused. {error}",
        "step_budget": "Stopped at the step budget without an answer.",
        "no_answer:token_budget": "Stopped at the token budget without an answer.",
        "no_answer:time_budget": "Stopped at the time budget without an answer.",
        "no_answer:endpoint_error": "No answer: the endpoint failed.",
        "no_answer:cancelled": "No answer: the run was cancelled.",
        "no_answer:output_budget": "No answer: the replies kept hitting max_tokens without one.",
        "no_answer:unknown_tool": "No answer: the model kept calling tools that do not exist.",
        "no_answer:bad_arguments": "No answer: the model kept sending invalid tool arguments.",
        "no_answer:repeated_call": "No answer: the model kept repeating the same call.",
        "no_answer:stopped": "No final answer: the model stopped without submitting SQL.",
        "column_count": "Wrong column count (got {got}, expected {expected}). The answer "
                        "returns {got_columns}; the gold returns {expected_columns}.",
        "column_names:names": "Wrong column names ({pairs}).",
        "column_names:case": "Column names differ only in case ({pairs}).",
        "empty_result": "Empty result (got 0 rows, expected {expected}). The answer returned "
                        "no rows; the gold query returns {rows}.",
        "duplicates_only": "Only duplicates differ (got {got} rows, expected {expected}). The "
                           "distinct rows are the same; a DISTINCT or a GROUP BY is missing or "
                           "extra.",
        "row_count": "Wrong row count (got {got}, expected {expected}).",
        "rounding_only:missing": "Only rounding differs in {columns}. ROUND(x, {digits}) "
                                 "missing on {column}: got {got}, expected {expected}{more}.",
        "rounding_only:question": "Only rounding differs in {columns}. Rounded to {decimals} as "
                                  "the question asks, the answer equals the gold. Row {row} "
                                  "{column}: got {got}, expected {expected}{more}.",
        "rounding_only:gold": "Only rounding differs in {columns}. Rounded to {decimals} as the "
                              "gold shows, the answer equals the gold. Row {row} {column}: got "
                              "{got}, expected {expected}{more}.",
        "value_mismatch:format": "Only the number format differs in {columns}. Same number, "
                                 "other text: Row {row} {column}: got {got}, expected "
                                 "{expected}{more}.",
        "value_mismatch:values": "Wrong values in {columns}. Row {row} {column}: got {got}, "
                                 "expected {expected}{more}.",
        "value_mismatch:rows": "Wrong values. The rows differ.",
        "official_mismatch:spider2_column": "Gold column {index} ({column}) matches no column "
                                            "of the answer{more_columns}. Spider2 compares "
                                            "each gold column it checks with every answer "
                                            "column, numbers within 0.01{order}.",
        "official_mismatch:bird_set": "The rows differ as sets: {missing} of the gold's rows "
                                      "are missing and {extra} others are there. BIRD "
                                      "compares the sets of rows, exactly.",
        "official_mismatch:test_suite_rows": "No order of the answer's columns gives the "
                                             "gold's rows{ordered}. test-suite compares values "
                                             "exactly.",
        "official_mismatch:test_suite_undecided": "Too many column orders to try; test-suite "
                                                  "could not decide, and counts it as failed.",
        "more_columns": " ({n} of the {checked} checked columns match none)",
        "spider2_any_order": "; each column sorted on its own, as the instance ignores order",
        "spider2_in_order": ", in row order",
        "test_suite_ordered": " in order (the gold's text says ORDER BY)",
        "test_suite_any_order": " in any order",
        # where a benchmark's rule and full disagree (core/sqleval/official.py)
        "disagree_head": "{official} and full disagree on {n} of {total} answers:",
        "disagree_none": "{official} and full agree on all {total} answers.",
        "disagree_official_passes": "{id}: {official} passes, full fails ({leniency}): {finding}",
        "disagree_official_fails": "{id}: {official} fails, full passes: {finding}",
        "disagree_more": "... and {n} more",
        "epoch_of": "{id} (epoch {epoch})",
        "leniency_extra_columns": "extra columns allowed",
        "leniency_names_ignored": "column names ignored",
        "leniency_within_001": "numbers within 0.01",
        "leniency_order_ignored": "row order ignored",
        "leniency_columns_any_order": "columns in any order",
        "leniency_set_of_rows": "rows compared as a set, duplicates ignored",
        "leniency_rule": "its own rule",
        "order_only:first_row": "Only the row order differs. The first row is another of the "
                                "right rows; {judge} compares the first row.",
        "order_only:asked": "Only the row order differs. The answer has the right rows in "
                            "another order; the question asks for an order.",
        "order_only:gold_orders": "Only the row order differs. The answer has the right rows "
                                  "in another order; the gold query orders its rows.",
        "degenerate_gold:empty": "The gold query returned no rows, so the pass proves little. "
                                 "Any answer with the same columns and nothing in them passes.",
        "degenerate_gold:null_only": "The gold query returned only NULLs, so the pass proves "
                                     "little. Any answer with the same columns and nothing in "
                                     "them passes.",
        "alias_differs:name": "The {ordinal} column is named {got}; the question asks for "
                              "{required}.",
        "alias_differs:case": "The {ordinal} column is named {got}; the question asks for "
                              "{required} (only the case differs).",
        "missing_round:none": "Column {column} has no ROUND; the question asks for "
                              "ROUND(x, {digits}).",
        "missing_round:digits": "Column {column} is rounded to {got_decimals}; the question "
                                "asks for {digits} (ROUND(x, {digits})).",
        "missing_round:inner": "Column {column} has ROUND only inside the expression, not on "
                               "the result; the question asks for ROUND(x, {digits}) on the "
                               "column.",
        "window_frame": "The window of {function} uses {got}; the gold query uses {gold}.",
        "matched_alternative": "Matched accepted answer {index} of {total} ({label}), not the "
                               "first ({first}).",
        "no_alternative_matched": "None of the {total} accepted answers matched; the findings "
                                  "compare with the first ({first}).",
        "no_alternative_matched:nearest": "None of the {total} accepted answers matched; the "
                                          "findings compare with the nearest, answer {index} "
                                          "({label}).",
        "truncated_comparison": "The comparison rests on {parts}; the rest was not compared.",
        # pieces of findings
        "pair": "got {got}, expected {expected}",
        "pair_sep": ", ",
        "list_sep": ", ",
        "no_columns": "no columns",
        "none_name": "(none)",
        "cut": "{head}… ({n:,} characters)",
        "more": " ({cells} differ)",
        "rows_n": "{n} rows", "rows_1": "1 row",
        "cells_n": "{n} cells", "cells_1": "1 cell",
        "decimals_n": "{n} decimals", "decimals_1": "1 decimal",
        "default_frame": "the default frame",
        "frame": "{frame}",
        "part": "the {side}'s first {rows:,} of {total:,} rows",
        "part_more": "the {side}'s first {rows:,} of more rows",
        "side_answer": "answer", "side_gold": "gold",
        # the line across judges (types.Headline; judge.HEADLINE_CODES)
        "passes_all": "passes every judge",
        "fails_all": "fails every judge: {reason}",
        "fails_some": "fails {failing}, passes {passing}: {reason}",
        "no_finding": "no finding recorded",
        "and": " and ",
        "judge_strict": "strict", "judge_tolerant": "tolerant", "judge_full": "full",
        "judge_spider2": "spider2", "judge_bird": "bird", "judge_test-suite": "test-suite",
        "pass": "PASS", "fail": "FAIL",
        "verdict": "{judge}: {outcome}",
        "across_judges": "across judges: {line}",
        # failure classes (a strict verdict's first finding code) read as the code in English
        # stop reasons (types.STOP_REASONS) too: see failure_class_text, stop_reason_text
        # the per-tier table and the lines under it
        "col_tier": "tier", "col_questions": "questions", "col_steps": "steps",
        "col_prompt": "prompt tok", "col_completion": "compl. tok", "tier_all": "all",
        "epochs": "{judge} over {n} epochs: mean {mean}, std {std}, min {min}, max {max}",
        "layered": "layered: fast path settled {fast} of {total} ({fast_rate}), the tool loop "
                   "{loop} ({loop_rate}); fast {fast_tokens} tokens, {fast_seconds} s per "
                   "question; loop {loop_tokens} tokens, {loop_seconds} s per question",
        "layered_rate": "{judge} {passed}/{questions}",
        "skipped": "{n} question(s) skipped: ",
        "simulated": "SIMULATED: a scripted persona of the built-in simulator, not a model.",
        "missing_round_line": "{n} of {total} answers omit the ROUND(x, n) their question asks "
                              "for (finding missing_round).",
    },
    "zh": {
        "sql_error:failed": "最终查询执行失败。错误信息：“{error}”",
        "sql_error:syntax": "最终查询有语法错误。错误信息：“{error}”",
        "sql_error:no_result": "最终查询没有产生结果。",
        "timeout": "最终查询超时。错误信息：“{error}”",
        "refused": "最终查询被拒绝执行。错误信息：“{error}”",
        "step_budget": "已达步数上限，仍未作答。",
        "no_answer:token_budget": "已达 token 上限，仍未作答。",
        "no_answer:time_budget": "已达时间上限，仍未作答。",
        "no_answer:endpoint_error": "未作答：端点调用失败。",
        "no_answer:cancelled": "未作答：运行已取消。",
        "no_answer:output_budget": "未作答：回复反复达到 max_tokens 上限，始终没有给出答案。",
        "no_answer:unknown_tool": "未作答：模型反复调用不存在的工具。",
        "no_answer:bad_arguments": "未作答：模型反复发送无效的工具参数。",
        "no_answer:repeated_call": "未作答：模型反复发出完全相同的调用。",
        "no_answer:stopped": "没有最终答案：模型未提交 SQL 就停止了。",
        "column_count": "列数错误（得到 {got}，应为 {expected}）。答案返回的列为 {got_columns}；"
                        "参考答案返回 {expected_columns}。",
        "column_names:names": "列名错误（{pairs}）。",
        "column_names:case": "列名仅大小写不同（{pairs}）。",
        "empty_result": "结果为空（得到 0 行，应为 {expected} 行）。答案没有返回任何行；"
                        "标准查询返回 {rows}。",
        "duplicates_only": "仅重复行不同（得到 {got} 行，应为 {expected} 行）。去重后的行相同；"
                           "缺少或多了 DISTINCT 或 GROUP BY。",
        "row_count": "行数错误（得到 {got}，应为 {expected}）。",
        "rounding_only:missing": "仅取整不同（{columns}）。{column} 缺少 ROUND(x, {digits})："
                                 "得到 {got}，应为 {expected}{more}。",
        "rounding_only:question": "仅取整不同（{columns}）。按题目要求保留 {decimals}后，答案与"
                                  "标准答案一致。第 {row} 行 {column}：得到 {got}，应为 "
                                  "{expected}{more}。",
        "rounding_only:gold": "仅取整不同（{columns}）。按标准答案所示保留 {decimals}后，答案与"
                              "标准答案一致。第 {row} 行 {column}：得到 {got}，应为 "
                              "{expected}{more}。",
        "value_mismatch:format": "仅数字格式不同（{columns}）。数值相同，写法不同：第 {row} 行 "
                                 "{column}：得到 {got}，应为 {expected}{more}。",
        "value_mismatch:values": "数值错误（{columns}）。第 {row} 行 {column}：得到 {got}，应为 "
                                 "{expected}{more}。",
        "value_mismatch:rows": "数值错误。结果行不一致。",
        "official_mismatch:spider2_column": "参考答案第 {index} 列（{column}）与答案的任何一列都不一致"
                                            "{more_columns}。Spider2 把它检查的每一列参考答案与答案的"
                                            "每一列比较，数值误差在 0.01 以内{order}。",
        "official_mismatch:bird_set": "结果行作为集合不一致：缺少参考答案的 {missing} 行，多出 {extra} "
                                      "行。BIRD 按行的集合精确比较。",
        "official_mismatch:test_suite_rows": "答案的列无论怎样排列，都得不到参考答案的行{ordered}。"
                                             "test-suite 精确比较数值。",
        "official_mismatch:test_suite_undecided": "可尝试的列顺序过多；test-suite 无法判定，按未通过计。",
        "more_columns": "（检查的 {checked} 列中有 {n} 列都不一致）",
        "spider2_any_order": "；该题忽略顺序，每一列各自排序后比较",
        "spider2_in_order": "，按行的顺序",
        "test_suite_ordered": "（按顺序：参考答案的文本含 ORDER BY）",
        "test_suite_any_order": "（不计顺序）",
        "disagree_head": "{official}与完整在 {total} 个答案中的 {n} 个上判定不同：",
        "disagree_none": "{official}与完整对全部 {total} 个答案的判定一致。",
        "disagree_official_passes": "{id}：{official}通过，完整未通过（{leniency}）：{finding}",
        "disagree_official_fails": "{id}：{official}未通过，完整通过：{finding}",
        "disagree_more": "……另有 {n} 个",
        "epoch_of": "{id}（第 {epoch} 轮）",
        "leniency_extra_columns": "允许多出的列",
        "leniency_names_ignored": "忽略列名",
        "leniency_within_001": "数值误差在 0.01 以内",
        "leniency_order_ignored": "忽略行顺序",
        "leniency_columns_any_order": "列顺序不限",
        "leniency_set_of_rows": "按行的集合比较，忽略重复行",
        "leniency_rule": "其自身的规则",
        "order_only:first_row": "仅行顺序不同。首行是另一条正确的行；{judge}判定只比较首行。",
        "order_only:asked": "仅行顺序不同。答案的行都正确，但顺序不同；题目要求了顺序。",
        "order_only:gold_orders": "仅行顺序不同。答案的行都正确，但顺序不同；标准查询对结果排了序。",
        "degenerate_gold:empty": "标准查询没有返回任何行，因此这次通过说明不了什么。列相同且没有"
                                 "内容的任何答案都会通过。",
        "degenerate_gold:null_only": "标准查询只返回 NULL，因此这次通过说明不了什么。列相同且没有"
                                     "内容的任何答案都会通过。",
        "alias_differs:name": "第 {ordinal} 列的列名为 {got}；题目要求的列名为 {required}。",
        "alias_differs:case": "第 {ordinal} 列的列名为 {got}；题目要求的列名为 {required}"
                              "（仅大小写不同）。",
        "missing_round:none": "列 {column} 没有 ROUND；题目要求 ROUND(x, {digits})。",
        "missing_round:digits": "列 {column} 保留了 {got_decimals}；题目要求 {digits} 位"
                                "（ROUND(x, {digits})）。",
        "missing_round:inner": "列 {column} 只在表达式内部使用了 ROUND，结果本身没有取整；题目"
                               "要求对该列使用 ROUND(x, {digits})。",
        "window_frame": "{function} 的窗口使用{got}；标准查询使用{gold}。",
        "matched_alternative": "与第 {index} 个可接受答案（共 {total} 个）一致：{label}，"
                               "而不是第一个（{first}）。",
        "no_alternative_matched": "{total} 个可接受答案均不一致；以上发现是与第一个"
                                  "（{first}）比较的结果。",
        "no_alternative_matched:nearest": "{total} 个可接受答案均不一致；以上发现是与最接近的"
                                          "第 {index} 个（{label}）比较的结果。",
        "truncated_comparison": "比较仅基于{parts}；其余部分未比较。",
        "pair": "得到 {got}，应为 {expected}",
        "pair_sep": "；",
        "list_sep": "、",
        "no_columns": "（无）",
        "none_name": "（无）",
        "cut": "{head}…（共 {n:,} 个字符）",
        "more": "（共 {cells}不同）",
        "rows_n": "{n} 行", "rows_1": "1 行",
        "cells_n": "{n} 个单元格", "cells_1": "1 个单元格",
        "decimals_n": "{n} 位小数", "decimals_1": "1 位小数",
        "default_frame": "默认窗口范围",
        "frame": " `{frame}`",
        "part": "{side}的前 {rows:,} 行（共 {total:,} 行）",
        "part_more": "{side}的前 {rows:,} 行（之后还有更多行）",
        "side_answer": "答案", "side_gold": "标准答案",
        "passes_all": "所有判定均通过",
        "fails_all": "所有判定均未通过：{reason}",
        "fails_some": "{failing}未通过，{passing}通过：{reason}",
        "no_finding": "未记录发现",
        "and": "和",
        "pass": "通过", "fail": "未通过",
        "verdict": "{judge}：{outcome}",
        "across_judges": "各判定对比：{line}",
        "col_tier": "难度", "col_questions": "题数", "col_steps": "步数",
        "col_prompt": "提示 token", "col_completion": "生成 token", "tier_all": "全部",
        "epochs": "{judge}（{n} 轮）：平均 {mean}，标准差 {std}，最低 {min}，最高 {max}",
        "layered": "分层：快速路径解决 {fast} / {total} 题（{fast_rate}），工具循环 {loop} 题"
                   "（{loop_rate}）；快速路径每题 {fast_tokens} token、{fast_seconds} 秒；"
                   "工具循环每题 {loop_tokens} token、{loop_seconds} 秒",
        "layered_rate": "{judge} {passed}/{questions}",
        "skipped": "跳过 {n} 道题：",
        "simulated": "模拟数据：内置模拟器的脚本化角色，不是模型。",
        "missing_round_line": "{total} 个答案中有 {n} 个遗漏了题目要求的 ROUND(x, n)"
                              "（发现 missing_round）。",
    },
}

# A failure class is a finding code (the strict verdict's first); English shows the code.
FAILURE_CLASSES = {
    "zh": {
        "sql_error": "SQL 错误", "timeout": "查询超时", "step_budget": "步数用尽",
        "no_answer": "未作答", "empty_result": "结果为空", "row_count": "行数错误",
        "column_count": "列数错误", "column_names": "列名错误", "order_only": "仅顺序不同",
        "duplicates_only": "仅重复行不同", "rounding_only": "仅取整不同",
        "value_mismatch": "数值错误", "missing_round": "缺少 ROUND", "alias_differs": "列别名不符",
        "window_frame": "窗口范围不同", "refused": "查询被拒绝", "degenerate_gold": "标准答案为空",
        "matched_alternative": "匹配备选答案", "no_alternative_matched": "无可接受答案匹配",
        "truncated_comparison": "仅比较了部分行",
        "official_mismatch": "官方评测未通过",
    },
}
# Why a question's loop ended (types.STOP_REASONS); English shows the code.
STOP_REASONS = {
    "zh": {
        "submitted": "已提交", "step_budget": "达到步数上限", "token_budget": "达到 token 上限",
        "time_budget": "达到时间上限", "no_answer": "未作答",
        "output_budget": "回复反复达到输出上限", "unknown_tool": "反复调用不存在的工具",
        "bad_arguments": "反复发送无效参数", "repeated_call": "反复重复同一调用",
        "endpoint_error": "端点出错", "cancelled": "已取消",
    },
}


def finding_key(code: str, form: str | None) -> str:
    """The catalogue entry of a finding: "code", or "code:form" for a code of several forms."""
    return f"{code}:{form}" if form else code


class JudgeWords:
    """The judges' words in one language ("en" or "zh")."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in WORDS else "en"

    def _w(self, entry: str, /, **values) -> str:
        return lookup(WORDS, self.lang, entry, **values)

    def _plural(self, n, word: str) -> str:
        return self._w(f"{word}_1" if n == 1 else f"{word}_n", n=n)

    def _list(self, items) -> str:
        return self._w("list_sep").join(str(i) for i in items)

    def judge(self, name: str) -> str:
        """A judge's name: "strict" in English, the report's name in Chinese ("严格")."""
        if f"judge_{name}" not in WORDS["en"]:
            return name
        if self.lang == "zh":
            return judge_name("zh", name)
        return self._w(f"judge_{name}")

    def judges(self, names) -> str:
        """Judges joined: "tolerant and full", "strict, tolerant and full" / "容差和完整"."""
        names = [self.judge(n) for n in names]
        if len(names) <= 1:
            return "".join(names)
        return self._w("list_sep").join(names[:-1]) + self._w("and") + names[-1]

    def outcome(self, passed: bool) -> str:
        """PASS / FAIL (通过 / 未通过)."""
        return self._w("pass" if passed else "fail")

    def verdict(self, judge: str, passed: bool) -> str:
        """ "strict: PASS" / "严格：通过"."""
        return self._w("verdict", judge=self.judge(judge), outcome=self.outcome(passed))

    def across_judges(self, headline) -> str:
        """ "across judges: <the line>", as `throughline judge` ends."""
        return self._w("across_judges", line=self.headline(headline))

    def finding(self, finding) -> str:
        """A finding as a sentence; a finding stored before findings carried params shows its
        stored English sentence; an unknown code shows its code."""
        p = dict(finding.params or {})
        if finding.stored_text and not p:
            return finding.stored_text
        key = finding_key(finding.code, p.get("form"))
        if key not in WORDS["en"]:
            return finding.stored_text or finding.code
        try:
            return self._w(key, **self._values(finding.code, p))
        except (KeyError, IndexError, TypeError, ValueError):
            return finding.stored_text or finding.code

    def _cut(self, value):
        if isinstance(value, str) and len(value) > MAX_QUOTED_CHARS:
            return self._w("cut", head=value[:MAX_QUOTED_CHARS], n=len(value))
        return value

    def _values(self, code: str, p: dict) -> dict:
        """The finding's params with what its words need derived (lists joined, plurals)."""
        # A quoted cell is evidence, not the data: an 8 MB value is cut here, for the terminal,
        # the window and the PDF alike; --json keeps it whole in the finding's params.
        v = {k: self._cut(x) for k, x in p.items()}
        v.pop("form", None)
        if "columns" in p:
            v["columns"] = self._list(p["columns"])
        if "differ" in p:
            n = p["differ"]
            v["more"] = self._w("more", cells=self._plural(n, "cells")) if n > 1 else ""
        if code == "column_count":
            v["got_columns"] = self._list(p["got_columns"]) or self._w("no_columns")
            v["expected_columns"] = self._list(p["expected_columns"])
        elif code == "column_names":
            v["pairs"] = self._w("pair_sep").join(self._w("pair", got=a, expected=g)
                                                  for a, g in p["pairs"])
        elif code == "empty_result":
            v["rows"] = self._plural(p["expected"], "rows")
        elif code == "rounding_only" and p.get("form") != "missing":
            v["decimals"] = self._plural(p["digits"], "decimals")
        elif code == "order_only" and "judge" in p:
            v["judge"] = self.judge(p["judge"])
        elif code == "alias_differs":
            n = int(p["position"])
            v["ordinal"] = _ordinal(n) if self.lang == "en" else n
            v["got"] = p["got"] or self._w("none_name")
        elif code == "missing_round" and p.get("form") == "digits":
            v["got_decimals"] = self._plural(p.get("got_digits"), "decimals")
        elif code == "window_frame":
            v["got"], v["gold"] = (self._w("frame", frame=f) if f else self._w("default_frame")
                                   for f in (p["got"], p["gold"]))
        elif code in ("matched_alternative", "no_alternative_matched"):
            v["first"] = gold_label(p["first"], self.lang)
            if "label" in p:
                v["label"] = gold_label(p["label"], self.lang)
        elif code == "official_mismatch":
            n = p.get("unmatched", 1)
            v["more_columns"] = self._w("more_columns", n=n, checked=p.get("checked")) if (
                n and n > 1) else ""
            v["order"] = self._w("spider2_any_order" if p.get("ignore_order")
                                 else "spider2_in_order")
            v["ordered"] = self._w("test_suite_ordered" if p.get("ordered")
                                   else "test_suite_any_order")
        elif code == "truncated_comparison":
            sep = self._w("list_sep") if self.lang == "zh" else ", "
            v["parts"] = sep.join(
                self._w("part" if part.get("total") is not None else "part_more",
                        side=self._w(f"side_{part['side']}"), rows=part["rows"],
                        total=part.get("total"))
                for part in p["parts"])
        return v

    def reason(self, finding) -> str:
        """A finding's first sentence, for the line across judges ("only rounding differs in
        avg_price" / "仅取整不同（avg_price）")."""
        text = self.finding(finding)
        if self.lang == "zh" and not (finding.stored_text and not finding.params):
            return text.split("。", 1)[0].rstrip("。")
        head = text.split(". ", 1)[0].rstrip(".")
        return head[:1].lower() + head[1:]

    def headline(self, headline) -> str:
        """The line across judges: "passes every judge", "fails every judge: <reason>",
        "fails strict, passes tolerant and full: <reason>"; "" when no judge judged. A line
        stored before headlines were values reads as stored in English."""
        if headline.stored_text and self.lang == "en":
            return headline.stored_text
        if not headline.failing and not headline.passing:
            return ""
        if not headline.failing:
            return self._w("passes_all")
        reason = (self.reason(headline.reason) if headline.reason is not None
                  else self._w("no_finding"))
        if not headline.passing:
            return self._w("fails_all", reason=reason)
        return self._w("fails_some", failing=self.judges(headline.failing),
                       passing=self.judges(headline.passing), reason=reason)

    def failure_class(self, code: str | None) -> str:
        """A failure class (a finding code) in words; English shows the code."""
        if not code:
            return ""
        return FAILURE_CLASSES.get(self.lang, {}).get(code, code)

    def stop_reason(self, code: str | None) -> str:
        """Why a question's loop ended, in words; English shows the code."""
        if not code:
            return ""
        return STOP_REASONS.get(self.lang, {}).get(code, code)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


ENGLISH = JudgeWords("en")


def finding_text(finding, lang: str = "en") -> str:
    """One finding in `lang`."""
    return JudgeWords(lang).finding(finding)


def headline_text(headline, lang: str = "en") -> str:
    """The line across judges in `lang`."""
    return JudgeWords(lang).headline(headline)


def failure_class_text(code: str | None, lang: str = "en") -> str:
    """A failure class in `lang`."""
    return JudgeWords(lang).failure_class(code)


def stop_reason_text(code: str | None, lang: str = "en") -> str:
    """A stop reason in `lang`."""
    return JudgeWords(lang).stop_reason(code)


# --------------------------------------------------------------------------- the CLI's table


def _width(text: str) -> int:
    """Columns a string takes on a terminal (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int, left: bool) -> str:
    gap = " " * max(width - _width(text), 0)
    return text + gap if left else gap + text


def _rate(ok: int, total: int) -> str:
    return f"{ok}/{total} {ok / total:.0%}" if total else "-"


def layered_line(result, lang: str = "en") -> str | None:
    """ "layered: fast path settled 14 of 25 (strict 9/14), the tool loop 11 (strict 3/11)",
    with each path's mean tokens and seconds; None when the run is not layered."""
    from desktop_app.core.sqleval.export import path_summary

    paths = path_summary(result.items, result.judges)
    if not paths:
        return None
    w = JudgeWords(lang)
    judge = result.judges[0] if result.judges else "strict"
    fast, loop = paths["fast"], paths["loop"]

    def rate(p: dict) -> str:
        return w._w("layered_rate", judge=w.judge(judge), passed=p["passed"].get(judge, 0),
                    questions=p["questions"])

    def tokens(p: dict) -> str:
        return f"{p['mean_prompt_tokens'] + p['mean_completion_tokens']:,.0f}"

    return w._w("layered", fast=fast["questions"], total=len(result.items),
                fast_rate=rate(fast), loop=loop["questions"], loop_rate=rate(loop),
                fast_tokens=tokens(fast), fast_seconds=f"{fast['mean_seconds']:.1f}",
                loop_tokens=tokens(loop), loop_seconds=f"{loop['mean_seconds']:.1f}")


def tier_table(result, lang: str = "en") -> str:
    """The per-tier text table of an `EvalResult`: questions, pass rate per judge, mean steps
    and tokens; a total line; the spread across epochs, the layered line, skipped questions and
    a note when the model is simulated."""
    w = JudgeWords(lang)
    judges = list(result.judges)
    head = [w._w("col_tier"), w._w("col_questions")] + [w.judge(j) for j in judges] + [
        w._w("col_steps"), w._w("col_prompt"), w._w("col_completion")]
    rows = []
    for tier, stats in result.tiers.items():
        cells = [tier, str(stats.questions)]
        for judge in judges:
            ok, total = result.summary[judge].by_tier.get(tier, (0, 0))
            cells.append(_rate(ok, total))
        cells += [f"{stats.mean_steps:.1f}", f"{stats.mean_prompt_tokens:,.0f}",
                  f"{stats.mean_completion_tokens:,.0f}"]
        rows.append(cells)
    total = [w._w("tier_all"), str(len(result.items))]
    total += [_rate(result.summary[j].passed, result.summary[j].total) for j in judges]
    n = max(len(result.items), 1)
    total += [f"{sum(i.steps for i in result.items) / n:.1f}",
              f"{sum(i.outcome.prompt_tokens for i in result.items) / n:,.0f}",
              f"{sum(i.outcome.completion_tokens for i in result.items) / n:,.0f}"]
    rows.append(total)
    widths = [max(_width(r[c]) for r in [head, *rows]) for c in range(len(head))]
    lines = ["  ".join(_pad(h, wd, c == 0) for c, (h, wd) in enumerate(zip(r, widths)))
             for r in [head, *rows]]
    lines.insert(1, "  ".join("-" * wd for wd in widths))
    lines.insert(len(lines) - 1, lines[1])
    for judge, spread in result.epochs.items():
        lines.append(w._w("epochs", judge=w.judge(judge), n=len(spread.rates),
                          mean=f"{spread.mean:.0%}", std=f"{spread.std:.1%}",
                          min=f"{spread.min:.0%}", max=f"{spread.max:.0%}"))
    layered = layered_line(result, lang)
    if layered:
        lines.append(layered)
    if result.skipped:
        lines.append(w._w("skipped", n=len(result.skipped))
                     + "; ".join(f"{s.id}: {s.reason}" for s in result.skipped[:5]))
    if result.simulated:
        lines.append(w._w("simulated"))
    return "\n".join(lines)


def disagreement_lines(found, officials, total: int, lang: str = "en",
                       limit: int = 20) -> list[str]:
    """Per official rule in `officials`: a head line ("spider2 and full disagree on 3 of 13
    answers:", or that they agree) and one line per disagreement (`official.Disagreement`),
    at most `limit`; the failing side's finding and, when the official rule passed, why."""
    w = JudgeWords(lang)
    lines: list[str] = []
    for official in officials:
        mine = [d for d in found if d.official == official]
        name = w.judge(official)
        if not mine:
            lines.append(w._w("disagree_none", official=name, total=total))
            continue
        lines.append(w._w("disagree_head", official=name, n=len(mine), total=total))
        for d in mine[:limit]:
            qid = w._w("epoch_of", id=d.question_id, epoch=d.epoch + 1) if d.epoch else (
                d.question_id)
            finding = w.finding(d.finding) if d.finding else w._w("no_finding")
            if d.official_passed:
                lines.append("  " + w._w("disagree_official_passes", id=qid, official=name,
                                         leniency=w._w(f"leniency_{d.leniency or 'rule'}"),
                                         finding=finding))
            else:
                lines.append("  " + w._w("disagree_official_fails", id=qid, official=name,
                                         finding=finding))
        if len(mine) > limit:
            lines.append("  " + w._w("disagree_more", n=len(mine) - limit))
    return lines


def missing_round_line(items, lang: str = "en") -> str | None:
    """The seeds' "15 of 25 answers omit the ROUND(x, n) their question asks for", counted
    over ItemResults or stored questions; None when none omits it."""
    from desktop_app.core.sqleval.export import explained

    items = list(items)
    omitted = explained(items).get("missing_round", 0)
    if not omitted:
        return None
    return JudgeWords(lang)._w("missing_round_line", n=omitted, total=len(items))
