"""The streaming client: timing, token accounting and error classes, against the real simulator
and against MockTransport fakes of what llama.cpp and llama-cpp-python send."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
import pytest

from desktop_app.core.endpoint.client import (EndpointError, complete, make_client,
                                              stream_request)
from desktop_app.core.endpoint.types import ERROR_CLASSES, EndpointConfig
from desktop_app.core.simulator.faults import parse_faults
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread

MODEL = "sim/llama-sim-8b"
MESSAGES = [{"role": "user", "content": "hello there"}]


def chat(max_tokens: int = 8, **extra) -> dict:
    return {"model": MODEL, "messages": MESSAGES, "max_tokens": max_tokens, **extra}


@pytest.fixture(scope="module")
def sim():
    with serve_in_thread(load_profile("fast"), parse_faults("stall_s=5,retry_after=3,after=2")
                         ) as server:
        yield server


async def last_trace(url: str) -> dict:
    async with httpx.AsyncClient() as c:
        return (await c.get(url + "/sim/trace")).json()["records"][-1]


# --- against the simulator ------------------------------------------------------------------
@pytest.mark.asyncio
async def test_chat_stream_matches_the_servers_trace(sim):
    config = EndpointConfig(sim.url, model=MODEL)
    async with make_client(config, 1) as client:
        await stream_request(client, config, chat(2))  # warm the connection
        res = await stream_request(client, config, chat(20, ignore_eos=True))
    rec = await last_trace(sim.url)
    assert res.error_class is None and res.status_code == 200
    assert res.response_id == rec["id"] and res.response_id.startswith("chatcmpl-")
    assert (res.completion_tokens, res.tokens_source, res.finish_reason) == (20, "usage", "length")
    assert res.prompt_tokens == rec["prompt_tokens"]
    assert len(res.chunk_times_ns) == 20 and res.text
    assert res.sent_ns < res.first_byte_ns <= res.first_token_ns <= res.last_token_ns
    assert list(res.chunk_times_ns) == sorted(res.chunk_times_ns)
    # The client's stamps agree with the server's within a few ms (one clock on Linux; 25 ms
    # leaves room for a loaded 2-core machine, a 20-token stream lasts ~60 ms). Either
    # may come first: the server stamps after its write returns, and here both share one GIL.
    assert abs(rec["arrival_s"] - res.sent_ns / 1e9) < 0.025
    assert abs(res.first_token_ns / 1e9 - rec["first_token_s"]) < 0.025
    assert abs(res.last_token_ns / 1e9 - rec["last_token_s"]) < 0.025
    assert res.sent_ns / 1e9 < rec["arrival_s"]  # the request cannot arrive before it is sent


@pytest.mark.asyncio
async def test_completions_api_counts_text_chunks(sim):
    config = EndpointConfig(sim.url + "/v1/", model=MODEL, api="completions")
    async with make_client(config, 1) as client:
        res = await stream_request(client, config, {"model": MODEL, "prompt": "count to ten",
                                                    "max_tokens": 6, "ignore_eos": True})
    assert res.error_class is None and res.response_id.startswith("cmpl-")
    assert res.completion_tokens == len(res.chunk_times_ns) == 6 and res.text


@pytest.mark.parametrize(("fault", "error_class"), [
    ("reset", "stream_cut"), ("disconnect", "connection_closed"), ("http500", "http_status"),
    ("http429", "http_status"), ("bad_sse", "malformed_stream"), ("no_usage", "no_usage"),
    ("stall", "timeout"),
])
@pytest.mark.asyncio
async def test_each_fault_is_classified(sim, fault, error_class):
    config = EndpointConfig(sim.url, model=MODEL, first_byte_timeout_s=0.5)
    async with make_client(config, 1) as client:
        res = await stream_request(client, config, chat(10, ignore_eos=True),
                                   headers={"X-Sim-Fault": fault})
    assert res.error_class == error_class and res.error_class in ERROR_CLASSES
    assert res.error_message
    if fault == "disconnect":
        assert res.first_byte_ns is None and res.status_code is None
    if fault == "reset":
        assert res.status_code == 200 and len(res.chunk_times_ns) == 2
    if fault == "http429":
        assert (res.status_code, res.retry_after_s) == (429, 3.0)
        assert "rate limit" in res.error_message
    if fault == "http500":
        assert res.status_code == 500 and "simulated internal server error" in res.error_message
    if fault == "no_usage":  # it completed: timings and the client's own count stand
        assert res.tokens_source == "client" and res.completion_tokens == 10
        assert res.first_token_ns is not None and res.finish_reason == "length"
    if fault == "stall":
        assert "read timeout" in res.error_message and len(res.chunk_times_ns) == 2


@pytest.mark.asyncio
async def test_total_timeout_bounds_the_whole_request(sim):
    config = EndpointConfig(sim.url, model=MODEL, total_timeout_s=0.3)
    async with make_client(config, 1) as client:
        t0 = time.perf_counter()
        res = await stream_request(client, config, chat(10), headers={"X-Sim-Fault": "stall"})
    assert res.error_class == "timeout" and "total" in res.error_message
    assert time.perf_counter() - t0 < 2


@pytest.mark.asyncio
async def test_cancelling_mid_stream_closes_the_connection(sim):
    config = EndpointConfig(sim.url, model=MODEL)
    headers_in = asyncio.Event()
    async with make_client(config, 1) as client:
        client.event_hooks["response"].append(lambda _r: _set(headers_in))
        task = asyncio.create_task(stream_request(client, config, chat(20_000, ignore_eos=True)))
        await asyncio.wait_for(headers_in.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2)
    deadline = time.monotonic() + 5
    while not (rec := await last_trace(sim.url))["disconnected"] and time.monotonic() < deadline:
        await asyncio.sleep(0.02)  # polling a condition, with a deadline
    assert rec["disconnected"] and rec["completion_tokens"] < 20_000


async def _set(event: asyncio.Event) -> None:
    event.set()


@pytest.mark.asyncio
async def test_unreachable_server_is_a_connect_error():
    # Bound but not listening, and held: the connection is refused, and no other process
    # can take the port in between (as one could once a closed socket freed it).
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        config = EndpointConfig(f"http://127.0.0.1:{port}", model=MODEL)
        async with make_client(config, 1) as client:
            res = await stream_request(client, config, chat())
            assert res.error_class == "connect" and str(port) in res.error_message
            with pytest.raises(EndpointError, match=f"127.0.0.1:{port}/v1/chat/completions"):
                await complete(client, config, chat())


@pytest.mark.asyncio
async def test_complete_returns_the_json_with_usage(sim):
    config = EndpointConfig(sim.url, model=MODEL)
    async with make_client(config, 1) as client:
        data = await complete(client, config, chat(3, stream_options={"include_usage": True}))
    assert data["usage"]["completion_tokens"] == 3 and data["object"] == "chat.completion"


# --- make_client ----------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_make_client_sizes_the_pool_and_authenticates(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", "/nonexistent/ca.pem")  # must not break plain http
    config = EndpointConfig("http://localhost:8000/v1", api_key="sk-secret", connect_timeout_s=3)
    async with make_client(config, 32) as client:
        assert client.headers["authorization"] == "Bearer sk-secret"
        assert client.timeout.connect == 3 and client.timeout.read == 600
        pool = client._transport._pool  # noqa: SLF001 - no public view of the limits
        assert pool._max_connections >= 32 and pool._max_keepalive_connections >= 32
    with pytest.raises(EndpointError, match="SSL_CERT_FILE=/nonexistent/ca.pem"):
        make_client(EndpointConfig("https://example.invalid"), 1)
    async with make_client(EndpointConfig("https://example.invalid", verify_tls=False), 1):
        pass


# --- shapes the simulator does not send (MockTransport) ---------------------------------------
def sse(*events: object, done: bool = True, comments: bool = False) -> bytes:
    parts = [(b": ping\n\n" if comments else b"")
             + b"data: " + (e if isinstance(e, bytes) else json.dumps(e).encode()) + b"\n\n"
             for e in events]
    return b"".join(parts) + (b"data: [DONE]\n\n" if done else b"")


def chunk(delta: dict | None = None, finish: str | None = None, **extra) -> dict:
    choice = {"index": 0, "delta": delta if delta is not None else {}, "finish_reason": finish}
    return {"id": "chatcmpl-x", "object": "chat.completion.chunk", "choices": [choice], **extra}


def usage(prompt: int, completion: int, cached: int | None = None) -> dict:
    u: dict = {"prompt_tokens": prompt, "completion_tokens": completion,
               "total_tokens": prompt + completion}
    if cached is not None:
        u["prompt_tokens_details"] = {"cached_tokens": cached}
    return {"id": "chatcmpl-x", "choices": [], "usage": u}


def mock_client(body=b"", status: int = 200, headers: dict | None = None, seen: list | None = None):
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        h = {"content-type": "text/event-stream", **(headers or {})}
        content = body() if callable(body) else body
        return httpx.Response(status, headers=h, content=content)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


CONFIG = EndpointConfig("http://mock:8080", model="m")


async def run(body, **kw) -> object:
    seen: list = []
    async with mock_client(body, seen=seen, **{k: v for k, v in kw.items()
                                                if k in ("status", "headers")}) as client:
        res = await stream_request(client, kw.get("config", CONFIG), {"model": "m"},
                                   **{k: v for k, v in kw.items() if k == "path"})
    return res, seen


@pytest.mark.asyncio
async def test_usage_counts_tokens_when_a_chunk_carries_several():
    body = sse(chunk({"role": "assistant", "content": ""}),
               *[chunk({"content": "two or three "}) for _ in range(4)],
               chunk({}, "length"), usage(50, 10))
    res, seen = await run(body)
    assert (res.completion_tokens, len(res.chunk_times_ns), res.tokens_source) == (10, 4, "usage")
    sent = json.loads(seen[0].content)
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert str(seen[0].url) == "http://mock:8080/v1/chat/completions"


@pytest.mark.asyncio
async def test_llamacpp_shapes():
    timings = {"prompt_n": 5, "predicted_n": 3, "predicted_per_second": 30.0}
    body = sse(chunk({"role": "assistant", "content": None}),
               *[chunk({"content": t}) for t in ("a", "b", "c")],
               chunk({}, "stop", timings=timings), usage(5, 3, cached=4))
    res, _ = await run(body)
    assert res.error_class is None and res.text == "abc" and res.finish_reason == "stop"
    assert (res.prompt_tokens, res.completion_tokens, res.cached_tokens) == (5, 3, 4)
    # Without include_usage llama.cpp sends none: not an error, the client's count stands.
    async with mock_client(sse(*[chunk({"content": t}) for t in "ab"], chunk({}, "stop"))) as c:
        res = await stream_request(c, CONFIG, {"stream_options": {"include_usage": False}})
    assert (res.error_class, res.tokens_source, res.completion_tokens) == (None, "client", 2)


@pytest.mark.asyncio
async def test_llamacpp_python_no_usage_pings_and_cut_streams():
    tokens = [chunk({"content": t}) for t in ("x", "y", "z")]
    res, _ = await run(sse(chunk({"role": "assistant"}), *tokens, chunk({}, "length"),
                           comments=True))
    assert (res.error_class, res.tokens_source, res.completion_tokens) == ("no_usage", "client", 3)
    assert res.first_token_ns is not None and len(res.chunk_times_ns) == 3
    res, _ = await run(sse(*tokens, done=False, comments=True))  # cut by a newer request
    assert res.error_class == "stream_cut" and res.finish_reason is None
    assert len(res.chunk_times_ns) == 3


@pytest.mark.asyncio
async def test_ttft_starts_at_the_first_content_not_the_role_chunk():
    yielded: list[int] = []

    async def pieces():
        for data in (chunk({"role": "assistant", "content": ""}), chunk({"content": ""}),
                     chunk({"content": "hi"}), chunk({}, "stop"), usage(3, 1)):
            yielded.append(time.perf_counter_ns())
            yield sse(data, done=False)
        yield b"data: [DONE]\n\n"

    res, _ = await run(pieces)
    assert res.first_token_ns == res.last_token_ns and res.completion_tokens == 1
    assert yielded[2] <= res.first_token_ns < yielded[3]


@pytest.mark.asyncio
async def test_completions_text_reasoning_and_tool_calls_are_content():
    text = sse({"id": "cmpl-1", "choices": [{"index": 0, "text": "Hi", "finish_reason": None}]},
               {"id": "cmpl-1", "choices": [{"index": 0, "text": "", "finish_reason": "stop"}]},
               usage(2, 1))
    res, seen = await run(text, config=EndpointConfig("http://mock:8080", api="completions"))
    assert str(seen[0].url).endswith("/v1/completions") and res.text == "Hi"
    assert res.response_id == "cmpl-1" and len(res.chunk_times_ns) == 1
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "run_sql", "arguments": ""}}
    body = sse(chunk({"reasoning_content": "think"}), chunk({"tool_calls": [call]}),
               chunk({}, "tool_calls"), usage(9, 2))
    res, _ = await run(body, path="/chat/completions")
    assert len(res.chunk_times_ns) == 2 and res.text == "" and res.finish_reason == "tool_calls"


@pytest.mark.asyncio
async def test_http_errors_carry_status_message_and_retry_after():
    err = {"error": {"message": "Invalid API key", "type": "auth", "code": 401}}
    res, _ = await run(json.dumps(err).encode(), status=401,
                       headers={"content-type": "application/json"})
    assert (res.error_class, res.status_code) == ("http_status", 401)
    assert "Invalid API key" in res.error_message and "401 Unauthorized" in res.error_message
    res, _ = await run(b'{"detail": "slow down"}', status=429,
                       headers={"retry-after": "7", "content-type": "application/json"})
    assert (res.retry_after_s, res.status_code) == (7.0, 429) and "slow down" in res.error_message
    async with mock_client(json.dumps(err).encode(), status=401) as client:
        with pytest.raises(EndpointError, match=r"401 Unauthorized from http://mock:8080/v1/"
                           r"chat/completions: check the API key: Invalid API key"):
            await complete(client, CONFIG, {"model": "m"})


@pytest.mark.asyncio
async def test_malformed_and_non_stream_answers():
    res, _ = await run(sse(chunk({"content": "a"}), b"{broken", chunk({}, "stop"), usage(1, 1)))
    assert res.error_class == "malformed_stream" and "{broken" in res.error_message
    res, _ = await run(b'{"choices": []}', headers={"content-type": "application/json"})
    assert res.error_class == "malformed_stream" and "stream: true" in res.error_message
    res, _ = await run(sse(chunk({"content": "a"}), {"error": {"message": "engine died"}}))
    assert res.error_class == "stream_cut" and "engine died" in res.error_message


@pytest.mark.asyncio
async def test_a_read_error_mid_stream_is_a_cut():
    async def pieces():
        yield sse(chunk({"content": "a"}), done=False)
        raise httpx.ReadError("connection reset by peer")

    res, _ = await run(pieces)
    assert res.error_class == "stream_cut" and "after 1 content chunks" in res.error_message


def test_a_streams_timeout_is_worded_with_its_url():
    from desktop_app.core.endpoint.client import _timeout_message

    config = EndpointConfig("http://gpu-box:8000", connect_timeout_s=3)
    url = "http://gpu-box:8000/v1/chat/completions"
    assert _timeout_message(httpx.ConnectTimeout("x"), config, url) == (
        f"could not connect to {url} within 3 s")
    assert "read timeout" in _timeout_message(httpx.ReadTimeout("x"), config, url)


def test_a_retry_after_of_inf_or_nan_is_ignored_not_waited_for():
    from desktop_app.core.endpoint.client import _retry_after_s

    assert _retry_after_s("7") == 7.0
    assert _retry_after_s("-3") == 0.0
    assert _retry_after_s("inf") is None
    assert _retry_after_s("nan") is None
