"""The simulator's HTTP server seen by a client: shapes, counts, limits, metrics, trace, errors."""

from __future__ import annotations

import contextlib
import json
import statistics
import threading
import time

import httpx
import pytest

from desktop_app.core.simulator.engine import Profile
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import SimulatorError, run, serve_in_thread
from tests.core.sim_helpers import (
    CHAT, COMPLETIONS, MODEL, chat_body, content_tokens, stream,
)


@pytest.fixture(scope="module")
def sim():
    with serve_in_thread(load_profile("instant")) as server:
        yield server


@pytest.fixture
def client(sim):
    with httpx.Client(base_url=sim.url, timeout=10) as c:
        yield c


def test_chat_stream_shape_without_usage(client):
    response, events, raw = stream(client, CHAT, chat_body(max_tokens=5))
    assert response.headers["content-type"].startswith("text/event-stream")
    assert raw == ["[DONE]"]
    first, *middle, finish = events
    assert first["choices"][0]["delta"]["role"] == "assistant"
    assert not first["choices"][0]["delta"].get("content")
    assert len(middle) == 5  # one chunk per token
    for event in middle:
        assert event["object"] == "chat.completion.chunk"
        assert event["choices"][0]["finish_reason"] is None
        assert len(event["choices"][0]["delta"]["content"]) > 0
    assert finish["choices"][0]["delta"] == {}
    assert finish["choices"][0]["finish_reason"] == "length"
    assert not any("usage" in e for e in events)
    assert len({e["id"] for e in events}) == 1


def test_usage_chunk_only_when_asked_and_equals_tokenize(client):
    body = chat_body(max_tokens=7, usage=True, content="Count these words, 123 of them.")
    _, events, raw = stream(client, CHAT, body)
    usage_event = events[-1]
    assert usage_event["choices"] == [] and raw == ["[DONE]"]
    usage = usage_event["usage"]
    tokenized = client.post("/tokenize", json={"model": MODEL, "messages": body["messages"]})
    assert usage["prompt_tokens"] == tokenized.json()["count"]
    assert usage["completion_tokens"] == len(content_tokens(events)) == 7
    assert usage["total_tokens"] == usage["prompt_tokens"] + 7
    whole = client.post(CHAT, json=chat_body(max_tokens=7, stream=False,
                                             content=body["messages"][0]["content"])).json()
    assert whole["usage"] == usage  # non-streaming responses always carry usage


def test_completions_stream_and_prompt_count(client):
    body = {"model": MODEL, "prompt": "one two three", "max_tokens": 4, "stream": True,
            "stream_options": {"include_usage": True}}
    _, events, raw = stream(client, COMPLETIONS, body)
    texts = [e["choices"][0]["text"] for e in events if e["choices"]]
    assert len([t for t in texts if t]) == 4 and texts[-1] == ""
    assert events[-2]["choices"][0]["finish_reason"] == "length"
    tokenized = client.post("/tokenize", json={"model": MODEL, "prompt": "one two three"}).json()
    assert events[-1]["usage"]["prompt_tokens"] == tokenized["count"] == 3
    assert tokenized["max_model_len"] == 131_072 and len(tokenized["tokens"]) == 3


def test_output_length_controls_are_exact(client):
    def usage(**kw):
        return client.post(CHAT, json=chat_body(stream=False, content="length test", **kw)).json()

    natural = usage(max_tokens=5000)  # instant profile: about 64 tokens, then "stop"
    assert natural["choices"][0]["finish_reason"] == "stop"
    n = natural["usage"]["completion_tokens"]
    assert 16 <= n <= 128
    cut = usage(max_tokens=n - 3)
    assert cut["usage"]["completion_tokens"] == n - 3
    assert cut["choices"][0]["finish_reason"] == "length"
    padded = usage(max_tokens=5000, min_tokens=n + 40)
    assert padded["usage"]["completion_tokens"] == n + 40
    assert padded["choices"][0]["finish_reason"] == "stop"
    for max_tokens in (1, 300, 1000):
        forced = usage(max_tokens=max_tokens, ignore_eos=True)
        assert forced["usage"]["completion_tokens"] == max_tokens
        assert forced["choices"][0]["finish_reason"] == "length"
    _, events, _ = stream(client, CHAT, chat_body(max_tokens=500, ignore_eos=True, usage=True))
    assert len(content_tokens(events)) == events[-1]["usage"]["completion_tokens"] == 500


TOOLS = [
    {"type": "function", "function": {"name": "list_tables", "parameters": {"type": "object"}}},
    {"type": "function", "function": {
        "name": "run_sql", "description": "Run a query",
        "parameters": {"type": "object", "required": ["sql", "limit"], "properties": {
            "sql": {"type": "string"}, "limit": {"type": "integer"},
            "mode": {"type": "string", "enum": ["fast", "exact"]}}}}},
]


def test_tool_calls_stream_as_deltas_that_reassemble(client):
    body = chat_body(max_tokens=200, usage=True, tools=TOOLS,
                     tool_choice={"type": "function", "function": {"name": "run_sql"}})
    _, events, _ = stream(client, CHAT, body)
    deltas = [e["choices"][0]["delta"]["tool_calls"][0] for e in events
              if e["choices"] and "tool_calls" in e["choices"][0]["delta"]]
    head, *fragments = deltas
    assert head["index"] == 0 and head["type"] == "function" and head["id"]
    assert head["function"] == {"name": "run_sql", "arguments": ""}
    assert all(set(f) == {"index", "function"} for f in fragments) and len(fragments) > 3
    args = json.loads("".join(f["function"]["arguments"] for f in fragments))
    assert args == {"sql": "SELECT 1", "limit": 1}
    finish = [e for e in events if e["choices"] and e["choices"][0]["finish_reason"]]
    assert finish[0]["choices"][0]["finish_reason"] == "tool_calls"
    assert events[-1]["usage"]["completion_tokens"] == len(deltas)


def test_tool_choice_rules(client):
    def answer(messages, **kw):
        body = {"model": MODEL, "messages": messages, "tools": TOOLS, "max_tokens": 300, **kw}
        return client.post(CHAT, json=body).json()["choices"][0]

    user = [{"role": "user", "content": "how many orders?"}]
    auto = answer(user)
    assert auto["finish_reason"] == "tool_calls"
    assert auto["message"]["tool_calls"][0]["function"]["name"] == "list_tables"
    assert json.loads(auto["message"]["tool_calls"][0]["function"]["arguments"]) == {}
    assert answer(user, tool_choice="none")["message"]["tool_calls"] == []
    after_tool = user + [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "list_tables", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "orders"}]
    text = answer(after_tool)
    assert text["finish_reason"] == "stop" and text["message"]["content"]
    assert answer(after_tool, tool_choice="required")["finish_reason"] == "tool_calls"


def test_trace_matches_what_clients_received(client):
    assert client.delete("/sim/trace").status_code == 204
    ids = {}
    for i in range(3):
        _, events, _ = stream(client, CHAT, chat_body(max_tokens=3 + i, usage=True))
        ids[events[0]["id"]] = 3 + i
    whole = client.post(CHAT, json=chat_body(max_tokens=2, stream=False)).json()
    ids[whole["id"]] = 2
    trace = client.get("/sim/trace").json()
    records = {r["id"]: r for r in trace["records"]}
    assert set(records) == set(ids)
    for rid, n in ids.items():
        r = records[rid]
        assert r["completion_tokens"] == n and r["fault"] is None and not r["disconnected"]
        assert r["arrival_s"] <= r["first_token_s"] <= r["last_token_s"] <= r["end_s"]
        assert r["end_s"] <= trace["now_s"] <= time.perf_counter()  # same clock as ours
    # A client that goes away is recorded as such.
    with client.stream("POST", CHAT, json=chat_body(max_tokens=100_000, ignore_eos=True)) as r:
        next(r.iter_lines())
    gone = client.get("/sim/trace").json()["records"][-1]
    for _ in range(100):
        if gone["disconnected"]:
            break
        time.sleep(0.02)
        gone = client.get("/sim/trace").json()["records"][-1]
    assert gone["disconnected"] and gone["completion_tokens"] < 100_000


def _send(sock, path: str, body: dict) -> None:
    data = json.dumps(body).encode()
    sock.sendall(b"POST %s HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (path.encode(), len(data), data))


def _response(sock) -> dict:
    """The JSON body of the next response on `sock` (content-length framed)."""
    raw = b""
    while b"\r\n\r\n" not in raw:
        raw += sock.recv(65536)
    head, body = raw.split(b"\r\n\r\n", 1)
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")))
    while len(body) < length:
        body += sock.recv(65536)
    return json.loads(body)


def test_a_request_is_stamped_when_read_not_when_its_handler_gets_round_to_it(monkeypatch):
    """The trace's arrival is when the server read a request: bench/client_fidelity.py measures
    the client against it, and a request waiting behind another's work in the server's loop is
    the server's time, not the client's."""
    import socket

    from desktop_app.core.simulator import validation

    parse = validation.parse_tokenize_request
    holding, held_until = threading.Event(), []

    def slow_tokenize(body, *args, **kwargs):
        if b"hold" in body:  # holds the loop while the next two requests arrive
            holding.set()
            time.sleep(0.3)
            held_until.append(time.perf_counter())
        elif b"block" in body:  # runs, blocking, before the chat request's handler
            time.sleep(0.3)
        return parse(body, *args, **kwargs)

    monkeypatch.setattr(validation, "parse_tokenize_request", slow_tokenize)
    with serve_in_thread(load_profile("instant")) as server, contextlib.ExitStack() as stack:
        host, port = server.url.removeprefix("http://").rsplit(":", 1)
        address = (host, int(port))
        # Connections opened and accepted beforehand, as a sweep's are.
        holder, blocker, target = (stack.enter_context(socket.create_connection(address))
                                   for _ in range(3))
        for sock in (holder, blocker, target):
            _send(sock, "/tokenize", {"prompt": "hello"})
            _response(sock)
        _send(holder, "/tokenize", {"prompt": "hold"})
        assert holding.wait(10)
        # Both arrive while the loop is held, and are read in one turn, "block" first: its
        # handler then holds the loop 0.3 s before the chat request's handler runs.
        _send(blocker, "/tokenize", {"prompt": "block"})
        _send(target, CHAT, chat_body(max_tokens=1, stream=False))
        chat_id = _response(target)["id"]
        for sock in (holder, blocker):
            _response(sock)
        with httpx.Client(base_url=server.url, timeout=10) as c:
            records = {r["id"]: r for r in c.get("/sim/trace").json()["records"]}
    # Stamped in its handler, it would be 0.3 s after the loop was free to read it.
    assert records[chat_id]["arrival_s"] - held_until[0] < 0.15


def test_discovery_endpoints(client):
    models = client.get("/v1/models").json()["data"]
    assert models[0]["id"] == MODEL and models[0]["owned_by"] == "throughline-simulator"
    version = client.get("/version").json()
    assert version["simulated"] is True and version["profile"] == "instant"
    assert version["engine"] == "vllm"
    health = client.get("/health")
    assert health.status_code == 200 and health.content == b""


BAD = [
    (CHAT, b"{not json", 400, None),
    (CHAT, b"[1, 2]", 400, None),
    (CHAT, {"model": MODEL}, 400, "messages"),
    (CHAT, {"model": MODEL, "messages": "hi"}, 400, "messages"),
    (CHAT, {"model": MODEL, "messages": [{"content": "no role"}]}, 400, "messages"),
    (CHAT, chat_body(max_tokens=0), 400, "max_tokens"),
    (CHAT, chat_body(max_tokens="10"), 400, "max_tokens"),
    (CHAT, chat_body(n=2), 400, "n"),
    (CHAT, chat_body(max_tokens=200_000), 400, "max_tokens"),
    (CHAT, chat_body(min_tokens=20, max_tokens=10), 400, "min_tokens"),
    (CHAT, chat_body(temperature="hot"), 400, "temperature"),
    (CHAT, chat_body(stream=False, usage=True), 400, "stream_options"),
    (CHAT, chat_body(stream="yes"), 400, "stream"),
    (CHAT, chat_body(tool_choice="required"), 400, "tool_choice"),
    (CHAT, chat_body(tools=[{"type": "function"}]), 400, "tools"),
    (CHAT, chat_body(model="gpt-9"), 404, "model"),
    (COMPLETIONS, {"model": MODEL, "max_tokens": 3}, 400, "prompt"),
    (COMPLETIONS, {"model": MODEL, "prompt": ["a", "b"]}, 400, "prompt"),
    (COMPLETIONS, {"model": MODEL, "prompt": 42}, 400, "prompt"),
    ("/tokenize", {"model": MODEL}, 400, "prompt"),
]


@pytest.mark.parametrize(("path", "body", "status", "param"), BAD)
def test_bad_requests_get_openai_errors_even_when_streaming(client, path, body, status, param):
    if isinstance(body, dict):
        body = {**body, "stream": body.get("stream", True)} if path != "/tokenize" else body
        if "stream_options" in body and body["stream"] is True and param == "stream_options":
            body["stream"] = False
        content = json.dumps(body).encode()
    else:
        content = body
    response = client.post(path, content=content, headers={"content-type": "application/json"})
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error["message"] and error["type"] == "invalid_request_error"
    assert error["param"] == param


def test_engine_limits_show_on_metrics():
    slow = Profile(name="slow-test", max_num_seqs=1, decode_base_s=0.05, kv_cache_tokens=100_000)
    with serve_in_thread(slow) as server, httpx.Client(base_url=server.url, timeout=10) as c:
        with contextlib.ExitStack() as open_streams:
            streams = [open_streams.enter_context(
                c.stream("POST", CHAT, json=chat_body(max_tokens=1000, ignore_eos=True)))
                for _ in range(3)]
            metrics = ""
            for _ in range(200):
                metrics = c.get("/metrics").text
                if 'vllm:num_requests_waiting{model_name="sim/llama-sim-8b"} 2.0' in metrics:
                    break
                time.sleep(0.01)
            assert 'vllm:num_requests_running{model_name="sim/llama-sim-8b"} 1.0' in metrics
            assert 'vllm:num_requests_waiting{model_name="sim/llama-sim-8b"} 2.0' in metrics
            assert "vllm:kv_cache_usage_perc{" in metrics
            assert "vllm:num_preemptions_total{" in metrics
            assert "vllm:request_queue_time_seconds_bucket{" in metrics
            assert "vllm:prompt_tokens_total{" in metrics
            assert "vllm:generation_tokens_total{" in metrics
            # Tokens arrive at the profile's pace: 50 ms apart (absolute deadlines, no drift).
            # This stream has been decoding since it opened: the tokens made while the test
            # opened the others and polled /metrics wait in the socket and read at once (on a
            # busy machine several: a loaded run saw a first gap of 40 us). They are skipped
            # until a token takes time to come; the pace is the median of the live gaps, which
            # one token a busy machine holds back and releases with the next does not move.
            stamps = []
            for line in streams[0].iter_lines():
                if '"content":"' in line and '"role"' not in line:
                    now = time.perf_counter()
                    if len(stamps) == 1 and now - stamps[0] < 0.005:
                        stamps.clear()  # still reading what was waiting in the socket
                    stamps.append(now)
                if len(stamps) == 12:
                    break
            gaps = [b - a for a, b in zip(stamps, stamps[1:])]
            assert len(gaps) == 11, "the tokens came all at once, to the end of the stream"
            assert 0.04 <= statistics.median(gaps) <= 0.07, gaps
        for _ in range(200):  # closing the streams aborts the requests in the engine
            metrics = c.get("/metrics").text
            if 'vllm:num_requests_waiting{model_name="sim/llama-sim-8b"} 0.0' in metrics and \
                    'vllm:num_requests_running{model_name="sim/llama-sim-8b"} 0.0' in metrics:
                break
            time.sleep(0.01)
        assert 'vllm:num_requests_running{model_name="sim/llama-sim-8b"} 0.0' in metrics
        records = c.get("/sim/trace").json()["records"]
        assert [r["disconnected"] for r in records] == [True, True, True]
        assert records[1]["queue_s"] is None or records[1]["queue_s"] > 0.05


def test_run_refuses_a_busy_port():
    with serve_in_thread(load_profile("instant")) as server:
        port = int(server.url.rsplit(":", 1)[1])
        with pytest.raises(SimulatorError, match=f"port {port} on 127.0.0.1 is in use"):
            run("127.0.0.1", port, load_profile("instant"))


def test_run_serves_and_reports_ready():
    """run() in a thread: ready(url) is called once and the URL serves."""
    urls: list[str] = []
    ready = threading.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    # run() blocks until a signal; in a thread there are no signals, so stop it via its server.
    import desktop_app.core.simulator.server as server_module

    servers = []
    original = server_module._make_server

    def capture(*args, **kwargs):
        servers.append(original(*args, **kwargs))
        return servers[-1]

    server_module._make_server = capture
    try:
        thread = threading.Thread(target=run, args=("127.0.0.1", 0, load_profile("instant")),
                                  kwargs={"ready": on_ready})
        thread.start()
        assert ready.wait(10)
        assert httpx.get(urls[0] + "/health").status_code == 200
        servers[0].should_exit = True
        thread.join(10)
        assert not thread.is_alive() and len(urls) == 1
    finally:
        server_module._make_server = original
