"""`throughline report`: the comparison PDF of stored runs, headless.

    throughline report --runs 3,4[,...] [--lang en|zh] --pdf OUT.pdf [--db PATH]

Bad input (unknown run ids, fewer than two runs, an unknown language, a database that does not
exist, an unwritable path) is one line on stderr and exit status 2; no PDF, whole or partial, is
left behind then.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from desktop_app.cli.common import said, cli_error, global_options, words_lang
from desktop_app.core.parsing import InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `report` subcommand."""
    p = sub.add_parser(
        "report", parents=[global_options()],
        help="write the comparison PDF of two or more stored runs",
        description="Compare two or more stored runs (throughput sweeps, SQL evaluations or "
        "both) side by side and write a PDF: cover, side-by-side table with verdicts, speed "
        "and quality together (capacity in tasks), charts, diagnosis, failed questions, "
        "metric definitions. Works without a display.")
    p.add_argument("--runs", required=True, metavar="ID,ID[,...]",
                   help="run ids to compare, as `throughline runs` lists them")
    p.add_argument("--pdf", required=True, type=Path, metavar="OUT.pdf", help="file to write")
    p.set_defaults(handler=run_report)


def parse_run_ids(text: str) -> list[int]:
    """'3, 4,7' -> [3, 4, 7]; InputError naming --runs for anything that is not an id."""
    items = [t for t in re.split(r"[,\s]+", text.strip()) if t]
    bad = [t for t in items if not t.isdigit()]
    if bad:
        raise cli_error("--runs", "not_run_id", items=", ".join(map(repr, bad)))
    ids = list(dict.fromkeys(int(t) for t in items))
    if len(ids) < 2:
        raise cli_error("--runs", "two_runs", n=len(ids))
    return ids


def run_report(args: argparse.Namespace) -> int:
    """Write the PDF; returns 0, or raises InputError (turned into one line, exit 2)."""
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    ids = parse_run_ids(args.runs)
    db = resolve_db_path(None)
    if not Path(db).is_file():
        raise cli_error("--db", "no_db", db=db)
    if args.pdf.suffix.lower() != ".pdf":
        raise cli_error("--pdf", "not_pdf", path=args.pdf)
    from desktop_app.report.pdf import ReportError, write_comparison_pdf

    try:
        with Store.open(db) as store:
            path = write_comparison_pdf(store, ids, args.pdf, words_lang(args))
    except StoreError as exc:
        raise said("--db", exc, args) from None
    except ReportError as exc:  # said in the report's language already
        raise InputError(exc.field, code="said", text=str(exc)) from None
    from desktop_app.report.cli_words import cli_text

    print(cli_text(words_lang(args), "run", "wrote", path=path))
    return 0
