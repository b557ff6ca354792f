"""`throughline export` and `throughline import`: runs out as CSV/JSON, other tools' results in.

    throughline export --run 12 --format csv --out results/
    throughline import profile_export_aiperf.json [--db PATH]

Bad input (an unknown run, a folder that cannot be written, a file no known tool wrote or a newer
version of one, broken JSON) is one line on stderr and exit status 2; nothing half-written is left.
Field names and the import mapping: docs/EXPORTS.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from desktop_app.cli_common import add_lang_argument, words_lang
from desktop_app.core.files import absolute


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `export` and `import` subcommands (importing nothing heavy: every command
    and the app's start build this parser)."""

    exp = sub.add_parser(
        "export", help="write a stored run as CSV or JSON files",
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
    add_lang_argument(exp)

    imp = sub.add_parser(
        "import", help="store a vllm bench serve, AIPerf or GuideLLM result file as a run",
        description="Read a result file written by `vllm bench serve --save-result`, AIPerf "
        "(profile_export_aiperf.json or .csv) or GuideLLM (benchmarks.json); the tool is "
        "detected from the content. The file becomes a throughput run that compares with "
        "Throughline's own; metrics the file lacks are stored as missing, never estimated.")
    imp.add_argument("file", type=Path, metavar="FILE", help="the result file")
    # A dest of its own: the top-level --db may be given too; this one, after the command, wins.
    imp.add_argument("--db", dest="import_db", metavar="PATH",
                     help="results database (as the top-level --db)")


def _open_store():
    from desktop_app.cli import CliError
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    path = resolve_db_path(None)
    try:
        return Store.open(path)
    except StoreError as exc:
        raise CliError(str(exc)) from None


def run_export(args: argparse.Namespace) -> int:
    """Export one run; prints the files written, one per line."""
    from desktop_app.core.exchange import export_run
    from desktop_app.report.export_words import ExportWords

    words = ExportWords(words_lang(args))
    with _open_store() as store:
        files = export_run(store, args.run, args.format, args.out, words)
    for path in files:
        print(path)
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Import one file; prints the new run's id, source, cells and the metrics it lacks."""
    from desktop_app.core.exchange import import_file
    from desktop_app.core.throughput.records import load_sweep

    if getattr(args, "import_db", None):
        # The same rule as the top-level --db (cli.main): the store reads THROUGHLINE_DB.
        os.environ["THROUGHLINE_DB"] = str(absolute(args.import_db))
    with _open_store() as store:
        run_id = import_file(store, args.file)
        sweep = load_sweep(store, run_id, requests=False)
    run, cells = sweep.info, sweep.cells
    missing = run.config.get("missing") or []
    print(f"Imported {args.file} as run {run_id} ({run.name}; {len(cells)} cell(s)) "
          f"into {store.path}")
    if missing:
        print("Missing from the file (stored as missing, not estimated): " + ", ".join(missing),
              file=sys.stderr)
    return 0
