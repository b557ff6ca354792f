"""The comparison's rows in words, English ("en") or Simplified Chinese ("zh"). No Qt.

The core (`desktop_app.core.compare.dimensions`) decides every row and returns codes and
figures; this module alone turns them into words, for the PDF, the GUI and ``throughline
compare``:

* `row_label(row, lang)`: the dimension, e.g. "TTFT at 4 concurrent (median)";
* `render_row(row, runs, lang)`: the verdict, e.g. "#5 wins: 812 vs 640 tok/s (27 % higher,
  outside both 95 % intervals)" or "about even (within noise): 39,906 vs 37,333 tok/s";
* `value_text(row, value, lang)`: one run's figure with its interval, e.g.
  "812 tok/s [790 – 830]", marked when it rests on a client-bound cell.

Every code of `VERDICT_CODES` has words in both languages (tests/core/test_compare_noise.py
checks the Chinese has no untranslated English).
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_app.core.compare.dimensions import DimensionRow, DimValue
from desktop_app.report.strings import lookup

__all__ = ["LANGS", "bottleneck_name", "number", "render_row", "row_label", "value_text"]

LANGS = ("en", "zh")

EN = {
    "row_prefill": "Prefill at {concurrency} concurrent (mean tok/s per request)",
    "row_prefill_change": "Prefill change at {concurrency} concurrent vs 1",
    "row_ttft": "TTFT at {concurrency} concurrent (median)",
    "row_decode": "Decode at {concurrency} concurrent (mean tok/s per request)",
    "row_bottleneck": "Main bottleneck (diagnosis)",
    "row_pass_rate": "{judge} pass rate",
    "row_tier_pass_rate": "{judge} pass rate, {tier}",
    "row_tier_steps": "Mean steps per question, {tier}",
    "row_tier_tokens": "Mean tokens per question, {tier}",
    "row_failure_classes": "Main failure classes (strict)",
    "judge_strict": "Strict", "judge_tolerant": "Tolerant", "judge_full": "Full",
    "v_win": "{w} wins: {figures} ({by}, outside both 95 % intervals)",
    "v_win_wilson": "{w} wins: {figures} ({by}, outside both 95 % Wilson intervals)",
    "v_win_paired": "{w} wins: {figures}; {pair}",
    "v_within_noise": "about even (within noise): {figures}",
    "v_below_min_effect": "about even: {figures} differ by less than the {min} % that two runs "
                          "of one server drift apart",
    "v_within_noise_paired": "about even (within noise): {figures}; {pair}",
    "v_no_interval": "cannot tell: {figures}, but no spread was recorded for one of them",
    "v_not_comparable_lengths": "not comparable: the runs measured different prompt lengths",
    "v_client_bound": "n/a: client-bound in {runs}, not compared",
    "v_only_one": "n/a: only {w} measured this",
    "v_none": "n/a: no run measured this",
    "v_same_bottleneck": "the same bottleneck in every run: {what}",
    "v_different_bottlenecks": "different bottlenecks: {what}",
    "v_fewest_failures": "fewest strict failures: {w} ({share} of its questions)",
    "pair": "{b} fixes {fixes}, breaks {breaks} against {a} (exact McNemar p {p})",
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
    "na": "n/a",
}

ZH = {
    "row_prefill": "{concurrency} 并发 Prefill（单请求平均 tok/s）",
    "row_prefill_change": "{concurrency} 并发相对单并发的 Prefill 变化",
    "row_ttft": "{concurrency} 并发 TTFT（中位数）",
    "row_decode": "{concurrency} 并发 Decode（单请求平均 tok/s）",
    "row_bottleneck": "主要瓶颈（诊断）",
    "row_pass_rate": "{judge}通过率",
    "row_tier_pass_rate": "{judge}通过率（{tier}）",
    "row_tier_steps": "每题平均步数（{tier}）",
    "row_tier_tokens": "每题平均 token（{tier}）",
    "row_failure_classes": "主要失败类型（严格）",
    "judge_strict": "严格", "judge_tolerant": "容差", "judge_full": "完整",
    "v_win": "{w} 胜出：{figures}（{by}，超出双方的 95 % 置信区间）",
    "v_win_wilson": "{w} 胜出：{figures}（{by}，超出双方的 95 % Wilson 置信区间）",
    "v_win_paired": "{w} 胜出：{figures}；{pair}",
    "v_within_noise": "大致持平（在噪声范围内）：{figures}",
    "v_below_min_effect": "大致持平：{figures} 的差距小于同一服务端两次运行之间的 {min} % 波动",
    "v_within_noise_paired": "大致持平（在噪声范围内）：{figures}；{pair}",
    "v_no_interval": "无法判断：{figures}，但其中一方没有记录离散程度",
    "v_not_comparable_lengths": "无法比较：各运行测量的提示长度不同",
    "v_client_bound": "不适用：{runs} 受客户端限制，不参与比较",
    "v_only_one": "不适用：仅 {w} 测量了此项",
    "v_none": "不适用：没有运行测量此项",
    "v_same_bottleneck": "各运行瓶颈相同：{what}",
    "v_different_bottlenecks": "各运行瓶颈不同：{what}",
    "v_fewest_failures": "严格判定失败最少：{w}（占其题目的 {share}）",
    "pair": "{b} 修正 {fixes} 题，破坏 {breaks} 题（相对 {a}；精确 McNemar 检验 p {p}）",
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
    "bn_kv_cache_pressure": "KV Cache 紧张",
    "bn_prefill_drop_under_concurrency": "并发下 Prefill 变慢（排队）",
    "bn_decode_slows_with_batch": "批次变大时 Decode 变慢",
    "bn_failures": "请求失败",
    "bn_prefill_slows_with_length": "提示变长时 Prefill 变慢",
    "bn_none": "未发现",
    "na": "不适用",
}

STRINGS = {"en": EN, "zh": ZH}


def _t(lang: str, key: str, **values) -> str:
    return lookup(STRINGS, lang, key, **values)


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
    if unit in ("tokens", "steps"):
        return _t(lang, f"unit_{unit}")
    return unit


def _scaled(unit: str, values: Sequence[float], lang: str) -> tuple[list[str], str]:
    """`values` as numbers on one scale, and the unit to write once after them."""
    if unit == "fraction":
        return [f"{v * 100:.0f}" for v in values], "%"
    if unit == "change":
        return [f"{v * 100:+.0f}" for v in values], "%"
    if unit == "s":
        if max(abs(v) for v in values) < 1:
            return [f"{v * 1000:.0f}" for v in values], "ms"
        return [f"{v:.2f}" for v in values], "s"
    if unit == "steps":
        return [f"{v:.1f}" for v in values], _unit_word(unit, lang)
    return [_num(v) for v in values], _unit_word(unit, lang)


def number(unit: str, value: float, lang: str = "en") -> str:
    """One figure in its unit: "812 tok/s", "91 ms", "36 %", "-45 %", "1.5 steps"."""
    (text,), u = _scaled(unit, [value], lang)
    return f"{text} {u}".strip()


def _pair_figures(row: DimensionRow, lang: str) -> str:
    p = row.verdict.params
    (a, b), u = _scaled(row.unit, [p["best"], p["second"]], lang)
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
    if row.key == "bottleneck":
        return bottleneck_name(value.text or "none", lang, value.detail.get("cap"))
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
    """The row's dimension in words, e.g. "Prefill change at 4 concurrent vs 1"."""
    params = dict(row.params)
    if "judge" in params:
        params["judge"] = _t(lang, f"judge_{params['judge']}")
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
                   breaks=p["breaks"], p=_p(p["p_value"])) if "fixes" in p else None)
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
    if code == "client_bound":
        return _t(lang, "v_client_bound", runs=", ".join(labels[i] for i in p.get("runs", [])))
    if code == "only_one":
        return _t(lang, "v_only_one", w=labels[p["run"]])
    if code == "same_bottleneck":
        cap = next((x.detail.get("cap") for x in row.values if x.text == p["bottleneck"]), None)
        return _t(lang, "v_same_bottleneck", what=bottleneck_name(p["bottleneck"], lang, cap))
    if code == "different_bottlenecks":
        items = [_t(lang, "item", w=labels[i], what=bottleneck_name(
            c, lang, row.values[i].detail.get("cap"))) for i, c in p["bottlenecks"].items()]
        return _t(lang, "v_different_bottlenecks", what=_t(lang, "list_sep").join(items))
    if code == "fewest_failures":
        return _t(lang, "v_fewest_failures", w=labels[p["run"]], share=f"{p['share'] * 100:.0f} %")
    return _t(lang, f"v_{code}")
