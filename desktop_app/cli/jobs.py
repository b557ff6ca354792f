"""A command's job (a sweep, an evaluation, a resume, the demo) run so that SIGTERM and SIGHUP
end it as Ctrl+C does, not as kill -9 does.

Without a handler, SIGTERM (what `kill`, systemd, Docker and a CI runner's timeout send) ended a
sweep on the spot: exit 143, no word said, the run left 'running' in the results file until its
next open marked it 'interrupted'. `run_job` runs the job's coroutine with a handler for each
that cancels it: the sweep and the SQL runner then stop their requests in flight, close their
writers and mark the run 'cancelled'; `Store.stop_own_runs` then gives it the signal as its
error ("stopped by SIGTERM"), and `Stopped` carries the one line `cli.main` prints and the
conventional exit status, 128 + the signal's number (143, 129), as a shell reports a process
the signal ended.

A second signal while the job winds down is not caught (the handlers are removed at the first):
it ends the process at once, the way out when a server holds the wind-down. A signal that was
ignored when the process started (`nohup` ignores SIGHUP) stays ignored.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

__all__ = ["STOP_SIGNALS", "Stopped", "run_job"]

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


class Stopped(Exception):
    """A job ended by a signal: `text` says so (in the command's language) and `exit_code` is
    128 + the signal's number."""

    def __init__(self, signum: int, text: str) -> None:
        super().__init__(text)
        self.signum = signum
        self.text = text
        self.exit_code = 128 + signum


def run_job(job: Coroutine[Any, Any, Any], *, store_path: Path | None, lang: str = "en"):
    """`asyncio.run(job)`, stopped cleanly by SIGTERM or SIGHUP: the job is cancelled, the runs
    this process stored in `store_path` (None: it stores nothing) are marked, and `Stopped` is
    raised. Anything else the job raises or returns passes through."""
    got: list[int] = []

    async def guarded():
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        installed: list[int] = []

        def stop(signum: int) -> None:
            got.append(signum)
            for s in installed:  # a second signal now acts at once
                loop.remove_signal_handler(s)
            installed.clear()
            task.cancel()

        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue  # nohup (or the caller) asked for it to be ignored
            try:
                loop.add_signal_handler(signum, stop, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                continue  # no signals on this loop (Windows, a thread other than the main)
            installed.append(signum)
        try:
            return await job
        finally:
            for s in installed:
                loop.remove_signal_handler(s)

    try:
        result = asyncio.run(guarded())
    except asyncio.CancelledError:
        if not got:
            raise
        raise _stopped(got[0], store_path, lang) from None
    if got:  # the job swallowed the cancellation (or had just finished): still stopped
        raise _stopped(got[0], store_path, lang)
    return result


def _stopped(signum: int, store_path: Path | None, lang: str) -> Stopped:
    from desktop_app.report.safety_words import stopped_text

    name = signal.Signals(signum).name
    runs: list[tuple[int, str, str]] = []
    if store_path is not None:
        from desktop_app.core.store import Store, StoreError

        try:
            with Store.open(store_path) as store:
                runs = store.stop_own_runs(f"stopped by {name}")
        except StoreError:
            pass  # the file cannot be opened now: its next open marks the run interrupted
    return Stopped(signum, stopped_text(lang, name, runs))
