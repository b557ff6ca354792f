"""`throughline import`: another tool's result file stored as a run.

    throughline import profile_export_aiperf.json [--db PATH]

Bad input (a file no known tool wrote or a newer version of one, broken JSON) is one line on
stderr and exit status 2; nothing half-written is left. The import mapping: docs/EXPORTS.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop_app.cli.common import global_options
from desktop_app.cli.export import open_store


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `import` subcommand (a module name with an underscore: `import` is a
    keyword)."""
    imp = sub.add_parser(
        "import", parents=[global_options()],
        help="store a vllm bench serve, AIPerf or GuideLLM result file as a run",
        description="Read a result file written by `vllm bench serve --save-result`, AIPerf "
        "(profile_export_aiperf.json or .csv) or GuideLLM (benchmarks.json); the tool is "
        "detected from the content. The file becomes a throughput run that compares with "
        "Throughline's own; metrics the file lacks are stored as missing, never estimated.")
    imp.add_argument("file", type=Path, metavar="FILE", help="the result file")
    imp.set_defaults(handler=run_import)


def run_import(args: argparse.Namespace) -> int:
    """Import one file; prints the new run's id, source, cells and the metrics it lacks."""
    from desktop_app.core.exchange import import_file
    from desktop_app.core.throughput.records import load_sweep

    with open_store() as store:
        run_id = import_file(store, args.file)
        sweep = load_sweep(store, run_id, requests=False)
    run, cells = sweep.info, sweep.cells
    missing = run.config.get("missing") or []
    from desktop_app.cli.common import words_lang
    from desktop_app.report.cli_words import cli_text

    lang = words_lang(args)
    print(cli_text(lang, "run", "imported_run", file=args.file, run=run_id, name=run.name,
                   cells=len(cells), path=store.path))
    if missing:
        print(cli_text(lang, "run", "missing", names=", ".join(missing)), file=sys.stderr)
    return 0
