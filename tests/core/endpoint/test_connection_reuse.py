"""Kept-alive connections the way servers really close them, for both HTTP clients.

llama.cpp's server answers `Keep-Alive: timeout=5, max=100` and then closes the connection
after a streamed reply; others close after N requests or after an idle time. A request sent on
a connection the server has just closed, that got not one byte back, is sent once more on a new
connection (urllib3's and httpcore's rule) and never counted as failed; one that got a byte is
never resent. A fresh connection closed before answering is `connection_closed`, not
`stream_cut`.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from desktop_app.core.endpoint.client import make_client, stream_request
from desktop_app.core.endpoint.lean import LeanClient, stream_request_lean
from desktop_app.core.endpoint.types import EndpointConfig


def _event(obj) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _reply(extra_headers: str = "") -> bytes:
    body = b"".join([
        _event({"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]})
        for p in ("a", "b", "c")]) + _event(
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}) + _event(
        {"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 3}}) + b"data: [DONE]\n\n"
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:40], body[40:])) + b"0\r\n\r\n"
    return (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
            + extra_headers.encode() + b"\r\n" + chunks)


class ClosingServer:
    """A loopback server that closes connections as real ones do.

    close_after: answers a connection carries before the server closes it (1: after every reply,
    as llama.cpp does; None: never); close_delay_s: how long after the last reply's bytes the
    close comes; refuse_extra: a request beyond `close_after` is read and the connection closed
    without an answer (instead of closing right after the reply); idle_close_s: an idle
    connection is closed after this long; first_bytes_then_close: the n-th request overall gets
    its status line only, then the close."""

    def __init__(self, *, close_after: int | None = None, close_delay_s: float = 0.0,
                 refuse_extra: bool = False, idle_close_s: float | None = None,
                 keep_alive: str = "", answer_none: bool = False,
                 first_bytes_then_close: int | None = None) -> None:
        self.close_after = close_after
        self.close_delay_s = close_delay_s
        self.refuse_extra = refuse_extra
        self.idle_close_s = idle_close_s
        self.keep_alive = keep_alive
        self.answer_none = answer_none
        self.first_bytes_then_close = first_bytes_then_close
        self.connections = 0
        self.requests = 0  # read in full
        self.unanswered = 0  # read, then closed without an answer
        self.writers: set = set()

    async def __aenter__(self) -> ClosingServer:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()
        for writer in list(self.writers):
            writer.close()
        await asyncio.sleep(0.02)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _read_request(self, reader) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        await reader.readexactly(length)

    async def _handle(self, reader, writer) -> None:
        self.connections += 1
        self.writers.add(writer)
        served = 0
        try:
            while True:
                await asyncio.wait_for(self._read_request(reader), self.idle_close_s)
                self.requests += 1
                if self.answer_none or (self.refuse_extra and self.close_after is not None
                                        and served >= self.close_after):
                    self.unanswered += 1
                    break
                if self.first_bytes_then_close == self.requests:
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n")
                    await writer.drain()
                    break
                writer.write(_reply(self.keep_alive))
                await writer.drain()
                served += 1
                if (not self.refuse_extra and self.close_after is not None
                        and served >= self.close_after):
                    if self.close_delay_s:
                        await asyncio.sleep(self.close_delay_s)
                    break
        except (asyncio.IncompleteReadError, ConnectionError, TimeoutError):
            pass
        finally:
            writer.close()
            self.writers.discard(writer)


CLIENTS = ("lean", "httpx")


async def _closed_loop(client_kind: str, url: str, concurrency: int, per_worker: int,
                       pause_s: float = 0.0) -> list:
    cfg = EndpointConfig(url, model="m", first_byte_timeout_s=5, total_timeout_s=10)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3}

    async def run(send) -> list:
        async def worker() -> list:
            out = []
            for _ in range(per_worker):
                out.append(await send())
                if pause_s:
                    await asyncio.sleep(pause_s)
            return out
        return sum(await asyncio.gather(*(worker() for _ in range(concurrency))), [])

    if client_kind == "lean":
        async with LeanClient(cfg, concurrency) as lean:
            return await run(lambda: stream_request_lean(lean, cfg, body))
    async with make_client(cfg, concurrency) as client:
        return await run(lambda: stream_request(client, cfg, body))


def _all_ok(results) -> bool:
    return all(r.error_class is None and r.completion_tokens == 3 for r in results)


@pytest.mark.asyncio
@pytest.mark.parametrize("client_kind", CLIENTS)
@pytest.mark.parametrize("delay", [0.0, 0.005])
@pytest.mark.parametrize("concurrency", [1, 3])
async def test_a_server_that_closes_after_every_streamed_reply_fails_no_request(
        client_kind, delay, concurrency):
    # As llama.cpp's server: Keep-Alive promised, the connection closed after the reply (at
    # once, or a few ms later, when the next request may already be on its way).
    async with ClosingServer(close_after=1, close_delay_s=delay,
                             keep_alive="Keep-Alive: timeout=5, max=100\r\n") as srv:
        results = await _closed_loop(client_kind, srv.url, concurrency, 6)
    assert _all_ok(results), {r.error_class: r.error_message for r in results if r.error_class}
    assert srv.connections >= 6 * concurrency  # one answer per connection, none lost


@pytest.mark.asyncio
@pytest.mark.parametrize("client_kind", CLIENTS)
async def test_a_server_that_drops_the_request_after_n_on_a_connection(client_kind):
    # A connection closed under the next request with nothing sent back: resent once, on a new
    # connection, so the user's request succeeds.
    async with ClosingServer(close_after=2, refuse_extra=True) as srv:
        results = await _closed_loop(client_kind, srv.url, 1, 7)
    assert _all_ok(results)
    assert srv.unanswered >= 1  # the close really landed under a request


@pytest.mark.asyncio
async def test_keep_alive_max_is_honoured_so_no_request_is_sent_into_a_close():
    # `Keep-Alive: max=2` on every answer (cpp-httplib sends its total so): after two answers a
    # connection is not reused, so no request is sent for the server to refuse.
    async with ClosingServer(close_after=2, refuse_extra=True,
                             keep_alive="Keep-Alive: timeout=5, max=2\r\n") as srv:
        cfg = EndpointConfig(srv.url, model="m", first_byte_timeout_s=5)
        body = {"model": "m", "max_tokens": 3}
        async with LeanClient(cfg, 1) as lean:
            results = [await stream_request_lean(lean, cfg, body) for _ in range(6)]
            resent = lean.resent
    assert _all_ok(results)
    assert resent == 0 and srv.unanswered == 0
    assert srv.connections == 3  # two answers per connection, as max=2 says


@pytest.mark.asyncio
@pytest.mark.parametrize("client_kind", CLIENTS)
async def test_a_server_that_closes_idle_connections(client_kind):
    async with ClosingServer(idle_close_s=0.1) as srv:
        results = await _closed_loop(client_kind, srv.url, 2, 3, pause_s=0.3)
    assert _all_ok(results)


@pytest.mark.asyncio
async def test_keep_alive_timeout_is_honoured():
    # `timeout=1`: an idle connection is not reused past half of it, so a request after 0.6 s
    # idle opens a new connection rather than racing the server's close.
    async with ClosingServer(keep_alive="Keep-Alive: timeout=1\r\n") as srv:
        cfg = EndpointConfig(srv.url, model="m", first_byte_timeout_s=5)
        body = {"model": "m", "max_tokens": 3}
        async with LeanClient(cfg, 1) as lean:
            first = await stream_request_lean(lean, cfg, body)
            second = await stream_request_lean(lean, cfg, body)  # at once: reused
            await asyncio.sleep(0.6)
            third = await stream_request_lean(lean, cfg, body)
    assert _all_ok([first, second, third])
    assert srv.connections == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("client_kind", CLIENTS)
async def test_a_fresh_connection_closed_before_answering_is_connection_closed(client_kind):
    async with ClosingServer(answer_none=True) as srv:
        results = await _closed_loop(client_kind, srv.url, 1, 1)
    (res,) = results
    assert res.error_class == "connection_closed"
    assert "closed the connection before answering" in res.error_message
    assert srv.requests == 1  # a new connection's failure is not resent


@pytest.mark.asyncio
@pytest.mark.parametrize("client_kind", CLIENTS)
async def test_a_request_that_got_a_byte_is_never_resent(client_kind):
    # The second request, on the kept-alive connection, gets its status line, then the close.
    async with ClosingServer(first_bytes_then_close=2) as srv:
        results = await _closed_loop(client_kind, srv.url, 1, 2)
    assert results[0].error_class is None
    assert results[1].error_class == "stream_cut"
    assert srv.requests == 2 and srv.connections == 1
