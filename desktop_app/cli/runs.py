"""`throughline runs`: the stored runs, a line each."""

from __future__ import annotations

import argparse

from desktop_app.cli.common import CliError, global_options, words_lang


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `runs` subcommand."""
    runs = sub.add_parser("runs", parents=[global_options()], help="list stored runs")
    runs.add_argument("--kind", choices=["throughput", "sql", "replay"])
    runs.add_argument("--status")
    runs.add_argument("--limit", type=int, default=50)
    runs.set_defaults(handler=run_runs)


def run_runs(args: argparse.Namespace) -> int:
    from desktop_app.core.overview import overview
    from desktop_app.core.runs import run_info
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    path = resolve_db_path(None)
    try:
        with Store.open(path) as store:
            runs = [overview(store, run_info(r)) for r in
                    store.list_runs(kind=args.kind, status=args.status, limit=args.limit)]
    except StoreError as exc:
        from desktop_app.report.errors import error_text

        raise CliError(error_text(exc, words_lang(args))) from None
    lang = words_lang(args)
    w = _RUNS_WORDS[lang]
    if not runs:
        print(w["none"].format(path=path))
        return 0
    from desktop_app.cli.compare import _table
    from desktop_app.report.strings import text

    def word(prefix: str, value: str) -> str:
        try:
            return text(lang, f"{prefix}_{value}")
        except KeyError:
            return value

    rows = []
    for o in runs:
        run = o.info
        started = (run.started_at or "")[:16].replace("T", " ")
        rows.append([str(run.id), word("kind", run.kind), word("status", run.status), started,
                     run.name[:40], _run_result(o, w)[:44], run.model[:24], run.endpoint])
    print(_table(w["head"], rows))
    return 0


_RUNS_WORDS = {
    "en": {"none": "No runs in {path}", "cells": "{done}/{total} cells {loads}",
           "unfinished": " +{n} unfinished", "replay": "{n} agent(s) {tph:,.0f} tasks/h",
           "head": ["id", "kind", "status", "started", "name", "result", "model", "endpoint"]},
    "zh": {"none": "{path} 中没有运行记录", "cells": "{done}/{total} 个单元 {loads}",
           "unfinished": " +{n} 道未完成", "replay": "{n} 个智能体 每小时 {tph:,.0f} 个任务",
           "head": ["编号", "类型", "状态", "开始时间", "名称", "结果", "模型", "端点"]},
}


def _run_result(o, w: dict) -> str:
    """A sweep's cells and loads, or a SQL run's pass counts: the figures every view shows."""
    if o.info.kind == "throughput":
        return w["cells"].format(done=o.cells_finished, total=o.cells, loads=",".join(o.loads))
    if o.info.kind == "replay":
        return "; ".join(w["replay"].format(n=n, tph=tph) for n, tph in o.tasks_per_hour)
    parts = []
    for judge, count in o.passes.items():
        text = f"{judge} {count.text}"
        if count.unfinished:
            text += w["unfinished"].format(n=count.unfinished)
        parts.append(text)
    return "; ".join(parts)
