"""The lean streaming path (`endpoint.lean`) gives the StreamResult the httpx path gives.

Each case is one raw HTTP response served by a loopback server, read by both paths; every
field but the stamps must be equal (the stamps: same count, same order). Then what only the
lean path does: its byte-level content events against full parsing on random streams, reused
connections, timeouts, cancellation, TLS and the proxy fallback.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
import random
import shutil
import ssl
import subprocess
import time

import pytest

from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.client import _Stream, make_client, stream_request
from desktop_app.core.endpoint.lean import LeanClient, lean_supported, stream_request_lean
from desktop_app.core.endpoint.lean_events import LeanStream
from desktop_app.core.endpoint.types import EndpointConfig

STAMPS = ("sent_ns", "queued_ns", "first_byte_ns", "first_token_ns", "last_token_ns",
          "chunk_times_ns", "first_answer_ns")


def event(obj) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"


def chunk(content=None, finish=None, *, key="content", **extra) -> dict:
    delta = {} if content is None else {key: content}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def usage(prompt=5, completion=3) -> dict:
    return {"id": "chatcmpl-1", "choices": [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


def stream_body(pieces=("Hel", "lo", " world"), *, finish="stop", use=True, done=True) -> bytes:
    out = [event(chunk("", key="content") | {"choices": [{"index": 0, "delta": {
        "role": "assistant", "content": ""}, "finish_reason": None}]})]
    out += [event(chunk(p)) for p in pieces]
    if finish:
        out.append(event(chunk(None, finish)))
    if use:
        out.append(event(usage(5, len(pieces))))
    if done:
        out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def response(body: bytes, *, status: int = 200, framing: str = "chunked",
             headers: dict | None = None, content_type: str = "text/event-stream") -> bytes:
    h = {"Content-Type": content_type, **(headers or {})}
    if framing == "chunked":
        h["Transfer-Encoding"] = "chunked"
        pieces = [body[i:i + 37] for i in range(0, len(body), 37)]
        payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    elif framing == "length":
        h["Content-Length"] = str(len(body))
        payload = body
    else:  # close-delimited
        h["Connection"] = "close"
        payload = body
    head = f"HTTP/1.1 {status} X\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
    return head.encode() + b"\r\n" + payload


class RawServer:
    """A loopback server answering each request with the next scripted raw response, written
    in `split`-byte pieces; `close=True` closes the connection after it."""

    def __init__(self) -> None:
        self.script: list[tuple[bytes, int, bool]] = []
        self.connections = 0
        self.requests: list[bytes] = []
        self.server = None
        self.port = 0
        self.writers: set = set()

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()
        for _ in range(3):  # handlers still waiting (or just started): nothing is left open
            for writer in list(self.writers):
                writer.close()
            await asyncio.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, raw: bytes, split: int = 0, close: bool = False) -> None:
        self.script.append((raw, split, close))

    async def _handle(self, reader, writer) -> None:
        self.connections += 1
        self.writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                self.requests.append(head + await reader.readexactly(length))
                raw, split, close = self.script.pop(0)
                if split:
                    for i in range(0, len(raw), split):
                        writer.write(raw[i:i + split])
                        await writer.drain()
                        await asyncio.sleep(0)
                else:
                    writer.write(raw)
                    await writer.drain()
                if close or b"Connection: close" in raw:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, IndexError):
            pass
        finally:
            writer.close()
            self.writers.discard(writer)


def strip(res) -> dict:
    d = dataclasses.asdict(res)
    d["n_chunks"] = len(res.chunk_times_ns)
    d["ordered"] = list(res.chunk_times_ns) == sorted(res.chunk_times_ns)
    for k in STAMPS:
        d.pop(k)
    return d


async def both(raw: bytes, split: int = 0, **config) -> tuple:
    """(httpx result, lean result) for the same raw response."""
    out = []
    async with RawServer() as srv:
        cfg = EndpointConfig(srv.url, model="m", **config)
        srv.add(raw, split, close=True)
        async with make_client(cfg, 1) as client:
            out.append(await stream_request(client, cfg, {"model": "m"}))
        srv.add(raw, split, close=True)
        async with LeanClient(cfg, 1) as lean:
            out.append(await stream_request_lean(lean, cfg, {"model": "m"}))
    return tuple(out)


CASES = {
    "chunked": response(stream_body()),
    "length": response(stream_body(), framing="length"),
    "close": response(stream_body(), framing="close"),
    "gzip": response(gzip.compress(stream_body()), framing="length",
                     headers={"Content-Encoding": "gzip"}),
    "gzip_chunked": response(gzip.compress(stream_body()), headers={"Content-Encoding": "gzip"}),
    "escapes": response(stream_body(("a\"b", "line\n", "caf\u00e9", "\u4f60\u597d", "\\", "x"))),
    "crlf_and_pings": response(stream_body().replace(b"\n", b"\r\n").replace(
        b"data: [DONE]", b": ping\r\n\r\ndata: [DONE]")),
    "no_usage_cut": response(stream_body(finish=None, use=False, done=False)),
    "no_usage": response(stream_body(use=False)),
    "usage_mismatch": response(stream_body() .replace(b'"completion_tokens": 3',
                                                       b'"completion_tokens": 300')),
    "negative_usage": response(stream_body().replace(b'"completion_tokens": 3',
                                                     b'"completion_tokens": -3')),
    "reasoning_then_answer": response(b"".join(
        [event(chunk("think", key="reasoning_content")), event(chunk("hmm", key="reasoning")),
         event(chunk("yes")), event(chunk(None, "stop")), event(usage(4, 3)),
         b"data: [DONE]\n\n"])),
    "tool_calls": response(b"".join(
        [event(chunk(None) | {"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"name": "f", "arguments": "{}"}}]},
            "finish_reason": None}]}), event(chunk(None, "tool_calls")), event(usage(4, 1)),
         b"data: [DONE]\n\n"])),
    "completions_text": response(b"".join(
        [event({"id": "c", "choices": [{"index": 0, "text": t, "finish_reason": None}]})
         for t in ("a", "b", "c")]
        + [event({"id": "c", "choices": [{"index": 0, "text": "", "finish_reason": "length"}]}),
           event(usage(2, 3)), b"data: [DONE]\n\n"])),
    "no_content": response(b"".join([event(chunk(None, "stop")), event(usage(2, 0)),
                                     b"data: [DONE]\n\n"])),
    "not_json_midway": response(stream_body().replace(b'data: {"id": "chatcmpl-1", "object"',
                                                      b'data: {oops\n\ndata: {"id": "chatcmpl-1",'
                                                      b' "object"', 1)),
    "deep_event": response(event(b"[" * 100 + b"]" * 100) + stream_body()),
    "surrogate": response(stream_body(("ok", "\ud800x"))),
    "midstream_error": response(event(chunk("a")) + event({"error": {"message": "boom"}})),
    "http_429": response(b'{"error": {"message": "slow down"}}', status=429, framing="length",
                         headers={"Retry-After": "3"}, content_type="application/json"),
    "http_500_text": response(b"internal trouble", status=500, content_type="text/plain"),
    "json_200": response(b'{"choices": []}', framing="length", content_type="application/json"),
    "cut_chunked": response(stream_body())[:-60],
    "unsupported_br": response(b"\x0b\x02\x80garbage", framing="length",
                               headers={"Content-Encoding": "br"}),
    "unsupported_gzip_br_error": response(b"\x0b\x02\x80", status=500, framing="length",
                                          headers={"Content-Encoding": "gzip, br"},
                                          content_type="text/plain"),
    "concatenated_gzip": response(gzip.compress(stream_body()[:50]) + gzip.compress(
        stream_body()[50:]), framing="length", headers={"Content-Encoding": "gzip"}),
}


@pytest.mark.asyncio
@pytest.mark.parametrize("name", sorted(CASES))
async def test_the_lean_path_gives_the_httpx_paths_result(name):
    old, new = await both(CASES[name])
    assert strip(new) == strip(old)
    assert new.sent_ns <= (new.first_byte_ns or new.sent_ns)


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["chunked", "gzip_chunked", "escapes", "crlf_and_pings"])
async def test_any_split_of_the_bytes_gives_the_same_result(name):
    old, new = await both(CASES[name], split=7)
    assert strip(new) == strip(old)
    _, whole = await both(CASES[name])
    assert strip(new) == strip(whole)


@pytest.mark.asyncio
async def test_limits_are_kept_with_named_errors(monkeypatch):
    monkeypatch.setattr(limits, "MAX_STREAM_BYTES", 64 * 1024)
    bomb = gzip.compress(b": " + b"x" * (4 * 1024 * 1024) + b"\n\n")
    old, new = await both(response(bomb, framing="length", headers={"Content-Encoding": "gzip"}))
    assert new.error_class == old.error_class == "malformed_stream"
    assert "DecompressedTooLarge" in new.error_message and "64 KiB" in new.error_message
    monkeypatch.setattr(limits, "MAX_SSE_LINE_BYTES", 1024)
    old, new = await both(response(b"data: " + b"y" * 5000 + b"\n\n"))
    assert strip(new) == strip(old) and "SSELineTooLong" in new.error_message
    monkeypatch.setattr(limits, "MAX_ERROR_BODY_BYTES", 1000)
    old, new = await both(response(b"E" * 500_000, status=500, content_type="text/plain"))
    assert strip(new) == strip(old)


def test_byte_level_content_events_match_full_parsing():
    """Random streams, fed event by event to the lean accounting and to the full parser."""
    rng = random.Random(7)
    alphabet = ["a", "bc", " ", "\u00e9", "\u4f60", '"', "\\", "\n", "\t", "{", "}", "\ud800",
                '","x":"', "content", '"content":"']
    learnt = 0
    for trial in range(300):
        events: list[bytes] = []
        ensure_ascii = trial % 3 == 0
        separators = (",", ":") if trial % 2 else None  # compact, as servers send
        for _ in range(rng.randint(1, 30)):
            roll = rng.random()
            piece = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3)))
            if roll < 0.7:
                obj = chunk(piece)
            elif roll < 0.75:
                obj = chunk(piece, key="reasoning_content")
            elif roll < 0.8:
                obj = chunk(piece, "stop")
            elif roll < 0.85:
                obj = usage(3, rng.randint(-1, 40))
            elif roll < 0.9:
                obj = {"id": "c", "choices": [{"index": 0, "text": piece, "finish_reason": None}]}
            elif roll < 0.93:
                obj = chunk(piece) | {"usage": None}
            elif roll < 0.96:
                obj = chunk(piece) | {"created": rng.randint(1, 3)}
            else:
                events.append(rng.choice([b"[DONE]", b"{bad", b"[" * 70 + b"]" * 70]))
                continue
            events.append(json.dumps(obj, ensure_ascii=ensure_ascii, separators=separators)
                          .encode("utf-8", "surrogatepass"))
        full, lean = _Stream(True), LeanStream(True)
        lean.sent_ns = lean.queued_ns = full.sent_ns
        for i, data in enumerate(events):
            full.on_event(data.decode("utf-8", "replace"), i)
            lean.on_bytes(data, i)
        learnt += lean._prefix is not None
        assert lean.result() == full.result(), events
    assert learnt > 50  # the byte-level path was taken, not only the fallback


def test_the_template_counts_plain_events_without_parsing(monkeypatch):
    st = LeanStream(True)
    compact = {"separators": (",", ":")}
    st.on_bytes(json.dumps(chunk("first"), **compact).encode(), 1)
    assert st._prefix is not None
    calls = []
    monkeypatch.setattr(LeanStream, "on_event", lambda *a: calls.append(a))
    for i in range(5):
        st.on_bytes(json.dumps(chunk(f"tok{i}"), **compact).encode(), 2 + i)
    assert calls == [] and len(st.chunk_times) == 6 and "".join(st.parts).endswith("tok4")


@pytest.mark.asyncio
async def test_a_closed_loop_reuses_one_connection_per_stream():
    async with RawServer() as srv:
        cfg = EndpointConfig(srv.url, model="m")
        for _ in range(6):
            srv.add(response(stream_body()))
        async with LeanClient(cfg, 2) as lean:
            results = await asyncio.gather(*(stream_request_lean(lean, cfg, {"model": "m"})
                                             for _ in range(2)))
            results += await asyncio.gather(*(stream_request_lean(lean, cfg, {"model": "m"})
                                              for _ in range(2)))
            results.append(await stream_request_lean(lean, cfg, {"model": "m"}, headers={
                "X-Extra": "1"}))
    assert all(r.error_class is None and r.completion_tokens == 3 for r in results)
    assert srv.connections == 2
    request = srv.requests[-1].decode()
    assert request.startswith("POST /v1/chat/completions HTTP/1.1\r\n")
    assert "X-Extra: 1" in request and '"stream": true' in request
    assert '"include_usage": true' in request


@pytest.mark.asyncio
async def test_credentials_and_key_are_sent_like_httpx():
    async with RawServer() as srv:
        srv.add(response(stream_body()))
        url = srv.url.replace("http://", "http://alice:s%40cret@")
        cfg = EndpointConfig(url, model="m", api_key="sk-1")
        async with LeanClient(cfg) as lean:
            res = await stream_request_lean(lean, cfg, {"model": "m"})
    assert res.error_class is None
    assert "Authorization: Basic YWxpY2U6c0BjcmV0" in srv.requests[0].decode()


@pytest.mark.asyncio
async def test_timeouts_connect_errors_and_cancellation():
    async with RawServer() as srv:  # headers, then silence
        srv.add(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + b"6\r\n" + event(chunk("a"))[:6] + b"\r\n")
        cfg = EndpointConfig(srv.url, model="m", first_byte_timeout_s=0.3)
        async with LeanClient(cfg) as lean:
            started = time.perf_counter()
            res = await stream_request_lean(lean, cfg, {"model": "m"})
        assert res.error_class == "timeout" and "read timeout" in res.error_message
        assert time.perf_counter() - started < 2


@pytest.mark.asyncio
async def test_the_deadline_and_a_gone_server():
    async with RawServer() as srv:
        srv.add(response(event(chunk("a")) + event(chunk("b")))[:-5])  # then silence
        cfg = EndpointConfig(srv.url, model="m")
        async with LeanClient(cfg) as lean:
            res = await stream_request_lean(lean, cfg, {"model": "m"},
                                            deadline=time.perf_counter() + 0.3)
        assert res.error_class == "timeout" and "time budget" in res.error_message
        assert "(2 content chunks in)" in res.error_message
    cfg = EndpointConfig(srv.url, model="m")  # the server is gone
    async with LeanClient(cfg) as lean:
        res = await stream_request_lean(lean, cfg, {"model": "m"})
    assert res.error_class == "connect" and "cannot connect to" in res.error_message


@pytest.mark.asyncio
async def test_cancelling_drops_the_connection():
    async with RawServer() as srv:  # cancelled mid-stream: the connection is dropped
        srv.add(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")
        cfg = EndpointConfig(srv.url, model="m")
        async with LeanClient(cfg) as lean:
            task = asyncio.create_task(stream_request_lean(lean, cfg, {"model": "m"}))

            async def request_arrived():
                while not srv.requests:
                    await asyncio.sleep(0.005)

            await asyncio.wait_for(request_arrived(), 5)  # in flight: the server has it
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert lean._idle == []


def test_a_proxy_from_the_environment_falls_back_to_httpx(monkeypatch):
    cfg = EndpointConfig("http://example.test:8000", model="m")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy",
                 "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert lean_supported(cfg)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy:3128")
    assert not lean_supported(cfg)
    assert lean_supported(EndpointConfig("https://example.test", model="m"))
    monkeypatch.setenv("NO_PROXY", "example.test")
    assert lean_supported(cfg)
    monkeypatch.delenv("NO_PROXY")
    for url in ("http://127.0.0.1:8000", "http://localhost:1", "http://[::1]:8000"):
        assert lean_supported(EndpointConfig(url, model="m"))  # this machine: always direct


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a test certificate")
    where = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(where / "key.pem"), "-out", str(where / "cert.pem")],
                   check=True, capture_output=True)
    return where / "cert.pem", where / "key.pem"


@pytest.mark.asyncio
async def test_tls_with_and_without_verification(certificate, monkeypatch):
    cert, key = certificate
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    raw = response(stream_body())

    async def handle(reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        writer.write(raw)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_ctx)
    url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        insecure = EndpointConfig(url, model="m", verify_tls=False)
        async with LeanClient(insecure) as lean:
            res = await stream_request_lean(lean, insecure, {"model": "m"})
        assert res.error_class is None and res.text == "Hello world"
        strict = EndpointConfig(url, model="m")
        async with LeanClient(strict) as lean:
            res = await stream_request_lean(lean, strict, {"model": "m"})
        assert res.error_class == "connect" and "CERTIFICATE_VERIFY_FAILED" in res.error_message
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        async with LeanClient(strict) as lean:
            res = await stream_request_lean(lean, strict, {"model": "m"})
        assert res.error_class is None and res.completion_tokens == 3
    finally:
        server.close()
