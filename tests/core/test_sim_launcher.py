"""The simulator in a process of its own: start, serve, stop, and refuse bad settings."""

from __future__ import annotations

import subprocess
import sys

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
