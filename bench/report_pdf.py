"""How long a two-run comparison PDF takes (target: under 3 s on this machine).

Builds a store once (or reuses `--db`): on the built-in simulator's `fast` profile, a sweep of
sim/careful over 512, 1,024, 2,048 and 4,096-token prompts at concurrency 1, 2, 4 and 8 (8
requests a cell, 64 output tokens) and the full sales-25 SQL evaluation of sim/careful, so the
PDF has every section: both side-by-side tables, capacity in tasks, every chart, diagnosis,
failed questions (none for sim/careful) and the appendix. Then it times, in this process:

- cold: the first `write_comparison_pdf` (creates the QGuiApplication, loads fonts);
- warm: `--repeats` more calls, median and max;

for English and Chinese, and for two sweeps compared (the same sweep config run twice) as well.
Times are wall seconds from the call to the renamed PDF, store reads included.

    .venv/bin/python bench/report_pdf.py [--db PATH] [--repeats 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_app import paths  # noqa: E402
from desktop_app.core.endpoint.types import EndpointConfig  # noqa: E402
from desktop_app.core.store import Store  # noqa: E402

MODEL = "sim/careful"


async def _fill(store: Store, url: str, cache: Path) -> list[int]:
    from desktop_app.core.sqleval.runner import EvalConfig, run_eval
    from desktop_app.core.throughput.config import SweepConfig
    from desktop_app.core.throughput.sweep import run_sweep

    ids = []
    for name in ("sweep A", "sweep B"):
        config = SweepConfig(EndpointConfig(url, model=MODEL), input_tokens=(512, 1024, 2048, 4096),
                             concurrency=(1, 2, 4, 8), output_tokens=(64,), requests_per_cell=8,
                             warmup=1, metrics_interval_s=0.1, name=name)
        ids.append((await run_sweep(config, store)).run_id)
    ev = EvalConfig(EndpointConfig(url, model=MODEL), concurrency=4, name="sales-25 careful")
    ids.append((await run_eval(ev, store, sets_dir=paths.questions_dir(),
                               cache_dir=cache)).run_id)
    return ids


def build(db: Path) -> list[int]:
    from desktop_app.core.simulator.launcher import start_simulator

    t0 = time.perf_counter()
    with Store.open(db) as store, start_simulator("fast") as sim:
        ids = asyncio.run(_fill(store, sim.url, db.parent / "databases"))
    print(f"built the store in {time.perf_counter() - t0:.1f} s: runs {ids}", file=sys.stderr)
    return ids


def _pages(pdf: Path) -> str:
    try:
        out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    except OSError:
        return "?"
    return next((ln.split()[-1] for ln in out.splitlines() if ln.startswith("Pages:")), "?")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="reuse this store (runs: sweep, sweep, SQL)")
    parser.add_argument("--runs", help="with --db: SWEEP_A,SWEEP_B,SQL ids (default 1,2,3)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the PDFs here to look at them")
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="throughline-bench-report-")
    if args.db:
        db = args.db
        ids = [int(x) for x in (args.runs or "1,2,3").split(",")]
    else:
        db = Path(tmp.name) / "results.db"
        ids = build(db)
    out_dir = args.keep or Path(tmp.name)
    out_dir.mkdir(parents=True, exist_ok=True)

    from desktop_app.report import write_comparison_pdf

    cases = [("sweep + SQL", [ids[0], ids[2]]), ("sweep + sweep", [ids[0], ids[1]])]
    print(f"{'case':16} {'lang':4} {'cold s':>7} {'median s':>9} {'max s':>7} {'pages':>5}")
    with Store.open(db) as store:
        for label, pair in cases:
            for lang in ("en", "zh"):
                pdf = out_dir / f"{label.replace(' + ', '-')}-{lang}.pdf"
                times = []
                for _ in range(args.repeats + 1):
                    t0 = time.perf_counter()
                    write_comparison_pdf(store, pair, pdf, lang)
                    times.append(time.perf_counter() - t0)
                cold, warm = times[0], times[1:]
                print(f"{label:16} {lang:4} {cold:7.2f} {statistics.median(warm):9.2f} "
                      f"{max(warm):7.2f} {_pages(pdf):>5}", flush=True)
    if args.keep:
        print(f"PDFs in {out_dir}", file=sys.stderr)
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
