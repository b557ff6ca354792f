"""Start the simulator in a process of its own and wait until it serves.

The simulator then never shares the GUI's or the benchmark client's event loop (nor its CPU
accounting): a client measured against it measures itself, not the server sharing its loop.

The child never outlives its parent: it is started with `--exit-with-parent` and a stdin pipe
that the parent keeps open (and never writes to). When the parent goes away, however it dies
(SIGKILL included), the OS closes that pipe, the child reads EOF and shuts down gracefully.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

from desktop_app import paths
from desktop_app.core.parsing import CodedError


class SimulatorStartError(CodedError, RuntimeError):
    """The simulator process exited or did not become ready: a code, with its stderr as the
    detail (said in the reader's language by `report.errors.error_text`)."""


class SimulatorProcess:
    """A running simulator process: `.url`, `.pid`, `.stop()`; a context manager that stops it.

    Its stderr is collected (bounded) in the background so the child never blocks on a full
    pipe; `.stderr_text()` returns what it wrote.
    """

    def __init__(self, proc: subprocess.Popen, url: str, stderr_lines: list[str],
                 readers: list[threading.Thread]) -> None:
        self.proc = proc
        self.url = url
        self.pid = proc.pid
        self._stderr = stderr_lines
        self._readers = readers

    def stderr_text(self) -> str:
        return "".join(self._stderr)

    def stop(self, timeout_s: float = 5.0) -> int | None:
        """SIGTERM, wait up to `timeout_s` seconds, then SIGKILL; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout_s)
        _close(self.proc, self._readers)
        return self.proc.returncode

    def __enter__(self) -> SimulatorProcess:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


def _read_lines(stream, put) -> None:
    try:
        for line in iter(stream.readline, ""):
            put(line)
    except (OSError, ValueError):
        pass  # the pipe was closed under us: nothing more to read


def _close(proc: subprocess.Popen, readers: list[threading.Thread]) -> None:
    """Close the pipes of an exited child once its reader threads have seen EOF."""
    for thread in readers:
        thread.join(2.0)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def start_simulator(profile: str = "fast", faults: str | None = None, host: str = "127.0.0.1",
                    port: int = 0, timeout_s: float = 20,
                    question_sets: tuple = ()) -> SimulatorProcess:
    """Spawn `python -m desktop_app.core.simulator` and wait for its `READY <url>` line.

    `profile` is a profile name or a .toml path, `faults` a fault spec (see faults.py), port 0
    picks a free port. Raises SimulatorStartError with the child's stderr if it exits (bad
    profile, bad spec, busy port) or is not ready within `timeout_s` seconds (then it is killed).
    `question_sets` are set folders its SQL personas answer besides the bundled and imported.
    """
    cmd = [sys.executable, "-m", "desktop_app.core.simulator", "--host", host,
           "--port", str(port), "--profile", profile, "--exit-with-parent"]
    if faults:
        cmd += ["--faults", faults]
    for folder in question_sets:
        cmd += ["--questions", str(folder)]
    env = dict(os.environ)
    root = str(paths.resources_dir().parent)  # so the child imports this same source tree
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    # stdin is the lifeline of --exit-with-parent: kept open (unwritten) until .stop() has
    # waited for the child; only this process holds its write end (pipes are not inheritable).
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    stderr_lines: list[str] = []
    lines: queue.Queue[str | None] = queue.Queue()

    def keep_stderr(line: str) -> None:
        if len(stderr_lines) < 200:
            stderr_lines.append(line)

    def read_stdout() -> None:
        _read_lines(proc.stdout, lines.put)
        lines.put(None)

    readers = [threading.Thread(target=_read_lines, args=(proc.stderr, keep_stderr), daemon=True),
               threading.Thread(target=read_stdout, daemon=True)]
    for thread in readers:
        thread.start()
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            line = ""
        if line and line.startswith("READY "):
            return SimulatorProcess(proc, line.split(None, 1)[1].strip(), stderr_lines, readers)
        if line is None or line == "" or time.monotonic() >= deadline:
            timed_out = line == ""
            if timed_out:
                proc.kill()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            _close(proc, readers)  # joins the readers: stderr is complete
            err = "".join(stderr_lines).strip()
            detail = f": {err}" if err else ""
            if timed_out:
                raise SimulatorStartError(code="sim_not_ready", seconds=f"{timeout_s:g}",
                                          detail=detail)
            raise SimulatorStartError(code="sim_exited", status=proc.returncode, detail=detail)
