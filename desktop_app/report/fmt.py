"""Numbers, dimension labels, cell values and verdicts in the report's language."""

from __future__ import annotations

from html import escape

from desktop_app.core.compare import DimensionRow, DimValue, RowVerdict
from desktop_app.core.compare.dimensions import NOT_COMPARABLE
from desktop_app.report.strings import text


def num(v: float) -> str:
    """tok/s and token counts: thousands separated, one decimal below 100."""
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"


NBSP = "\u00a0"  # keeps a number and its unit on one line in narrow table cells


def secs(v: float) -> str:
    return f"{v:.2f}{NBSP}s" if v >= 1 else f"{v * 1000:.0f}{NBSP}ms"


def pct(v: float) -> str:
    return f"{v * 100:.0f}{NBSP}%"


def change(v: float) -> str:
    return f"{v * 100:+.0f}{NBSP}%"


def value_of(unit: str, v: float) -> str:
    """A row's number in its unit."""
    if unit == "fraction":
        return pct(v)
    if unit == "change":
        return change(v)
    if unit == "s":
        return secs(v)
    if unit == "steps":
        return f"{v:.1f}"
    return num(v)


def row_label(lang: str, row: DimensionRow) -> str:
    """The row's dimension name, e.g. 'Prefill change at 4 concurrent'."""
    params = dict(row.params)
    if "judge" in params:
        params["judge"] = text(lang, f"judge_name_{params['judge']}")
    if "tier" in params:
        params["tier"] = text(lang, f"tier_{params['tier']}")
    return text(lang, f"row_{row.key}", **params)


def code_label(lang: str, code: str, detail: dict) -> str:
    key = f"code_{code}"
    try:
        return text(lang, key, cap=detail.get("cap") or "?")
    except KeyError:
        return code.replace("_", " ")


def cell_html(lang: str, row: DimensionRow, v: DimValue) -> str:
    """One run's value in a row, with its detail in a smaller second line."""
    if not v.available:
        return f'<span style="color:#888">{text(lang, "na")}</span>'
    d = v.detail
    small: list[str] = []
    if row.key == "bottleneck":
        main = code_label(lang, v.text, d) if v.text != "none" else text(lang, "none_found")
        if d.get("doubts"):
            small.append(text(lang, "doubt", codes=", ".join(d["doubts"])))
        return _two(escape(main), small)
    if row.key == "failure_classes":
        classes = d.get("classes") or []
        main = ", ".join(f"{c} ×{n}" for c, n in classes) or text(lang, "none_found")
        return _two(escape(main), small)
    main = value_of(row.unit, v.value)
    if row.key in ("prefill_c1",) and "min" in d and d["min_tokens"] != d["max_tokens"]:
        lo_n, hi_n = sorted((d["min_tokens"], d["max_tokens"]))
        small.append(text(lang, "range", lo=num(d["min"]), hi=num(d["max"]), lo_n=lo_n,
                          hi_n=hi_n))
    if row.key == "decode_c1" and "loaded_min" in d:
        small.append(text(lang, "under_load", lo=num(d["loaded_min"]), hi=num(d["loaded_max"])))
    if row.key == "ttft_longest":
        small.append(text(lang, "at_tokens", n=d.get("tokens")))
        if "top_ttft_s" in d:
            small.append(text(lang, "at_top", v=secs(d["top_ttft_s"]), c=d["top_concurrency"]))
    if row.key in ("pass_rate", "tier_pass_rate"):
        main += f" ({d['passed']}/{d['total']})"
        if "tolerant_passed" in d:
            small.append(text(lang, "tolerant_short", n=d["tolerant_passed"]))
    if row.key == "tier_tokens":
        small.append(text(lang, "prompt_completion", p=num(d["prompt"]), c=num(d["completion"])))
    if d.get("lengths_differ") or d.get("lengths_note"):
        small.append(text(lang, "lengths_differ"))
    return _two(main, small)


def _two(main: str, small: list[str]) -> str:
    if not small:
        return main
    return f'{main}<br/><span style="font-size:7pt;color:#555">{escape("; ".join(small))}</span>'


def verdict_text(lang: str, row: DimensionRow, labels: list[str]) -> str:
    """The row's verdict in words, from the core's structured verdict."""
    v: RowVerdict = row.verdict
    if v.status == "n/a":
        have = [i for i, x in enumerate(row.values) if x.available]
        if v.text == NOT_COMPARABLE:
            return text(lang, "v_na_lengths")
        if row.key in ("bottleneck", "failure_classes"):
            return text(lang, "v_na_kind")
        if len(have) == 1:
            return text(lang, "v_na_one", w=labels[have[0]])
        return text(lang, "v_na_none")
    if row.key == "bottleneck":
        same = len({x.text for x in row.values if x.text is not None}) == 1
        return text(lang, "v_same_bottleneck" if same else "v_diff_bottleneck")
    if row.key == "failure_classes":
        d = row.values[v.winner].detail
        share = pct(d["failures"] / max(d["questions"], 1))
        return text(lang, "v_fewest_failures", w=labels[v.winner], share=share)
    best, second = row.values[v.winner].value, row.values[v.runner_up].value
    a, b = value_of(row.unit, best), value_of(row.unit, second)
    if v.status == "tie":
        return text(lang, "v_tie", a=a, b=b)
    if v.diff_kind == "points":
        by = text(lang, "by_points", x=f"{abs(best - second) * 100:.0f}")
    elif v.better == "higher":
        by = (text(lang, "by_higher", x=pct(best / second - 1)) if second
              else text(lang, "by_higher", x="∞"))
    else:
        by = text(lang, "by_lower", x=pct(1 - best / second)) if second else ""
    return text(lang, "v_win", w=labels[v.winner], a=a, b=b, by=by)
