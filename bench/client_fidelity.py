"""Timing fidelity of Throughline's throughput client, checked against the simulator's trace.

Starts the simulator in its own process (`launcher.start_simulator`, profile `fast` by default),
then runs closed-loop cells from this process with the real client (`--http-client lean`, the
default: `endpoint.lean`; `httpx`: `endpoint.client.make_client` and `stream_request`; both
driven by `throughput.loops.closed_loop`, as a sweep does; `--workers N` spreads each cell over
N processes with `throughput.workers.WorkerPool`, as `--workers` does a sweep's): short prompts,
64 output tokens (`ignore_eos`), at concurrency 1, 16 and 64. Each StreamResult is matched to its
`GET /sim/trace` record by response id, and per request:

* TTFT error = (client first_token - client sent) - (server first_token_s - server arrival_s)
* E2E error  = (client last_token  - client sent) - (server last_token_s  - server arrival_s)
* send offset  = server arrival_s - client sent      (request path: httpx, loopback, h11, parsing)
* first offset = client first_token - server first_token_s  (one way, server write -> client stamp)
* last offset  = client last_token  - server last_token_s
* before the write = client sent -> httpcore starts writing the request (waiting for the pool
  and the event loop); stamped by wrapping httpcore's `_send_request_headers` in this script only

(TTFT error = send offset + first offset.) The simulator stamps `arrival_s` when its loop reads
the bytes that begin the request (before parsing it) and its `first_token_s` just after its
write, so even a perfect client sees the server's loop, busy with other streams, in the send
offset. Server times are its `time.perf_counter()` seconds,
the client's are `perf_counter_ns()`: on Linux both are CLOCK_MONOTONIC, so offsets are real.
The client's CPU is `time.process_time()` over wall time, its event-loop lag comes from
`throughput.loops.ClientLoadMonitor`, the server's CPU from /proc/PID/stat. With `--compare`
(default `instant`) the largest concurrency is repeated on that profile, and (unless `--no-raw`)
on the main profile with a minimal raw-asyncio client: the floor any client gets on this machine.

    .venv/bin/python bench/client_fidelity.py                       # about 100 s
    .venv/bin/python bench/client_fidelity.py --concurrency 64 --requests 640 --compare ''
    .venv/bin/python bench/client_fidelity.py --out fidelity.md     # also write the markdown
    .venv/bin/python bench/client_fidelity.py --concurrency 64 --requests 640 --compare '' \
        --http-client httpx lean                                    # the two paths side by side

The "before the write" column exists for the httpx path only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.endpoint.client import make_client, stream_request  # noqa: E402
from desktop_app.core.endpoint.lean import LeanClient, stream_request_lean  # noqa: E402
from desktop_app.core.endpoint.types import EndpointConfig, StreamResult  # noqa: E402
from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402
from desktop_app.core.throughput.loops import ClientLoadMonitor, closed_loop  # noqa: E402
from desktop_app.core.throughput.workers import WorkerPool, merge_loads  # noqa: E402

# Diagnostic only: when httpcore starts writing each request's headers (after the pool gave it a
# connection), keyed by an `X-Bench-Index` request header the simulator ignores. It splits the
# send offset into the client's own wait and the server's path. Missing internals: no column.
WRITE_STAMPS: dict[bytes, int] = {}
try:
    from httpcore._async import http11 as _h11

    _send_headers = _h11.AsyncHTTP11Connection._send_request_headers

    async def _stamped_send_headers(self, request) -> None:
        for key, value in request.headers:
            if key.lower() == b"x-bench-index":
                WRITE_STAMPS[value] = time.perf_counter_ns()
        await _send_headers(self, request)

    _h11.AsyncHTTP11Connection._send_request_headers = _stamped_send_headers
except (ImportError, AttributeError):  # another httpcore: the column stays empty
    pass

TARGET_P99_MS = 10.0  # issue #13's target for the TTFT/E2E error p99 at concurrency 64 (was 2)
MODEL = "sim/llama-sim-8b"
FIGURES = ("ttft_err", "e2e_err", "send_off", "first_off", "last_off", "pre_write")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def body(index: int, tokens: int) -> dict:
    # Short and distinct: the server's prefill is a few microseconds of modelled time.
    return {"model": MODEL, "max_tokens": tokens, "ignore_eos": True, "min_tokens": tokens,
            "temperature": 0.0,
            "messages": [{"role": "user", "content": f"request {index}: say something"}]}


async def run_cell(url: str, pid: int, concurrency: int, requests: int, tokens: int,
                   http_client: str = "lean", workers: int = 1) -> dict:
    if workers > 1:
        return await run_cell_workers(url, pid, concurrency, requests, tokens, http_client,
                                      workers)
    config = EndpointConfig(base_url=url, model=MODEL)
    results: list[tuple[int, StreamResult]] = []
    lean = LeanClient(config, concurrency) if http_client == "lean" else None
    stream = stream_request_lean if lean is not None else stream_request
    async with make_client(config, concurrency) as client:
        streams = lean or client

        async def warm(i: int) -> None:
            await stream(streams, config, body(-1 - i, tokens))

        await closed_loop(warm, concurrency=concurrency, requests=concurrency)  # opens the pool
        await client.delete(url + "/sim/trace")

        async def send(i: int) -> None:
            res = await stream(streams, config, body(i, tokens),
                               headers={"X-Bench-Index": str(i)})
            results.append((i, res))

        monitor = ClientLoadMonitor()
        server0, client0, t0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
        monitor.start()
        await closed_loop(send, concurrency=concurrency, requests=requests)
        load = await monitor.stop()
        wall = time.perf_counter() - t0
        client_cpu = (time.process_time() - client0) / wall
        server_cpu = (cpu_seconds(pid) - server0) / wall
        trace = (await client.get(url + "/sim/trace")).json()["records"]
        if lean is not None:
            await lean.aclose()
    matches = []
    for i, res in results:
        written = WRITE_STAMPS.pop(str(i).encode(), None)
        ok = res.error_class is None and res.first_token_ns is not None
        matches.append((res.response_id, ok, res.sent_ns, res.first_token_ns, res.last_token_ns,
                        written))
    row = summarize(matches, trace, concurrency, requests, tokens, wall)
    row.update(client=f"throughline {http_client}", client_cpu=client_cpu,
               server_cpu=server_cpu, lag_p50=load.loop_lag_p50_ms if load else float("nan"),
               lag_p99=load.loop_lag_p99_ms if load else float("nan"))
    return row


async def run_cell_workers(url: str, pid: int, concurrency: int, requests: int, tokens: int,
                           http_client: str, workers: int) -> dict:
    """The same cell spread over `workers` processes (`throughput.workers.WorkerPool`, as a
    sweep with --workers runs it); client CPU is this process's plus the workers'."""
    config = EndpointConfig(base_url=url, model=MODEL)
    results: list[tuple[int, StreamResult]] = []
    pool = WorkerPool(workers, config, http_client)
    try:
        await pool.start()
        await pool.run_cell([(-1 - i, body(-1 - i, tokens)) for i in range(concurrency)],
                            concurrency=concurrency, rate_per_s=None, seed=0, deadline=None,
                            on_result=lambda i, r: None)
        async with httpx.AsyncClient() as client:
            await client.delete(url + "/sim/trace")
        pids = [w.pid for w in pool.workers]
        server0, t0 = cpu_seconds(pid), time.perf_counter()
        client0 = time.process_time() + sum(cpu_seconds(p) for p in pids)
        await pool.run_cell([(i, body(i, tokens)) for i in range(requests)],
                            concurrency=concurrency, rate_per_s=None, seed=0, deadline=None,
                            on_result=lambda i, r: results.append((i, r)))
        wall = time.perf_counter() - t0
        client_cpu = (time.process_time() + sum(cpu_seconds(p) for p in pids) - client0) / wall
        server_cpu = (cpu_seconds(pid) - server0) / wall
        load = merge_loads(pool.loads)
    finally:
        await pool.close()
    async with httpx.AsyncClient() as client:
        trace = (await client.get(url + "/sim/trace")).json()["records"]
    matches = [(res.response_id, res.error_class is None and res.first_token_ns is not None,
                res.sent_ns, res.first_token_ns, res.last_token_ns, None) for _, res in results]
    row = summarize(matches, trace, concurrency, requests, tokens, wall)
    row.update(client=f"throughline {http_client} x{workers} workers", client_cpu=client_cpu,
               server_cpu=server_cpu, lag_p50=load.loop_lag_p50_ms if load else float("nan"),
               lag_p99=load.loop_lag_p99_ms if load else float("nan"))
    return row


def summarize(matches: list[tuple], trace: list[dict], concurrency: int, requests: int,
              tokens: int, wall: float) -> dict:
    """Per-request errors and offsets (ms) from (id, ok, sent, first, last, written) tuples."""
    by_id = {r["id"]: r for r in trace}
    rows: dict[str, list[float]] = {k: [] for k in FIGURES}
    failed = unmatched = 0
    for rid, ok, sent_ns, first_ns, last_ns, written_ns in matches:
        rec = by_id.get(rid)
        if not ok:
            failed += 1
            continue
        if rec is None or rec["first_token_s"] is None:
            unmatched += 1
            continue
        sent, first, last = sent_ns / 1e9, first_ns / 1e9, last_ns / 1e9
        rows["ttft_err"].append((first - sent) - (rec["first_token_s"] - rec["arrival_s"]))
        rows["e2e_err"].append((last - sent) - (rec["last_token_s"] - rec["arrival_s"]))
        rows["send_off"].append(rec["arrival_s"] - sent)
        rows["first_off"].append(first - rec["first_token_s"])
        rows["last_off"].append(last - rec["last_token_s"])
        if written_ns is not None:
            rows["pre_write"].append((written_ns - sent_ns) / 1e9)
    stats = {}
    for k, values in rows.items():
        ms = np.asarray(values) * 1e3
        stats[k] = ((float(np.percentile(ms, 50)), float(np.percentile(ms, 99)), float(ms.max()),
                     float(ms.min())) if len(ms) else (float("nan"),) * 4)
    return {"concurrency": concurrency, "requests": requests, "matched": len(rows["ttft_err"]),
            "failed": failed, "unmatched": unmatched, "wall_s": wall, "stats": stats,
            "tokens_per_s": len(rows["ttft_err"]) * tokens / wall}


async def run_cell_raw(url: str, pid: int, concurrency: int, requests: int, tokens: int) -> dict:
    """The same cell from a minimal client (raw asyncio streams, one read stamp per chunk, no
    JSON parsing): the floor any Python client could reach against this server on this machine."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    matches: list[tuple] = []
    next_index = 0

    async def connection(count: bool) -> None:
        nonlocal next_index
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while next_index < requests:
                i = next_index
                next_index += 1
                payload = json.dumps({**body(i, tokens), "stream": True}).encode()
                request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: sim\r\n"
                           b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                           % len(payload) + payload)
                sent = time.perf_counter_ns()
                writer.write(request)
                data, first, now = b"", None, sent
                while not data.endswith(b"\r\n0\r\n\r\n"):
                    chunk = await reader.read(65536)
                    now = time.perf_counter_ns()
                    if not chunk:
                        raise RuntimeError("the server closed the connection")
                    if first is None and b'"delta":{"content":' in chunk:
                        first = now
                    data += chunk
                if count:
                    rid = data.split(b'"id":"', 1)[1].split(b'"', 1)[0].decode()
                    matches.append((rid, first is not None, sent, first, now, None))
        finally:
            writer.close()

    await asyncio.gather(*(connection(False) for _ in range(concurrency)))  # warm-up
    next_index = 0
    async with httpx.AsyncClient() as client:
        await client.delete(url + "/sim/trace")
        server0, client0, t0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
        await asyncio.gather(*(connection(True) for _ in range(concurrency)))
        wall = time.perf_counter() - t0
        client_cpu = (time.process_time() - client0) / wall
        server_cpu = (cpu_seconds(pid) - server0) / wall
        trace = (await client.get(url + "/sim/trace")).json()["records"]
    row = summarize(matches, trace, concurrency, requests, tokens, wall)
    row.update(client="raw asyncio", client_cpu=client_cpu, server_cpu=server_cpu,
               lag_p50=float("nan"), lag_p99=float("nan"))
    return row


_CPUS = sorted(os.sched_getaffinity(0))  # before any pinning narrows this process's set


def pin(sim_pid: int) -> None:
    """The simulator on the last CPU, this client on the others: a server on a machine of its
    own, as in a real deployment. Without it the two share every core, and the server's late
    reading of a burst of requests shows as send offset in the client's TTFT error."""
    cpus = _CPUS
    if len(cpus) < 2:
        raise SystemExit("--pin needs at least 2 CPUs")
    os.sched_setaffinity(sim_pid, {cpus[-1]})
    os.sched_setaffinity(0, set(cpus[:-1]))


def measure(profile: str, cells: list[tuple[int, int]], tokens: int, raw: bool = False,
            http_client: str = "lean", workers: int = 1, pinned: bool = False) -> list[dict]:
    out = []
    with start_simulator(profile) as sim:
        if pinned:
            pin(sim.pid)
        for conc, n in cells:
            if raw:
                row = asyncio.run(run_cell_raw(sim.url, sim.pid, conc, n, tokens))
            else:
                row = asyncio.run(run_cell(sim.url, sim.pid, conc, n, tokens, http_client,
                                           workers))
            row["profile"] = profile
            out.append(row)
            s = row["stats"]
            print(f"  {row['client']:>11} {profile:>8} c={conc:<3} {row['matched']}/{n} matched"
                  f" in {row['wall_s']:.1f} s: TTFT err p50 {s['ttft_err'][0]:.2f}"
                  f" p99 {s['ttft_err'][1]:.2f} ms, E2E err p50 {s['e2e_err'][0]:.2f}"
                  f" p99 {s['e2e_err'][1]:.2f} ms, client CPU {row['client_cpu']:.0%},"
                  f" server CPU {row['server_cpu']:.0%}", flush=True)
    return out


def _pair(stat: tuple) -> str:
    return "-" if np.isnan(stat[0]) else f"{stat[0]:.2f} / {stat[1]:.2f}"


def markdown(rows: list[dict], tokens: int) -> str:
    lines = [
        f"Milliseconds, p50 / p99 over the requests; {tokens} output tokens per request:",
        "",
        "| client | profile | concurrency | requests | TTFT error | E2E error | send offset | "
        "of which before the write | first-token offset | last-token offset | client CPU | "
        "client loop lag p99 | server CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        s = r["stats"]
        cells = " | ".join(_pair(s[k]) for k in
                           ("ttft_err", "e2e_err", "send_off", "pre_write", "first_off",
                            "last_off"))
        note = "" if not (r["failed"] or r["unmatched"]) else (
            f" ({r['failed']} failed, {r['unmatched']} unmatched)")
        lag = "-" if np.isnan(r["lag_p99"]) else f"{r['lag_p99']:.1f}"
        lines.append(f"| {r['client']} | {r['profile']} | {r['concurrency']} | {r['matched']:,}"
                     f"{note} | {cells} | {r['client_cpu']:.0%} | {lag} | "
                     f"{r['server_cpu']:.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="fast")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--requests", type=int, nargs="+", default=None,
                        help="requests per concurrency (default 200, 400, 640 for 1, 16, 64;"
                        " else max(200, 10 x c))")
    parser.add_argument("--tokens", type=int, default=64, help="output tokens (ignore_eos)")
    parser.add_argument("--compare", default="instant",
                        help="repeat the largest concurrency on this profile ('' for none)")
    parser.add_argument("--no-raw", action="store_true",
                        help="skip the minimal raw-asyncio client at the largest concurrency")
    parser.add_argument("--http-client", nargs="+", default=["lean"],
                        choices=["lean", "httpx"], help="the client path(s) to measure")
    parser.add_argument("--workers", type=int, default=1,
                        help="spread each cell over this many worker processes")
    parser.add_argument("--out", type=Path, help="also write the markdown table to this file")
    parser.add_argument("--pin", action="store_true",
                        help="run the simulator on a CPU of its own, the client on the others")
    args = parser.parse_args()
    defaults = {1: 200, 16: 400, 64: 640}
    requests = args.requests or [defaults.get(c, max(200, 10 * c)) for c in args.concurrency]
    if len(requests) != len(args.concurrency):
        parser.error("give one --requests value per --concurrency value")
    print(f"client fidelity against the simulator: {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, httpx {httpx.__version__}", flush=True)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    rows = []
    for http_client in args.http_client:
        rows += measure(args.profile, list(zip(args.concurrency, requests)), args.tokens,
                        http_client=http_client, workers=args.workers, pinned=args.pin)
    top_cell = [(args.concurrency[-1], requests[-1])]
    if args.compare:
        for http_client in args.http_client:
            rows += measure(args.compare, top_cell, args.tokens, http_client=http_client,
                            workers=args.workers, pinned=args.pin)
    if not args.no_raw:
        rows += measure(args.profile, top_cell, args.tokens, raw=True, pinned=args.pin)
    table = markdown(rows, args.tokens)
    print()
    print(table)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for top in rows:
        if (top["profile"] != args.profile or not top["client"].startswith("throughline")
                or top["concurrency"] != args.concurrency[-1]):
            continue
        worst = max(top["stats"]["ttft_err"][1], top["stats"]["e2e_err"][1])
        verdict = "met" if worst < TARGET_P99_MS else "MISSED"
        print(f"target: p99 error < {TARGET_P99_MS:g} ms at concurrency {top['concurrency']} "
              f"({args.profile}, {top['client']}): {verdict} (worst p99 {worst:.2f} ms)")
    if args.out:
        args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
