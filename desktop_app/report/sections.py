"""The report's sections as HTML for QTextDocument (Qt's rich-text subset: tables, no flexbox).

Each function takes the Comparison, the language and `add_image(QImage) -> name`, which
registers a chart with the document and returns the name an <img> refers to.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtGui import QImage

from desktop_app.core.compare import Comparison, SqlRun, ThroughputRun
from desktop_app.core.metrics import DEFINITIONS
from desktop_app.report import figures, verdicts
from desktop_app.report.fmt import (
    cell_html,
    config_phrases,
    num,
    pct,
    secs,
    setting_value,
    settings_groups,
)
from desktop_app.report.strings import text

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


# --------------------------------------------------------------------------- cover


def _run_block(lang: str, run: ThroughputRun | SqlRun) -> str:
    """One run on the cover: its label, note, what it was asked to do, its server settings."""
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
    return (f'<p style="margin-bottom:6px"><b>{escape(info.label)}</b><br/>' +
            "<br/>".join(lines) + "</p>")


def _status(lang: str, status: str) -> str:
    key = f"status_{status}"
    return _t(lang, key) if key in _keys() else escape(status)


def cover(comp: Comparison, lang: str, when: str) -> str:
    """Title, the runs compared (endpoint, model, engine, times), their settings, the judges."""
    out = [f'<h1>{_t(lang, "title")}</h1>',
           f'<p>{_t(lang, "subtitle", n=len(comp.runs), when=when)}</p>',
           f'<h2>{_t(lang, "cover")}</h2>', _TABLE,
           _head([_t(lang, k) for k in ("col_run", "col_kind", "col_endpoint", "col_model",
                                        "col_engine", "col_status", "col_started")])]
    for i, r in enumerate(comp.runs):
        info = r.info
        kind = _t(lang, "kind_throughput" if isinstance(r, ThroughputRun) else "kind_sql")
        out.append(_row([f"<b>{escape(info.label)}</b>", kind, escape(info.endpoint),
                         escape(info.model), escape(info.engine), _status(lang, info.status),
                         escape(info.started_at[:19].replace("T", " "))], i % 2 == 1))
    out.append("</table>")
    out.append(f'<h3>{_t(lang, "settings")}</h3>')
    out += [_run_block(lang, r) for r in comp.runs]
    if comp.sql:
        tol = next((r.tolerance for r in comp.sql if r.tolerance is not None), 1e-6)
        judges = sorted({j for r in comp.sql for j in r.judges},
                        key=("strict", "tolerant", "full").index)
        out.append(f'<h3>{_t(lang, "judges")}</h3><ul>')
        out += [f"<li>{_t(lang, f'judge_{j}', tol=f'{tol:g}')}</li>" for j in judges]
        out.append("</ul>")
    if any(r.info.simulated for r in comp.runs):
        out.append(f'<p style="color:#a04000"><b>{_t(lang, "simulated")}</b></p>')
    if comp.notes:
        out.append(f'<h3>{_t(lang, "notes")}</h3>')
        if text(lang, "english_only"):
            out.append(f'<p style="color:#666">{_t(lang, "english_only")}</p>')
        out.append("<ul>")
        out += [f"<li>{escape(n)}</li>" for n in comp.notes]
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
            cells.append(escape(setting_value(v)) + mark)
        out.append(_row(cells, n % 2 == 1))
    out.append("</table>")
    return "\n".join(out)


_IDENTITY = {"model": "col_model", "engine": "col_engine", "endpoint": "col_endpoint"}


def side_by_side(comp: Comparison, lang: str) -> str:
    """What differs between the runs, then the dimension tables: one row per dimension, a
    column per run (its value with the 95 % interval), the verdict last. Speed rows list the
    throughput runs, quality rows the SQL runs (a run of the other kind would only add a column
    of n/a)."""
    runs = list(comp.runs)
    out = [f'{_BREAK}{_t(lang, "table")}</h2>', differs(comp, lang),
           f'<p>{_t(lang, "table_intro")}</p>']
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
    out.append(_TABLE + _head([_t(lang, "col_config"), _t(lang, "col_concurrency"),
                               _t(lang, "col_s_task"), _t(lang, "col_tasks_h"),
                               _t(lang, "col_correct_h", judge=text(lang, "judge_name_strict")),
                               _t(lang, "col_correct_h",
                                  judge=text(lang, "judge_name_tolerant")),
                               _t(lang, "col_extrap")]))
    i = 0
    for cap in comp.capacities:
        for p in cap.points:
            if p.seconds_per_task is None:
                bg = ' bgcolor="#f7f7f7"' if i % 2 == 1 else ""
                out.append(f'<tr{bg}><td>{escape(cap.label)}</td><td>{p.concurrency}</td>'
                           f'<td colspan="5" style="color:#888">{_t(lang, "na")}: '
                           f'{escape(p.reason or "")}</td></tr>')
                i += 1
                continue
            else:
                cells = [escape(cap.label), str(p.concurrency), secs(p.seconds_per_task),
                         num(p.tasks_per_hour),
                         num(p.correct_per_hour["strict"]) if "strict" in p.correct_per_hour
                         else _t(lang, "na"),
                         num(p.correct_per_hour["tolerant"])
                         if "tolerant" in p.correct_per_hour else _t(lang, "na"),
                         pct(p.extrapolated_share)]
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
    judges = [j for j in ("strict", "tolerant", "full")
              if any(c.judge == j for cap in comp.capacities for c in cap.costs)]
    out.append(f'<h3>{_t(lang, "cost")}</h3><p>{_t(lang, "cost_intro")}</p>' + _TABLE + _head(
        [_t(lang, "col_config"), _t(lang, "col_tier")] +
        [_t(lang, f"judge_name_{j}") for j in judges]))
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


def _criterion_text(lang: str, comp: Comparison, v) -> str:
    caps = comp.capacities

    def fig(f: float) -> str:
        if v.criterion == "users_dont_wait":
            return text(lang, "fig_s_task", v=secs(f))
        if v.criterion == "answers_usable":
            return text(lang, "fig_rate", v=pct(f))
        return text(lang, "fig_per_hour", v=num(f))

    if v.winner is None:
        return text(lang, "crit_none")
    have = [i for i, f in enumerate(v.figures) if f is not None]
    if len(have) == 1:
        return text(lang, "crit_only", w=caps[v.winner].label, fig=fig(v.figures[v.winner]))
    rest = "; ".join(f"{caps[i].label} {fig(v.figures[i])}" for i in have if i != v.winner)
    return text(lang, "crit_win", w=caps[v.winner].label, fig=fig(v.figures[v.winner]),
                rest=f" ({rest})")


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


def findings(comp: Comparison, lang: str) -> str:
    """The diagnosis per throughput run and the top failed questions per SQL run."""
    return diagnosis(comp, lang) + "\n" + failed_questions(comp, lang)


def diagnosis(comp: Comparison, lang: str) -> str:
    """The diagnosis per throughput run, its findings in severity order."""
    out = [f'{_BREAK}{_t(lang, "diagnosis")}</h2>']
    if text(lang, "english_only"):
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
            sug = (f"<br/><i>{_t(lang, 'suggestion')}:</i> {escape(f.suggestion)}"
                   if f.suggestion else "")
            sev = (_t(lang, f"severity_{f.severity}") if f"severity_{f.severity}" in _keys()
                   else escape(f.severity))
            out.append(f"<li><b>[{sev}]</b> {escape(f.message)}{sug}</li>")
        out.append("</ol>")
    return "\n".join(out)


def failed_questions(comp: Comparison, lang: str) -> str:
    """The first failed questions per SQL run, structural failures first, with why."""
    out = [f'<h2>{_t(lang, "failed")}</h2>']
    if not comp.sql:
        out.append(f'<p style="color:#666">{_t(lang, "charts_sql_none")}</p>')
    for run in comp.sql:
        out.append(f"<h3>{escape(run.info.label)}</h3>")
        failed = [q for q in run.questions if not q.passed.get("strict", True)]
        # Structural failures (failing tolerant too) first: rounding-only ones are the cheap fix.
        failed.sort(key=lambda q: (q.passed.get("tolerant", False), q.question_id))
        if not failed:
            out.append(f"<p>{_t(lang, 'failed_none', run=run.info.label)}</p>")
            continue
        for q in failed[:MAX_FAILED]:
            qtext = (q.text_zh if lang == "zh" and q.text_zh else q.text_en)
            why = list(q.strict_findings[:2]) + [e for e in q.explanations
                                                 if e not in q.strict_findings][:2]
            out.append(
                f"<p><b>{escape(q.question_id)}</b> ({_t(lang, 'tier_' + q.tier)}, "
                f"{_t(lang, 'q_class')}{_t(lang, 'colon')}{escape(q.failure_class or '?')})<br/>"
                f'<span style="color:#333">{escape(qtext)}</span><br/>'
                f"<i>{_t(lang, 'q_verdicts')}{_t(lang, 'colon')}</i>{escape(q.counterfactual)}<br/>"
                f"<i>{_t(lang, 'q_why')}{_t(lang, 'colon')}</i>{escape(' '.join(why))}</p>")
        if len(failed) > MAX_FAILED:
            more = _t(lang, "failed_more", n=len(failed) - MAX_FAILED, run=run.info.label)
            out.append(f"<p style='color:#666'>{more}</p>")
    return "\n".join(out)


# The report's own figures, defined beside the throughput metrics.
_REPORT_DEFINITIONS = ("pass_rate", "mean_steps", "mean_tokens", "failure_class",
                       "seconds_per_task", "tasks_per_hour", "correct_per_hour",
                       "tokens_per_pass")


_METHODS = ("method_interval", "method_winner", "method_average", "method_mcnemar",
            "method_wilson", "method_client_bound")


def appendix(lang: str) -> str:
    """The statistical methods behind the verdicts, every metric definition
    (metrics.DEFINITIONS), the capacity and cost models."""
    out = [f'{_BREAK}{_t(lang, "appendix")}</h2>', f'<h3>{_t(lang, "methods")}</h3><ul>']
    out += [f"<li>{_t(lang, key)}</li>" for key in _METHODS]
    out += ["</ul>", f'<h3>{_t(lang, "metric_defs")}</h3>',
            f'<p>{_t(lang, "appendix_intro")}</p>', _TABLE]
    keys = [*DEFINITIONS, *_REPORT_DEFINITIONS]
    for i, key in enumerate(keys):
        words = text(lang, f"def_{key}") if f"def_{key}" in _keys() else DEFINITIONS[key]
        out.append(_row([f"<b>{escape(key)}</b>", escape(words)], i % 2 == 1))
    out.append("</table>")
    out.append(f'<h3>{_t(lang, "capacity_model")}</h3><p>{_t(lang, "capacity_model_text")}</p>'
               f'<p>{_t(lang, "cost_model_text")}</p>')
    return "\n".join(out)


def _keys() -> set[str]:
    from desktop_app.report.strings import EN

    return set(EN)
