"""The report's charts, built from a Comparison: each a (QImage, alt text) or a note why not."""

from __future__ import annotations

from statistics import fmean

from PySide6.QtGui import QImage

from desktop_app.core.compare import Comparison, SqlRun, ThroughputRun
from desktop_app.core.sqleval.types import TIERS
from desktop_app.report.charts import PALETTE, Bars, Series, bar_chart, line_chart
from desktop_app.report.strings import FONT_FAMILIES, judge_name, text

Figure = tuple[str, QImage | None]  # (caption or the note when there is no image, image)


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _per_length(comp: Comparison, attr: str) -> list[Series]:
    """One series per (run, concurrency): color by concurrency, line style by run."""
    concs = sorted({c for r in comp.throughput for c in r.concurrencies()})
    series = []
    many = len(comp.throughput) > 1
    for k, run in enumerate(comp.throughput):
        for conc in run.concurrencies():
            pts = tuple((c.input_tokens, getattr(c, attr)) for c in run.cells
                        if c.concurrency == conc and getattr(c, attr) is not None)
            if pts:
                name = (f"{run.info.label} c={conc}" if many else f"c={conc}")
                series.append(Series(name, pts, _color(concs.index(conc)), style=k))
    return series


def throughput_figures(comp: Comparison, lang: str) -> list[Figure]:
    """Prefill, decode and TTFT against prompt length per concurrency; change against
    concurrency 1; the server's queue/KV timeline per run."""
    fam = FONT_FAMILIES[lang]
    out: list[Figure] = []
    for key, attr, axis in (("chart_prefill", "prefill_tps", "axis_tps"),
                            ("chart_decode", "decode_tps", "axis_tps"),
                            ("chart_ttft", "ttft_s", "axis_s")):
        series = _per_length(comp, attr)
        title = text(lang, key)
        if not series:
            out.append((f"{title}: {text(lang, 'na')}", None))
            continue
        out.append((title, line_chart(title, text(lang, "axis_prompt"), text(lang, axis),
                                      series, fam)))
    series = []
    for k, run in enumerate(comp.throughput):
        for j, (attr, label) in enumerate((("prefill_change", "series_prefill"),
                                           ("decode_change", "series_decode"))):
            pts = []
            for conc in run.concurrencies():
                vals = [getattr(c, attr) for c in run.cells
                        if c.concurrency == conc and getattr(c, attr) is not None]
                if vals:
                    pts.append((conc, fmean(vals) * 100))
            if pts:
                series.append(Series(f"{run.info.label} {text(lang, label)}", tuple(pts),
                                     _color(2 * k + j), style=j))
    title = text(lang, "chart_change")
    out.append((title, line_chart(title, text(lang, "axis_concurrency"),
                                  text(lang, "axis_change"), series, fam, log_x=False,
                                  y_zero=True) if series else None))
    for run in comp.throughput:
        out.append(_timeline(run, lang))
    return out


def _timeline(run: ThroughputRun, lang: str) -> Figure:
    samples = [s for s in run.samples if s.running is not None or s.waiting is not None]
    if not samples:
        return text(lang, "chart_timeline_none", run=run.info.label), None
    if not any(s.running or s.waiting for s in samples):
        return text(lang, "chart_timeline_idle", run=run.info.label, n=len(samples)), None
    series = [
        Series(text(lang, "series_running"),
               tuple((s.t_s, s.running) for s in samples if s.running is not None), PALETTE[0]),
        Series(text(lang, "series_waiting"),
               tuple((s.t_s, s.waiting) for s in samples if s.waiting is not None), PALETTE[1]),
    ]
    kv = tuple((s.t_s, s.kv_cache_usage) for s in samples if s.kv_cache_usage is not None)
    if kv:
        series.append(Series(text(lang, "series_kv"), kv, PALETTE[2], style=1, right=True))
    title = text(lang, "chart_timeline", run=run.info.label)
    return title, line_chart(title, text(lang, "axis_time"), text(lang, "axis_requests"), series,
                             FONT_FAMILIES[lang], log_x=False, integer_y=True, time_x=True,
                             y2_label=text(lang, "axis_kv") if kv else None)


def sql_figures(comp: Comparison, lang: str) -> list[Figure]:
    """Pass rate by tier per judge; mean tokens per tier (prompt with completion on top)."""
    fam = FONT_FAMILIES[lang]
    runs: list[SqlRun] = comp.sql
    tiers = [t for t in TIERS if any(t in r.tiers for r in runs)]
    groups = [text(lang, f"tier_{t}") for t in tiers]
    bars, k = [], 0
    for run in runs:
        for judge in ("strict", "tolerant"):
            s = run.summary.get(judge)
            if s is None:
                continue
            vals = tuple((s.by_tier[t][0] / s.by_tier[t][1]) if t in s.by_tier and
                         s.by_tier[t][1] else None for t in tiers)
            bars.append(Bars(f"{run.info.label} {judge_name(lang, judge)}", vals,
                             _color(k)))
            k += 1
    title = text(lang, "chart_pass_tier")
    out: list[Figure] = [(title, bar_chart(title, groups, bars, text(lang, "axis_rate"), fam,
                                           percent=True, na=text(lang, "na")))]
    bars = []
    for k, run in enumerate(runs):
        prompt = tuple(run.tiers[t].mean_prompt_tokens if t in run.tiers else None
                       for t in tiers)
        compl = tuple(run.tiers[t].mean_completion_tokens if t in run.tiers else None
                      for t in tiers)
        bars.append(Bars(run.info.label, prompt, _color(k), stack=compl))
    title = text(lang, "chart_tokens_tier")
    out.append((title, bar_chart(title, groups, bars, text(lang, "axis_tokens"), fam,
                                 na=text(lang, "na"))))
    return out


def capacity_figure(comp: Comparison, lang: str) -> Figure | None:
    """Correct answers per hour against concurrency, per configuration and judge."""
    series = []
    for k, cap in enumerate(comp.capacities):
        for j, judge in enumerate(("strict", "tolerant")):
            pts = tuple((p.concurrency, p.correct_per_hour[judge]) for p in cap.points
                        if judge in p.correct_per_hour)
            if pts:
                series.append(Series(f"{cap.label} {judge_name(lang, judge)}", pts,
                                     _color(k), style=j))
        measured = tuple((p.concurrency, e.value) for p in cap.points
                         if (e := cap.measured_correct_per_hour(p)) is not None)
        if measured:  # beside the model: what a replay of the conversations measured
            series.append(Series(text(lang, "chart_measured", label=cap.label,
                                      judge=judge_name(lang, "strict")), measured,
                                 _color(k), style=2))
    if not series:
        return None
    title = text(lang, "chart_capacity_measured" if any(x.style == 2 for x in series)
                 else "chart_capacity")
    return title, line_chart(title, text(lang, "axis_concurrency"), text(lang, "axis_per_hour"),
                             series, FONT_FAMILIES[lang], log_x=False)
