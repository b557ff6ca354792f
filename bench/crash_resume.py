"""Crash safety, repeated: SIGKILL a headless sweep at a random moment, check the store, resume.

Each trial starts a child process running `run_sweep` (4 cells: 128 tokens in, 32 out,
concurrency 1, 2, 4, 8, 16 requests each, one warm-up) against one `fast` simulator, kills it
with SIGKILL after a random delay, then in this process:

1. opens the store and checks the run reads 'interrupted';
2. checks every request the simulator's /sim/trace shows finished more than 1 s before the kill
   is stored (by response id), and counts those of the last second that were lost;
3. runs `throughput.resume.resume_sweep` against the same simulator and checks the run ends
   'completed' in place with 16 requests in every cell, the kept cells' rows untouched, and
   PRAGMA integrity_check ok.

Kills that land before the run was stored (child still starting) or after it completed are
counted as such. Prints one row per trial and a summary; nothing is asserted.

    .venv/bin/python bench/crash_resume.py                  # 10 trials, seed 1
    .venv/bin/python bench/crash_resume.py --trials 30 --seed 7
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.endpoint.types import EndpointConfig  # noqa: E402
from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402
from desktop_app.core.store import Store  # noqa: E402
from desktop_app.core.throughput.resume import plan_resume, resume_sweep  # noqa: E402

CELLS, PER_CELL = 4, 16
CHILD = """
import asyncio, sys
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep

def progress(p):
    if p.run_id is not None and p.phase == "running":
        print(p.run_id, p.cell_index, p.done, flush=True)

config = SweepConfig(EndpointConfig(sys.argv[1], model="sim/llama-sim-8b"), input_tokens=(128,),
                     concurrency=(1, 2, 4, 8), output_tokens=(32,), requests_per_cell=16,
                     warmup=1, metrics_interval_s=0.1)
asyncio.run(run_sweep(config, Store.open(sys.argv[2]), progress))
"""


def kill_after(url: str, db_path: Path, delay_s: float) -> tuple[float, str | None]:
    """Start the child, SIGKILL it `delay_s` after start; (perf_counter at kill, last line)."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, url, str(db_path)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    deadline = time.perf_counter() + delay_s
    reader = threading.Thread(target=lambda: lines.extend(iter(child.stdout.readline, "")),
                              daemon=True)
    reader.start()
    while time.perf_counter() < deadline and child.poll() is None:
        time.sleep(0.01)
    killed_at = time.perf_counter()
    child.kill()
    child.wait()
    reader.join(2)
    return killed_at, (lines[-1].strip() if lines else None)


def trial(url: str, db_path: Path, delay_s: float) -> dict:
    httpx.delete(f"{url}/sim/trace", timeout=5)
    killed_at, last = kill_after(url, db_path, delay_s)
    trace = [r for r in httpx.get(f"{url}/sim/trace", timeout=5).json()["records"]
             if r["endpoint"] == "chat" and r["end_s"] is not None]
    row = {"delay_s": delay_s, "at": last or "-"}
    if not db_path.exists():
        return {**row, "outcome": "killed before the run was stored"}
    with Store.open(db_path) as store:
        runs = store.list_runs()
        if not runs:
            return {**row, "outcome": "killed before the run was stored"}
        run = runs[0]
        stored = {r["response_id"] for r in store.requests(run.id, limit=10**6)}
        old = {r["id"] for r in trace if r["end_s"] < killed_at - 1.0}
        recent = {r["id"] for r in trace if r["end_s"] >= killed_at - 1.0}
        row.update(old=len(old), old_stored=len(old & stored), recent=len(recent),
                   recent_stored=len(recent & stored), status=run.status)
        if run.status == "completed":
            return {**row, "outcome": "finished before the kill"}
        before = {c.cell_index: (c.status, store.requests(run.id, c.id)) for c in
                  store.cells(run.id)}
        _config, plan = plan_resume(store, run.id, EndpointConfig(url))
        kept = sorted(plan.kept)
        # A cell marked completed whose last rows the writer had not committed yet runs again.
        short = [i for i, (s, _) in before.items() if s == "completed" and i not in plan.kept]
        t0 = time.perf_counter()
        result = asyncio.run(resume_sweep(store, run.id, EndpointConfig(url)))
        cells = store.cells(run.id)
        checks = {
            "completed": result.status == "completed"
            and store.get_run(run.id).status == "completed",
            "cells": len(cells) == CELLS,
            "rows": all(len(store.requests(run.id, c.id)) == PER_CELL for c in cells),
            "counts": all(c.summary["count"] == PER_CELL for c in cells),
            "kept rows": all(store.requests(run.id, cells[i].id) == before[i][1] for i in kept),
            "integrity": store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok",
        }
        failed = [k for k, ok in checks.items() if not ok]
        outcome = ("resumed, checks ok" if not failed
                   else "resumed, CHECK FAILED: " + ", ".join(failed))
        return {**row, "outcome": outcome, "kept": len(kept), "short": len(short),
                "resume_s": time.perf_counter() - t0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-delay", type=float, default=1.0, help="seconds after the start")
    parser.add_argument("--max-delay", type=float, default=6.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    with tempfile.TemporaryDirectory(prefix="throughline-crash-") as tmp, \
            start_simulator("fast") as sim:
        for n in range(args.trials):
            row = trial(sim.url, Path(tmp) / f"trial-{n}.db",
                        rng.uniform(args.min_delay, args.max_delay))
            rows.append(row)
            print(f"{n + 1:3}  kill at {row['delay_s']:4.2f} s  last progress "
                  f"(run cell done) {row['at']:10}  finished >1 s before kill: "
                  f"{row.get('old_stored', '-')}/{row.get('old', '-')} stored, last 1 s: "
                  f"{row.get('recent_stored', '-')}/{row.get('recent', '-')} stored  "
                  f"{row.get('status', '')}  kept {row.get('kept', '-')} cells "
                  f"(completed but short: {row.get('short', '-')})  "
                  f"-> {row['outcome']}", flush=True)
    outcomes = Counter(r["outcome"] for r in rows)
    old = sum(r.get("old", 0) for r in rows)
    old_stored = sum(r.get("old_stored", 0) for r in rows)
    recent = sum(r.get("recent", 0) for r in rows)
    recent_stored = sum(r.get("recent_stored", 0) for r in rows)
    print(f"\n{args.trials} trials: " + ", ".join(f"{k}: {v}" for k, v in outcomes.items()))
    short = sum(r.get("short", 0) for r in rows)
    print(f"completed cells missing their last rows, so run again: {short}")
    print(f"requests finished > 1 s before a kill: {old_stored}/{old} stored; "
          f"in the last second: {recent_stored}/{recent} stored")
    return 0


if __name__ == "__main__":
    sys.exit(main())
