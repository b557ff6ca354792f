"""`throughline demo --out DIR`: the whole product on the built-in simulator, in one command.

Runs the sweeps and SQL evaluations of `core.demo` into DIR/results.db, then writes the
comparison PDF and every run's CSV and JSON exports next to it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from desktop_app.cli.common import global_options

DB_NAME = "results.db"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `demo` subcommand."""
    p = sub.add_parser(
        "demo", parents=[global_options()],
        help="run a small demo on the built-in simulator and write its runs, PDF and exports",
        description="Start the built-in simulator, sweep a capped (max 2 sequences) and an "
        "uncapped simulated server, evaluate two scripted SQL personas, and write the results "
        "database, a comparison PDF and CSV/JSON exports of every run into DIR. Needs no GPU "
        "and no set-up; takes about a minute or two.",
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="folder for the results (created if missing; must not hold a demo yet)")
    p.set_defaults(handler=run_demo_command)


def _checked_out_dir(out: Path) -> Path:
    from desktop_app.core.exchange.atomic import check_out_dir

    if (out.expanduser() / DB_NAME).exists():
        from desktop_app.cli.common import cli_error

        raise cli_error("--out", "demo_exists", out=out, db=DB_NAME)
    return check_out_dir(out)


def run_demo_command(args: argparse.Namespace) -> int:
    """Run the demo; exit 0 when every run, the PDF and the exports were written."""
    from desktop_app import paths
    from desktop_app.cli.jobs import run_job
    from desktop_app.core.demo import run_demo
    from desktop_app.core.exchange import export_run
    from desktop_app.cli.common import open_results_store, words_lang
    from desktop_app.report import write_comparison_pdf

    lang = words_lang(args)
    out = _checked_out_dir(args.out)
    started = time.perf_counter()

    def say(line: str) -> None:
        print(f"[{time.perf_counter() - started:5.1f} s] {line}", file=sys.stderr, flush=True)

    with open_results_store(out / DB_NAME, "--out", lang) as store:
        runs = run_job(run_demo(store, sets_dir=paths.questions_dir(),
                                cache_dir=paths.user_data_dir() / "databases", say=say),
                       store_path=out / DB_NAME, lang=lang)
        say("Comparison PDF")
        pdf = write_comparison_pdf(store, runs.all_ids, out / "comparison.pdf", lang)
        say("CSV and JSON exports")
        from desktop_app.report.export_words import ExportWords

        written: list[Path] = []
        for run_id in runs.all_ids:
            for fmt in ("csv", "json"):
                written += export_run(store, run_id, fmt, out / "exports" / f"run-{run_id}",
                                      ExportWords(lang))
    say("Done")
    from desktop_app.report.cli_words import cli_text

    print(cli_text(lang, "run", "demo_runs", runs=", ".join(f"#{i}" for i in runs.all_ids),
                   path=out / DB_NAME))
    print(cli_text(lang, "run", "demo_pdf", path=pdf))
    print(cli_text(lang, "run", "demo_exports", n=len(written), path=out / "exports"))
    print(cli_text(lang, "run", "demo_app", path=out / DB_NAME))
    return 0
