"""Fault injection: the spec grammar, and each fault as a client experiences it."""

from __future__ import annotations

import collections
import json

import httpx
import pytest

from desktop_app.core.simulator.faults import FaultPicker, FaultSpecError, parse_faults
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from tests.core.sim_helpers import CHAT, chat_body, classify, read_sse
from tests.core.simulator.test_sim_server import TOOLS


def test_parse_spec():
    spec = parse_faults("reset=0.1, http429=0.05,seed=7,retry_after=2,stall_s=1.5,after=3")
    assert spec.probabilities == {"reset": 0.1, "http429": 0.05}
    assert (spec.seed, spec.retry_after_s, spec.stall_s, spec.after_tokens) == (7, 2.0, 1.5, 3)
    assert parse_faults("stall").probabilities == {"stall": 1.0}
    assert parse_faults("").probabilities == {}


@pytest.mark.parametrize(("spec", "named"), [
    ("reset=0.1,bogus=0.2", "bogus"),
    ("reset=lots", "reset=lots"),
    ("http500=1.5", "http500=1.5"),
    ("reset,http500", "add up to 2"),
    ("seed=x", "seed=x"),
    ("after=-1", "after=-1"),
    ("stall_s", "stall_s"),
])
def test_bad_specs_name_the_bad_item(spec, named):
    with pytest.raises(FaultSpecError, match=named) as info:
        parse_faults(spec)
    assert "\n" not in str(info.value)


def test_picker_is_seeded_and_forced_faults_do_not_shift_it():
    spec = parse_faults("reset=0.25,http500=0.25,seed=11")
    a, b = FaultPicker(spec), FaultPicker(spec)
    seq_a = [a.pick() for _ in range(400)]
    seq_b = []
    for i in range(400):
        if i % 7 == 0:
            assert b.pick("bad_sse") == "bad_sse"
        seq_b.append(b.pick())
    assert seq_a == seq_b
    counts = collections.Counter(seq_a)
    assert 70 < counts["reset"] < 130 and 70 < counts["http500"] < 130
    assert a.pick("none") is None
    with pytest.raises(FaultSpecError, match="nosuch"):
        a.pick("nosuch")


@pytest.fixture(scope="module")
def sim():
    spec = parse_faults("stall_s=1,retry_after=3,after=2")
    with serve_in_thread(load_profile("instant"), spec) as server:
        yield server


@pytest.fixture
def client(sim):
    with httpx.Client(base_url=sim.url, timeout=5) as c:
        yield c


def forced(kind: str) -> dict:
    return {"X-Sim-Fault": kind}


@pytest.mark.parametrize("kind", ["disconnect", "reset", "http500", "http429", "bad_sse",
                                  "no_usage"])
def test_each_fault_is_seen_by_the_client_as_such(client, kind):
    assert classify(client, chat_body(max_tokens=10, usage=True), forced(kind)) == kind
    record = client.get("/sim/trace").json()["records"][-1]
    assert record["fault"] == kind


def test_429_says_when_to_retry(client):
    response = client.post(CHAT, json=chat_body(), headers=forced("http429"))
    assert response.status_code == 429 and response.headers["retry-after"] == "3"
    assert response.json()["error"]["type"] == "rate_limit_error"


def test_reset_cuts_the_stream_after_some_tokens(client):
    seen = []
    with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
        with client.stream("POST", CHAT, json=chat_body(max_tokens=50),
                           headers=forced("reset")) as response:
            for line in response.iter_lines():
                seen.append(line)
    assert not any("[DONE]" in line for line in seen)
    record = client.get("/sim/trace").json()["records"][-1]
    assert record["completion_tokens"] == 2 and not record["disconnected"]


def test_stall_outlasts_a_client_timeout(client):
    timeout = httpx.Timeout(5, read=0.3)
    with pytest.raises(httpx.ReadTimeout):
        with client.stream("POST", CHAT, json=chat_body(max_tokens=10), headers=forced("stall"),
                           timeout=timeout) as response:
            for _ in response.iter_lines():
                pass
    # A patient client gets the whole answer after the stall (1 s here).
    with client.stream("POST", CHAT, json=chat_body(max_tokens=10), headers=forced("stall"),
                       timeout=httpx.Timeout(5)) as response:
        events, raw = read_sse(response)
    assert raw == ["[DONE]"]
    records = client.get("/sim/trace").json()["records"]
    assert records[-2]["fault"] == "stall" and records[-2]["disconnected"]
    assert records[-1]["last_token_s"] - records[-1]["first_token_s"] >= 0.9


def test_bad_tool_json_breaks_the_arguments(client):
    body = chat_body(max_tokens=200, tools=TOOLS, tool_choice="required")
    with client.stream("POST", CHAT, json=body, headers=forced("bad_tool_json")) as response:
        events, raw = read_sse(response)
    fragments = [e["choices"][0]["delta"]["tool_calls"][0]["function"].get("arguments", "")
                 for e in events if e["choices"] and "tool_calls" in e["choices"][0]["delta"]]
    with pytest.raises(ValueError):
        json.loads("".join(fragments))
    whole = client.post(CHAT, json={**body, "stream": False}, headers=forced("bad_tool_json"))
    with pytest.raises(ValueError):
        json.loads(whole.json()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
    # Not applicable (no tool call): nothing is injected, and the trace says so.
    client.post(CHAT, json=chat_body(stream=False), headers=forced("bad_tool_json"))
    assert client.get("/sim/trace").json()["records"][-1]["fault"] is None


def test_client_counts_equal_injected_counts():
    spec = parse_faults("disconnect=0.1,reset=0.15,http500=0.1,http429=0.1,bad_sse=0.1,"
                        "no_usage=0.1,seed=5")
    with serve_in_thread(load_profile("instant"), spec) as server, \
            httpx.Client(base_url=server.url, timeout=5) as client:
        observed = collections.Counter(
            classify(client, chat_body(max_tokens=6, usage=True)) for _ in range(80)
        )
        injected = collections.Counter(
            r["fault"] for r in client.get("/sim/trace").json()["records"]
        )
    assert observed == injected
    assert observed[None] < 80 and len(observed) == 7  # every kind struck at least once
