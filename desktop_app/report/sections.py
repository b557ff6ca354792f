"""The report's sections as HTML for QTextDocument (Qt's rich-text subset: tables, no flexbox).

Each function takes the Comparison, the language and `add_image(QImage) -> name`, which
registers a chart with the document and returns the name an <img> refers to.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtGui import QImage

from desktop_app.core.compare import Comparison, SqlRun, ThroughputRun
from desktop_app.report import figures, strings, verdicts
from desktop_app.report.fmt import (
    cell_html,
    change,
    config_phrases,
    engine_label,
    num,
    pct,
    secs,
    setting_value,
    settings_groups,
)
from desktop_app.core.sqleval.judges import in_judge_order
from desktop_app.report.strings import judge_definition, judge_name, note_text, text

AddImage = Callable[[QImage], str]
IMAGE_WIDTH = 640  # document pixels: the charts' layout width
MAX_FAILED = 6  # failed questions shown per SQL run

_TABLE = ('<table width="100%" cellspacing="0" cellpadding="3" border="1" '
          'style="border-collapse:collapse;border-color:#999">')
_BREAK = '<h2 style="page-break-before:always">'


def _t(lang: str, key: str, **kw) -> str:
    return escape(text(lang, key, **kw))


def _head(cells: list[str], widths: list[int] | None = None) -> str:
    """A header row; `widths` in percent of the table, one per cell."""
    w = [f' width="{x}%"' for x in widths] if widths else [""] * len(cells)
    # <thead>: Qt repeats the header row on every page a long table runs onto.
    return "<thead><tr>" + "".join(f'<th bgcolor="#e8eef5" align="left"{wi}>{c}</th>'
                                   for c, wi in zip(cells, w)) + "</tr></thead>"


def _row(cells: list[str], shade: bool = False) -> str:
    bg = ' bgcolor="#f7f7f7"' if shade else ""
    return f"<tr{bg}>" + "".join(f'<td valign="top">{c}</td>' for c in cells) + "</tr>"


def _img(add_image: AddImage, fig: figures.Figure) -> str:
    caption, image = fig
    if image is None:
        return f'<p style="color:#666">{escape(caption)}</p>'
    return f'<p align="center"><img src="{add_image(image)}" width="{IMAGE_WIDTH}"/></p>'


# --------------------------------------------------------------------------- page 1, the runs


def _run_block(lang: str, run: ThroughputRun | SqlRun) -> str:
    """One run in detail: its label, endpoint, model and engine, note, what it was asked to do,
    its server settings."""
    info = run.info
    tp = isinstance(run, ThroughputRun)
    lines = []
    if info.notes.strip():
        lines.append(f"<i>{_t(lang, 'run_note')}{_t(lang, 'colon')}</i>{escape(info.notes)}")
    phrases = config_phrases(lang, "throughput" if tp else "sql", info.config)
    if phrases:
        lines.append(f"<i>{_t(lang, 'run_config_tp' if tp else 'run_config_sql')}"
                     f"{_t(lang, 'colon')}</i>" + escape(" · ".join(phrases)))
    groups = settings_groups(lang, info)
    for heading, items in groups:
        lines.append(f"<i>{escape(heading)}{_t(lang, 'colon')}</i>" +
                     escape(" · ".join(items)))
    if not groups:
        lines.append(f'<span style="color:#666">{_t(lang, "settings_none")}</span>')
    ident = " · ".join(escape(x) for x in (info.endpoint, info.model,
                                           engine_label(info.engine, lang)) if x)
    return (f'<p style="margin-bottom:6px"><b>{escape(info.label)}</b> · {ident}<br/>' +
            "<br/>".join(lines) + "</p>")


def _status(lang: str, status: str) -> str:
    key = f"status_{status}"
    return _t(lang, key) if key in _keys() else escape(status)


def _runs_table(comp: Comparison, lang: str) -> str:
    # The endpoint is in "what differs" (when it does) and with each run's settings.
    out = [_TABLE, _head([_t(lang, k) for k in ("col_run", "col_kind", "col_model",
                                                "col_engine", "col_status", "col_started")])]
    for i, r in enumerate(comp.runs):
        info = r.info
        kind = _t(lang, "kind_throughput" if isinstance(r, ThroughputRun) else "kind_sql")
        out.append(_row([f"<b>{escape(info.label)}</b>", kind,
                         escape(info.model), escape(engine_label(info.engine, lang)),
                         _status(lang, info.status),
                         escape(info.started_at[:19].replace("T", " "))], i % 2 == 1))
    out.append("</table>")
    return "\n".join(out)


def summary(comp: Comparison, lang: str, when: str) -> str:
    """Page 1: the title, what was compared (the runs, the settings that differ) and the
    verdict per dimension group: speed (TTFT, Prefill, Decode per concurrency), quality (pass
    rate per judge, the answers that omit a ROUND asked for), capacity in tasks. A winner only
    where the comparison found the difference outside the noise."""
    out = [f'<h1>{_t(lang, "title")}</h1>',
           f'<p>{_t(lang, "subtitle", n=len(comp.runs), when=when)}</p>',
           f'<h2>{_t(lang, "cover")}</h2>', _runs_table(comp, lang)]
    if any(r.info.simulated for r in comp.runs):
        out.append(f'<p style="color:#a04000;font-size:8pt"><b>{_t(lang, "simulated")}</b></p>')
    out.append(differs(comp, lang))
    out.append(f'<h2>{_t(lang, "verdicts")}</h2>'
               f'<p style="font-size:8pt;color:#444">{_t(lang, "verdicts_intro")} '
               f'{_t(lang, "verdicts_intro_cells")}</p>')
    out.append(_scenario_verdicts(comp, lang))
    out.append(f'<h3>{_t(lang, "sum_speed")}</h3>')
    out.append(_speed_verdicts(comp, lang))
    out.append(f'<h3>{_t(lang, "sum_quality")}</h3>')
    out.append(_quality_verdicts(comp, lang))
    if comp.verdicts:
        out.append(f'<h3>{_t(lang, "sum_capacity")}</h3>')
        out.append(_capacity_verdicts(comp, lang))
    return "\n".join(out)


def _capacity_verdicts(comp: Comparison, lang: str) -> str:
    """Per success criterion, each configuration's modelled figure, the one ahead in bold (only
    when the comparison named it: the model has no interval, so a tie or a gap under
    MIN_EFFECT bolds nothing, and the pass rate is the strict pass-rate row's verdict). A list,
    not a table: on page one it may cross the page break."""
    caps = comp.capacities
    out = ["<ul>"]
    for v in comp.verdicts:
        items = []
        for i, f in enumerate(v.figures):
            shown = escape(f"{caps[i].label} " + (_criterion_figure(lang, v.criterion, f, v, i)
                                                   if f is not None else _t(lang, "na")))
            items.append(f"<b>{shown}</b>" if i == v.winner else shown)
        out.append(f"<li><b>{_t(lang, 'crit_' + v.criterion)}</b>{_t(lang, 'colon')}"
                   f"{text(lang, 'list_sep').join(items)}</li>")
    out.append(f'</ul><p style="font-size:8pt;color:#444">{_t(lang, "sum_capacity_note")}')
    if any(v.source == "measured" for v in comp.verdicts):
        out.append(" " + _t(lang, "sum_capacity_measured"))
    out.append("</p>")
    return "\n".join(out)


# The summary's speed rows: what the system delivers, then what each user gets (prefill and
# the rest are on the side-by-side pages).
_SPEED = ("output_tps", "ttft", "decode")


def _scenario_verdicts(comp: Comparison, lang: str) -> str:
    """The verdict per scenario (典型场景选择) and the trade-off, first on the page."""
    if not comp.scenarios:
        return ""
    out = [f'<h3>{escape(verdicts.lookup_word("scenarios", lang))}</h3><ul>']
    for s in comp.scenarios:
        out.append(f"<li><b>{escape(verdicts.scenario_label(s, lang))}</b>{_t(lang, 'colon')}"
                   f"{escape(verdicts.scenario_text(s, comp.runs, lang))}</li>")
    if comp.trade_off:
        out.append(f"<li>{escape(verdicts.trade_off_text(comp.trade_off, comp.runs, lang))}"
                   "</li>")
    out.append("</ul>")
    return "\n".join(out)


def _level_verdict(level: dict, runs, lang: str) -> str:
    """One concurrency of a figure's tally in a few words: "#2 wins 2 of 2 cells", "even in 2
    cells", or why there is none. Decided by the comparison (never here)."""
    n, wins = level["cells"], level["wins"]
    if not n:
        return _t(lang, "sum_not_comparable") if level.get("lengths_differ") else _t(lang, "na")
    if len(wins) == 1:
        (i, k), = wins.items()
        return _t(lang, "sum_cells_won" if n > 1 else "sum_cells_won_one",
                  w=f"#{runs[i].info.id}", k=k, n=n)
    if wins:
        items = text(lang, "list_sep").join(
            _t(lang, "sum_cells_won", w=f"#{runs[i].info.id}", k=k, n=n)
            for i, k in sorted(wins.items()))
        return _t(lang, "sum_cells_mixed", items=items)
    if level["even"]:
        return _t(lang, "sum_cells_even" if level["even"] > 1 else "sum_cells_even_one",
                  n=level["even"])
    return _t(lang, "na")


def _speed_verdicts(comp: Comparison, lang: str) -> str:
    tallies = {r.key: r for r in comp.rows if r.group == "throughput" and r.scope == "tally"}
    if not tallies:
        return f'<p style="color:#666">{_t(lang, "sum_no_tp")}</p>'
    concs = sorted({lv["concurrency"] for r in tallies.values()
                    for lv in r.verdict.params["levels"]})
    out = [_TABLE, _head([_t(lang, "col_dimension")] +
                         [_t(lang, "col_at", c=c) for c in concs])]
    for n, key in enumerate(k for k in _SPEED if k in tallies):
        levels = {lv["concurrency"]: lv for lv in tallies[key].verdict.params["levels"]}
        cells = [f"<b>{escape(verdicts.figure_name(key, lang))}</b>"]
        cells += [_level_verdict(levels[c], comp.runs, lang) if c in levels else _t(lang, "na")
                  for c in concs]
        out.append(_row(cells, n % 2 == 1))
    out.append("</table>")
    return "\n".join(out)


def _quality_verdicts(comp: Comparison, lang: str) -> str:
    rows = [r for r in comp.rows if r.key == "pass_rate"]
    if not rows:
        return f'<p style="color:#666">{_t(lang, "sum_no_sql")}</p>'
    out = ["<ul>"]
    for row in rows:
        out.append(f"<li><b>{escape(verdicts.row_label(row, lang))}</b>{_t(lang, 'colon')}"
                   f"{escape(verdicts.render_row(row, comp.runs, lang))}</li>")
    # The seeds' "15 answers omitted ROUND(x, 2)": counted by the judges' explanations.
    items = [text(lang, "sum_missing_round_run", run=run.info.label, n=omitted,
                  total=len(run.judged))
             for run in comp.sql if (omitted := run.explained().get("missing_round", 0))]
    if items:
        out.append("<li>" + _t(lang, "sum_missing_round",
                               items=text(lang, "list_sep").join(items)) + "</li>")
    out.append("</ul>")
    return "\n".join(out)


def run_details(comp: Comparison, lang: str) -> str:
    """The runs in detail: each run's note, configuration and server settings; the judges;
    the comparison's notes."""
    out = [f'{_BREAK}{_t(lang, "settings")}</h2>']
    out += [_run_block(lang, r) for r in comp.runs]
    if comp.sql:
        tol = next((r.tolerance for r in comp.sql if r.tolerance is not None), 1e-6)
        judges = in_judge_order(j for r in comp.sql for j in r.judges)
        out.append(f'<h3>{_t(lang, "judges")}</h3><ul>')
        out += [f"<li>{judge_definition(lang, j, tol)}</li>" for j in judges]
        out.append("</ul>")
    if comp.notes:
        out.append(f'<h3>{_t(lang, "notes")}</h3>')
        out.append("<ul>")
        out += [f"<li>{escape(note_text(n, lang))}</li>" for n in comp.notes]
        out.append("</ul>")
    return "\n".join(out)


# --------------------------------------------------------------------------- the table


def _run_head(run: ThroughputRun | SqlRun) -> str:
    """A run's column header: its label ("#12 name"), the name in smaller type."""
    info = run.info
    name = (f"<br/><span style='font-size:7pt;font-weight:normal'>{escape(info.name)}</span>"
            if info.name else "")
    return f"#{info.id}{name}"


def differs(comp: Comparison, lang: str) -> str:
    """"What differs between these runs": the recorded settings (and model, engine, endpoint)
    that are not the same in every run, one column per run; or a line saying they are."""
    out = [f'<h3>{_t(lang, "differs")}</h3>']
    if not comp.settings_differ:
        recorded = any(r.info.settings for r in comp.runs)
        out.append(f'<p>{_t(lang, "differs_same" if recorded else "differs_none")}</p>')
        return "\n".join(out)
    out.append(f'<p style="font-size:8pt;color:#444">{_t(lang, "differs_intro")}</p>')
    out += [_TABLE, _head([_t(lang, "col_setting")] + [_run_head(r) for r in comp.runs])]
    for n, (key, values) in enumerate(comp.settings_differ.items()):
        name = _t(lang, _IDENTITY[key]) if key in _IDENTITY else escape(key)
        cells = [f"<b>{name}</b>"]
        for r in comp.runs:
            v = values.get(r.info.id)
            if v is None:
                cells.append(f'<span style="color:#888">{_t(lang, "not_recorded")}</span>')
                continue
            mark = (f' <span style="color:#666">{_t(lang, "mark_user")}</span>'
                    if r.info.settings_source.get(key) == "user" else "")
            shown = engine_label(str(v), lang) if key == "engine" else setting_value(v)
            cells.append(escape(shown) + mark)
        out.append(_row(cells, n % 2 == 1))
    out.append("</table>")
    return "\n".join(out)


_IDENTITY = {"model": "col_model", "engine": "col_engine", "endpoint": "col_endpoint"}


def side_by_side(comp: Comparison, lang: str) -> str:
    """The dimension tables (what differs between the runs is on page 1): one row per
    dimension, a column per run (its value with the 95 % interval), the verdict last. Speed
    rows list the throughput runs, quality rows the SQL runs (a run of the other kind would
    only add a column of n/a)."""
    runs = list(comp.runs)
    out = [f'{_BREAK}{_t(lang, "table")}</h2>', f'<p>{_t(lang, "table_intro")}</p>']
    for title, kind, group in (("table_tp", ThroughputRun, "throughput"),
                               ("table_sql", SqlRun, "sql")):
        cols = [i for i, r in enumerate(runs) if isinstance(r, kind)]
        rows = [row for row in comp.rows if row.group == group]
        if not cols or not rows:
            continue
        share = max(12, 46 // len(cols))  # percent of the width per run column
        out += [f'<h3>{_t(lang, title)}</h3>', _TABLE,
                _head([_t(lang, "col_dimension")] + [_run_head(runs[i]) for i in cols] +
                      [_t(lang, "col_verdict")],
                      widths=[20] + [share] * len(cols) + [max(20, 80 - share * len(cols))])]
        for n, row in enumerate(rows):
            cells = [f"<b>{escape(verdicts.row_label(row, lang))}</b>"]
            cells += [cell_html(lang, row, row.values[i]) for i in cols]
            cells.append(escape(verdicts.render_row(row, runs, lang)))
            out.append(_row(cells, n % 2 == 1))
        out.append("</table>")
    return "\n".join(out)


def grid(comp: Comparison, lang: str) -> str:
    """The seeds' main table: a row per prompt length (and output length, when a sweep used
    several) and concurrency, per throughput run its cell's Prefill tok/s with the change
    against 1 concurrent, Decode tok/s and TTFT, as each cell measured them (the same cells
    and figures the dimension rows compare)."""
    out = [f'{_BREAK}{_t(lang, "grid")}</h2>']
    runs = comp.throughput
    if not runs:
        out.append(f'<p style="color:#666">{_t(lang, "charts_tp_none")}</p>')
        return "\n".join(out)
    out.append(f'<p style="font-size:8pt;color:#444">{_t(lang, "grid_intro")}</p>')
    # A cell whose lengths were drawn has its own row (`CellSpec.shape`), never one of the
    # fixed length it is centred on.
    cells = {(r.info.id, c.spec.shape, c.concurrency): c
             for r in runs for c in reversed(r.closed_loop_cells)}  # the first of a shape
    keys = sorted({k[1:] for k in cells})
    outputs = len({(k[0][1], k[0][3]) for k in keys}) > 1
    lead = [_t(lang, "col_prompt")] + ([_t(lang, "col_output")] if outputs else []) + [
        _t(lang, "col_conc")]
    th = '<th bgcolor="#e8eef5" align="left"'
    first = "".join(f"{th} rowspan=\"2\">{c}</th>" for c in lead) + "".join(
        f'{th} colspan="3">{_run_head(r)}</th>' for r in runs)
    second = "".join(f"{th}>{_t(lang, k)}</th>" for _ in runs
                     for k in ("col_prefill", "col_decode", "col_ttft"))
    out += [_TABLE, f"<thead><tr>{first}</tr><tr>{second}</tr></thead>"]
    na = f'<span style="color:#888">{_t(lang, "na")}</span>'
    for n, (shape, conc) in enumerate(keys):
        length = escape(shape[2]) if shape[2] else f"{shape[0]:,}"
        output = escape(shape[3]) if shape[3] else f"{shape[1]:,}"
        row = [length] + ([output] if outputs else []) + [str(conc)]
        for r in runs:
            c = cells.get((r.info.id, shape, conc))
            if c is None:
                row += [na] * 3
                continue
            vals = [num(c.prefill_tps) if c.prefill_tps is not None else None,
                    num(c.decode_tps) if c.decode_tps is not None else None,
                    secs(c.ttft_s) if c.ttft_s is not None else None]
            if vals[0] is not None and c.prefill_change is not None and conc != 1:
                vals[0] += f" ({change(c.prefill_change)})"
            for v in vals:
                if v is None:
                    row.append(na)
                elif c.client_bound:
                    row.append(f'<span style="color:#a04000">{escape(v)}</span>')
                else:
                    row.append(escape(v))
        out.append(_row(row, n % 2 == 1))
    out.append("</table>")
    return "\n".join(out)


# --------------------------------------------------------------------------- capacity


def capacity(comp: Comparison, lang: str, add_image: AddImage) -> str:
    """Token profile, capacity table, cost per correct answer, chart, verdict per criterion."""
    out = [f'{_BREAK}{_t(lang, "capacity")}</h2>']
    if not comp.capacities:
        out.append(f'<p style="color:#666">{_t(lang, "capacity_none")}</p>')
        return "\n".join(out)
    out.append(f'<p>{_t(lang, "capacity_intro")}</p><ul>')
    names = {r.info.id: r.info.label for r in comp.runs}
    for cap in comp.capacities:
        rates = {j: pct(r) for j, r in cap.pass_rates.items()}
        # The tables and the chart name a configuration "#1 + #4": say here which runs those are.
        label = (f"{cap.label} ({names.get(cap.throughput_id, '?')} + "
                 f"{names.get(cap.sql_id, '?')})")
        out.append("<li>" + _t(lang, "profile", label=label, steps=cap.steps_per_question,
                                p=cap.prompt_tokens_per_step,
                                c=cap.completion_tokens_per_step,
                                strict=rates.get("strict", text(lang, "na")),
                                tolerant=rates.get("tolerant", text(lang, "na"))) + "</li>")
    out.append("</ul>")
    measured = any(p.measured is not None for cap in comp.capacities for p in cap.points)
    out.append(_TABLE + _head([_t(lang, "col_config"), _t(lang, "col_concurrency"),
                               _t(lang, "col_s_task"), _t(lang, "col_tasks_h"),
                               _t(lang, "col_correct_h", judge=judge_name(lang, "strict")),
                               _t(lang, "col_correct_h",
                                  judge=judge_name(lang, "tolerant")),
                               _t(lang, "col_extrap")]
                              + ([_t(lang, "col_measured_h")] if measured else [])))
    i = 0
    for cap in comp.capacities:
        for p in cap.points:
            extra = [_measured_cell(lang, p.measured)] if measured else []
            if p.seconds_per_task is None:
                bg = ' bgcolor="#f7f7f7"' if i % 2 == 1 else ""
                out.append(f'<tr{bg}><td>{escape(cap.label)}</td><td>{p.concurrency}</td>'
                           f'<td colspan="5" style="color:#888">{_t(lang, "na")}'
                           f'{_t(lang, "colon")}{_capacity_reason(lang, p)}</td>'
                           + "".join(f"<td>{c}</td>" for c in extra) + "</tr>")
                i += 1
                continue
            cells = [escape(cap.label), str(p.concurrency), secs(p.seconds_per_task),
                     num(p.tasks_per_hour),
                     num(p.correct_per_hour["strict"]) if "strict" in p.correct_per_hour
                     else _t(lang, "na"),
                     num(p.correct_per_hour["tolerant"])
                     if "tolerant" in p.correct_per_hour else _t(lang, "na"),
                     pct(p.extrapolated_share)] + extra
            out.append(_row(cells, i % 2 == 1))
            i += 1
    out.append("</table>")
    fig = figures.capacity_figure(comp, lang)
    if fig is not None:
        out.append(_img(add_image, fig))
    out.append(f'<h3>{_t(lang, "criteria")}</h3><ul>')
    for v in comp.verdicts:
        out.append(f"<li><b>{_t(lang, 'crit_' + v.criterion)}</b>{_t(lang, 'colon')}"
                   f"{escape(_criterion_text(lang, comp, v))}</li>")
    out.append("</ul>")
    out.append(f'<p style="font-size:8pt;color:#444">{_t(lang, "capacity_model_text")}</p>')
    if measured:
        out.append(f'<p style="font-size:8pt;color:#444">{_t(lang, "capacity_measured_text")}'
                   '</p>')
    judges = in_judge_order(c.judge for cap in comp.capacities for c in cap.costs)
    out.append(f'<h3>{_t(lang, "cost")}</h3><p>{_t(lang, "cost_intro")}</p>' + _TABLE + _head(
        [_t(lang, "col_config"), _t(lang, "col_tier")] +
        [judge_name(lang, j) for j in judges]))
    i = 0
    for cap in comp.capacities:
        tiers = list(dict.fromkeys(c.tier for c in cap.costs))
        for tier in tiers:
            cells = [escape(cap.label),
                     _t(lang, "tier_all" if tier == "all" else f"tier_{tier}")]
            for j in judges:
                c = next((c for c in cap.costs if c.judge == j and c.tier == tier), None)
                if c is None:
                    cells.append(_t(lang, "na"))
                    continue
                na = text(lang, "na")
                cells.append(_t(lang, "cost_cell", passed=f"{c.passed}/{c.questions}",
                                tokens=num(c.tokens_per_pass) if c.tokens_per_pass else na,
                                secs=secs(c.seconds_per_pass) if c.seconds_per_pass else na))
            out.append(_row(cells, i % 2 == 1))
            i += 1
    out.append("</table>")
    out.append(f'<p style="font-size:8pt;color:#444">{_t(lang, "cost_model_text")}</p>')
    return "\n".join(out)


def _capacity_reason(lang: str, point) -> str:
    """Why a capacity point has no figures, in the report's language."""
    key = f"cap_reason_{point.reason_code}"
    return _t(lang, key) if key in _keys() else escape(point.reason or "")


def _measured_cell(lang: str, est) -> str:
    if est is None:
        return _t(lang, "na")
    return _t(lang, "measured_cell", v=num(est.value), low=num(est.low), high=num(est.high))


def _criterion_figure(lang: str, criterion: str, f: float, v=None, i: int | None = None
                      ) -> str:
    if v is not None and v.source == "measured" and i is not None and v.estimates[i]:
        e = v.estimates[i]
        return text(lang, "fig_per_hour_measured", v=num(e.value), low=num(e.low),
                    high=num(e.high), n=v.sessions[i])
    if criterion == "users_dont_wait":
        return text(lang, "fig_s_task", v=secs(f))
    if criterion == "answers_usable":
        return text(lang, "fig_rate", v=pct(f))
    return text(lang, "fig_per_hour", v=num(f))


def criterion_name(lang: str, criterion: str) -> str:
    """A success criterion's name, e.g. "Most usable answers per hour (strict)" (plain text,
    as `criterion_text`; the PDF escapes both)."""
    return text(lang, "crit_" + criterion)


def criterion_text(lang: str, comp: Comparison, v) -> str:
    """A criterion's verdict in words (the PDF's, the window's and the CLI's)."""
    return _criterion_text(lang, comp, v)


def _criterion_text(lang: str, comp: Comparison, v) -> str:
    caps = comp.capacities

    def fig(i: int) -> str:
        return _criterion_figure(lang, v.criterion, v.figures[i], v, i)

    have = [i for i, f in enumerate(v.figures) if f is not None]
    if v.winner is None and len(have) > 1:  # a tie, or closer than the model can tell
        return text(lang, "crit_even", figs=text(lang, "list_sep").join(
            f"{caps[i].label} {fig(i)}" for i in have))
    if v.winner is None:
        return text(lang, "crit_none")
    if len(have) == 1:
        return text(lang, "crit_only", w=caps[v.winner].label, fig=fig(v.winner))
    rest = "; ".join(f"{caps[i].label} {fig(i)}" for i in have if i != v.winner)
    key = "crit_win_measured" if v.source == "measured" else "crit_win"
    return text(lang, key, w=caps[v.winner].label, fig=fig(v.winner), rest=f" ({rest})")


# --------------------------------------------------------------------------- charts, findings


def charts(comp: Comparison, lang: str, add_image: AddImage) -> str:
    out = [f'{_BREAK}{_t(lang, "charts_tp")}</h2>']
    if comp.throughput:
        out += [_img(add_image, f) for f in figures.throughput_figures(comp, lang)]
    else:
        out.append(f'<p style="color:#666">{_t(lang, "charts_tp_none")}</p>')
    out.append(f'{_BREAK}{_t(lang, "charts_sql")}</h2>')
    if comp.sql:
        out += [_img(add_image, f) for f in figures.sql_figures(comp, lang)]
    else:
        out.append(f'<p style="color:#666">{_t(lang, "charts_sql_none")}</p>')
    return "\n".join(out)


def diagnosis(comp: Comparison, lang: str) -> str:
    """The diagnosis per throughput run, its findings in severity order."""
    from desktop_app.report.diagnosis_words import (
        finding_text,
        is_stored_text,
        suggestion_parts,
    )

    out = [f'{_BREAK}{_t(lang, "diagnosis")}</h2>']
    # Runs diagnosed before findings had codes and values (#12) kept English text: say so.
    stored = any(is_stored_text(f) for run in comp.throughput for f in run.findings)
    if stored and text(lang, "english_only"):
        out.append(f'<p style="color:#666">{_t(lang, "english_only")}</p>')
    if not comp.throughput:
        out.append(f'<p style="color:#666">{_t(lang, "charts_tp_none")}</p>')
    for run in comp.throughput:
        out.append(f"<h3>{escape(run.info.label)}</h3>")
        if run.diagnosis_error:
            out.append(f"<p style='color:#a04000'>{escape(run.diagnosis_error)}</p>")
        if not run.findings:
            out.append(f"<p>{_t(lang, 'diagnosis_none', run=run.info.label)}</p>")
            continue
        out.append("<ol>")
        for f in run.findings:
            # The effect the model fitted to the run predicts, on a line of its own.
            suggestion, effect = suggestion_parts(f, lang)
            colon = _t(lang, "colon") if "colon" in _keys() else ": "
            sug = (f"<br/><i>{_t(lang, 'suggestion')}{colon}</i>{escape(suggestion)}"
                   if suggestion else "")
            if effect:
                sug += f"<br/>{escape(effect)}"
            sev = (_t(lang, f"severity_{f.severity}") if f"severity_{f.severity}" in _keys()
                   else escape(f.severity))
            out.append(f"<li><b>[{sev}]</b> {escape(finding_text(f, lang))}{sug}</li>")
        out.append("</ol>")
    return "\n".join(out)


def failed_questions(comp: Comparison, lang: str) -> str:
    """The first failed questions per SQL run, structural failures first, with why (the
    judges' words from `judge_words`, in `lang`); where the run summarised a benchmark's rule,
    the questions on which it and full disagree."""
    from desktop_app.core.sqleval.official import disagreements, official_judges
    from desktop_app.report.judge_words import JudgeWords, disagreement_lines

    words = JudgeWords(lang)
    out = [f'<h2>{_t(lang, "failed")}</h2>']
    if not comp.sql:
        out.append(f'<p style="color:#666">{_t(lang, "charts_sql_none")}</p>')
    for run in comp.sql:
        out.append(f"<h3>{escape(run.info.label)}</h3>")
        # Failed by the strictest of Throughline's judges the run summarised (strict on a set
        # that names its columns, full on an imported one); those failing its most lenient
        # one too (structural) first: rounding-only ones are the cheap fix.
        own = [j for j in run.judges if j not in official_judges([j])] or ["strict"]
        first, last = own[0], own[-1]
        failed = [q for q in run.questions if first in q.verdicts and not q.passed.get(first, True)]
        failed.sort(key=lambda q: (q.passed.get(last, False), q.question_id))
        officials = official_judges(run.judges) if "full" in run.judges else ()
        if officials:
            found = disagreements(((q.question_id, q.epoch, q.verdicts) for q in run.judged),
                                  run.judges)
            lines = disagreement_lines(found, officials, len(run.judged), lang, limit=MAX_FAILED)
            out.append("<p>" + "<br/>".join(escape(line.strip()) for line in lines) + "</p>")
        if not failed:
            out.append(f"<p>{_t(lang, 'failed_none', run=run.info.label)}</p>")
            continue
        for q in failed[:MAX_FAILED]:
            qtext = (q.text_zh if lang == "zh" and q.text_zh else q.text_en)
            strict = [words.finding(f) for f in q.verdicts[first].findings[:2]]
            why = strict + [e for e in map(words.finding, q.findings) if e not in strict][:2]
            klass = words.failure_class(q.failure_class) or "?"
            out.append(
                f"<p><b>{escape(q.question_id)}</b> ({_t(lang, 'tier_' + q.tier)}, "
                f"{_t(lang, 'q_class')}{_t(lang, 'colon')}{escape(klass)})<br/>"
                f'<span style="color:#333">{escape(qtext)}</span><br/>'
                f"<i>{_t(lang, 'q_verdicts')}{_t(lang, 'colon')}</i>"
                f"{escape(words.headline(q.counterfactual))}<br/>"
                f"<i>{_t(lang, 'q_why')}{_t(lang, 'colon')}</i>"
                f"{escape(('' if lang == 'zh' else ' ').join(why))}</p>")
        if len(failed) > MAX_FAILED:
            more = _t(lang, "failed_more", n=len(failed) - MAX_FAILED, run=run.info.label)
            out.append(f"<p style='color:#666'>{more}</p>")
    return "\n".join(out)


_METHODS = ("method_interval", "method_winner", "method_average", "method_scenarios",
            "method_mcnemar", "method_wilson", "method_client_bound")


def appendix(lang: str) -> str:
    """The statistical methods behind the verdicts, every metric definition
    (metrics.DEFINITIONS), the capacity and cost models."""
    out = [f'{_BREAK}{_t(lang, "appendix")}</h2>', f'<h3>{_t(lang, "methods")}</h3><ul>']
    out += [f"<li>{_t(lang, key)}</li>" for key in _METHODS]
    out += ["</ul>", f'<h3>{_t(lang, "metric_defs")}</h3>',
            f'<p>{_t(lang, "appendix_intro")}</p>', _TABLE]
    out.append(_head([_t(lang, "col_term"), _t(lang, "col_definition"), _t(lang, "col_unit")],
                     widths=[24, 64, 12]))
    for i, key in enumerate(strings.TERMS):  # the glossary (docs/GLOSSARY.md)
        name = (f"<b>{escape(strings.term(lang, key))}</b><br/>"
                f'<span style="font-size:7pt;color:#666">{escape(key)}</span>')
        out.append(_row([name, escape(strings.definition(lang, key)),
                         escape(strings.unit(lang, key))], i % 2 == 1))
    out.append("</table>")
    out.append(f'<h3>{_t(lang, "capacity_model")}</h3><p>{_t(lang, "capacity_model_text")}</p>'
               f'<p>{_t(lang, "capacity_measured_text")}</p>'
               f'<p>{_t(lang, "cost_model_text")}</p>')
    return "\n".join(out)


def _keys() -> set[str]:
    from desktop_app.report.strings import EN

    return set(EN)
