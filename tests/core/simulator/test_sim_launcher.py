"""The simulator in a process of its own: start, serve, stop, and refuse bad settings."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from desktop_app.core.simulator.launcher import SimulatorStartError, start_simulator


def test_start_serve_stop():
    with start_simulator("instant", faults="http500=0.5,seed=1") as sim:
        assert sim.url.startswith("http://127.0.0.1:") and sim.pid > 0
        version = httpx.get(sim.url + "/version", timeout=5).json()
        assert version["simulated"] is True and version["profile"] == "instant"
        assert "http500=0.5" in version["faults"]
    assert sim.proc.returncode == 0  # SIGTERM is a clean shutdown


def test_bad_profile_is_reported_with_the_childs_message():
    with pytest.raises(SimulatorStartError, match="unknown simulator profile 'no-such'"):
        start_simulator("no-such")


def test_bad_fault_spec_and_busy_port():
    with pytest.raises(SimulatorStartError, match="unknown fault 'boom'"):
        start_simulator("instant", faults="boom=1")
    with start_simulator("instant") as sim:
        port = int(sim.url.rsplit(":", 1)[1])
        with pytest.raises(SimulatorStartError, match=f"port {port} on 127.0.0.1 is in use"):
            start_simulator("instant", port=port)


def test_entry_point_exits_2_with_one_line():
    result = subprocess.run(
        [sys.executable, "-m", "desktop_app.core.simulator", "--profile", "no-such",
         "--port", "0"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "no-such" in result.stderr


def _gone(pid: int) -> bool:
    """True once `pid` has exited: no such process, or a zombie nobody has reaped yet."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # exists (someone else's: the pid was reused, which is not "ours" exiting)
    try:  # an exited orphan stays a zombie until its new parent reaps it (not every init does)
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_simulator_exits_when_its_parent_is_killed():
    """A parent killed with SIGKILL never calls .stop(): the simulator must go away by itself."""
    parent_code = textwrap.dedent("""
        import sys, threading
        from desktop_app.core.simulator.launcher import start_simulator
        sim = start_simulator("instant")
        print(sim.pid, flush=True)
        threading.Event().wait()  # until killed
    """)
    root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=root)
    pid = None
    try:
        line = parent.stdout.readline()  # blocks until the simulator is ready (or parent died)
        assert line.strip().isdigit(), f"parent printed {line!r}; stderr: {parent.stderr.read()}"
        pid = int(line)
        assert not _gone(pid)
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 10
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.02)  # polling interval, not synchronisation
        assert _gone(pid), f"simulator {pid} outlived its SIGKILLed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(10)
        if pid is not None and not _gone(pid):
            os.kill(pid, signal.SIGKILL)
        parent.stdout.close()
        parent.stderr.close()
