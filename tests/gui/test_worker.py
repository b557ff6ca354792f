"""The worker loop the GUI runs sweeps on: events arrive in order, errors and cancellation
reach the caller, and a cancelled coroutine finishes its clean-up before the caller goes on."""

import asyncio
import threading

import pytest

from desktop_app.gui.worker import run_in_worker


def test_events_arrive_in_order_and_the_result_comes_back():
    received: list = []

    async def job(emit):
        for i in range(500):
            emit(i)
            if i % 50 == 0:
                await asyncio.sleep(0.005)
        return threading.current_thread().name

    name = asyncio.run(run_in_worker(job, received.extend, name="w-test", poll_s=0.01))
    assert received == list(range(500))
    assert name == "w-test"  # it really ran off the caller's thread


def test_an_error_of_the_job_is_raised_to_the_caller():
    async def job(emit):
        emit("started")
        raise ValueError("endpoint went away")

    got: list = []
    with pytest.raises(ValueError, match="endpoint went away"):
        asyncio.run(run_in_worker(job, got.extend, poll_s=0.01))
    assert got == ["started"]


def test_cancelling_waits_for_the_jobs_clean_up():
    cleaned = threading.Event()
    running = threading.Event()

    async def job(emit):
        running.set()
        try:
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0.05)  # e.g. storing the run as cancelled
            emit("stored as cancelled")
            cleaned.set()

    got: list = []

    async def main():
        task = asyncio.ensure_future(run_in_worker(job, got.extend, poll_s=0.01))
        while not running.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # By the time the caller sees the cancellation, the job has finished its clean-up.
        assert cleaned.is_set()

    asyncio.run(main())
    assert got == ["stored as cancelled"]


def test_a_cancel_before_the_job_starts_still_stops_it():
    started = threading.Event()

    async def job(emit):
        started.set()
        await asyncio.sleep(60)

    async def main():
        task = asyncio.ensure_future(run_in_worker(job, lambda batch: None, poll_s=0.01))
        await asyncio.sleep(0)  # the thread may or may not have started the job yet
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)

    asyncio.run(main())
