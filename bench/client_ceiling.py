"""How many streamed tokens per second Throughline's throughput client can ingest.

Starts the simulator in its own process with the `instant` profile (every engine step costs
nothing: tokens come as fast as the server can write them), then keeps `concurrency` requests in
flight with the real client, driven by `throughput.loops.closed_loop` as a sweep does: for each
of `--clients` (default `httpx lean lean:2`): the httpx path (`endpoint.client`), the lean path
(`endpoint.lean`), or `CLIENT:N` spread over N worker processes (`throughput.workers`, as a
sweep's `--workers N`; client CPU then adds the workers'). Each request asks for `--tokens` output tokens
(`ignore_eos`), for about `--seconds`. Reports tokens/s (from `usage.completion_tokens`), the
client's CPU time (`time.process_time()`) per 1,000 tokens and as a share of one core, its
event-loop lag (`throughput.loops.ClientLoadMonitor`), and the server's CPU (/proc/PID/stat).
When the client's CPU is near 100 % the figure is the client's ceiling; when the server's is,
it is the simulator's (see bench/sim_stream_rate.py for the server alone).

    .venv/bin/python bench/client_ceiling.py                     # c=64, 256 tokens, 10 s
    .venv/bin/python bench/client_ceiling.py --concurrency 1 16 64 --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.endpoint.client import make_client, stream_request  # noqa: E402
from desktop_app.core.endpoint.lean import LeanClient, stream_request_lean  # noqa: E402
from desktop_app.core.endpoint.types import EndpointConfig  # noqa: E402
from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402
from desktop_app.core.throughput.loops import ClientLoadMonitor, closed_loop  # noqa: E402
from desktop_app.core.throughput.workers import WorkerPool, merge_loads  # noqa: E402

MODEL = "sim/llama-sim-8b"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def body(index: int, tokens: int) -> dict:
    return {"model": MODEL, "max_tokens": tokens, "ignore_eos": True, "min_tokens": tokens,
            "messages": [{"role": "user", "content": f"request {index}: count"}]}


async def measure(url: str, pid: int, concurrency: int, seconds: float, tokens: int,
                  http_client: str = "httpx") -> dict:
    config = EndpointConfig(base_url=url, model=MODEL)
    counts = {"requests": 0, "tokens": 0, "failed": 0, "chunks": 0}
    if http_client == "lean":
        client = LeanClient(config, concurrency)
        stream = stream_request_lean
    else:
        client = make_client(config, concurrency)
        stream = stream_request  # the httpx path
    async with client:
        async def warm(i: int) -> None:
            await stream(client, config, body(-1 - i, tokens))

        await closed_loop(warm, concurrency=concurrency, requests=concurrency)

        async def send(i: int) -> None:
            res = await stream(client, config, body(i, tokens))
            if res.error_class:
                counts["failed"] += 1
                return
            counts["requests"] += 1
            counts["tokens"] += res.completion_tokens
            counts["chunks"] += len(res.chunk_times_ns)

        monitor = ClientLoadMonitor()
        server0, client0, t0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
        monitor.start()
        await closed_loop(send, concurrency=concurrency, requests=10**9,
                          deadline=t0 + seconds)
        load = await monitor.stop()
        wall = time.perf_counter() - t0
        client_cpu_s = time.process_time() - client0
        server_cpu_s = cpu_seconds(pid) - server0
    return {**counts, "concurrency": concurrency, "wall_s": wall, "client": http_client,
            "workers": 1,
            "tok_per_s": counts["tokens"] / wall,
            "cpu_ms_per_1k": 1e6 * client_cpu_s / max(1, counts["tokens"]),
            "client_cpu": client_cpu_s / wall, "server_cpu": server_cpu_s / wall,
            "lag_p99": load.loop_lag_p99_ms if load else float("nan")}


async def measure_workers(url: str, pid: int, concurrency: int, seconds: float, tokens: int,
                          http_client: str, workers: int) -> dict:
    """The same, spread over `workers` processes as a sweep with --workers runs a cell
    (`throughput.workers.WorkerPool`); client CPU is this process's plus the workers'."""
    config = EndpointConfig(base_url=url, model=MODEL)
    counts = {"requests": 0, "tokens": 0, "failed": 0, "chunks": 0, "cut": 0}

    def on_result(_i: int, res) -> None:
        if res.error_class == "timeout" and "time budget" in (res.error_message or ""):
            counts["cut"] += 1  # in flight at the end of the time: not a failure
            return
        if res.error_class:
            counts["failed"] += 1
            return
        counts["requests"] += 1
        counts["tokens"] += res.completion_tokens
        counts["chunks"] += len(res.chunk_times_ns)

    pool = WorkerPool(workers, config, http_client)
    try:
        await pool.start()
        await pool.run_cell([(-1 - i, body(-1 - i, tokens)) for i in range(concurrency)],
                            concurrency=concurrency, rate_per_s=None, seed=0, deadline=None,
                            on_result=lambda i, r: None)
        # Enough requests for the time at 500,000 tokens/s; the deadline ends the cell.
        items = [(i, body(i, tokens)) for i in range(int(500_000 * seconds / tokens) + 1)]
        pids = [w.pid for w in pool.workers]
        server0, t0 = cpu_seconds(pid), time.perf_counter()
        client0 = time.process_time() + sum(cpu_seconds(p) for p in pids)
        await pool.run_cell(items, concurrency=concurrency, rate_per_s=None, seed=0,
                            deadline=t0 + seconds, on_result=on_result)
        wall = time.perf_counter() - t0
        client_cpu_s = time.process_time() + sum(cpu_seconds(p) for p in pids) - client0
        server_cpu_s = cpu_seconds(pid) - server0
        load = merge_loads(pool.loads)
    finally:
        await pool.close()
    return {**counts, "concurrency": concurrency, "wall_s": wall, "client": http_client,
            "workers": workers, "tok_per_s": counts["tokens"] / wall,
            "cpu_ms_per_1k": 1e6 * client_cpu_s / max(1, counts["tokens"]),
            "client_cpu": client_cpu_s / wall, "server_cpu": server_cpu_s / wall,
            "lag_p99": load.loop_lag_p99_ms if load else float("nan")}


def markdown(rows: list[dict], tokens: int, seconds: float) -> str:
    lines = [f"`instant` profile, {tokens} output tokens per request, about {seconds:g} s per row:",
             "",
             "| client | workers | concurrency | requests | tokens | tokens/s | "
             "client CPU per 1,000 tokens | client CPU | client loop lag p99 | server CPU |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        failed = f" ({r['failed']} failed)" if r["failed"] else ""
        if r.get("cut"):
            failed += f" ({r['cut']} cut at the end)"
        lines.append(f"| {r['client']} | {r['workers']} | {r['concurrency']} | "
                     f"{r['requests']:,}{failed} | {r['tokens']:,} | "
                     f"{r['tok_per_s']:,.0f} | {r['cpu_ms_per_1k']:.1f} ms | "
                     f"{r['client_cpu']:.0%} | {r['lag_p99']:.0f} ms | {r['server_cpu']:.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tokens", type=int, default=256, help="output tokens (ignore_eos)")
    parser.add_argument("--profile", default="instant")
    parser.add_argument("--clients", nargs="+", default=["httpx", "lean", "lean:2"],
                        metavar="CLIENT[:WORKERS]",
                        help="client paths to measure, each optionally with worker processes "
                             "(default: httpx lean lean:2)")
    parser.add_argument("--out", type=Path, help="also write the markdown table to this file")
    args = parser.parse_args()
    print(f"client ceiling against the simulator ({args.profile}): {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, httpx {httpx.__version__}", flush=True)
    load_before = os.getloadavg()
    rows = []
    with start_simulator(args.profile) as sim:
        for conc in args.concurrency:
            for spec in args.clients:
                name, _, workers = spec.partition(":")
                workers = int(workers or 1)
                if workers > 1:
                    row = asyncio.run(measure_workers(sim.url, sim.pid, conc, args.seconds,
                                                      args.tokens, name, workers))
                else:
                    row = asyncio.run(measure(sim.url, sim.pid, conc, args.seconds,
                                              args.tokens, name))
                print(f"  {name} x{workers} c={conc}: {row['tok_per_s']:,.0f} tok/s, "
                      f"{row['cpu_ms_per_1k']:.1f} ms CPU per 1,000 tokens", flush=True)
                rows.append(row)
    table = markdown(rows, args.tokens, args.seconds)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}; after: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print(table)
    if args.out:
        args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
