"""The asyncio loop on Qt's: qasync's QEventLoop, woken from other threads by a socket.

qasync's `call_soon_threadsafe` emits a Qt signal carrying Python objects from the calling
thread (every `asyncio.to_thread` result comes back that way). In full test runs that path
twice lost a wake-up for good (a click-driven SQL run waited forever on a finished thread) and
once crashed the process in Qt's event dispatch while worker threads were finishing.

Here a worker thread only appends to a deque and writes one byte to a socket pair, as asyncio's
own loops do; a QSocketNotifier on the other end wakes the GUI thread, which schedules the
callbacks itself. No Qt object is touched off the GUI thread.
"""

from __future__ import annotations

import collections
import socket

from PySide6.QtCore import QSocketNotifier

import qasync  # after PySide6, so it binds to it


class EventLoop(qasync.QEventLoop):
    """qasync's QEventLoop with a self-pipe `call_soon_threadsafe` (see the module doc)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._from_threads: collections.deque = collections.deque()
        self._wake_notifier = QSocketNotifier(self._wake_read.fileno(),
                                              QSocketNotifier.Type.Read)
        self._wake_notifier.activated.connect(self._on_wake_notifier_activated)

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

    def close(self) -> None:
        if self.is_closed():
            return
        super().close()  # raises while running, before anything here is torn down
        self._wake_notifier.setEnabled(False)
        self._wake_read.close()
        self._wake_write.close()
