"""How a cell's requests are dispatched: closed loop, open loop, and the client's own load.

Both loops take a `send(index)` coroutine that runs one request to the end and never raises for
a failed request; they only decide *when* requests start. Cancelling a loop cancels every
request in flight and waits for them, so nothing outlives the cell.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence

import numpy as np

from desktop_app.core.throughput.types import ClientLoad

Send = Callable[[int], Awaitable[None]]

# The open loop never holds more requests than this in flight: past it the client, not the
# server, would be what is measured. Arrivals beyond it wait (and the cell says so).
OPEN_LOOP_MAX_IN_FLIGHT = 1024


async def closed_loop(
    send: Send, *, concurrency: int, requests: int, deadline: float | None = None
) -> int:
    """Keep `concurrency` requests in flight until `requests` were sent; returns how many were.

    `deadline` (a `time.perf_counter()` value) stops new requests after it; `send` itself cuts
    the requests in flight at it (the sweep passes the deadline to `stream_request`).
    """
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < requests:
            if deadline is not None and time.perf_counter() >= deadline:
                return
            index = next_index
            next_index += 1
            await send(index)

    workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, requests))]
    await _gather_or_cancel(workers)
    return next_index


async def open_loop(
    send: Send, *, rate_per_s: float, requests: int, seed: int, deadline: float | None = None
) -> int:
    """Start requests at Poisson arrivals of `rate_per_s` until `requests` were sent.

    Arrival times are drawn from a generator seeded with `seed`, so a cell is repeatable. The
    schedule is absolute: a late start does not push every later arrival back.
    """
    rng = random.Random(seed)
    at, offsets = 0.0, []
    for _ in range(requests):
        at += rng.expovariate(rate_per_s)
        offsets.append(at)
    return await timed_loop(send, offsets, deadline=deadline)


async def timed_loop(send: Send, offsets: Sequence[float], *, deadline: float | None = None,
                     lateness: list[float] | None = None) -> int:
    """Start request `i` at `offsets[i]` seconds from now (ascending), until every one was
    sent; returns how many were. The schedule is absolute: a late start does not push the
    later ones back. `lateness` gets how late each send started (seconds after its time; a
    send held back by OPEN_LOOP_MAX_IN_FLIGHT counts the wait)."""
    start = time.perf_counter()
    limit = asyncio.Semaphore(OPEN_LOOP_MAX_IN_FLIGHT)
    tasks: list[asyncio.Task] = []

    async def one(index: int) -> None:
        try:
            await send(index)
        finally:
            limit.release()

    sent = 0
    try:
        for index, at in enumerate(offsets):
            delay = start + at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if deadline is not None and time.perf_counter() >= deadline:
                break
            await limit.acquire()
            if lateness is not None:
                lateness.append(max(0.0, time.perf_counter() - start - at))
            tasks.append(asyncio.create_task(one(index)))
            sent += 1
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    await _gather_or_cancel(tasks)
    return sent


async def _gather_or_cancel(tasks: list[asyncio.Task]) -> None:
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


class ClientLoadMonitor:
    """Measures how starved the client's event loop is while a cell runs.

    A timer that should fire every `interval_s` records how late it fired; CPU is this
    process's CPU time over wall time. Start with `start()`, read with `stop()`.
    """

    def __init__(self, interval_s: float = 0.01) -> None:
        self.interval_s = interval_s
        self._lags_ms: list[float] = []
        self._task: asyncio.Task | None = None
        self._cpu0 = 0.0
        self._wall0 = 0.0

    def start(self) -> None:
        self._cpu0 = time.process_time()
        self._wall0 = time.perf_counter()
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            expected = time.perf_counter() + self.interval_s
            await asyncio.sleep(self.interval_s)
            self._lags_ms.append(max(0.0, (time.perf_counter() - expected) * 1000.0))

    async def stop(self) -> ClientLoad | None:
        """Stop measuring; None if nothing was measured (a cell shorter than one interval)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        wall = time.perf_counter() - self._wall0
        if not self._lags_ms or wall <= 0:
            return None
        lags = np.asarray(self._lags_ms)
        return ClientLoad(
            loop_lag_p50_ms=float(np.percentile(lags, 50)),
            loop_lag_p99_ms=float(np.percentile(lags, 99)),
            loop_lag_max_ms=float(lags.max()),
            cpu_percent=100.0 * (time.process_time() - self._cpu0) / wall,
            samples=len(self._lags_ms),
        )
