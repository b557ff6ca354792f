"""`throughline export`: a stored run out as CSV or JSON files.

    throughline export --run 12 --format csv --out results/

Bad input (an unknown run, a folder that cannot be written) is one line on stderr and exit
status 2; nothing half-written is left. Field names: docs/EXPORTS.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop_app.cli.common import CliError, global_options, words_lang


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `export` subcommand."""
    exp = sub.add_parser(
        "export", parents=[global_options()],
        help="write a stored run as CSV or JSON files",
        description="Write a stored run into a folder: throughput runs as per-cell and "
        "per-request CSV files or one JSON (with vllm bench serve's result keys where the "
        "metric is the same); SQL runs as per-question and per-step CSV files or one JSON. "
        "Field names are listed in docs/EXPORTS.md.")
    exp.add_argument("--run", required=True, type=int, metavar="ID", help="the run's id "
                     "(see `throughline runs`)")
    exp.add_argument("--format", required=True, choices=("csv", "json"),
                     help="csv or json")
    exp.add_argument("--out", required=True, type=Path, metavar="DIR",
                     help="folder to write into (created if missing)")
    exp.set_defaults(handler=run_export)


def open_store():
    """The results store --db names, or CliError naming what is wrong with it."""
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    path = resolve_db_path(None)
    try:
        return Store.open(path)
    except StoreError as exc:
        from desktop_app.report.errors import error_text

        # --lang is not known here: $THROUGHLINE_LANG, as the parser's own errors
        raise CliError(error_text(exc, words_lang(argparse.Namespace()))) from None


def run_export(args: argparse.Namespace) -> int:
    """Export one run; prints the files written, one per line."""
    from desktop_app.core.exchange import export_run
    from desktop_app.report.export_words import ExportWords

    words = ExportWords(words_lang(args))
    with open_store() as store:
        files = export_run(store, args.run, args.format, args.out, words)
    for path in files:
        print(path)
    return 0
