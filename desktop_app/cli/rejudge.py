"""`throughline rejudge`: a stored SQL run judged again, no model called."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from desktop_app.cli.common import global_options, refield, said, words_lang
from desktop_app.cli.sqleval import TOLERANCE_HELP, _dirs, _names, _print_summary
from desktop_app.core.parsing import InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `rejudge` subcommand."""
    r = sub.add_parser(
        "rejudge", parents=[global_options()],
        help="judge a stored SQL run again (no model is called)",
        description="Re-run a stored SQL run's final queries in the sandbox and judge them "
        "again, e.g. at another tolerance; the new verdicts replace the stored ones.")
    r.add_argument("run_id", type=int, metavar="RUN_ID")
    from desktop_app.core.sqleval.judges import judge_names

    r.add_argument("--judge", metavar="LIST", default=None,
                   help=f"judges to summarise, from {','.join(judge_names())} (default: the set's, "
                   "as sqleval chooses them)")
    r.add_argument("--tolerance", type=float, default=1e-6, metavar="X", help=TOLERANCE_HELP)
    r.add_argument("--ignore-names", action="store_true")
    r.add_argument("--json", type=Path, metavar="OUT", help="write every verdict as JSON")
    r.set_defaults(handler=run_rejudge)


def run_rejudge(args: argparse.Namespace) -> int:
    """Re-judge a stored run without calling a model; prints the per-tier table."""
    from desktop_app.core.sqleval.runner import rejudge
    from desktop_app.core.sqleval.judges import judge_names
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    modes = None if args.judge is None else _names(args.judge, "--judge", judge_names())
    words_lang(args)  # a bad $THROUGHLINE_LANG is said before any work
    sets_dir, cache_dir = _dirs()
    try:
        with Store.open(resolve_db_path(None)) as store:
            result = asyncio.run(rejudge(store, args.run_id, modes=modes,
                                         tolerance=args.tolerance,
                                         ignore_names=args.ignore_names,
                                         sets_dir=sets_dir, cache_dir=cache_dir))
    except StoreError as exc:
        raise said("--db", exc, args) from None
    except InputError as exc:
        if exc.field == "tolerance":
            raise refield(exc, "--tolerance") from None
        raise
    from desktop_app.report.cli_words import cli_text

    print(cli_text(words_lang(args), "run", "rejudged", run=args.run_id,
                   tolerance=args.tolerance))
    _print_summary(args, result)
    return 0
