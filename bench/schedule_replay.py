"""How faithfully a trace is replayed on its own schedule (#29): a Mooncake-format trace of
`--requests` records at `--rate` requests per second (evenly spaced timestamps, every record
sharing its first 512-token block with the one before it), sent by `throughline throughput
--workload TRACE --on-schedule` against the simulator's `instant` profile (no engine cost: what
is measured is the client). Reports how late each send started against its timestamp (p50,
p99, max: the cell's `send_lateness_s`), the client's CPU over the cell (`client_load`, a share
of one core) and its event-loop lag, the requests that failed, and the wall time.

    .venv/bin/python bench/schedule_replay.py                      # 10,000 at 200/s
    .venv/bin/python bench/schedule_replay.py --requests 2000 --rate 500
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
from desktop_app.core.throughput.config import SweepConfig  # noqa: E402
from desktop_app.core.throughput.sweep import run_sweep  # noqa: E402
from desktop_app.core.throughput.workload import load_workload  # noqa: E402


def write_trace(path: Path, requests: int, rate: float, input_tokens: int,
                output_tokens: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(requests):
            blocks = [i // 2, 10**6 + i] if input_tokens > 512 else [i // 2]
            f.write(json.dumps({"timestamp": round(1000 * i / rate, 3),
                                "input_length": input_tokens, "output_length": output_tokens,
                                "hash_ids": blocks}) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=200.0, help="requests per second")
    parser.add_argument("--input-tokens", type=int, default=128)
    parser.add_argument("--output-tokens", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, start_simulator("instant") as sim:
        trace = Path(tmp) / "trace.jsonl"
        write_trace(trace, args.requests, args.rate, args.input_tokens, args.output_tokens)
        workload = load_workload(trace)
        config = SweepConfig(EndpointConfig(sim.url, model="sim/llama-sim-8b",
                                            api="completions"),
                             input_tokens=(), workload=workload.ref(), speedup=1.0, warmup=1,
                             scrape_metrics=False)
        started = time.perf_counter()
        result = asyncio.run(run_sweep(config, None))
        wall = time.perf_counter() - started
    cell = result.cells[0]
    late, load = cell.send_lateness or {}, cell.client_load
    print(f"{platform.node()} ({platform.machine()}, Python {platform.python_version()}): "
          f"{args.requests:,} records at {args.rate:g}/s ({args.requests / args.rate:.1f} s of "
          f"trace), {args.input_tokens} tokens in, {args.output_tokens} out, against instant")
    print(f"  sent {late.get('n', 0):,}; failed {cell.summary.count - cell.summary.ok:,}; "
          f"cell {cell.ended_s - cell.started_s:.1f} s; the whole run {wall:.1f} s")
    print(f"  send lateness: p50 {1000 * late.get('p50', 0):.2f} ms, "
          f"p99 {1000 * late.get('p99', 0):.2f} ms, max {1000 * late.get('max', 0):.2f} ms")
    if load is not None:
        print(f"  client CPU {load.cpu_percent:.0f} % of one core; loop lag p50 "
              f"{load.loop_lag_p50_ms:.2f} ms, p99 {load.loop_lag_p99_ms:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
