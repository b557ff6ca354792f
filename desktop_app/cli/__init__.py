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

from desktop_app import __version__
from desktop_app.cli.common import DB_HELP, EXIT_USAGE, LANG_HELP, LANGS, CliError, words_lang
from desktop_app.cli.help_format import WideHelpFormatter, WideRawDescriptionFormatter
from desktop_app.core.files import absolute
from desktop_app.core.parsing import InputError

__all__ = ["COMMANDS", "CliError", "EXIT_USAGE", "build_parser", "main", "version_text"]

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


# The commands, in the order `--help` lists them: one module each in this package, each with
# `add_parser(sub)` that registers its subcommand with `global_options()` as a parent and
# `set_defaults(handler=...)`. Adding a command is one module and its name here.
COMMANDS = ("gui", "sim", "whatif", "throughput", "resume", "sqleval", "rejudge", "sql", "judge",
            "demo", "export", "import_", "report", "compare", "questions", "profiles", "runs")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `throughline` and its subcommands (importing nothing heavy:
    every command and the app's start build it)."""
    parser = argparse.ArgumentParser(
        prog="throughline",
        description="Benchmark LLM serving endpoints for speed (throughput sweeps) and quality "
        "(agentic text-to-SQL evaluation). Without a subcommand, starts the desktop app. "
        "--db and --lang may be given before the command or after it.",
        epilog=_EPILOG,
        formatter_class=WideRawDescriptionFormatter,
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print the versions of Throughline, Qt, PySide6 and Python, and exit")
    parser.add_argument("--db", metavar="PATH", help=DB_HELP)
    parser.add_argument("--lang", choices=list(LANGS), help=LANG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `throughline` console script; returns the exit status. Everything a
    command writes to stdout and stderr passes `terminal.ShownStream` (no credential, no
    terminal control from a server)."""
    from desktop_app.terminal import shown_output

    with shown_output():
        return _main(argv)


def _argv_lang(argv: list[str]) -> str:
    """The language the command line asks for, read before argparse (whose own errors are
    then said in it): `--lang X` or `--lang=X` anywhere, else $THROUGHLINE_LANG."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return os.environ.get("THROUGHLINE_LANG", "en")


def localise_argparse(lang: str) -> None:
    """argparse's own messages (usage, missing or unknown arguments, bad choices) in `lang`.
    argparse looks its words up through its module's gettext function at the moment it
    says them, so that is where the catalogue goes."""
    import gettext

    if lang == "zh":
        from desktop_app.report.cli_words import ARGPARSE_ZH

        argparse._ = lambda message: ARGPARSE_ZH.get(message, message)
        argparse.ngettext = lambda one, many, n: ARGPARSE_ZH.get(one if n == 1 else many,
                                                                 one if n == 1 else many)
    else:
        argparse._ = gettext.gettext
        argparse.ngettext = gettext.ngettext


def _main(argv: list[str] | None) -> int:
    lang = _argv_lang(sys.argv[1:] if argv is None else list(argv))
    localise_argparse(lang)
    parser = build_parser()
    if lang == "zh":
        from desktop_app.report.cli_help_words import parsers, translate_help

        translate_help(parser, lang)
        for each in parsers(parser):  # Chinese lines wrapped by columns, not characters
            raw = issubclass(each.formatter_class, argparse.RawDescriptionHelpFormatter)
            each.formatter_class = WideRawDescriptionFormatter if raw else WideHelpFormatter
    args = parser.parse_args(argv)
    if args.db:
        # One place decides the database: the store reads THROUGHLINE_DB, so the GUI, a
        # subprocess and every command agree on it.
        os.environ["THROUGHLINE_DB"] = str(absolute(args.db))
    command = args.command or "gui"
    if args.command is None:
        from desktop_app.cli.gui import run_gui as handler
    else:
        handler = args.handler
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
        try:
            return handler(args)
        except InputError as exc:
            from desktop_app.report.input_words import input_error_text

            try:
                lang = words_lang(args)
            except InputError:  # a bad THROUGHLINE_LANG: the error still reaches the user
                lang = "en"
            raise CliError(input_error_text(exc, lang)) from None
    except CliError as exc:
        print(f"throughline {command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug: one line here, the trace in the log file
        from desktop_app.cli.jobs import Stopped
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
        from desktop_app.report.cli_words import cli_text

        lang = _lang(args)
        where = cli_text(lang, "run", "details_in", path=log_file) if log_file else ""
        print(f"throughline {command}: " + cli_text(lang, "run", "unexpected",
                                                    kind=type(exc).__name__,
                                                    detail=redact_text(str(exc)), where=where),
              file=sys.stderr)
        return 1
