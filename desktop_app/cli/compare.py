"""`throughline compare`: the comparison's rows in a terminal, or as JSON, headless.

    throughline compare --runs 3,4[,...] [--lang en|zh] [--json OUT] [--db PATH]

Prints what differs between the runs (identity and recorded server settings), then the same
rows the comparison PDF has: the dimension, each run's value with its 95 % interval, and the
verdict, decided on noise (docs/COMPARE.md). `--json OUT` also writes them as JSON (`-` for
stdout instead of the table). Bad input (unknown run ids, fewer than two runs, an unknown
language, a database that does not exist) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from pathlib import Path

from desktop_app.core.parsing import InputError

from desktop_app.cli.common import said, cli_error, global_options, words_lang


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `compare` subcommand."""
    p = sub.add_parser(
        "compare", parents=[global_options()],
        help="compare two or more stored runs in the terminal (or as JSON)",
        description="Set two or more stored runs side by side: what differs between them, "
        "then every dimension with each run's value and 95 % interval and a verdict that "
        "names a winner only outside the noise (docs/COMPARE.md).")
    p.add_argument("--runs", required=True, metavar="ID,ID[,...]",
                   help="run ids to compare, as `throughline runs` lists them")
    p.add_argument("--json", type=Path, default=None, metavar="OUT",
                   help="also write the comparison as JSON to OUT (- for stdout, no table)")
    p.set_defaults(handler=run_compare)


def comparison_json(comp, lang: str, strategies=None) -> dict:
    """The comparison as the JSON `--json` writes (fields in docs/COMPARE.md); `strategies`
    (a `core.compare.StrategyReport`) adds its "strategies" section."""
    from desktop_app.report.strategy_section import strategy_json
    from desktop_app.report.verdicts import render_row, row_label, trade_off_text

    runs = list(comp.runs)
    ids = [r.info.id for r in runs]
    out_runs = [{"id": r.info.id, "name": r.info.name, "kind": r.info.kind,
                 "model": r.info.model, "endpoint": r.info.endpoint, "engine": r.info.engine,
                 "simulated": r.info.simulated, "status": r.info.status} for r in runs]
    rows = []
    for row in comp.rows:
        v = row.verdict
        values = []
        for i, x in enumerate(row.values):
            if not x.available:
                continue
            values.append({"run": ids[i], "value": x.value if x.value is not None else x.text,
                           "low": x.low, "high": x.high, "n": x.n,
                           "client_bound": x.client_bound})
        rows.append({
            "dimension": row.key, "params": row.params, "label": row_label(row, lang),
            "unit": row.unit, "group": row.group, "audience": row.audience,
            "scope": row.scope, "values": values,
            "winner": ids[v.winner] if v.winner is not None else None,
            "significant": v.significant, "method": v.method, "status": v.status,
            "code": v.code, "text": render_row(row, runs, lang)})
    out = {"runs": out_runs,
           "settings_differ": {k: {str(run_id): val for run_id, val in per.items()}
                               for k, per in comp.settings_differ.items()},
           "scenarios": scenarios_json(comp, lang),
           "trade_off": (trade_off_text(comp.trade_off, runs, lang) if comp.trade_off
                         else None),
           "rows": rows}
    if comp.capacities:
        out["capacity"] = capacity_json(comp, lang)
    if strategies:
        out["strategies"] = strategy_json(strategies, lang)
    return out


def _estimate(e) -> dict | None:
    return None if e is None else {"value": e.value, "low": e.low, "high": e.high, "n": e.n}


def capacity_json(comp, lang: str) -> dict:
    """Capacity in tasks (`core.compare.capacity`): per configuration the model's figures and
    a stored replay's measured tasks per hour at each concurrency, then the verdict per
    success criterion (what the PDF's section shows)."""
    from desktop_app.report.sections import criterion_text

    return {
        "configurations": [{
            "label": c.label, "throughput_run": c.throughput_id, "sql_run": c.sql_id,
            "replay_run": c.replay_id, "replayed_sql_run": c.replayed_sql,
            "pass_rates": c.pass_rates,
            "points": [{"concurrency": p.concurrency, "seconds_per_task": p.seconds_per_task,
                        "tasks_per_hour": p.tasks_per_hour,
                        "correct_per_hour": p.correct_per_hour,
                        "reason": p.reason_code,
                        "measured_tasks_per_hour": _estimate(p.measured),
                        "measured_correct_per_hour": _estimate(c.measured_correct_per_hour(p))}
                       for p in c.points]} for c in comp.capacities],
        "criteria": [{"criterion": v.criterion, "source": v.source,
                      "winner": comp.capacities[v.winner].label if v.winner is not None
                      else None, "text": criterion_text(lang, comp, v)}
                     for v in comp.verdicts]}


def _capacity_text(comp, lang: str, w: dict) -> list[str]:
    """The capacity table (model beside measured) and the verdict per criterion, as text."""
    from desktop_app.report.fmt import num, secs
    from desktop_app.report.sections import criterion_name, criterion_text

    def measured(e) -> str:
        return "—" if e is None else f"{num(e.value)} [{num(e.low)}-{num(e.high)}]"

    rows = [[c.label, str(p.concurrency),
             secs(p.seconds_per_task) if p.seconds_per_task is not None else "—",
             num(p.tasks_per_hour) if p.tasks_per_hour is not None else "—",
             measured(p.measured)] for c in comp.capacities for p in c.points]
    colon = "：" if lang == "zh" else ": "
    return ["", w["capacity"], _table(
        [w["config"], w["concurrency"], w["s_task"], w["tasks_h"], w["measured_h"]], rows),
        *(f"- {criterion_name(lang, v.criterion)}{colon}{criterion_text(lang, comp, v)}"
          for v in comp.verdicts)]


def scenarios_json(comp, lang: str) -> list[dict]:
    """The verdict per scenario (`core.compare.scenarios`): its code, status, the run ahead
    (an id, or null), each figure's cells and wins (by run id), and the sentence."""
    from desktop_app.report.verdicts import scenario_label, scenario_text

    runs = list(comp.runs)
    ids = [r.info.id for r in runs]
    return [{"scenario": s.key, "label": scenario_label(s, lang), "status": s.status,
             "ahead": ids[s.leader] if s.leader is not None else None,
             "figures": [{"figure": f.key, "cells": f.cells, "even": f.even,
                          "undecided": f.undecided, "ratios": list(f.ratios),
                          "wins": {str(ids[i]): n for i, n in f.wins.items()}}
                         for f in s.figures],
             "text": scenario_text(s, runs, lang)} for s in comp.scenarios]


# --------------------------------------------------------------------------- the table


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(_width(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(_pad(c, w) for c, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(_pad(c, w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def _setting(v: object) -> str:
    """A setting's value as the engine's flags write it; "—" for not recorded."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v:g}" if isinstance(v, float) else str(v)


def comparison_text(comp, lang: str, strategies=None) -> str:
    """The settings-differ table, then the rows (speed, then quality), then (given a
    `core.compare.StrategyReport`) the strategies compared, as plain text."""
    from desktop_app.report.strategy_section import strategy_text
    from desktop_app.report.verdicts import render_row, row_label, value_text

    from desktop_app.report.cli_words import COMPARE

    w = COMPARE.get(lang, COMPARE["en"])
    runs = list(comp.runs)
    heads = [r.info.label for r in runs]
    out = [w["differs"]]
    if comp.settings_differ:
        out.append(_table([w["setting"], *heads], [
            [k, *(_setting(per.get(r.info.id)) for r in runs)]
            for k, per in comp.settings_differ.items()]))
    else:
        out.append(w["same"])
    if comp.scenarios:
        from desktop_app.report.verdicts import scenario_label, scenario_text, trade_off_text

        colon = "：" if lang == "zh" else ": "
        out += ["", w["scenarios"], *(f"- {scenario_label(s, lang)}{colon}"
                                      f"{scenario_text(s, runs, lang)}" for s in comp.scenarios)]
        if comp.trade_off:
            out.append(f"- {trade_off_text(comp.trade_off, runs, lang)}")
    for group, title in (("throughput", w["speed"]), ("sql", w["quality"])):
        rows = [r for r in comp.rows if r.group == group]
        if not rows:
            continue
        cols = [i for i, r in enumerate(runs) if any(row.values[i].available for row in rows)]
        out += ["", title, _table(
            [w["dimension"], *(heads[i] for i in cols), w["verdict"]],
            [[row_label(row, lang), *(value_text(row, row.values[i], lang) for i in cols),
              render_row(row, runs, lang)] for row in rows])]
    if comp.capacities:
        out += _capacity_text(comp, lang, w)
    if strategies:
        out += strategy_text(strategies, lang, _table)
    if comp.notes:
        from desktop_app.report.strings import note_text

        out += ["", w["notes"], *(f"- {note_text(n, lang)}" for n in comp.notes)]
    return "\n".join(out)


def run_compare(args: argparse.Namespace) -> int:
    """Print the comparison (and write its JSON); returns 0, or raises InputError (turned
    into one line, exit 2)."""
    from desktop_app.cli.report import parse_run_ids
    from desktop_app.core.compare import CompareError, compare, compare_strategies
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    lang = words_lang(args)
    ids = parse_run_ids(args.runs)
    db = resolve_db_path(None)
    if not Path(db).is_file():
        raise cli_error("--db", "no_db", db=db)
    try:
        with Store.open(db) as store:
            comp = compare(store, ids)
            strategies = compare_strategies(comp.runs)
    except StoreError as exc:
        raise said("--db", exc, args) from None
    except CompareError as exc:
        from desktop_app.report.strings import compare_error_text

        raise InputError("--runs", code="said", text=compare_error_text(exc, lang)) from None
    if len(comp.runs) < 2:
        raise cli_error("--runs", "runs_not_comparable")
    if args.json is not None:
        data = json.dumps(comparison_json(comp, lang, strategies), ensure_ascii=False, indent=2,
                          default=str)
        if str(args.json) == "-":
            sys.stdout.write(data + "\n")
            return 0
        try:
            args.json.write_text(data + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError("--json", code="cannot_write", path=args.json,
                             error=exc.strerror or exc) from None
    print(comparison_text(comp, lang, strategies))
    if args.json is not None:
        from desktop_app.report.cli_words import cli_text

        print("\n" + cli_text(lang, "run", "wrote", path=args.json))
    return 0
