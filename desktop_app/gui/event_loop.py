"""The asyncio loop on Qt's: qasync's QEventLoop, woken from other threads by a socket.

qasync's `call_soon_threadsafe` emits a Qt signal carrying Python objects from the calling
thread (every `asyncio.to_thread` result comes back that way). In full test runs that path
twice lost a wake-up for good (a click-driven SQL run waited forever on a finished thread) and
once crashed the process in Qt's event dispatch while worker threads were finishing.

Here a worker thread only appends to a deque and writes one byte to a socket pair, as asyncio's
own loops do; a QSocketNotifier on the other end wakes the GUI thread, which schedules the
callbacks itself. No Qt object is touched off the GUI thread.

The loop also takes Python's cyclic garbage collector to the GUI thread. Left automatic, it runs
in whichever thread happens to allocate: a judge parsing SQL in a worker thread collected a
cycle holding a closed window's widgets, destroyed them there, and deadlocked with the GUI thread
(each held what the other waited for: a Qt mutex, the GIL); a py-spy dump of a hung test run
showed exactly that. So while the loop lives, collection is off and a timer on the GUI thread
collects (the same as pyqtgraph's GarbageCollector, by the generation thresholds).
"""

from __future__ import annotations

import collections
import gc
import socket

from PySide6.QtCore import QSocketNotifier, QTimer

import qasync  # after PySide6, so it binds to it


GC_INTERVAL_MS = 500


class EventLoop(qasync.QEventLoop):
    """qasync's QEventLoop with a self-pipe `call_soon_threadsafe` and garbage collection on
    the GUI thread (see the module doc)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._from_threads: collections.deque = collections.deque()
        self._wake_notifier = QSocketNotifier(self._wake_read.fileno(),
                                              QSocketNotifier.Type.Read)
        self._wake_notifier.activated.connect(self._on_wake_notifier_activated)
        self._gc_thresholds = gc.get_threshold()
        self._gc_was_enabled = gc.isenabled()
        gc.disable()
        # What exists now (the interpreter's, Qt's and the app's modules) lives as long as the
        # app: collections need not walk it again (a generation-1 pass took 70 ms without this).
        gc.freeze()
        self._gc_timer = QTimer()
        self._gc_timer.timeout.connect(self._on_gc_timer_timeout)
        self._gc_timer.start(GC_INTERVAL_MS)

    def call_soon_threadsafe(self, callback, *args, context=None):  # noqa: D102 - asyncio API
        self._from_threads.append((callback, args, context))
        try:
            self._wake_write.send(b"\0")
        except (BlockingIOError, InterruptedError):
            pass  # the socket is full of wake-ups already: one is enough
        except OSError:
            pass  # closed: the loop is gone and nothing would run the callback anyway

    def _on_wake_notifier_activated(self, *_args) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        # A callback appended after this loop ends wrote its byte after the recv: the notifier
        # fires again for it.
        while self._from_threads:
            callback, args, context = self._from_threads.popleft()
            if not self.is_closed():
                self.call_soon(callback, *args, context=context)

    def _on_gc_timer_timeout(self) -> None:
        counts = gc.get_count()
        for generation in range(3):
            if counts[generation] <= self._gc_thresholds[generation]:
                break
            gc.collect(generation)

    def close(self) -> None:
        if self.is_closed():
            return
        super().close()  # raises while running, before anything here is torn down
        self._gc_timer.stop()
        gc.unfreeze()
        if self._gc_was_enabled:
            gc.enable()
        self._wake_notifier.setEnabled(False)
        self._wake_read.close()
        self._wake_write.close()
