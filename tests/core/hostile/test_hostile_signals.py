"""SIGTERM and SIGHUP end a job the way Ctrl+C does, not the way kill -9 does: the run is stored
`cancelled` with the signal as its error, one line says so (English or Chinese), and the exit
status is the conventional 128 + the signal's number. A SIGHUP that `nohup` ignores stays
ignored. The jobs run against the hostile server's `slowloris` (a body a byte a second), so the
signal always lands mid-run. See docs/RELIABILITY.md, "Hostile servers" (secrets, signals and
terminals).
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.core.hostile.server import HostileServer
from tests.core.hostile.test_hostile_sweep import ROOT, SMALL, _env


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


def start(tmp_path: Path, *args: str, ignore_hup: bool = False) -> subprocess.Popen:
    env = {**_env(), "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def nohup() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    return subprocess.Popen([sys.executable, "-m", "desktop_app", "--db", str(tmp_path / "r.db"),
                             *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=nohup if ignore_hup else None)


def wait_for_running_run(proc: subprocess.Popen, db: Path, timeout: float = 60) -> None:
    """Until the job has stored its run as running (it is then mid-request: the server drips)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if db.exists():
            try:
                with sqlite3.connect(db) as conn:
                    if conn.execute("SELECT 1 FROM runs WHERE status = 'running'").fetchone():
                        return
            except sqlite3.Error:
                pass  # the schema is being written
        time.sleep(0.05)
    raise AssertionError("the job stored no running run")


def runs(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT id, status, error FROM runs").fetchall()


JOBS = {
    "throughput": ("throughput", *SMALL, "--request-timeout", "120"),
    "sqleval": ("sqleval", "--ids", "t01", "--time-limit", "120"),
}


@pytest.mark.parametrize("job, sig, code", [
    ("throughput", "SIGTERM", 143), ("throughput", "SIGHUP", 129), ("sqleval", "SIGTERM", 143),
])
def test_a_signal_stops_the_job_and_marks_its_run(server, tmp_path, job, sig, code):
    proc = start(tmp_path, JOBS[job][0], "--base-url", server.url("slowloris.1"), *JOBS[job][1:])
    wait_for_running_run(proc, tmp_path / "r.db")
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    hint = " (throughline resume 1 finishes it)" if job == "throughput" else ""
    assert err.strip().splitlines()[-1] == (
        f"throughline {job}: stopped by {sig}; run 1 is stored as cancelled{hint}")
    assert runs(tmp_path / "r.db") == [(1, "cancelled", f"stopped by {sig}")]


def test_the_stop_is_said_in_chinese(server, tmp_path):
    proc = start(tmp_path, *JOBS["throughput"][:1], "--base-url", server.url("slowloris.1"),
                 *JOBS["throughput"][1:], "--lang", "zh")
    wait_for_running_run(proc, tmp_path / "r.db")
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert err.strip().splitlines()[-1] == (
        "throughline throughput: 已因 SIGTERM 停止；运行 1 已记录为已取消"
        "（throughline resume 1 可将其完成）")


def test_a_stopped_sweep_resumes(server, tmp_path):
    proc = start(tmp_path, *JOBS["throughput"], "--base-url", server.url("slowloris.1"))
    wait_for_running_run(proc, tmp_path / "r.db")
    proc.terminate()
    proc.communicate(timeout=30)
    done = start(tmp_path, "resume", "1", "--base-url", server.url("ok"))
    out, err = done.communicate(timeout=60)
    assert done.returncode == 0, err
    assert runs(tmp_path / "r.db") == [(1, "completed", None)]


def test_a_hangup_nohup_ignores_stays_ignored(server, tmp_path):
    proc = start(tmp_path, *JOBS["throughput"], "--base-url", server.url("slowloris.1"),
                 ignore_hup=True)
    wait_for_running_run(proc, tmp_path / "r.db")
    proc.send_signal(signal.SIGHUP)
    with pytest.raises(subprocess.TimeoutExpired):  # it goes on: nohup asked for that
        proc.wait(timeout=1.5)
    assert runs(tmp_path / "r.db")[0][1] == "running"
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143 and "stopped by SIGTERM" in err


def test_a_stop_before_any_run_says_so(tmp_path):
    """A signal during discovery, against a port that accepts and never answers."""
    import socket

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        silent.settimeout(60)
        proc = start(tmp_path, "throughput", "--base-url",
                     f"http://127.0.0.1:{silent.getsockname()[1]}/v1", *SMALL)
        conn, _ = silent.accept()  # discovery has connected: the job is under way
        with conn:
            proc.terminate()
            _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert err.strip().splitlines()[-1] == (
        "throughline throughput: stopped by SIGTERM; no run was stored")
