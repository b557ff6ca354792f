"""Load-generating worker processes: a cell's streams spread over N processes.

One event loop in one process stamps every chunk of every stream; past a few thousand chunks
per second it runs late and every timestamp with it (docs/PERFORMANCE.md). `WorkerPool` starts
N processes (the 'spawn' context: the GUI has Qt loaded and a forked Qt process is not safe),
each with its own loop and its own connections (the lean path, or httpx when the sweep asks
for it). For each cell the parent hands every worker its share: a closed loop of concurrency C
gives worker w C // N requests in flight (one more for the first C % N) and a matching share
of the requests; an open loop of rate R gives each worker R / N (independent Poisson arrivals
add up to Poisson arrivals of R). The bodies are built (and their prompts counted) by the
parent before the cell starts, so no worker waits on a tokenizer.

Clock: workers stamp with `time.perf_counter_ns()`, which on Linux is CLOCK_MONOTONIC, one
clock for every process on the host (tests/core/throughput/test_workers.py checks it), so their stamps go
on the run's clock unchanged; the cell's deadline is a `time.perf_counter()` value for the
same reason. Results come back as they finish (batched every `FLUSH_S`); the parent records
them (the store's writer stays in the parent). Each worker measures its own loop lag and CPU
(`loops.ClientLoadMonitor`); the cell's `client_load` is the busiest worker's figures, so a
cell any worker was too busy for is flagged client-bound by the usual check.

Cancelling `run_cell` (or the sweep) kills the workers at once: their connections drop, as a
cancelled in-process cell's do. A worker that dies makes the cell raise `WorkerError`.

The pieces a worker is made of, `plan_shares` (the parent's split), `open_stream_client` and
`run_share` (the worker's loop), are shared with the Ray actors of `throughput.ray_pool`, which
run the same code on other machines.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from desktop_app.core.endpoint import limits as _limits
from desktop_app.core.endpoint.types import EndpointConfig, StreamResult
from desktop_app.core.throughput.types import ClientLoad
from desktop_app.core.parsing import CodedError

__all__ = ["Share", "WorkerError", "WorkerPool", "apply_limits", "default_workers",
           "limit_values", "merge_loads", "open_stream_client", "plan_shares", "run_share",
           "split"]

FLUSH_S = 0.05  # a worker sends its finished requests at least this often
START_TIMEOUT_S = 120.0  # spawning imports the app: seconds on a busy machine
_MAX_STREAMS = 4096  # streams in flight one worker keeps connections for
_LIMIT_NAMES = [n for n in dir(_limits) if n.startswith(("MAX_", "DECODE_"))]


class WorkerError(CodedError, RuntimeError):
    """A worker process failed or died: a code and its values (which worker, how), said in the
    reader's language by `report.errors.error_text`."""


def default_workers() -> int:
    """CPU count minus one (one core left to the GUI or the rest), at least 1."""
    return max(1, (os.cpu_count() or 1) - 1)


def split(total: int, parts: int) -> list[int]:
    """`total` in `parts` shares differing by at most one, larger first."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def merge_loads(loads: list[ClientLoad | None]) -> ClientLoad | None:
    """One ClientLoad for a cell run on several workers: the busiest figures of any worker
    (each lag and the CPU share are maxima; samples add up)."""
    known = [load for load in loads if load is not None]
    if not known:
        return None
    return ClientLoad(
        loop_lag_p50_ms=max(x.loop_lag_p50_ms for x in known),
        loop_lag_p99_ms=max(x.loop_lag_p99_ms for x in known),
        loop_lag_max_ms=max(x.loop_lag_max_ms for x in known),
        cpu_percent=max(x.cpu_percent for x in known),
        samples=sum(x.samples for x in known),
    )


@dataclass(frozen=True)
class Share:
    """What one worker runs of a cell: `items` are (request index, body); closed loop when
    `concurrency` is set, else open loop at `rate_per_s` with `seed`."""

    items: list
    concurrency: int | None
    rate_per_s: float | None
    seed: int
    deadline: float | None  # time.perf_counter() value on the worker's clock, seconds


def plan_shares(items: list, workers: int, *, concurrency: int | None,
                rate_per_s: float | None, seed: int, deadline: float | None) -> list[Share]:
    """A cell's `items` split over at most `workers` workers (fewer when the cell is smaller).

    Closed loop: worker w keeps concurrency // n in flight (one more for the first
    concurrency % n) and gets a matching share of the items. Open loop: each gets rate / n
    (independent Poisson arrivals add up to Poisson arrivals at the full rate) and an equal share.
    """
    if concurrency is not None:
        used = min(workers, concurrency, max(1, len(items)))
        per_worker = list(split(concurrency, used))
        conc: list[int | None] = list(per_worker)
        counts = [round(len(items) * c / concurrency) for c in per_worker]
    else:
        used = min(workers, max(1, len(items)))
        conc = [None] * used
        counts = split(len(items), used)
    counts[0] += len(items) - sum(counts)  # rounding: the first worker takes the rest
    shares, start = [], 0
    for w_index, (c, k) in enumerate(zip(conc, counts)):
        shares.append(Share(items[start:start + k], c,
                            None if rate_per_s is None else rate_per_s / used,
                            seed * 1000 + w_index, deadline))
        start += k
    return shares


def limit_values() -> dict:
    """This process's response limits (`endpoint.limits`), for a worker to apply: a test may
    have lowered them."""
    return {n: getattr(_limits, n) for n in _LIMIT_NAMES}


def apply_limits(values: dict) -> None:
    """Take the parent's `limit_values()` in a worker (only names `endpoint.limits` has)."""
    for name, value in values.items():
        if name in _LIMIT_NAMES:
            setattr(_limits, name, value)


class _Worker:
    def __init__(self, process, conn) -> None:
        self.process = process
        self.conn = conn
        self.pid = process.pid
        self.done: asyncio.Future | None = None


class WorkerPool:
    """N worker processes streaming to one endpoint. `start()` once, `run_cell()` per cell,
    `close()` at the end (also on errors: it kills what is left)."""

    def __init__(self, count: int, endpoint: EndpointConfig, http_client: str = "lean") -> None:
        self.count = count
        self.endpoint = endpoint
        self.http_client = http_client
        self.workers: list[_Worker] = []
        self.loads: list[ClientLoad | None] = []  # the last cell's, per worker

    async def start(self) -> None:
        """Spawn the workers and wait until each has its loop and client ready."""
        ctx = multiprocessing.get_context("spawn")
        limits = limit_values()
        for _ in range(self.count):
            parent, child = ctx.Pipe()
            process = ctx.Process(target=_worker_main, daemon=True, name="throughline-worker",
                                  args=(child, self.endpoint, self.http_client, limits))
            process.start()
            child.close()
            self.workers.append(_Worker(process, parent))
        for w in self.workers:
            ready = await asyncio.to_thread(_recv_within, w.conn, START_TIMEOUT_S)
            if not (isinstance(ready, tuple) and ready[0] == "ready"):
                raise WorkerError(code="worker_not_started", pid=w.pid, detail=f"{ready!r:.300}")

    async def run_cell(self, items: list, *, concurrency: int | None, rate_per_s: float | None,
                       seed: int, deadline: float | None,
                       on_result: Callable[[int, StreamResult], None]) -> int:
        """Run one cell's `items` ((index, body) pairs) over the workers; `on_result(index,
        result)` is called in this loop as each finishes. Returns how many were sent; the
        workers' ClientLoads are left in `self.loads`."""
        self.loads = []
        shares = plan_shares(items, len(self.workers), concurrency=concurrency,
                             rate_per_s=rate_per_s, seed=seed, deadline=deadline)
        loop = asyncio.get_running_loop()
        active = self.workers[:len(shares)]
        try:
            futures = []
            for w, share in zip(active, shares):
                w.done = loop.create_future()
                futures.append(w.done)
                loop.add_reader(w.conn.fileno(), self._readable, w, on_result)
                w.conn.send(("cell", share))
            outcomes = await asyncio.gather(*futures)
        except BaseException:
            self.kill()
            raise
        finally:
            for w in active:
                if not w.conn.closed:
                    loop.remove_reader(w.conn.fileno())
        self.loads = [load for _, load in outcomes]
        return sum(sent for sent, _ in outcomes)

    def _readable(self, w: _Worker, on_result) -> None:
        try:
            while w.conn.poll():
                msg = w.conn.recv()
                if msg[0] == "results":
                    for index, res in msg[1]:
                        on_result(index, res)
                elif msg[0] == "done":
                    if w.done is not None and not w.done.done():
                        w.done.set_result((msg[1], msg[2]))
                    return
                elif msg[0] == "error":
                    raise WorkerError(code="worker_failed", pid=w.pid, detail=str(msg[1]))
        except (EOFError, OSError) as exc:
            self._fail(w, WorkerError(code="worker_died", pid=w.pid,
                                      status=w.process.exitcode, detail=type(exc).__name__))
        except Exception as exc:  # noqa: BLE001 - a failing on_result too ends the cell
            self._fail(w, exc)

    def _fail(self, w: _Worker, exc: BaseException) -> None:
        asyncio.get_running_loop().remove_reader(w.conn.fileno())
        if w.done is not None and not w.done.done():
            w.done.set_exception(exc)

    def kill(self) -> None:
        """Stop every worker now (their streams drop)."""
        for w in self.workers:
            if w.process.is_alive():
                w.process.kill()
        for w in self.workers:
            w.process.join(5)
            w.conn.close()
        self.workers = []

    async def clock_record(self) -> dict | None:
        """None: processes on this host stamp on its one clock, so there is nothing to state
        (`RayPool.clock_record` has what actors on other machines need)."""
        return None

    async def close(self) -> None:
        """Ask the workers to end, then make sure they did."""
        for w in self.workers:
            try:
                w.conn.send(("stop",))
            except OSError:
                pass
        deadline = time.monotonic() + 5
        for w in self.workers:
            while w.process.is_alive() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        self.kill()


def _recv_within(conn, timeout_s: float):
    if not conn.poll(timeout_s):
        return "no answer within the start timeout"
    try:
        return conn.recv()
    except EOFError:
        return "it exited"


# --- in the worker process ---------------------------------------------------------------------

def _worker_main(conn, endpoint: EndpointConfig, http_client: str, limits: dict) -> None:
    apply_limits(limits)
    try:
        asyncio.run(_serve(conn, endpoint, http_client))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass


async def _serve(conn, endpoint: EndpointConfig, http_client: str) -> None:
    client, stream = open_stream_client(endpoint, http_client)
    async with client:
        conn.send(("ready", os.getpid()))
        while True:
            msg = await asyncio.to_thread(conn.recv)  # between cells only
            if msg[0] == "stop":
                return
            share: Share = msg[1]
            try:
                sent, load = await run_share(client, stream, endpoint, share,
                                             lambda batch: conn.send(("results", batch)))
            except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
                continue
            conn.send(("done", sent, load))


# --- shared by the worker processes and the Ray actors ------------------------------------------

def open_stream_client(endpoint: EndpointConfig, http_client: str):
    """(client, stream function) for a worker: the lean path unless `http_client` is "httpx"
    or a proxy applies. Enter the client (`async with`) before streaming on it."""
    from desktop_app.core.endpoint.client import make_client, stream_request
    from desktop_app.core.endpoint.lean import LeanClient, lean_supported, stream_request_lean

    # Sized for any share: idle connections are only kept, never opened ahead.
    if http_client == "lean" and lean_supported(endpoint):
        return LeanClient(endpoint, _MAX_STREAMS), stream_request_lean
    return make_client(endpoint, _MAX_STREAMS), stream_request


async def run_share(client, stream, endpoint: EndpointConfig, share: Share,
                    emit: Callable[[list], None]) -> tuple[int, ClientLoad | None]:
    """Stream one worker's `share` of a cell on `client`; returns (requests sent, this loop's
    ClientLoad). Finished requests go to `emit` as lists of (index, StreamResult), at least
    every `FLUSH_S` and once more at the end; each list is the callee's to keep. Cancelling
    cancels every request in flight (their connections drop)."""
    from desktop_app.core.throughput.loops import ClientLoadMonitor, closed_loop, open_loop

    batch: list = []
    items = share.items

    async def send(k: int) -> None:
        index, body = items[k]
        items[k] = None  # its body is not needed any more
        res = await stream(client, endpoint, body, deadline=share.deadline)
        batch.append((index, res))

    def flush_now() -> None:
        if batch:
            emit(batch[:])
            batch.clear()

    async def flush() -> None:
        while True:
            await asyncio.sleep(FLUSH_S)
            flush_now()

    monitor = ClientLoadMonitor()
    monitor.start()
    flusher = asyncio.create_task(flush())
    try:
        if share.concurrency is not None:
            sent = await closed_loop(send, concurrency=share.concurrency, requests=len(items),
                                     deadline=share.deadline)
        else:
            assert share.rate_per_s is not None  # plan_shares gives an open loop its rate
            sent = await open_loop(send, rate_per_s=share.rate_per_s, requests=len(items),
                                   seed=share.seed, deadline=share.deadline)
    finally:
        flusher.cancel()
        await asyncio.gather(flusher, return_exceptions=True)
        load = await monitor.stop()
    flush_now()
    return sent, load
