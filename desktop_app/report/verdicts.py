"""The comparison's rows in words, English ("en") or Simplified Chinese ("zh"). No Qt.

The core (`desktop_app.core.compare.dimensions`) decides every row and returns codes and
figures; this module alone turns them into words, for the PDF, the GUI and ``throughline
compare``:

* `row_label(row, lang)`: the dimension, e.g. "TTFT at 4 concurrent (median)";
* `render_row(row, runs, lang)`: the verdict, e.g. "#5 wins: 812 vs 640 tok/s (27 % higher,
  outside both 95 % intervals)" or "about even (within noise): 39,906 vs 37,333 tok/s";
* `value_text(row, value, lang)`: one run's figure with its interval, e.g.
  "812 tok/s [790 – 830]", marked when it rests on a client-bound cell.

Every code of `VERDICT_CODES` has words in both languages (tests/core/compare/test_compare_noise.py
checks the Chinese has no untranslated English).
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_app.core.compare.dimensions import DimensionRow, DimValue, figure_keys
from desktop_app.report.figure_words import figure_name
from desktop_app.report.strings import judge_name, lookup

__all__ = ["LANGS", "bottleneck_name", "figure_name", "lookup_word", "number", "render_row", "row_label", "scenario_label",
           "scenario_text", "trade_off_text", "value_text"]

LANGS = ("en", "zh")

EN = {
    "row_cell": "{figure}: {input} tokens in, {output} out, {concurrency} concurrent",
    "row_tally": "{figure}: every cell",
    "row_figure_at": "{figure} at {concurrency} concurrent",
    "tally_level": "at {concurrency} concurrent: {what}",
    "tally_wins": "{w} wins {k} of {n} cells",
    "tally_wins_one": "{w} wins the one cell",
    "tally_even": "even in {n} of {n}",
    "tally_even_some": "{k} even",
    "tally_undecided": "{k} undecided",
    "tally_no_cells": "the runs share no cell",
    "tally_value": "{k} cells won",
    "v_within_client_lag": "about even: {figures} are apart on the requests, but the client "
                           "itself ran up to {lag} late, which could explain {bound}",
    "v_failures_even": "no run fails significantly less (the strict pass rate decides)",
    "scenarios": "Verdict per scenario",
    "sc_many_users": "Many concurrent users (TTFT, total throughput)",
    "sc_one_user": "One user's streaming speed (decode per request)",
    "sc_structured_tasks": "Structured tasks (pass rate, tasks per hour measured by replay)",
    "sf_tasks_per_hour": "tasks per hour (replay)",
    "sw_tasks_per_hour": "{x} more tasks per hour (replay)",
    "scf_wins_loads": "{by} at {k} of {n} numbers of agents",
    "scf_wins_loads_one": "{by} at the one number of agents",
    "to_tasks_per_hour_cost": "it finishes {x} fewer tasks per hour (replay)",
    "to_tasks_per_hour_gain": "it finishes {x} more tasks per hour (replay)",
    "row_replay_tasks_per_hour": "Tasks per hour measured by replay, {sessions} agents",
    "unit_tasks/h": "tasks/h",
    "sc_ahead": "{w} is ahead: {what}",
    "sc_mixed": "mixed: {what}",
    "sc_even": "about even: no cell differs beyond the noise ({what})",
    "sc_na": "cannot tell: {what}",
    "scf_wins": "{by} in {k} of {n} cells",
    "scf_wins_one": "{by} in the one cell",
    "sw_ttft": "first tokens {x} sooner", "sw_output_tps": "total output {x} higher",
    "sw_decode": "each stream decodes {x} faster",
    "times": "{x}x",
    "scf_even": "{figure} even in {n} cells",
    "scf_even_one": "{figure} even",
    "scf_split": "{figure}: {items}",
    "scf_undecided": "{figure} undecided in {n} cells",
    "scf_undecided_one": "{figure} undecided",
    "sf_ttft": "first tokens", "sf_output_tps": "total output", "sf_decode": "each stream",
    "sf_pass_rate": "strict pass rate",
    "trade_off": "Trade-off: {run}: {gains}, but {costs}",
    "to_ttft_cost": "first tokens come {x} later", "to_ttft_gain": "first tokens come {x} sooner",
    "to_output_tps_cost": "total throughput is {x} lower",
    "to_output_tps_gain": "total throughput is {x} higher",
    "to_decode_cost": "each stream decodes {x} slower",
    "to_decode_gain": "each stream decodes {x} faster",
    "to_pass_rate_cost": "it passes fewer questions ({a} vs {b})",
    "to_pass_rate_gain": "it passes more questions ({a} vs {b})",
    "and": " and ",
    "row_bottleneck": "Main bottleneck (diagnosis)",
    "row_pass_rate": "{judge} pass rate",
    "row_tier_pass_rate": "{judge} pass rate, {tier}",
    "row_tier_steps": "Mean steps per question, {tier}",
    "row_tier_tokens": "Mean tokens per question, {tier}",
    "row_failure_classes": "Main failure classes (strict)",
    "v_win": "{w} wins: {figures} ({by}, outside both 95 % intervals)",
    "v_win_wilson": "{w} wins: {figures} ({by}, outside both 95 % Wilson intervals)",
    "v_win_paired": "{w} wins: {figures}; {pair}",
    "v_within_noise": "about even (within noise): {figures}",
    "v_below_min_effect": "about even: {figures} differ by less than the {min} % that two runs "
                          "of one server drift apart",
    "v_within_noise_paired": "about even (within noise): {figures}; {pair}",
    "v_no_interval": "cannot tell: {figures}, but no spread was recorded for one of them",
    "v_not_comparable_lengths": "not comparable: the runs measured different prompt lengths",
    "v_different_tasks": "not comparable: the servers replayed different SQL runs' "
                         "conversations ({runs}); replay one run on each",
    "v_client_bound": "n/a: client-bound in {runs}, not compared",
    "v_only_one": "n/a: only {w} measured this",
    "v_none": "n/a: no run measured this",
    "v_same_bottleneck": "the same bottleneck in every run: {what}",
    "v_different_bottlenecks": "different bottlenecks: {what}",
    "v_fewest_failures": "fewest strict failures: {w} ({share} of its questions)",
    "pair": "{b} fixes {fixes}, breaks {breaks} against {a} (exact McNemar p {p})",
    "pair_tasks": "the same {n} tasks on both: {a} over {b} {low}-{high}x (95 % interval)",
    "vs": "{a} vs {b}",
    "by_higher": "{x} % higher", "by_lower": "{x} % lower",
    "by_points": "{x} points", "by_points_lower": "{x} points lower",
    "list_sep": "; ", "item": "{w} {what}",
    "client_bound": "client-bound",
    "lengths_differ": "other prompt lengths",
    "none_found": "none found",
    "missing_round": "; {n} answers omit the ROUND(x, n) asked for",
    "unit_tokens": "tokens", "unit_steps": "steps",
    "bn_concurrency_cap": "concurrency cap ({cap} running)",
    "bn_kv_cache_pressure": "KV cache pressure",
    "bn_prefill_drop_under_concurrency": "prefill slows under concurrency (queueing)",
    "bn_decode_slows_with_batch": "decode slows as the batch grows",
    "bn_failures": "failed requests",
    "bn_prefill_slows_with_length": "prefill slows with prompt length",
    "bn_none": "none found",
    "possible": "possibly {what}",
    "na": "n/a",
}

ZH = {
    "row_cell": "{figure}：输入 {input} token，输出 {output}，{concurrency} 并发",
    "row_tally": "{figure}：全部单元格",
    "row_figure_at": "{concurrency} 并发 {figure}",
    "tally_level": "{concurrency} 并发：{what}",
    "tally_wins": "{w} 在 {n} 个单元格中胜出 {k} 个",
    "tally_wins_one": "{w} 在唯一的单元格中胜出",
    "tally_even": "{n} 个单元格全部持平",
    "tally_even_some": "{k} 个持平",
    "tally_undecided": "{k} 个无法判断",
    "tally_no_cells": "各运行没有共同的单元格",
    "tally_value": "胜出 {k} 个单元格",
    "v_within_client_lag": "大致持平：{figures} 按请求看有差距，但客户端自身最多延迟 {lag}，"
                           "足以解释 {bound}",
    "v_failures_even": "没有哪个运行的失败显著更少（以严格通过率为准）",
    "scenarios": "典型场景选择",
    "sc_many_users": "多用户并发（TTFT、总吞吐）",
    "sc_one_user": "单用户流式速度（单请求 Decode）",
    "sc_structured_tasks": "结构化任务（通过率、回放实测的每小时任务数）",
    "sf_tasks_per_hour": "每小时任务数（回放）",
    "sw_tasks_per_hour": "每小时任务数多 {x}（回放）",
    "scf_wins_loads": "{by}（{n} 种智能体数中 {k} 种）",
    "scf_wins_loads_one": "{by}（唯一的智能体数）",
    "to_tasks_per_hour_cost": "每小时完成的任务少 {x}（回放）",
    "to_tasks_per_hour_gain": "每小时完成的任务多 {x}（回放）",
    "row_replay_tasks_per_hour": "回放实测的每小时任务数，{sessions} 个智能体",
    "unit_tasks/h": "任务/小时",
    "sc_ahead": "{w} 领先：{what}",
    "sc_mixed": "互有胜负：{what}",
    "sc_even": "大致持平：没有单元格的差距超出噪声（{what}）",
    "sc_na": "无法判断：{what}",
    "scf_wins": "{by}（{n} 个单元格中 {k} 个）",
    "scf_wins_one": "{by}（唯一的单元格）",
    "sw_ttft": "首 token 快 {x}", "sw_output_tps": "总输出高 {x}",
    "sw_decode": "每路流 Decode 快 {x}",
    "times": "{x} 倍",
    "scf_even": "{figure}在 {n} 个单元格中持平",
    "scf_even_one": "{figure}持平",
    "scf_split": "{figure}：{items}",
    "scf_undecided": "{figure}在 {n} 个单元格中无法判断",
    "scf_undecided_one": "{figure}无法判断",
    "sf_ttft": "首 token", "sf_output_tps": "总输出", "sf_decode": "每路流",
    "sf_pass_rate": "严格通过率",
    "trade_off": "取舍：{run}：{gains}，但{costs}",
    "to_ttft_cost": "首 token 晚 {x}", "to_ttft_gain": "首 token 早 {x}",
    "to_output_tps_cost": "总吞吐低 {x}",
    "to_output_tps_gain": "总吞吐高 {x}",
    "to_decode_cost": "每路流 Decode 慢 {x}",
    "to_decode_gain": "每路流 Decode 快 {x}",
    "to_pass_rate_cost": "通过的题目更少（{a} 对 {b}）",
    "to_pass_rate_gain": "通过的题目更多（{a} 对 {b}）",
    "and": "，",
    "row_bottleneck": "主要瓶颈（诊断）",
    "row_pass_rate": "{judge}通过率",
    "row_tier_pass_rate": "{judge}通过率（{tier}）",
    "row_tier_steps": "每题平均步数（{tier}）",
    "row_tier_tokens": "每题平均 token（{tier}）",
    "row_failure_classes": "主要失败类型（严格）",
    "v_win": "{w} 胜出：{figures}（{by}，超出双方的 95 % 置信区间）",
    "v_win_wilson": "{w} 胜出：{figures}（{by}，超出双方的 95 % Wilson 置信区间）",
    "v_win_paired": "{w} 胜出：{figures}；{pair}",
    "v_within_noise": "大致持平（在噪声范围内）：{figures}",
    "v_below_min_effect": "大致持平：{figures} 的差距小于同一服务端两次运行之间的 {min} % 波动",
    "v_within_noise_paired": "大致持平（在噪声范围内）：{figures}；{pair}",
    "v_no_interval": "无法判断：{figures}，但其中一方没有记录离散程度",
    "v_not_comparable_lengths": "无法比较：各运行测量的提示长度不同",
    "v_different_tasks": "无法比较：各服务器回放的是不同 SQL 运行的对话（{runs}）；请在每个服务器上回放同一次运行",
    "v_client_bound": "不适用：{runs} 受客户端限制，不参与比较",
    "v_only_one": "不适用：仅 {w} 测量了此项",
    "v_none": "不适用：没有运行测量此项",
    "v_same_bottleneck": "各运行瓶颈相同：{what}",
    "v_different_bottlenecks": "各运行瓶颈不同：{what}",
    "v_fewest_failures": "严格判定失败最少：{w}（占其题目的 {share}）",
    "pair": "{b} 修正 {fixes} 题，破坏 {breaks} 题（相对 {a}；精确 McNemar 检验 p {p}）",
    "pair_tasks": "两者回放的是同样的 {n} 个任务：{a} 相对 {b} 为 {low}-{high} 倍（95 % 区间）",
    "vs": "{a} 对 {b}",
    "by_higher": "高 {x} %", "by_lower": "低 {x} %",
    "by_points": "高 {x} 个百分点", "by_points_lower": "低 {x} 个百分点",
    "list_sep": "；", "item": "{w} {what}",
    "client_bound": "受客户端限制",
    "lengths_differ": "提示长度不同",
    "none_found": "未发现",
    "missing_round": "；{n} 个答案遗漏了题目要求的 ROUND(x, n)",
    "unit_tokens": "token", "unit_steps": "步",
    "bn_concurrency_cap": "并发上限（最多 {cap} 个同时运行）",
    "bn_kv_cache_pressure": "KV 缓存紧张",
    "bn_prefill_drop_under_concurrency": "并发下 Prefill 变慢（排队）",
    "bn_decode_slows_with_batch": "批次变大时 Decode 变慢",
    "bn_failures": "请求失败",
    "bn_prefill_slows_with_length": "提示变长时 Prefill 变慢",
    "bn_none": "未发现",
    "possible": "可能是{what}",
    "na": "不适用",
}

STRINGS = {"en": EN, "zh": ZH}


def _t(lang: str, key: str, **values) -> str:
    return lookup(STRINGS, lang, key, **values)


def _tn(lang: str, key: str, n: int, **values) -> str:
    """`key`, or its "_one" form for a count of one (no "1 cells")."""
    return _t(lang, f"{key}_one" if n == 1 else key, n=n, **values)


def _label(run) -> str:
    """A run's label from a ThroughputRun/SqlRun, a RunInfo, or a ready string."""
    if isinstance(run, str):
        return run
    info = getattr(run, "info", run)
    return info.label


# --------------------------------------------------------------------------- numbers


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"


def _unit_word(unit: str, lang: str) -> str:
    if unit in ("tokens", "steps", "tasks/h"):
        return _t(lang, f"unit_{unit}")
    return unit


def _scaled(unit: str, values: Sequence[float], lang: str) -> tuple[list[str], str]:
    """`values` as numbers on one scale, and the unit to write once after them."""
    if unit == "fraction":
        return [f"{v * 100:.0f}" for v in values], "%"
    if unit == "change":
        return [f"{v * 100:+.0f}" for v in values], "%"
    if unit == "s":
        if max(abs(v) for v in values) < 0.01:  # a time per token: 4.6 ms, not 5
            return [f"{v * 1000:.1f}" for v in values], "ms"
        if max(abs(v) for v in values) < 1:
            return [f"{v * 1000:.0f}" for v in values], "ms"
        return [f"{v:.2f}" for v in values], "s"
    if unit == "steps":
        return [f"{v:.1f}" for v in values], _unit_word(unit, lang)
    if unit == "req/s" and max(abs(v) for v in values) < 10:
        return [f"{v:.2f}" for v in values], unit
    return [_num(v) for v in values], _unit_word(unit, lang)


def number(unit: str, value: float, lang: str = "en") -> str:
    """One figure in its unit: "812 tok/s", "91 ms", "36 %", "-45 %", "1.5 steps"."""
    (text,), u = _scaled(unit, [value], lang)
    return f"{text} {u}".strip()


def _pair_figures(row: DimensionRow, lang: str) -> str:
    p, v = row.verdict.params, row.verdict
    first, second = p["best"], p["second"]
    # A winner's figure comes first ("#2 wins: 812 vs 640"); with none, the figures follow the
    # columns they sit under ("about even: 11,826 vs 16,389" under #1 / #2).
    if (v.status != "win" and v.leader is not None and v.runner_up is not None
            and v.leader > v.runner_up):
        first, second = second, first
    (a, b), u = _scaled(row.unit, [first, second], lang)
    if u == "%":
        return _t(lang, "vs", a=f"{a} %", b=f"{b} %")
    return f"{_t(lang, 'vs', a=a, b=b)} {u}".strip()


def value_text(row: DimensionRow, value: DimValue, lang: str = "en",
               interval: bool = True) -> str:
    """One run's figure in a row: the value, its 95 % interval in brackets when it has one,
    and a mark when it rests on a client-bound cell or other prompt lengths; "n/a" when
    absent."""
    if not value.available:
        return _t(lang, "na")
    if row.scope == "tally":
        return _t(lang, "tally_value", k=value.detail.get("wins", 0))
    if row.key == "bottleneck":
        name = bottleneck_name(value.text or "none", lang, value.detail.get("cap"))
        return _t(lang, "possible", what=name) if value.detail.get("possible") else name
    if row.key == "failure_classes":
        classes = value.detail.get("classes") or []
        from desktop_app.report.judge_words import failure_class_text

        sep = "、" if lang == "zh" else ", "
        text = sep.join(f"{failure_class_text(c, lang)} ×{n}" for c, n in classes) or _t(
            lang, "none_found")
        omitted = value.detail.get("missing_round") or 0
        return text + (_t(lang, "missing_round", n=omitted) if omitted else "")
    est = value.estimate
    nums = [value.value]
    if interval and est is not None and est.has_interval:
        nums += [est.low, est.high]
    texts, u = _scaled(row.unit, nums, lang)
    out = f"{texts[0]} {u}".strip()
    if row.key in ("pass_rate", "tier_pass_rate"):
        out += f" ({value.detail['passed']}/{value.detail['total']})"
    if len(texts) == 3:
        out += f" [{texts[1]} – {texts[2]}]"
    marks = []
    if value.client_bound:
        marks.append(_t(lang, "client_bound"))
    if value.detail.get("lengths_differ"):
        marks.append(_t(lang, "lengths_differ"))
    if marks:
        out += (" (" + "; ".join(marks) + ")") if lang == "en" else ("（" + "；".join(marks)
                                                                       + "）")
    return out


def bottleneck_name(code: str, lang: str = "en", cap: object = None) -> str:
    """A diagnosis code of the bottleneck row in words (the code itself when unknown)."""
    try:
        return _t(lang, f"bn_{code}", cap=cap if cap is not None else "?")
    except KeyError:
        return code.replace("_", " ")


# --------------------------------------------------------------------------- rows


def row_label(row: DimensionRow, lang: str = "en") -> str:
    """The row's dimension in words, e.g. "TTFT p50 (per user): 512 tokens in, 32 out, 4
    concurrent", or "TTFT p50 (per user): every cell" for a figure's tally."""
    if row.scope == "cell":
        p = row.params
        return _t(lang, "row_cell", figure=figure_name(row.key, lang),
                  input=p.get("input_lengths") or p["input_tokens"],
                  output=p.get("output_lengths") or p["output_tokens"],
                  concurrency=p["concurrency"])
    if row.scope == "tally":
        return _t(lang, "row_tally", figure=figure_name(row.key, lang))
    if row.key in figure_keys():  # a figure at one load, all cells (a row built by hand)
        return _t(lang, "row_figure_at", figure=figure_name(row.key, lang),
                  concurrency=row.params.get("concurrency", "?"))
    params = dict(row.params)
    if "judge" in params:
        params["judge"] = judge_name(lang, params["judge"])
    return _t(lang, f"row_{row.key}", **params)


def _p(p: float) -> str:
    if p < 0.0001:
        return "< 0.0001"
    return f"= {p:.4f}" if p < 0.01 else f"= {p:.2f}"


def _by(row: DimensionRow, lang: str) -> str:
    v = row.verdict
    diff = v.params.get("diff")
    if diff is None:
        return "∞"
    x = f"{abs(diff) * 100:.0f}"
    if v.diff_kind == "points":
        return _t(lang, "by_points" if v.better == "higher" else "by_points_lower", x=x)
    return _t(lang, "by_higher" if v.better == "higher" else "by_lower", x=x)


def render_row(row: DimensionRow, runs: Sequence, lang: str = "en") -> str:
    """The row's verdict in words. `runs` are the compared runs in the row's order (runs,
    RunInfos or labels). Raises KeyError for a code this module has no words for."""
    v = row.verdict
    labels = [_label(r) for r in runs]
    p = v.params
    code = v.code
    if code in ("win", "within_noise"):
        figures = _pair_figures(row, lang)
        pair = (_t(lang, "pair", a=labels[p["a"]], b=labels[p["b"]], fixes=p["fixes"],
                   breaks=p["breaks"], p=_p(p["p_value"])) if "fixes" in p else
                _t(lang, "pair_tasks", n=p["paired"], a=labels[p["a"]], b=labels[p["b"]],
                   low=f"{p['ratio_low']:.2f}", high=f"{p['ratio_high']:.2f}")
                if "ratio_low" in p else None)
        if code == "within_noise":
            return (_t(lang, "v_within_noise_paired", figures=figures, pair=pair) if pair
                    else _t(lang, "v_within_noise", figures=figures))
        w = labels[v.winner]
        if pair:
            return _t(lang, "v_win_paired", w=w, figures=figures, pair=pair)
        key = "v_win_wilson" if v.method == "wilson" else "v_win"
        return _t(lang, key, w=w, figures=figures, by=_by(row, lang))
    if code == "below_min_effect":
        return _t(lang, "v_below_min_effect", figures=_pair_figures(row, lang),
                  min=f"{p['min_effect'] * 100:.0f}")
    if code == "no_interval":
        return _t(lang, "v_no_interval", figures=_pair_figures(row, lang))
    if code == "different_tasks":
        return _t(lang, "v_different_tasks",
                  runs=", ".join(f"#{i}" for i in p.get("sql_runs", [])))
    if code == "client_bound":
        return _t(lang, "v_client_bound", runs=", ".join(labels[i] for i in p.get("runs", [])))
    if code == "only_one":
        return _t(lang, "v_only_one", w=labels[p["run"]])
    if code == "same_bottleneck":
        first = next((x for x in row.values if x.text == p["bottleneck"]), None)
        what = (value_text(row, first, lang) if first is not None
                else bottleneck_name(p["bottleneck"], lang))
        return _t(lang, "v_same_bottleneck", what=what)
    if code == "different_bottlenecks":
        items = [_t(lang, "item", w=labels[i], what=value_text(row, row.values[i], lang))
                 for i, c in p["bottlenecks"].items()]
        return _t(lang, "v_different_bottlenecks", what=_t(lang, "list_sep").join(items))
    if code == "tally":
        return _tally_text(row, labels, lang)
    if code == "within_client_lag":
        (lag,), lu = _scaled("s", [p["client_lag_s"]], lang)
        return _t(lang, "v_within_client_lag", figures=_pair_figures(row, lang),
                  lag=f"{lag} {lu}", bound=number(row.unit, p["lag_bound"], lang))
    if code == "fewest_failures":
        return _t(lang, "v_fewest_failures", w=labels[p["run"]], share=f"{p['share'] * 100:.0f} %")
    return _t(lang, f"v_{code}")


# --------------------------------------------------------------------------- tallies, scenarios




def lookup_word(key: str, lang: str = "en") -> str:
    """One of this module's words by key (e.g. "scenarios": the heading)."""
    return _t(lang, key)


def _tally_text(row: DimensionRow, labels: Sequence[str], lang: str) -> str:
    parts = []
    for lv in row.verdict.params["levels"]:
        n = lv["cells"]
        if lv.get("lengths_differ") and not n:
            what = _t(lang, "tally_no_cells")
        elif lv["wins"]:
            bits = [_tn(lang, "tally_wins", n, w=labels[i], k=k)
                    for i, k in sorted(lv["wins"].items())]
            if lv["even"]:
                bits.append(_t(lang, "tally_even_some", k=lv["even"]))
            if lv["undecided"]:
                bits.append(_t(lang, "tally_undecided", k=lv["undecided"]))
            what = _t(lang, "list_sep").join(bits)
        elif lv["even"] == n and n:
            what = _t(lang, "tally_even", n=n)
        else:
            bits = []
            if lv["even"]:
                bits.append(_t(lang, "tally_even_some", k=lv["even"]))
            bits.append(_t(lang, "tally_undecided", k=lv["undecided"]))
            what = _t(lang, "list_sep").join(bits)
        parts.append(_t(lang, "tally_level", concurrency=lv["concurrency"], what=what))
    return _t(lang, "list_sep").join(parts)


def _span(lo: float, hi: float, fmt) -> str:
    a, b = fmt(lo), fmt(hi)
    return a if a == b else f"{a}–{b}"


def _magnitude(ratios: Sequence[float], unit: str, as_cost: bool, lang: str = "en") -> str:
    """How far apart, from a range of ratios (leader / other): a time as a factor ("3.2x"),
    a rate as a percentage ("35 %"). `as_cost`: the same gap seen from the other run."""
    if not ratios:
        return "?"
    lo, hi = min(ratios), max(ratios)
    if unit == "s":  # a shorter time: the other's is 1/r times as long
        if lo <= 0:
            return "∞"
        return _t(lang, "times", x=_span(1 / hi, 1 / lo, lambda x: f"{x:.1f}"))
    if as_cost:  # the other run's rate is 1/r of the leader's: lower by 1 - 1/r
        if lo <= 0:
            return "?"
        return _span(1 - 1 / lo, 1 - 1 / hi, lambda x: f"{x * 100:.0f}") + " %"
    return _span(lo - 1, hi - 1, lambda x: f"{x * 100:.0f}") + " %"


def _scenario_figure(f, labels: Sequence[str], leader: int | None, lang: str) -> str:
    name = _t(lang, f"sf_{f.key}")
    if f.key == "pass_rate":
        if leader is not None and f.wins.get(leader):
            (a, b), _ = _scaled("fraction", [f.values[leader], max(
                v for i, v in f.values.items() if i != leader)], lang)
            return f"{name} {_t(lang, 'vs', a=a + ' %', b=b + ' %')}"
        return _tn(lang, "scf_even", 1, figure=name)
    if leader is not None and f.wins.get(leader):
        by = _t(lang, f"sw_{f.key}", x=_magnitude(f.ratios, f.unit, False, lang))
        wins = "scf_wins_loads" if f.key == "tasks_per_hour" else "scf_wins"
        return _tn(lang, wins, f.cells, by=by, k=f.wins[leader])
    if f.wins:
        items = [_tn(lang, "tally_wins", f.cells, w=labels[i], k=k)
                 for i, k in sorted(f.wins.items())]
        return _t(lang, "scf_split", figure=name, items=_t(lang, "list_sep").join(items))
    if f.even:
        return _tn(lang, "scf_even", f.even, figure=name)
    return _tn(lang, "scf_undecided", f.undecided or f.cells, figure=name)


def scenario_label(scenario, lang: str = "en") -> str:
    """The scenario's name, e.g. "Many concurrent users (TTFT, total throughput)"."""
    return _t(lang, f"sc_{scenario.key}")


def scenario_text(scenario, runs: Sequence, lang: str = "en") -> str:
    """A scenario's verdict in words (`core.compare.scenarios`): who is ahead and by how much
    in how many cells, or why no one is."""
    labels = [_label(r) for r in runs]
    what = _t(lang, "list_sep").join(
        _scenario_figure(f, labels, scenario.leader, lang) for f in scenario.figures)
    if scenario.status == "ahead":
        return _t(lang, "sc_ahead", w=labels[scenario.leader], what=what)
    return _t(lang, {"mixed": "sc_mixed", "even": "sc_even"}.get(scenario.status, "sc_na"),
              what=what)


def trade_off_text(trade, runs: Sequence, lang: str = "en") -> str:
    """The trade-off in one sentence: "#2: each stream decodes 11 % faster, but first tokens
    come 3.2x later and total throughput is 35 % lower"."""
    labels = [_label(r) for r in runs]

    def items(picked, cost: bool) -> list[str]:
        out = []
        for key, ratios, unit, _better in picked:
            tag = "cost" if cost else "gain"
            if key == "pass_rate":
                (a, b), _ = _scaled("fraction", list(ratios), lang)
                a, b = (b, a) if cost else (a, b)
                out.append(_t(lang, f"to_pass_rate_{tag}", a=f"{a} %", b=f"{b} %"))
            else:
                out.append(_t(lang, f"to_{key}_{tag}", x=_magnitude(ratios, unit, cost, lang)))
        return out

    return _t(lang, "trade_off", run=labels[trade.run],
              gains=_t(lang, "and").join(items(trade.gains, False)),
              costs=_t(lang, "and").join(items(trade.costs, True)))
