"""How many streamed tokens per second Throughline's throughput client can ingest.

Starts the simulator in its own process with the `instant` profile (every engine step costs
nothing: tokens come as fast as the server can write them), then keeps `concurrency` requests in
flight from this process with the real client (`endpoint.client.make_client` + `stream_request`,
driven by `throughput.loops.closed_loop` as a sweep does), each asking for `--tokens` output tokens
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
from desktop_app.core.endpoint.types import EndpointConfig  # noqa: E402
from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402
from desktop_app.core.throughput.loops import ClientLoadMonitor, closed_loop  # noqa: E402

MODEL = "sim/llama-sim-8b"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def body(index: int, tokens: int) -> dict:
    return {"model": MODEL, "max_tokens": tokens, "ignore_eos": True, "min_tokens": tokens,
            "messages": [{"role": "user", "content": f"request {index}: count"}]}


async def measure(url: str, pid: int, concurrency: int, seconds: float, tokens: int) -> dict:
    config = EndpointConfig(base_url=url, model=MODEL)
    counts = {"requests": 0, "tokens": 0, "failed": 0, "chunks": 0}
    async with make_client(config, concurrency) as client:
        async def warm(i: int) -> None:
            await stream_request(client, config, body(-1 - i, tokens))

        await closed_loop(warm, concurrency=concurrency, requests=concurrency)

        async def send(i: int) -> None:
            res = await stream_request(client, config, body(i, tokens))
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
    return {**counts, "concurrency": concurrency, "wall_s": wall,
            "tok_per_s": counts["tokens"] / wall,
            "cpu_ms_per_1k": 1e6 * client_cpu_s / max(1, counts["tokens"]),
            "client_cpu": client_cpu_s / wall, "server_cpu": server_cpu_s / wall,
            "lag_p99": load.loop_lag_p99_ms if load else float("nan")}


def markdown(rows: list[dict], tokens: int, seconds: float) -> str:
    lines = [f"`instant` profile, {tokens} output tokens per request, about {seconds:g} s per row:",
             "",
             "| concurrency | requests | tokens | tokens/s | client CPU per 1,000 tokens | "
             "client CPU | client loop lag p99 | server CPU |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        failed = f" ({r['failed']} failed)" if r["failed"] else ""
        lines.append(f"| {r['concurrency']} | {r['requests']:,}{failed} | {r['tokens']:,} | "
                     f"{r['tok_per_s']:,.0f} | {r['cpu_ms_per_1k']:.1f} ms | "
                     f"{r['client_cpu']:.0%} | {r['lag_p99']:.0f} ms | {r['server_cpu']:.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tokens", type=int, default=256, help="output tokens (ignore_eos)")
    parser.add_argument("--profile", default="instant")
    parser.add_argument("--out", type=Path, help="also write the markdown table to this file")
    args = parser.parse_args()
    print(f"client ceiling against the simulator ({args.profile}): {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, httpx {httpx.__version__}", flush=True)
    rows = []
    with start_simulator(args.profile) as sim:
        for conc in args.concurrency:
            rows.append(asyncio.run(measure(sim.url, sim.pid, conc, args.seconds, args.tokens)))
    table = markdown(rows, args.tokens, args.seconds)
    print()
    print(table)
    if args.out:
        args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
