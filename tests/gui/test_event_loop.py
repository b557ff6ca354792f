"""The GUI's asyncio loop: results from threads arrive, every one, without Qt signals."""

import asyncio
import threading

from desktop_app.gui.event_loop import EventLoop


def test_thousands_of_thread_results_all_arrive(qtbot, qt_loop):
    assert isinstance(qt_loop, EventLoop)

    async def many():
        return await asyncio.gather(*(asyncio.to_thread(lambda i=i: i * i) for i in range(2000)))

    task = asyncio.ensure_future(many())
    qtbot.waitUntil(task.done, timeout=30_000)
    assert task.result() == [i * i for i in range(2000)]


def test_callbacks_from_many_threads_run_on_the_gui_thread_in_order_per_thread(qtbot, qt_loop):
    seen: list[tuple[int, int, bool]] = []
    gui_thread = threading.get_ident()

    def note(t, i):
        seen.append((t, i, threading.get_ident() == gui_thread))

    def worker(t):
        for i in range(300):
            qt_loop.call_soon_threadsafe(note, t, i)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    qtbot.waitUntil(lambda: len(seen) == 8 * 300, timeout=10_000)
    assert all(on_gui for *_, on_gui in seen)
    for t in range(8):
        assert [i for tt, i, _ in seen if tt == t] == list(range(300))


def test_garbage_is_collected_on_the_gui_thread_only(qtbot, qt_loop):
    import gc
    import weakref

    assert not gc.isenabled()  # a worker thread allocating never starts a collection

    class Node:
        pass

    cycle = Node()
    cycle.me = cycle
    gone = weakref.ref(cycle)
    del cycle
    kept = [Node() for _ in range(gc.get_threshold()[0] + 100)]  # past generation 0's threshold
    assert gone() is not None  # nothing collects on allocation any more
    qtbot.waitUntil(lambda: gone() is None, timeout=5_000)  # the GUI thread's timer got it
    del kept
