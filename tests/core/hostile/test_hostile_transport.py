"""What reaches the client's transport: encodings it did not ask for (br, zstd) and proxies from
the environment. See docs/RELIABILITY.md, "Hostile servers"."""

from __future__ import annotations

import asyncio
import socket
import threading

import httpx
import pytest

from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.client import make_client, stream_request
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from tests.core.hostile.server import HostileServer
from tests.core.hostile.test_hostile_sql import ask, db  # noqa: F401 - db is a fixture
from tests.core.hostile.test_hostile_sweep import _sweep


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


# --- encodings ----------------------------------------------------------------------------------

def test_the_client_asks_for_gzip_and_deflate_only():
    client = make_client(EndpointConfig("http://127.0.0.1:9/v1"), 1)
    assert client.headers["accept-encoding"] == "gzip, deflate"
    asyncio.run(client.aclose())


def _stream(url: str):
    config = EndpointConfig(url, model="m")

    async def go():
        async with make_client(config, 1) as client:
            return await stream_request(client, config, {
                "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4})

    return asyncio.run(go())


@pytest.mark.parametrize("encoding, shown", [
    ("br", "br"), ("zstd", "zstd"), ("gzip,br", "gzip, br"), ("compress", "compress")])
def test_a_stream_in_an_encoding_not_asked_for_is_refused_unread(server, encoding, shown):
    res = _stream(server.url(f"encoding.{encoding}"))
    assert res.error_class == "malformed_stream"
    assert res.error_message.startswith("UnsupportedEncoding: ")
    assert f"Content-Encoding {shown}," in res.error_message, res.error_message


def test_an_error_answer_in_br_keeps_its_status(server):
    res = _stream(server.url("encoding_error.br"))
    assert res.error_class == "http_status" and res.status_code == 500


def test_a_sweep_in_br_fails_each_request_with_the_named_error(server):
    result = _sweep(server.url("encoding.br"))
    assert result.cells[0].summary.failures_by_class == {"malformed_stream": 2}
    assert all("UnsupportedEncoding" in r.error_message for r in result.requests)


def test_the_refusal_is_a_named_error_with_its_code(server):
    async def go():
        async with make_client(EndpointConfig(server.url("encoding.zstd")), 1) as client:
            with pytest.raises(limits.UnsupportedEncoding) as raised:
                await client.post(server.url("encoding.zstd") + "/chat/completions",
                                  json={"stream": False})
            return raised.value

    error = asyncio.run(go())
    assert error.code == "unsupported_encoding" and error.encoding == "zstd"


def test_the_sql_loop_ends_a_question_in_zstd_with_the_named_error(server, db):  # noqa: F811
    steps, stop, _, wall = ask(server, db, "encoding.zstd", time_limit_s=10)
    assert stop == "endpoint_error" and wall < 5
    assert "UnsupportedEncoding" in steps[-1].error and "zstd" in steps[-1].error


# --- proxies --------------------------------------------------------------------------------------

class CountingProxy:
    """A listener that counts connections and answers each request 502 (a proxy that cannot
    reach the server)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
                             b"Connection: close\r\n\r\n")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def proxy(monkeypatch):
    p = CountingProxy()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{p.port}")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    yield p
    p.close()


def test_a_loopback_endpoint_is_never_sent_to_the_environments_proxy(server, proxy):
    result = _sweep(server.url("ok"))
    assert result.status == "completed" and result.cells[0].summary.ok == 2
    assert proxy.connections == 0


def _client_with_env_proxies() -> httpx.AsyncClient:
    """The run's client, as make_client builds it from the environment."""
    from desktop_app.core.endpoint.client import make_client

    return make_client(EndpointConfig("http://127.0.0.1:1/v1", model="m", connect_timeout_s=5), 4)


def test_env_proxy_mounts_send_remote_hosts_through_the_proxy_and_loopback_direct(server,
                                                                                   proxy):
    async def go():
        async with _client_with_env_proxies() as client:
            direct = await client.get(server.url("ok") + "/models")
            remote = await client.get("http://throughline-remote.invalid/v1/models")
            return direct.status_code, remote.status_code

    assert asyncio.run(go()) == (200, 502)
    assert proxy.connections == 1


def test_a_proxy_that_cannot_be_reached_is_a_named_failure_not_a_traceback(monkeypatch):
    with socket.create_server(("127.0.0.1", 0)) as s:
        closed = s.getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    config = EndpointConfig("http://throughline-remote.invalid/v1", model="m",
                            connect_timeout_s=2)

    async def go():
        async with _client_with_env_proxies() as client:
            res = await stream_request(client, config, {"messages": [], "max_tokens": 4})
            try:
                await discover(config, client)
            except Exception as exc:  # noqa: BLE001 - the test names what it must be
                return res, exc
            return res, None

    res, error = asyncio.run(go())
    # httpx says "All connection attempts failed" (the proxy is not named: client.py's words).
    assert res.error_class == "connect", res.error_message
    assert type(error).__name__ == "EndpointError" and "\n" not in str(error), error
