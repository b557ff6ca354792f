"""Long jobs off the UI's loop: on a loop of their own in a thread, or in a process of their own.

`run_in_worker` runs a coroutine on a fresh asyncio loop in a daemon thread: the SQL evaluation,
whose work is mostly waiting on the model and SQLite, so sharing the GIL with the UI costs
little. `run_in_process` runs it in a spawned process: the throughput sweep, whose HTTP client
at high concurrency is busy Python that, in a thread, kept the GIL from the UI for up to a
second (docs/PERFORMANCE.md).

Either way the two sides never call into each other: the job's events are queued (a deque, a
pipe) and the UI side takes them on its own clock (`poll_s`, 10 Hz by default, the charts' rate
anyway) and hands them over in order. Nothing relies on a cross-thread wake-up of the Qt loop.
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


# --------------------------------------------------------------------------- in a process


class WorkerError(RuntimeError):
    """The job in the worker process failed; the message is its error's, as the user sees it."""


def _describe(exc: BaseException) -> str | tuple:
    """What the parent is told of the job's error: its message, or for an error the core
    raised with a code (an endpoint that cannot be used) the code and its values, which the
    parent words in the window's language."""
    code = getattr(exc, "code", "")
    if code and exc.__class__.__name__ == "EndpointError":
        return ("endpoint", str(exc), code, getattr(exc, "url", None), dict(exc.params))
    params = getattr(exc, "params", None)
    if code and isinstance(code, str) and isinstance(params, dict):
        # InputError, WorkerError, a profile refused...: said by the parent in its language.
        field = getattr(exc, "field", None)
        message = getattr(exc, "message", "") if field is not None else str(exc)
        return ("coded", message, code, field, dict(params))
    return str(exc) or type(exc).__name__


def _message(payload: str | tuple) -> str:
    if isinstance(payload, tuple) and payload[:1] == ("endpoint",):
        from desktop_app.core.endpoint.client import EndpointError
        from desktop_app.gui.i18n import report_language
        from desktop_app.report.endpoint_words import endpoint_error_text

        _, message, code, url, params = payload
        exc = EndpointError(message, code=code, url=url, **params)
        return endpoint_error_text(exc, report_language())
    if isinstance(payload, tuple) and payload[:1] == ("coded",):
        from desktop_app.core.parsing import CodedError, InputError
        from desktop_app.gui.i18n import error_words

        _, message, code, field, params = payload
        coded = (InputError(field, message, code=code, **params) if field is not None
                 else CodedError(message, code=code, **params))
        return error_words(coded)
    return str(payload)


def _child_main(conn, job, children: bool = False) -> None:
    """The worker process: run `job(emit)` on a fresh loop, send events and the outcome back,
    cancel the job when the parent says so or goes away. With `children`, the job may start
    processes of its own (see `run_in_process`)."""
    import threading

    if children:
        _allow_children()

    async def main():
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        if children:
            _stop_children_on_terminate(loop, task)

        def listen() -> None:
            try:
                while conn.recv() != "cancel":
                    pass
            except (EOFError, OSError):
                pass  # the parent is gone: stop as if cancelled
            loop.call_soon_threadsafe(task.cancel)

        threading.Thread(target=listen, name="cancel-listener", daemon=True).start()
        return await job(lambda event: conn.send(("event", event)))

    try:
        value = asyncio.run(main())
    except asyncio.CancelledError:
        outcome = ("cancelled", None)
    except BaseException as exc:  # noqa: BLE001 - handed to the parent as one line
        outcome = ("error", _describe(exc))
    else:
        outcome = ("result", value)
    finally:
        if children:
            _kill_children()
    try:
        conn.send(outcome)
    except (BrokenPipeError, OSError):
        pass  # the parent is gone (the app closed mid-job): nobody to tell


# A job run with `children` (the sweep with worker processes) starts processes of its own.
# multiprocessing forbids that to a daemon process, because killing the daemon would orphan
# them. The job's process stays a daemon for its parent (the app still ends it on exit, as it
# does any job), and in exchange it never ends with children alive: whatever ends it (the job
# returning, failing, cancelled, the parent gone, SIGTERM from the parent's exit) kills them
# first. Only SIGKILL could skip that, and the parent sends it only after SIGTERM went unheeded.
TERMINATE_GRACE_S = 10.0  # after SIGTERM: the job's clean-up (the store) before a hard exit


def _allow_children() -> None:
    import multiprocessing

    multiprocessing.current_process().daemon = False


def _kill_children() -> None:
    import multiprocessing

    for child in multiprocessing.active_children():
        child.kill()
    for child in multiprocessing.active_children():
        child.join(5)


def _stop_children_on_terminate(loop: asyncio.AbstractEventLoop, task: asyncio.Task) -> None:
    """On SIGTERM: kill the job's children at once, then cancel the job (it stores the run as
    cancelled); if its clean-up hangs, exit anyway after TERMINATE_GRACE_S."""
    import os
    import signal
    import threading

    def on_terminate() -> None:
        _kill_children()
        task.cancel()
        timer = threading.Timer(TERMINATE_GRACE_S, os._exit, (1,))
        timer.daemon = True
        timer.start()

    try:
        loop.add_signal_handler(signal.SIGTERM, on_terminate)
    except (NotImplementedError, AttributeError):
        pass  # Windows: terminate() is TerminateProcess, which no handler sees


async def run_in_process(
    job: Callable[[Callable[[Any], None]], Awaitable[Any]],
    on_events: Callable[[list], None],
    *,
    name: str = "throughline-worker",
    poll_s: float = POLL_S,
    children: bool = False,
) -> Any:
    """Like `run_in_worker`, but `job` runs in a process of its own (spawned, so nothing of
    this process's threads or Qt is inherited): it shares no GIL with the UI.

    Why: a sweep at concurrency 64 is one busy Python thread; in a thread beside the UI it took
    the GIL back after every socket read and left the UI waiting up to a second at a cell's
    start (py-spy: the GUI thread in Shiboken's GilState, the sweep thread in h11).

    `job` and what it returns and emits must pickle (a functools.partial of a module-level
    coroutine function). An error in the job raises WorkerError with its message; cancelling
    asks the job to cancel and waits for it to finish its clean-up (the store is consistent).

    With `children` the job may start processes (a sweep's load-generating workers), which a
    daemon process may not: its process gives up the daemon flag for itself and, in exchange,
    kills them whenever it ends, SIGTERM included; a job that will not end is sent SIGTERM
    before SIGKILL, so no child outlives it.
    """
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    parent_conn, child_conn = context.Pipe()
    process = context.Process(target=_child_main,
                              args=(child_conn, job, True) if children else (child_conn, job),
                              name=name, daemon=True)
    process.start()
    child_conn.close()
    outcome: list[tuple[str, Any]] = []

    def drain() -> None:
        batch = []
        try:
            while not outcome and parent_conn.poll():
                kind, payload = parent_conn.recv()
                if kind == "event":
                    batch.append(payload)
                else:
                    outcome.append((kind, payload))
        except (EOFError, OSError):
            # The pipe can close before the process has exited: its code is read after join.
            outcome.append(("died", None))
        if batch:
            on_events(batch)

    async def wait_finished() -> None:
        while not outcome:
            await asyncio.sleep(poll_s)
            drain()
            if not outcome and not process.is_alive():
                drain()  # what it sent just before it ended
                if not outcome:
                    outcome.append(("died", None))

    try:
        await wait_finished()
    except asyncio.CancelledError:
        try:
            parent_conn.send("cancel")
        except (BrokenPipeError, OSError):
            pass
        await asyncio.shield(wait_finished())
        raise
    finally:
        await asyncio.to_thread(process.join, 10)
        if process.is_alive() and children:
            process.terminate()  # its handler kills its children first
            await asyncio.to_thread(process.join, TERMINATE_GRACE_S + 5)
        if process.is_alive():
            process.kill()
        parent_conn.close()
    kind, payload = outcome[0]
    if kind == "result":
        return payload
    if kind == "cancelled":
        raise asyncio.CancelledError
    if kind == "error":
        raise WorkerError(_message(payload))
    # Worded here, in the parent: the child's module import stays free of Qt.
    from desktop_app.gui.i18n import translate

    raise WorkerError(translate("Worker", "The {name} process ended unexpectedly (exit code "
                                "{code}).").format(name=name, code=process.exitcode))
