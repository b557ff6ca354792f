"""The fast path, the tool loop and the layered strategy in words: the PDF section, the CLI's
lines and its JSON, English ("en") or Simplified Chinese ("zh"). No Qt.

The core (`desktop_app.core.compare.strategies`) groups the runs, decides each row on noise and
splits a layered run by path; this module only says it:

* `strategies(comp, lang, paths=None)`: the PDF section (HTML, in the style of
  `report.sections`); empty when the comparison holds neither runs that differ in strategy nor
  a layered run whose paths are known;
* `strategy_text(report, lang)`: the same as plain text for `throughline compare`;
* `strategy_json(report, lang)`: the same as JSON (fields in docs/COMPARE.md);
* `kind_name`, `figure_label`, `route_text`, `split_lines`: the pieces, for any view.
"""

from __future__ import annotations

from html import escape

from desktop_app.core.sqleval.judges import judge_names
from desktop_app.core.compare.strategies import (
    PathShare,
    StrategyGroup,
    StrategyReport,
    StrategyRun,
    check_problems,
    compare_strategies,
    route_code,
)
from desktop_app.report.fmt import num, secs
from desktop_app.report.strings import judge_name, lookup
from desktop_app.report.verdicts import render_row, value_text

__all__ = ["STRINGS", "figure_label", "kind_name", "route_text", "split_lines", "strategies",
           "strategy_json", "strategy_text"]

EN = {
    "title": "Strategies: the fast path, the tool loop and the layered strategy",
    "intro": "SQL runs of the same endpoint, model and question set that differ in strategy: "
             "correct answers per hour of one agent (from each run's measured seconds per "
             "question), tokens per correct answer and the pass rate, under each success "
             "criterion. A winner is named only outside the noise (exact McNemar test for the "
             "pass rates, bootstrap intervals over the questions and a 10 % minimum for the "
             "rest); otherwise the row says about even.",
    "group": "{model} at {target}, question set {set}",
    "kind_fast": "fast path", "kind_loop": "tool loop", "kind_layered": "layered",
    "run": "{label} ({kind})",
    "fig_pass_rate": "{judge}: pass rate",
    "fig_correct_per_hour": "{judge}: correct answers per hour",
    "fig_tokens_per_correct": "{judge}: tokens per correct answer",
    "criterion": "criterion", "verdict": "verdict",
    "wins": "Which strategy wins, per success criterion",
    "win_item": "{run} over {loser} on {figure}",
    "figure_pass_rate": "pass rate", "figure_correct_per_hour": "correct answers per hour",
    "figure_tokens_per_correct": "tokens per correct answer",
    "no_win": "no strategy wins outside the noise",
    "layered": "Inside the layered runs: what the fast path settled and what the loop added",
    "split_fast": "fast path settled {n} of {total} questions ({rates}); {tokens} tokens, "
                  "{secs} per question",
    "split_loop": "the tool loop answered {n} ({rates}); {tokens} tokens, {secs} per "
                  "question; entered because: {why}",
    "split_loop_none": "the tool loop answered none",
    "rate": "{judge} {passed}/{n}",
    "why_item": "{what} ×{n}",
    "route_validated": "the fast answer passed the harness's checks",
    "route_validation_failed": "the fast answer failed the harness's checks",
    "route_validation_failed_detail": "the fast answer failed the harness's checks: {detail}",
    "route_no_fast_answer": "the fast path gave no answer",
    "route_no_fast_answer_detail": "the fast path gave no answer (stopped: {detail})",
    "route_structured": "the route sends structured tiers straight to the loop",
    "route_structured_detail": "the route sends tier {detail} straight to the loop",
    "route_always_loop": "the route sends every question to the loop",
    "route_other": "other",
    "problem_query_failed": "the query failed: {error}",
    "problem_no_rows": "the query returned no rows",
    "problem_columns": "the output columns are {columns}, the question asks for {required}",
    "problem_rounding": "column {column} must be rounded to {decimals} decimals (values like "
                        "{value})",
    "method": "Correct answers per hour = 3600 x passed / the judged questions' wall seconds "
              "summed (one agent, question after question; the capacity section scales this "
              "to a measured concurrency when a sweep of the same endpoint is compared). "
              "Tokens per correct answer = prompt + completion tokens of the judged questions "
              "/ passed. Both are ratios of sums; their 95 % intervals are bootstrap "
              "percentiles over the questions.",
    "sep": "; ", "list": ", ",
}

ZH = {
    "title": "策略对比：快速路径、工具循环与分层策略",
    "intro": "同一端点、同一模型、同一题集但策略不同的 SQL 运行：在每个成功标准下比较单个智能体"
             "每小时的正确答案数（按各运行实测的每题耗时计算）、每个正确答案消耗的 token 和"
             "通过率。只有差距超出噪声时才判定胜者（通过率用精确 McNemar 检验，其余用按题目"
             "自助法得到的置信区间并要求至少相差 10 %）；否则该行记为大致持平。",
    "group": "{model}（{target}），题集 {set}",
    "kind_fast": "快速路径", "kind_loop": "工具循环", "kind_layered": "分层策略",
    "run": "{label}（{kind}）",
    "fig_pass_rate": "{judge}：通过率",
    "fig_correct_per_hour": "{judge}：每小时正确答案数",
    "fig_tokens_per_correct": "{judge}：每个正确答案的 token",
    "criterion": "标准", "verdict": "结论",
    "wins": "各成功标准下的胜出策略",
    "win_item": "{run} 在{figure}上优于 {loser}",
    "figure_pass_rate": "通过率", "figure_correct_per_hour": "每小时正确答案数",
    "figure_tokens_per_correct": "每个正确答案的 token",
    "no_win": "没有策略在噪声范围之外胜出",
    "layered": "分层运行内部：快速路径解决了多少，工具循环又补上了多少",
    "split_fast": "快速路径解决了 {total} 题中的 {n} 题（{rates}）；每题 {tokens} token、"
                  "{secs}",
    "split_loop": "工具循环回答了 {n} 题（{rates}）；每题 {tokens} token、{secs}；"
                  "进入原因：{why}",
    "split_loop_none": "工具循环没有回答任何题目",
    "rate": "{judge} {passed}/{n}",
    "why_item": "{what} ×{n}",
    "route_validated": "快速答案通过了检查",
    "route_validation_failed": "快速答案未通过检查",
    "route_validation_failed_detail": "快速答案未通过检查：{detail}",
    "route_no_fast_answer": "快速路径没有给出答案",
    "route_no_fast_answer_detail": "快速路径没有给出答案（停止原因：{detail}）",
    "route_structured": "路由规则将结构化难度的题目直接交给工具循环",
    "route_structured_detail": "路由规则将 {detail} 难度的题目直接交给工具循环",
    "route_always_loop": "路由规则将所有题目交给工具循环",
    "route_other": "其他",
    "problem_query_failed": "查询失败：{error}",
    "problem_no_rows": "查询没有返回任何行",
    "problem_columns": "输出列为 {columns}，题目要求 {required}",
    "problem_rounding": "列 {column} 应保留 {decimals} 位小数（实际值如 {value}）",
    "method": "每小时正确答案数 = 3600 × 通过题数 / 已判定题目的耗时总和（单个智能体逐题作答；"
              "若对比中有同一端点的吞吐测试，容量一节会按实测并发换算）。每个正确答案的 token = "
              "已判定题目的提示与生成 token 总和 / 通过题数。两者都是总和之比，其 95 % 置信区间"
              "为按题目重采样的自助法百分位区间。",
    "sep": "；", "list": "，",
}

STRINGS = {"en": EN, "zh": ZH}

_TABLE = ('<table width="100%" cellspacing="0" cellpadding="3" border="1" '
          'style="border-collapse:collapse;border-color:#999">')
_BREAK = '<h2 style="page-break-before:always">'


def _w(lang: str, key: str, **values) -> str:
    return lookup(STRINGS, lang, key, **values)


def kind_name(run: StrategyRun, lang: str = "en") -> str:
    """"fast path", "tool loop" or "layered", with any extra strategies: "tool loop +
    format-guard"."""
    return " + ".join([_w(lang, f"kind_{run.kind}"), *run.extras])


def _run_name(run: StrategyRun, lang: str) -> str:
    return _w(lang, "run", label=run.label, kind=kind_name(run, lang))


def _short(run: StrategyRun, lang: str) -> str:
    """How verdicts name a run here: "#3 layered" (its full name heads the column)."""
    return f"#{run.run_id} {kind_name(run, lang)}"


def figure_label(row, lang: str = "en") -> str:
    """A strategy row's criterion in words: "Strict: correct answers per hour"."""
    return _w(lang, f"fig_{row.params['figure']}",
              judge=judge_name(lang, row.params["judge"]))


def route_text(reason_or_code: str, lang: str = "en", detail: str | None = None) -> str:
    """Why a layered question took its path, from the stored reason ("validation failed:
    column x ...") or a route code with its detail."""
    code, found = (reason_or_code, detail or "") if detail is not None or reason_or_code in (
        "validated", "validation_failed", "no_fast_answer", "structured", "always_loop",
        "other") else route_code(reason_or_code)
    if code == "other":
        return found or _w(lang, "route_other")
    if found and code == "validation_failed":
        found = _w(lang, "sep").join(
            params["text"] if kind == "other" else _w(lang, f"problem_{kind}", **params)
            for kind, params in check_problems(found))
    if found and f"route_{code}_detail" in EN:
        return _w(lang, f"route_{code}_detail", detail=found)
    return _w(lang, f"route_{code}")


def split_lines(run: StrategyRun, lang: str = "en",
                judges: tuple[str, ...] | None = None) -> list[str]:
    """A layered run's split per path in two sentences (none when its paths are unknown)."""
    judges = judge_names() if judges is None else judges
    parts = {p.path: p for p in run.split}
    fast, loop = parts.get("fast"), parts.get("loop")
    if fast is None or loop is None:
        return []

    def rates(p: PathShare) -> str:
        return _w(lang, "list").join(
            _w(lang, "rate", judge=judge_name(lang, j), passed=p.passed.get(j, 0),
               n=p.questions) for j in judges if j in p.passed)

    out = [_w(lang, "split_fast", n=fast.questions, total=fast.total, rates=rates(fast),
              tokens=num(fast.tokens_per_question or 0), secs=secs(
                  fast.seconds_per_question or 0))]
    if loop.questions:
        why = _w(lang, "list").join(_w(lang, "why_item", what=route_text(code, lang, ""), n=n)
                                    for code, n in loop.reasons)
        out.append(_w(lang, "split_loop", n=loop.questions, rates=rates(loop),
                      tokens=num(loop.tokens_per_question or 0),
                      secs=secs(loop.seconds_per_question or 0), why=why))
    else:
        out.append(_w(lang, "split_loop_none"))
    return out


def _wins(group: StrategyGroup, lang: str) -> list[tuple[str, str]]:
    """(judge in words, every pairwise win under it or "no strategy wins") per judge."""
    out = []
    for judge in group.judges:
        wins = [_w(lang, "win_item", run=_short(group.runs[w], lang),
                   loser=_short(group.runs[loser], lang), figure=_w(lang, f"figure_{figure}"))
                for j, figure, w, loser in group.beats if j == judge]
        out.append((judge_name(lang, judge),
                    _w(lang, "sep").join(wins) if wins else _w(lang, "no_win")))
    return out


def _cell(row, value, lang: str) -> str:
    return value_text(row, value, lang) if value.available else "n/a"


# --------------------------------------------------------------------------- the PDF


def strategies(comp, lang: str = "en", paths=None) -> str:
    """The PDF section for a Comparison (HTML); "" when there is nothing to compare.
    `paths` (run id -> row id -> LayeredPath) overrides the split the runs carry."""
    report = compare_strategies(comp.runs, paths)
    splits = [r for r in report.layered if r.split]
    if not report.groups and not splits:
        return ""
    colon = "：" if lang == "zh" else ": "
    out = [f"{_BREAK}{escape(_w(lang, 'title'))}</h2>", f"<p>{escape(_w(lang, 'intro'))}</p>"]
    for group in report.groups:
        out.append("<h3>" + escape(_w(lang, "group", model=group.model, target=group.target,
                                      set=group.set_name or "?")) + "</h3>")
        width = 46 // max(len(group.runs), 1)  # the criterion 20 %, the verdict 34 %
        heads = [(_w(lang, "criterion"), 20), *((_run_name(r, lang), width) for r in group.runs),
                 (_w(lang, "verdict"), 34)]
        out.append(_TABLE + "<thead><tr>" + "".join(
            f'<th bgcolor="#e8eef5" align="left" width="{w}%">{escape(c)}</th>'
            for c, w in heads) + "</tr></thead>")
        labels = [_short(r, lang) for r in group.runs]
        for i, row in enumerate(group.rows):
            bg = ' bgcolor="#f7f7f7"' if i % 2 else ""
            cells = [figure_label(row, lang), *(_cell(row, v, lang) for v in row.values),
                     render_row(row, labels, lang)]
            out.append(f"<tr{bg}>" + "".join(f'<td valign="top">{escape(c)}</td>'
                                             for c in cells) + "</tr>")
        # The winners per criterion as the table's last row: kept with the rows they sum up
        # (a heading of their own could be left alone at the foot of a page).
        wins = "<br/>".join(f"<b>{escape(j)}</b>{colon}{escape(t)}" for j, t in _wins(group, lang))
        out.append(f'<tr><td colspan="{len(heads)}" bgcolor="#eef3fb"><b>'
                   f'{escape(_w(lang, "wins"))}</b><br/>{wins}</td></tr>')
        out.append("</table>")
    if splits:
        out.append(f"<h3>{escape(_w(lang, 'layered'))}</h3><ul>")
        for run in splits:
            out.append(f"<li><b>{escape(_run_name(run, lang))}</b>{colon}" + escape(
                _w(lang, "sep").join(split_lines(run, lang))) + "</li>")
        out.append("</ul>")
    out.append(f'<p style="font-size:8pt;color:#444">{escape(_w(lang, "method"))}</p>')
    return "\n".join(out)


# --------------------------------------------------------------------------- the CLI


def strategy_text(report: StrategyReport, lang: str = "en", table=None) -> list[str]:
    """The section as lines of plain text; `table(header, rows)` lays out a table (the CLI's
    own, so columns line up with its other tables)."""
    if not report:
        return []
    out = ["", _w(lang, "title")]
    for group in report.groups:
        labels = [_short(r, lang) for r in group.runs]
        out.append(_w(lang, "group", model=group.model, target=group.target,
                      set=group.set_name or "?"))
        rows = [[figure_label(row, lang), *(_cell(row, v, lang) for v in row.values),
                 render_row(row, labels, lang)] for row in group.rows]
        header = [_w(lang, "criterion"), *(_run_name(r, lang) for r in group.runs),
                  _w(lang, "verdict")]
        out.append(table(header, rows) if table else "\n".join(" | ".join(r) for r in rows))
        out.append(_w(lang, "wins"))
        out += [f"- {j}{'：' if lang == 'zh' else ': '}{t}" for j, t in _wins(group, lang)]
    splits = [r for r in report.layered if r.split]
    if splits:
        out += ["", _w(lang, "layered")]
        for run in splits:
            out.append(f"- {_run_name(run, lang)}")
            out += [f"    {line}" for line in split_lines(run, lang)]
    return out


def strategy_json(report: StrategyReport, lang: str = "en") -> dict:
    """The section as JSON: groups (runs, rows with values, verdict code and words, winner
    run id) and each layered run's split per path."""
    def share(p: PathShare) -> dict:
        return {"path": p.path, "questions": p.questions, "total": p.total,
                "passed": dict(p.passed), "tokens_per_question": p.tokens_per_question,
                "seconds_per_question": p.seconds_per_question, "reasons": dict(p.reasons)}

    groups = []
    for g in report.groups:
        ids = [r.run_id for r in g.runs]
        labels = [_short(r, lang) for r in g.runs]
        groups.append({
            "target": g.target, "model": g.model, "set": g.set_name,
            "runs": [{"id": r.run_id, "kind": r.kind, "extras": list(r.extras)} for r in g.runs],
            "beats": [{"judge": j, "figure": f, "winner": ids[w], "loser": ids[lo]}
                      for j, f, w, lo in g.beats],
            "rows": [{"judge": row.params["judge"], "figure": row.params["figure"],
                      "unit": row.unit, "label": figure_label(row, lang),
                      "values": [{"run": ids[i], "value": v.value, "low": v.low, "high": v.high,
                                  "n": v.n} for i, v in enumerate(row.values) if v.available],
                      "winner": ids[row.verdict.winner] if row.verdict.winner is not None
                      else None, "significant": row.verdict.significant,
                      "method": row.verdict.method, "code": row.verdict.code,
                      "text": render_row(row, labels, lang)} for row in g.rows]})
    return {"groups": groups,
            "layered": [{"run": r.run_id, "paths": [share(p) for p in r.split]}
                        for r in report.layered if r.split]}
