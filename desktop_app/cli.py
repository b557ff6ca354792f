"""The command line: `throughline` starts the app; its subcommands run every job headless.

Subcommands import what they need when they run, so `--help` stays fast and a headless command
never loads Qt.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from pathlib import Path

from desktop_app import __version__
from desktop_app.core.files import absolute

EXIT_USAGE = 2

_EPILOG = """\
Headless commands work without a display, e.g.:
  throughline demo --out demo                       the whole product on the simulator (~2 min)
  throughline sim --profile fast --port 8000        serve the built-in simulated endpoint
  throughline whatif --profile seed-reference --input-tokens 2k,32k --concurrency 1,2,4,6
  throughline throughput --simulator fast --input-tokens 512,2k --concurrency 1,4
  throughline sqleval --simulator fast --model sim/seed-reference --json out.json
  throughline sql --db sales-25:sales "SELECT COUNT(*) FROM orders"
  throughline runs                                  list stored runs
  throughline compare --runs 3,4                    two runs side by side, verdicts on noise
  throughline export --run 12 --format csv --out results   a run as CSV (or json)
  throughline import profile_export_aiperf.json     store AIPerf/vLLM/GuideLLM results
  throughline resume 12 --simulator fast            finish interrupted sweep 12
"""


class CliError(Exception):
    """A problem with the user's input or environment, shown as one line."""


class _VersionAction(argparse.Action):
    """`--version`: what a bug report needs; Qt is imported only when asked (the parser stays
    light)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def version_text() -> str:
    import platform

    try:
        import PySide6
        from PySide6.QtCore import qVersion

        qt = f"Qt {qVersion()}, PySide6 {PySide6.__version__}"
    except ImportError as exc:  # a broken install still says what it is
        qt = f"Qt not importable ({exc})"
    return (f"throughline {__version__} ({qt}, Python {platform.python_version()}, "
            f"{platform.system()} {platform.machine()})")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `throughline` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="throughline",
        description="Benchmark LLM serving endpoints for speed (throughput sweeps) and quality "
        "(agentic text-to-SQL evaluation). Without a subcommand, starts the desktop app.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print the versions of Throughline, Qt, PySide6 and Python, and exit")
    parser.add_argument(
        "--db",
        metavar="PATH",
        help="results database (default: $THROUGHLINE_DB, else the user data folder)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = sub.add_parser("gui", help="start the desktop app (the default)")
    gui.add_argument(
        "--simulator-profile",
        default="fast",
        metavar="NAME",
        help="profile of the built-in simulated endpoint the app starts with (default: fast)",
    )
    gui.add_argument(
        "--screenshots",
        type=Path,
        metavar="DIR",
        help="run a small sweep and two SQL evaluations on the built-in simulator (profile "
        "instant; results in a throwaway database unless --db is given), save a PNG of every "
        "page into DIR, print the paths and exit; works offscreen (QT_QPA_PLATFORM=offscreen)",
    )
    gui.add_argument(
        "--lang",
        choices=("system", "en", "zh_CN"),
        help="language of the window this time (default: the one chosen in the app's Settings "
        "menu, at first the system's)",
    )

    sim = sub.add_parser("sim", help="serve the built-in simulated endpoint in the foreground")
    sim.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    sim.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any free)")
    sim.add_argument("--profile", default="fast", help="simulator profile name or .toml path")
    sim.add_argument(
        "--faults",
        metavar="SPEC",
        help="inject faults, e.g. 'reset=0.1,http429=0.05,seed=7' (see docs/SIMULATOR.md)",
    )

    whatif = sub.add_parser(
        "whatif", help="what a sweep would measure on a simulator profile, in virtual time"
    )
    whatif.add_argument("--profile", default="seed-reference", help="profile name or .toml path")
    whatif.add_argument("--input-tokens", default="2k,4k,8k,16k,32k", metavar="LIST")
    whatif.add_argument("--concurrency", default="1,2,4,6", metavar="LIST")
    whatif.add_argument("--output-tokens", default="256", metavar="LIST")
    whatif.add_argument(
        "--requests",
        default="wave",
        metavar="wave|sweep|N",
        help="wave (default): each client sends one request, all at once, as the seed reports "
        "measured; sweep: closed loop of max(4 x concurrency, 8) requests like the throughput "
        "sweep; N: closed loop of N requests per cell",
    )
    whatif.add_argument("--json", type=Path, metavar="OUT", help="also write every metric as JSON")
    whatif.add_argument("--from-run", type=int, metavar="RUN_ID",
                        help="fit the engine model to this stored sweep instead of a profile, "
                        "print how well it fits, and (with --set) what a change would do")
    whatif.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="with --from-run: max_num_seqs=4, max_num_batched_tokens=8192, "
                        "kv_capacity=x1.5 (SGLang's and llama.cpp's names work too); repeatable")
    whatif.add_argument("--lang", choices=["en", "zh"],
                        help="language of the words (default: $THROUGHLINE_LANG, else en)")

    from desktop_app import cli_demo, cli_judge, cli_resume, cli_sql, cli_sqleval, cli_throughput
    from desktop_app import cli_exchange
    from desktop_app import cli_compare, cli_questions, cli_report

    cli_throughput.add_parser(sub)
    cli_resume.add_parser(sub)
    cli_sqleval.add_parser(sub)  # sqleval and rejudge
    cli_sql.add_parser(sub)
    cli_judge.add_parser(sub)
    cli_demo.add_parser(sub)
    cli_exchange.add_parser(sub)  # export and import
    cli_report.add_parser(sub)
    cli_compare.add_parser(sub)
    cli_questions.add_parser(sub)

    sub.add_parser("profiles", help="list the simulator profiles")

    runs = sub.add_parser("runs", help="list stored runs")
    runs.add_argument("--kind", choices=["throughput", "sql"])
    runs.add_argument("--status")
    runs.add_argument("--limit", type=int, default=50)
    runs.add_argument("--lang", choices=["en", "zh"],
                      help="language of the words (default: $THROUGHLINE_LANG, else en)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `throughline` console script; returns the exit status. Everything a
    command writes to stdout and stderr passes `terminal.ShownStream` (no credential, no
    terminal control from a server)."""
    from desktop_app.terminal import shown_output

    with shown_output():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.db:
        # One place decides the database: the store reads THROUGHLINE_DB, so the GUI, a
        # subprocess and every command agree on it.
        os.environ["THROUGHLINE_DB"] = str(absolute(args.db))
    command = args.command or "gui"
    handler = _COMMANDS[command]
    from desktop_app.logfile import setup_file_logging

    from desktop_app.core.store import damaged_rows

    log_file = setup_file_logging()
    seen = len(damaged_rows())
    try:
        return _run_handler(handler, args, command, log_file)
    finally:
        _say_damaged(args, list(dict.fromkeys(damaged_rows()[seen:])))


def _say_damaged(args: argparse.Namespace, rows: list) -> None:
    """Name the damaged values the command's reads left out (each cost only itself)."""
    if rows:
        from desktop_app.report.store_words import damaged_text

        try:
            print(damaged_text(rows, _lang(args)), file=sys.stderr)
        except OSError:
            pass


def _lang(args: argparse.Namespace) -> str:
    """The command's language for words said after it failed (a bad --lang is English here)."""
    lang = getattr(args, "lang", None) or os.environ.get("THROUGHLINE_LANG") or "en"
    return lang if lang in ("en", "zh") else "en"


def _run_handler(handler, args: argparse.Namespace, command: str, log_file) -> int:
    try:
        return handler(args)
    except CliError as exc:
        print(f"throughline {command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug: one line here, the trace in the log file
        from desktop_app.cli_jobs import Stopped
        from desktop_app.core.redact import redact_text
        from desktop_app.core.store.errors import StoreError

        if isinstance(exc, Stopped):  # SIGTERM or SIGHUP: the run is marked, the status kept
            try:
                print(f"throughline {command}: {exc.text}", file=sys.stderr)
            except OSError:
                pass  # SIGHUP: the terminal may be gone
            return exc.exit_code

        if isinstance(exc, StoreError):  # the results file failed mid-run (a full disk): said
            from desktop_app.report.store_words import store_error_text

            print(f"throughline {command}: {redact_text(store_error_text(exc, _lang(args)))}",
                  file=sys.stderr)
            return 1

        logging.getLogger("desktop_app").exception("throughline %s crashed", command)
        where = f" (details in {log_file})" if log_file else ""
        print(f"throughline {command}: unexpected error: {type(exc).__name__}: "
              f"{redact_text(str(exc))}{where}", file=sys.stderr)
        return 1


def _cmd_gui(args: argparse.Namespace) -> int:
    from desktop_app.gui.launch import launch_gui

    screenshots = getattr(args, "screenshots", None)
    return launch_gui(simulator_profile=getattr(args, "simulator_profile", "fast"),
                      screenshots=screenshots,
                      results_db=absolute(args.db)
                      if screenshots is not None and args.db else None,
                      language=getattr(args, "lang", None))


def _cmd_sim(args: argparse.Namespace) -> int:
    from desktop_app.core.simulator import server
    from desktop_app.core.simulator.faults import FaultSpecError, parse_faults
    from desktop_app.core.simulator.profiles import ProfileError, load_profile

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port: {args.port} is not a port number (0-65535)")
    try:
        profile = load_profile(args.profile)
        faults = parse_faults(args.faults) if args.faults else None
    except (ProfileError, FaultSpecError) as exc:
        raise CliError(str(exc)) from None

    def ready(url: str) -> None:
        label = f" with faults {args.faults}" if args.faults else ""
        print(
            f"Simulated endpoint (profile {profile.name}, model {profile.model}){label} "
            f"serving on {url}/v1 - press Ctrl+C to stop",
            flush=True,
        )

    try:
        server.run(args.host, args.port, profile, faults, ready=ready)
    except server.SimulatorError as exc:
        raise CliError(str(exc)) from None
    return 0


def _cmd_whatif(args: argparse.Namespace) -> int:
    if args.from_run is not None:
        return _lazy("desktop_app.cli_fit", "run_fit")(args)
    if args.set:
        raise CliError("--set: only with --from-run RUN_ID (a fitted model)")
    from desktop_app.core.parsing import parse_int_list
    from desktop_app.core.whatif import SWEEP, WAVE, whatif_command

    try:
        input_tokens = parse_int_list(args.input_tokens, "--input-tokens")
        concurrency = parse_int_list(args.concurrency, "--concurrency", max_value=4096)
        output_tokens = parse_int_list(args.output_tokens, "--output-tokens")
        requests: int | str = args.requests
        if requests not in (WAVE, SWEEP):
            requests = parse_int_list(args.requests, "--requests")[0]
        return whatif_command(
            args.profile,
            input_tokens,
            concurrency,
            output_tokens,
            requests,
            args.json,
            sys.stdout,
        )
    except (ValueError, OSError) as exc:
        raise CliError(str(exc)) from None


def _lazy(module: str, function: str):
    """A handler that imports `module` only when its command runs; InputError becomes one line."""

    def handler(args: argparse.Namespace) -> int:
        from desktop_app.core.parsing import InputError

        run = getattr(importlib.import_module(module), function)
        try:
            return run(args)
        except InputError as exc:
            raise CliError(str(exc)) from None

    return handler


def _cmd_profiles(args: argparse.Namespace) -> int:
    from desktop_app.core.simulator.profiles import (
        ProfileError,
        available_profiles,
        load_profile,
    )

    for name in available_profiles():
        try:
            profile = load_profile(name)
        except ProfileError as exc:
            print(f"{name:16} (cannot be loaded: {exc})")
            continue
        print(f"{name:16} max_num_seqs={profile.max_num_seqs:<5} {profile.description}")
    return 0


def _cmd_runs(args: argparse.Namespace) -> int:
    from desktop_app.core.overview import overview
    from desktop_app.core.runs import run_info
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    path = resolve_db_path(None)
    try:
        with Store.open(path) as store:
            runs = [overview(store, run_info(r)) for r in
                    store.list_runs(kind=args.kind, status=args.status, limit=args.limit)]
    except StoreError as exc:
        raise CliError(str(exc)) from None
    from desktop_app.cli_common import words_lang

    lang = words_lang(args)
    w = _RUNS_WORDS[lang]
    if not runs:
        print(w["none"].format(path=path))
        return 0
    from desktop_app.cli_compare import _table
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
           "unfinished": " +{n} unfinished",
           "head": ["id", "kind", "status", "started", "name", "result", "model", "endpoint"]},
    "zh": {"none": "{path} 中没有运行记录", "cells": "{done}/{total} 个单元 {loads}",
           "unfinished": " +{n} 道未完成",
           "head": ["编号", "类型", "状态", "开始时间", "名称", "结果", "模型", "端点"]},
}




def _run_result(o, w: dict) -> str:
    """A sweep's cells and loads, or a SQL run's pass counts: the figures every view shows."""
    if o.info.kind == "throughput":
        return w["cells"].format(done=o.cells_finished, total=o.cells, loads=",".join(o.loads))
    parts = []
    for judge, count in o.passes.items():
        text = f"{judge} {count.text}"
        if count.unfinished:
            text += w["unfinished"].format(n=count.unfinished)
        parts.append(text)
    return "; ".join(parts)


_COMMANDS = {
    "gui": _cmd_gui,
    "sim": _cmd_sim,
    "whatif": _cmd_whatif,
    "throughput": _lazy("desktop_app.cli_throughput", "run_throughput"),
    "resume": _lazy("desktop_app.cli_resume", "run_resume"),
    "sqleval": _lazy("desktop_app.cli_sqleval", "run_sqleval"),
    "rejudge": _lazy("desktop_app.cli_sqleval", "run_rejudge"),
    "sql": _lazy("desktop_app.cli_sql", "run_sql_command"),
    "judge": _lazy("desktop_app.cli_judge", "run_judge_command"),
    "demo": _lazy("desktop_app.cli_demo", "run_demo_command"),
    "export": _lazy("desktop_app.cli_exchange", "run_export"),
    "import": _lazy("desktop_app.cli_exchange", "run_import"),
    "report": _lazy("desktop_app.cli_report", "run_report"),
    "compare": _lazy("desktop_app.cli_compare", "run_compare"),
    "questions": _lazy("desktop_app.cli_questions", "run_questions"),
    "profiles": _cmd_profiles,
    "runs": _cmd_runs,
}
