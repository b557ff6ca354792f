"""Drive the clock-free Engine in real time on the server's asyncio loop.

One stepping task owns the engine. It plans a step at engine time `t`, sleeps until the step's
end `t + duration` (an absolute deadline: the next step starts at that deadline, not at the
moment the loop woke up, so timer lateness never accumulates), then hands the new tokens to each
request's consumer. With no work it waits, without polling, for an arrival or for the moment the
first queued request finishes preprocessing.

Engine time is `time.perf_counter()` seconds, the clock the trace reports (CLOCK_MONOTONIC on
Linux, like `time.monotonic()` and the asyncio loop's clock).

Zero-cost steps (the `instant` profile) run back to back, but the task yields to the loop at
least every `yield_every_s` so that consumers write their tokens and other connections progress;
a consumer then finds several tokens waiting and may write them at once.

If the loop falls more than `max_lag_s` behind the engine's schedule (an overloaded machine),
the next step starts at the current time instead: a real GPU does not catch up on lost time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from desktop_app.core.simulator.engine import Engine, SimRequest

log = logging.getLogger(__name__)


class RequestHandle:
    """One request's view of the engine: await its tokens, or cancel it.

    `async for generated in handle` yields the cumulative number of tokens generated so far
    (each value larger than the last; tokens `previous .. generated-1` are new) and ends when the
    request has finished or was cancelled. `generated` and `finished` can also be read directly.
    """

    __slots__ = ("req", "generated", "finished", "cancelled", "_driver", "_waiter", "_seen")

    def __init__(self, req: SimRequest, driver: RealtimeDriver) -> None:
        self.req = req
        self.generated = 0
        self.finished = False
        self.cancelled = False
        self._driver = driver
        self._waiter: asyncio.Future | None = None
        self._seen = 0

    def cancel(self) -> None:
        """Abort the request in the engine (frees its KV cache) and end the iteration."""
        if self.cancelled or self.finished:
            return
        self.cancelled = True
        self._driver._forget(self)
        self._wake()

    def _deliver(self, generated: int, finished: bool) -> None:
        self.generated = generated
        if finished:
            self.finished = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def __aiter__(self) -> RequestHandle:
        return self

    async def __anext__(self) -> int:
        while True:
            if self.generated > self._seen and not self.cancelled:
                self._seen = self.generated
                return self._seen
            if self.finished or self.cancelled:
                raise StopAsyncIteration
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None


class RealtimeDriver:
    """Owns an Engine and steps it in real time. Use only from the loop it was started on.

    `submit` starts the stepping task on first use; `close` cancels it and every open handle.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], float] = time.perf_counter,
        yield_every_s: float = 0.002,
        max_lag_s: float = 0.05,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.yield_every_s = yield_every_s
        self.max_lag_s = max_lag_s
        self._handles: dict[str, RequestHandle] = {}
        self._task: asyncio.Task | None = None
        self._wake_fut: asyncio.Future | None = None
        self.steps = 0  # steps that did work, for the benchmark and the curious
        self.prompt_tokens_total = 0  # prompt tokens of requests that got their first token
        self.generation_tokens_total = 0  # tokens generated (vLLM's generation_tokens)

    # --- requests -------------------------------------------------------------------
    def submit(self, rid: str, prompt_tokens: int, output_tokens: int) -> RequestHandle:
        """Queue a request arriving now; returns its handle. `output_tokens` must be >= 1."""
        req = SimRequest(rid, prompt_tokens, output_tokens)
        handle = RequestHandle(req, self)
        self._handles[rid] = handle
        self.engine.add(req, self.clock())
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="sim-engine")
        self._poke()
        return handle

    def _forget(self, handle: RequestHandle) -> None:
        self._handles.pop(handle.req.rid, None)
        self.engine.abort(handle.req)

    def _poke(self) -> None:
        fut = self._wake_fut
        if fut is not None and not fut.done():
            fut.set_result(None)

    async def close(self) -> None:
        """Stop stepping; open handles end as cancelled."""
        for handle in list(self._handles.values()):
            handle.cancel()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    # --- the stepping task --------------------------------------------------------------
    async def _sleep(self, until_s: float | None, wake_on_arrival: bool) -> None:
        """Sleep until engine time `until_s` (None: no deadline) or, optionally, an arrival."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        timer = None
        if until_s is not None:
            timer = loop.call_later(max(0.0, until_s - self.clock()), _resolve, fut)
        if wake_on_arrival:
            self._wake_fut = fut
        try:
            await fut
        finally:
            self._wake_fut = None
            if timer is not None:
                timer.cancel()

    async def _run(self) -> None:
        try:
            await self._step_forever()
        except Exception:  # a bug in the engine must not leave every client hanging
            log.exception("simulated engine failed; aborting its requests")
            for handle in list(self._handles.values()):
                handle.cancel()

    async def _step_forever(self) -> None:
        engine, clock = self.engine, self.clock
        t: float | None = None  # engine time at which the next step starts
        burst_start = clock()
        while True:
            if not engine.has_work():
                await self._sleep(None, wake_on_arrival=True)
                t, burst_start = None, clock()
                continue
            now = clock()
            if t is None or now - t > self.max_lag_s:
                t = now
            result = engine.step(t)
            if not result.new_tokens and result.duration_s == 0.0:
                # Nothing could run: requests are still preprocessing (or cannot fit yet).
                ready = engine.next_ready_s()
                until = ready if ready is not None and ready > t else None
                if until is None and engine.running:
                    until = t + 0.001  # defensive: never spin on an engine that made no progress
                await self._sleep(until, wake_on_arrival=True)
                t, burst_start = None, clock()
                continue
            self.steps += 1
            end = t + result.duration_s
            if end > clock():
                await self._sleep(end, wake_on_arrival=False)
                burst_start = clock()
            handles = self._handles
            self.generation_tokens_total += len(result.new_tokens)
            for req in result.new_tokens:
                if req.generated == 1:
                    self.prompt_tokens_total += req.prompt_tokens
                handle = handles.get(req.rid)
                if handle is not None:
                    handle._deliver(req.generated, req.done)
            for req in result.finished:
                handles.pop(req.rid, None)
            t = end
            if clock() - burst_start >= self.yield_every_s:
                await asyncio.sleep(0)
                burst_start = clock()


def _resolve(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)
