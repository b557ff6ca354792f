"""The worker loop the GUI runs sweeps on: events arrive in order, errors and cancellation
reach the caller, and a cancelled coroutine finishes its clean-up before the caller goes on."""

import asyncio
import os
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


# ---- run_in_process: the same contract, in a spawned process (jobs are module-level)

from desktop_app.gui.worker import WorkerError, run_in_process  # noqa: E402


async def _counting_job(n, emit):
    import os

    for i in range(n):
        emit(i)
        if i % 100 == 0:
            await asyncio.sleep(0.001)
    return os.getpid()


async def _failing_job(emit):
    emit("started")
    raise ValueError("concurrency: 0 is below 1")


async def _cleanup_job(marker, emit):
    emit("running")
    try:
        await asyncio.sleep(60)
    finally:
        marker.write_text("stored as cancelled")


async def _dying_job(emit):
    import os

    emit("about to die")
    os._exit(3)


def test_a_process_job_sends_events_in_order_and_its_result():
    import functools
    import os

    got: list = []
    pid = asyncio.run(run_in_process(functools.partial(_counting_job, 300), got.extend,
                                     poll_s=0.01))
    assert got == list(range(300))
    assert pid != os.getpid()


def test_a_process_jobs_error_and_death_come_back_as_one_line():
    got: list = []
    with pytest.raises(WorkerError, match="concurrency: 0 is below 1"):
        asyncio.run(run_in_process(_failing_job, got.extend, poll_s=0.01))
    assert got == ["started"]
    with pytest.raises(WorkerError, match="ended unexpectedly.*exit code 3"):
        asyncio.run(run_in_process(_dying_job, got.extend, poll_s=0.01))


def test_cancelling_a_process_job_waits_for_its_clean_up(tmp_path):
    import functools

    marker = tmp_path / "marker"
    got: list = []

    async def main():
        task = asyncio.ensure_future(run_in_process(
            functools.partial(_cleanup_job, marker), got.extend, poll_s=0.01))
        while not got:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)
        assert marker.read_text() == "stored as cancelled"

    asyncio.run(main())


# ---- a job with children (a sweep's worker processes): none outlives the job's process

def _sleep_for_a_minute():
    import time

    time.sleep(60)


async def _job_with_a_child(emit):
    import multiprocessing

    child = multiprocessing.get_context("spawn").Process(target=_sleep_for_a_minute,
                                                         daemon=True)
    child.start()
    emit(child.pid)
    await asyncio.sleep(60)


def _alive(pid: int) -> bool:
    """Running, or stopped; a zombie has ended (its parent has not reaped it yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("ending", ["cancelled", "terminated"])
def test_a_job_with_children_leaves_none_alive_however_it_ends(ending):
    """Cancelled (Stop), or sent SIGTERM as the app's exit does to its job processes: the
    job's own child process goes with it."""
    import signal

    got: list = []

    async def main():
        task = asyncio.ensure_future(run_in_process(_job_with_a_child, got.extend,
                                                    poll_s=0.01, children=True))
        while not got and not task.done():
            await asyncio.sleep(0.01)
        assert not task.done(), task.exception()  # it was allowed to start the child
        child = got[0]
        assert _alive(child)
        if ending == "cancelled":
            task.cancel()
        else:
            os.kill(_parent(child), signal.SIGTERM)
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)
        return child

    child = asyncio.run(main())
    assert not _alive(child)


def test_a_process_death_is_said_in_the_windows_language(qapp):
    """#30: the Chinese window said 'the throughline-fit process ended unexpectedly'."""
    from desktop_app.gui import i18n

    translators = i18n.install_translators(qapp, "zh_CN")
    try:
        with pytest.raises(WorkerError, match=r"throughline-fit 进程意外退出（退出码 3）"):
            asyncio.run(run_in_process(_dying_job, [].extend, name="throughline-fit",
                                       poll_s=0.01))
    finally:
        i18n.remove_translators(qapp, translators)


async def _refusing_job(emit):
    from desktop_app.core.parsing import InputError

    raise InputError("concurrency", code="not_whole", item="'x'")


def test_a_coded_error_in_a_process_job_is_said_in_the_windows_language(qapp):
    """A job's error that the core raised with a code (a refused input) is worded by the
    window, not passed on in the child's English (#27)."""
    from PySide6.QtCore import QLocale

    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    try:
        with pytest.raises(WorkerError, match=r"^并发数：'x' 不是整数（示例：512、2048、4k）$"):
            asyncio.run(run_in_process(_refusing_job, [].extend, poll_s=0.01))
    finally:
        QLocale.setDefault(before)
    with pytest.raises(WorkerError, match=r"^concurrency: 'x' is not a whole number"):
        asyncio.run(run_in_process(_refusing_job, [].extend, poll_s=0.01))
