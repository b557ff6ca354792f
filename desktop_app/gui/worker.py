"""Run a long coroutine on its own asyncio loop in a worker thread, polled from the UI's loop.

Why: a concurrency-64 sweep keeps its HTTP client busy for whole seconds; on the qasync loop
that held the UI still for up to 223 ms at a time (docs/PERFORMANCE.md). On a loop of its own
the sweep shares only the GIL with the UI, which Python hands over every 5 ms.

The two loops never call into each other. The worker appends events to a deque; the UI side
wakes on its own clock (`poll_s`, 10 Hz by default, the charts' rate anyway), takes what is
queued and hands it over in order. Nothing relies on a cross-thread wake-up of the Qt loop.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Awaitable, Callable
from typing import Any

POLL_S = 0.1


class _Outcome:
    """What the worker's coroutine ended with, written once by the worker thread."""

    def __init__(self) -> None:
        self.finished = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


async def run_in_worker(
    make_coro: Callable[[Callable[[Any], None]], Awaitable[Any]],
    on_events: Callable[[list], None],
    *,
    name: str = "throughline-worker",
    poll_s: float = POLL_S,
) -> Any:
    """Await `make_coro(emit)` run on a fresh event loop in a daemon thread; return its result.

    `emit(event)` may be called from the worker only; every `poll_s` seconds the events queued
    since the last poll are passed, in order, to `on_events(list)` on the calling loop (and once
    more at the end, so none is lost). An exception of the coroutine is re-raised here.

    Cancelling the awaiting task cancels the worker's task and waits (without blocking the
    calling loop) until the coroutine has finished its own clean-up, e.g. storing the run as
    cancelled; then CancelledError propagates.
    """
    events: collections.deque = collections.deque()
    outcome = _Outcome()
    worker: dict[str, Any] = {}
    cancel_requested = threading.Event()

    async def main() -> Any:
        # Publish the task first, then look at the flag: whichever side comes second sees the
        # other, so a cancel can never fall between the two.
        worker["loop"], worker["task"] = asyncio.get_running_loop(), asyncio.current_task()
        if cancel_requested.is_set():
            raise asyncio.CancelledError
        return await make_coro(events.append)

    def thread_main() -> None:
        try:
            outcome.value = asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting side as is
            outcome.error = exc
        finally:
            outcome.finished.set()

    def drain() -> None:
        batch = []
        while events:
            batch.append(events.popleft())
        if batch:
            on_events(batch)

    async def wait_finished() -> None:
        while not outcome.finished.is_set():
            await asyncio.sleep(poll_s)
            drain()

    thread = threading.Thread(target=thread_main, name=name, daemon=True)
    thread.start()
    try:
        await wait_finished()
    except asyncio.CancelledError:
        cancel_requested.set()
        if "task" in worker:
            worker["loop"].call_soon_threadsafe(worker["task"].cancel)
        await asyncio.shield(wait_finished())
        drain()
        raise
    drain()
    if outcome.error is not None:
        raise outcome.error
    return outcome.value
