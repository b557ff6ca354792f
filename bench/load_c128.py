"""Load: one sweep cell of 2,000 requests at concurrency 128 against the simulator, stored.

Starts the simulator in its own process (profile `instant` by default: no modelled delay, so the
client and the store carry all the load), then runs `throughput.sweep.run_sweep` in this process
exactly as `throughline throughput` does (one cell, short prompts and outputs, /metrics scraped,
every request stored through the RunWriter into a fresh results file). It reports:

- client-side failures (requests the sweep classed as failed) and their classes;
- this process's resident memory (VmRSS from /proc/self/status, MB) before the sweep, after
  1,000 and 2,000 finished requests and after the store is closed, the growth per 1,000
  requests, and the peak (VmHWM); the simulator's own peak too;
- the store afterwards: request rows, the cell's stored count against its rows, and
  PRAGMA integrity_check;
- wall time and requests per second (a figure of this machine, not a guarantee).

    .venv/bin/python bench/load_c128.py
    .venv/bin/python bench/load_c128.py --requests 4000 --profile fast --json load.json

Nothing is asserted here; tests/core/throughput/test_load.py checks the pass/fail part (`make test-load`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.endpoint.types import EndpointConfig  # noqa: E402
from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402
from desktop_app.core.store import Store  # noqa: E402
from desktop_app.core.throughput.config import SweepConfig  # noqa: E402
from desktop_app.core.throughput.sweep import run_sweep  # noqa: E402

MODEL = "sim/llama-sim-8b"


def status_mb(field: str, pid: str = "self") -> float:
    """A memory field of /proc/PID/status (VmRSS, VmHWM, ...) in MB (2^20 bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def store_check(db_path: Path, run_id: int) -> dict:
    """Rows, per-cell stored count against rows, and SQLite's own integrity check."""
    with Store.open(db_path) as store:
        cells = store.cells(run_id)
        return {
            "run_status": store.get_run(run_id).status,
            "request_rows": store.count_requests(run_id),
            "cells": [{"stored_count": c.summary["count"],
                       "rows": store.count_requests(run_id, c.id)} for c in cells],
            "integrity_check": store.db.execute("PRAGMA integrity_check").fetchone()[0],
        }


async def run_load(url: str, db_path: Path, requests: int, concurrency: int,
                   input_tokens: int, output_tokens: int) -> dict:
    """The sweep under load, with RSS sampled as requests finish."""
    marks = {0: status_mb("VmRSS")}
    step = 1000

    def on_progress(p) -> None:
        if p.phase == "running" and p.run_done and p.run_done % step == 0:
            marks.setdefault(p.run_done, status_mb("VmRSS"))

    config = SweepConfig(EndpointConfig(url, model=MODEL), input_tokens=(input_tokens,),
                         output_tokens=(output_tokens,), concurrency=(concurrency,),
                         requests_per_cell=requests, warmup=0, name="load c128")
    t0 = time.perf_counter()
    store = Store.open(db_path)
    try:
        result = await run_sweep(config, store, on_progress)
    finally:
        store.close()
    wall = time.perf_counter() - t0
    marks_after = status_mb("VmRSS")
    cell = result.cells[0]
    failed = cell.summary.count - cell.summary.ok
    return {"run_id": result.run_id, "wall_s": wall, "rss_mb": marks,
            "rss_after_close_mb": marks_after, "peak_rss_mb": status_mb("VmHWM"),
            "requests": cell.summary.count, "failed": failed,
            "failures_by_class": cell.summary.failures_by_class,
            "loop_lag_p99_ms": cell.client_load.loop_lag_p99_ms if cell.client_load else None,
            "client_cpu_percent": cell.client_load.cpu_percent if cell.client_load else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--profile", default="instant")
    parser.add_argument("--input-tokens", type=int, default=32)
    parser.add_argument("--output-tokens", type=int, default=16)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="throughline-load-") as tmp, \
            start_simulator(args.profile) as sim:
        db_path = Path(tmp) / "results.db"
        fig = asyncio.run(run_load(sim.url, db_path, args.requests, args.concurrency,
                                   args.input_tokens, args.output_tokens))
        fig["sim_peak_rss_mb"] = status_mb("VmHWM", str(sim.pid))
        fig["store"] = store_check(db_path, fig["run_id"])
        fig["db_mb"] = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 2**20
    fig.update(profile=args.profile, concurrency=args.concurrency,
               input_tokens=args.input_tokens, output_tokens=args.output_tokens,
               python=platform.python_version(), machine=platform.machine())
    rss = fig["rss_mb"]
    last = max(rss)
    per_k = (rss[last] - rss[0]) / (last / 1000) if last else float("nan")
    fig["rss_growth_per_1000_mb"] = per_k
    print(f"{fig['requests']} requests at concurrency {args.concurrency} "
          f"({args.input_tokens} in / {args.output_tokens} out, profile {args.profile}): "
          f"{fig['wall_s']:.1f} s, {fig['requests'] / fig['wall_s']:.0f} req/s")
    print(f"client-side failures: {fig['failed']} {fig['failures_by_class'] or ''}")
    print("RSS (MB): " + ", ".join(f"{n} requests {mb:.1f}" for n, mb in sorted(rss.items()))
          + f", after close {fig['rss_after_close_mb']:.1f}; peak {fig['peak_rss_mb']:.1f}")
    print(f"RSS growth per 1,000 requests: {per_k:.1f} MB; simulator peak "
          f"{fig['sim_peak_rss_mb']:.1f} MB")
    st = fig["store"]
    print(f"store: run {st['run_status']}, {st['request_rows']} request rows, cells "
          f"{st['cells']}, integrity_check {st['integrity_check']}, file {fig['db_mb']:.1f} MB")
    print(f"client: loop lag p99 {fig['loop_lag_p99_ms']:.1f} ms, CPU "
          f"{fig['client_cpu_percent']:.0f} % of a core")
    if args.json:
        args.json.write_text(json.dumps(fig, indent=1, default=str) + "\n", encoding="utf-8")
        print(f"JSON written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
