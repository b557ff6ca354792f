"""How many streamed tokens per second the simulator delivers to a plain client.

Starts the simulator in its own process (`launcher.start_simulator`, profile `instant`: every
step costs nothing, so the server's own overhead is all there is), then streams chat completions
from this process with a minimal HTTP/1.1 client on raw asyncio streams (keep-alive, chunked
decoding, counting `"delta":{"content":` events), at several concurrencies. The server's CPU use
comes from /proc/PID/stat (user + system time of the server process), the client's from
`time.process_time()`.

    .venv/bin/python bench/sim_stream_rate.py [--seconds 5] [--tokens 256] [--concurrency 1 16 64]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402

CONTENT = b'"delta":{"content":'


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def read_response(reader: asyncio.StreamReader) -> bytes:
    """One HTTP/1.1 response's body (chunked or with Content-Length)."""
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"bad status: {status!r}")
    length, chunked = None, False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if not chunked:
        return await reader.readexactly(length or 0)
    body = bytearray()
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        if size == 0:
            await reader.readline()
            return bytes(body)
        body += await reader.readexactly(size)
        await reader.readexactly(2)


async def worker(host: str, port: int, payload: bytes, stop_at: float, counts: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: sim\r\n"
               b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(payload)
               + payload)
    try:
        while time.perf_counter() < stop_at:
            writer.write(request)
            body = await read_response(reader)
            if not body.endswith(b"data: [DONE]\n\n"):
                raise RuntimeError("stream did not end with [DONE]")
            counts[0] += body.count(CONTENT)
            counts[1] += 1
    finally:
        writer.close()
        await writer.wait_closed()


async def measure(url: str, pid: int, concurrency: int, seconds: float, tokens: int) -> dict:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    payload = json.dumps({
        "model": "sim/llama-sim-8b", "stream": True, "max_tokens": tokens, "ignore_eos": True,
        "messages": [{"role": "user", "content": "count to a large number"}],
    }).encode()
    counts = [0, 0]
    cpu0, client0, t0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker(host, int(port), payload, t0 + seconds, counts)
                           for _ in range(concurrency)))
    wall = time.perf_counter() - t0
    return {"concurrency": concurrency, "requests": counts[1], "tokens": counts[0],
            "wall_s": wall, "tok_per_s": counts[0] / wall,
            "server_cpu": (cpu_seconds(pid) - cpu0) / wall,
            "client_cpu": (time.process_time() - client0) / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--tokens", type=int, default=256, help="max_tokens (ignore_eos)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--profile", default="instant")
    args = parser.parse_args()
    with start_simulator(args.profile) as sim:
        asyncio.run(measure(sim.url, sim.pid, 4, 1.0, args.tokens))  # warm-up
        rows = [asyncio.run(measure(sim.url, sim.pid, c, args.seconds, args.tokens))
                for c in args.concurrency]
    print(f"profile {args.profile}, {args.tokens} tokens per request, {args.seconds:g} s per row,"
          f" {os.cpu_count()} CPUs")
    print(f"{'conc':>5} {'requests':>9} {'tokens':>9} {'tok/s':>9} {'server CPU':>11} "
          f"{'client CPU':>11}")
    for r in rows:
        print(f"{r['concurrency']:>5} {r['requests']:>9} {r['tokens']:>9} {r['tok_per_s']:>9.0f} "
              f"{r['server_cpu']:>10.0%} {r['client_cpu']:>10.0%}")


if __name__ == "__main__":
    main()
