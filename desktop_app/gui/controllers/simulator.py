"""Owns the built-in simulated endpoint the app starts with: a process of its own."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QObject, Signal

from desktop_app.core.simulator.launcher import SimulatorProcess, start_simulator
from desktop_app.gui.i18n import error_words


class SimulatorController(QObject):
    """Starts the simulator off the GUI thread and reports its URL; stops it on shutdown."""

    started = Signal(str, str)  # url, profile name
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._process: SimulatorProcess | None = None
        self.task: asyncio.Task | None = None

    @property
    def url(self) -> str | None:
        return self._process.url if self._process else None

    def start(self, profile: str) -> asyncio.Task:
        """Start (or restart) the simulator with `profile`; returns the task doing it."""
        if self.task and not self.task.done():
            self.task.cancel()
        self.task = asyncio.ensure_future(self._start(profile))
        return self.task

    async def _start(self, profile: str) -> None:
        self.stop()
        # Spawning and waiting for READY blocks for a moment: keep it off the GUI thread.
        spawn = asyncio.ensure_future(asyncio.to_thread(start_simulator, profile))
        try:
            process = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            # The thread finishes anyway; make sure the process it starts does not outlive us.
            spawn.add_done_callback(_stop_spawned)
            raise
        except Exception as exc:  # noqa: BLE001 - any failure is shown to the user as is
            self.failed.emit(error_words(exc))
            return
        self._process = process
        self.started.emit(process.url, profile)

    def stop(self) -> None:
        """Stop the simulator process if one runs (safe to call twice)."""
        if self._process is not None:
            self._process.stop()
            self._process = None


def _stop_spawned(future: asyncio.Future) -> None:
    if not future.cancelled() and future.exception() is None:
        future.result().stop()
