"""A server that drips never falls silent, so a read timeout alone never ends it: every phase
has a deadline of its own (limits.py, "Deadlines"; docs/RELIABILITY.md), named in the error.

Each case runs with a 1.5 s first-byte timeout and a 60 s total: before these deadlines, each
ran to the total (or, for discovery's /v1/models, to its 30 s cap).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from desktop_app.core.endpoint.client import EndpointError, complete, make_client, stream_request
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.lean import LeanClient, stream_request_lean
from desktop_app.core.endpoint.types import EndpointConfig
from tests.core.hostile.server import HostileServer

PATIENCE_S = 1.5
# The deadline, plus room for a loaded 2-core machine; far below the 60 s total.
ENDS_WITHIN_S = PATIENCE_S + 6


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


def _config(url: str) -> EndpointConfig:
    return EndpointConfig(url, model="m", first_byte_timeout_s=PATIENCE_S, connect_timeout_s=5,
                          total_timeout_s=60)


def _one(url: str, client_kind: str):
    config = _config(url)
    body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 8}

    async def go():
        if client_kind == "lean":
            async with LeanClient(config, 1) as lean:
                return await stream_request_lean(lean, config, body)
        async with make_client(config, 1) as client:
            return await stream_request(client, config, body)

    started = time.perf_counter()
    res = asyncio.run(go())
    return res, time.perf_counter() - started


@pytest.mark.parametrize("client_kind", ["lean", "httpx"])
@pytest.mark.parametrize("behaviour, error_class, words", [
    ("head_drip", "timeout", "did not finish its headers within 1.5 s"),
    ("continue_forever", "timeout", "did not finish its headers within 1.5 s"),
    ("sse_drip", "timeout", "sent bytes for 1.5 s without completing an event"),
    ("endless_slow", "malformed_stream", "streamed more than 32 content chunks"),
])
def test_a_dripping_stream_ends_by_its_deadline_named(server, client_kind, behaviour,
                                                        error_class, words):
    res, took = _one(server.url(behaviour), client_kind)
    assert res.error_class == error_class, res.error_message
    assert words in res.error_message
    assert took < ENDS_WITHIN_S


def test_endless_slow_keeps_what_it_streamed(server):
    res, _ = _one(server.url("endless_slow"), "lean")
    assert res.completion_tokens == 33  # the chunks read before the cap, counted


@pytest.mark.parametrize("behaviour, words", [
    ("models_drip", "sent its answer for 1.5 s without finishing it"),
    ("head_drip", "did not finish its headers within 1.5 s"),
])
def test_discovery_against_a_drip_ends_by_its_deadline_named(server, behaviour, words):
    started = time.perf_counter()
    with pytest.raises(EndpointError) as err:
        asyncio.run(discover(_config(server.url(behaviour))))
    assert words in str(err.value)
    assert time.perf_counter() - started < ENDS_WITHIN_S


def test_all_of_discovery_has_a_deadline_of_its_own(server, monkeypatch):
    """Each probe is bounded, but a server slow at each in turn would add them up: discovery as
    a whole ends by its own deadline, named (here shortened below the probes' own)."""
    from desktop_app.core.endpoint import discovery
    monkeypatch.setattr(discovery, "DISCOVERY_DEADLINE_S", 0.5)
    started = time.perf_counter()
    with pytest.raises(EndpointError, match=r"discovery did not finish within 0\.5 s"):
        asyncio.run(discover(_config(server.url("models_drip"))))
    assert time.perf_counter() - started < 0.5 + 3


def test_a_non_streamed_call_against_a_drip_ends_by_its_deadline(server):
    # The SQL agent's call shape: 100 Continue forever, never an answer.
    config = _config(server.url("continue_forever"))

    async def go():
        async with make_client(config, 1) as client:
            return await complete(client, config, {"messages": [], "max_tokens": 8})

    started = time.perf_counter()
    with pytest.raises(EndpointError) as err:
        asyncio.run(go())
    assert "did not finish its headers within 1.5 s" in str(err.value)
    assert time.perf_counter() - started < ENDS_WITHIN_S


def test_a_sweep_against_a_dripping_server_ends_and_says_why(server, tmp_path):
    cmd = [sys.executable, "-m", "desktop_app", "--db", str(tmp_path / "r.db"), "throughput",
           "--base-url", server.url("sse_drip"), "--model", "m", "--input-tokens", "16",
           "--concurrency", "2", "--output-tokens", "8", "--requests", "4", "--warmup", "0",
           "--first-byte-timeout", str(PATIENCE_S), "--connect-timeout", "5", "--no-metrics"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert "4 timeout" in out or "4 of 4 requests failed" in out, out
    assert "without completing an event" in out or "timeout" in out
