"""GUI test fixtures: a qasync loop on the QApplication that pytest-qt made."""

import asyncio

import pytest
from desktop_app.gui.event_loop import EventLoop


@pytest.fixture(scope="session")
def _session_qt_loop(qapp):
    # One loop for the whole session: qasync's QEventLoop.stop() calls QApplication.exit(),
    # after which a new loop's asyncio.to_thread never completes (its QThreadExecutor result
    # is never delivered). Stopping only once, at the very end, avoids that.
    loop = EventLoop(qapp, already_running=True)
    # already_running marks it as the thread's running loop for good; it is marked only while
    # a GUI test uses it (qt_loop), so pytest-asyncio tests can run their own loops after it.
    asyncio.events._set_running_loop(None)
    yield loop
    asyncio.events._set_running_loop(loop)
    loop.stop()
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def qt_loop(_session_qt_loop, qtbot):
    """The asyncio loop driven by Qt's, for slots and controllers that start tasks.

    qtbot.waitUntil spins Qt's loop, which runs the asyncio callbacks. Tasks a test leaves
    behind are cancelled, and their cancellation processed, before the next test.
    """
    loop = _session_qt_loop
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    yield loop
    leftover = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in leftover:
        task.cancel()
    if leftover:
        qtbot.waitUntil(lambda: all(task.done() for task in leftover), timeout=5000)
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop(None)
