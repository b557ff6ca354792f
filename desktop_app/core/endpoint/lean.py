"""The lean streaming path of a benchmark run: HTTP/1.1 on asyncio's protocol callbacks.

`LeanClient` keeps one connection per stream in flight (a closed loop of concurrency C holds C
connections, reused keep-alive, taken and given back in O(1): no pool walk per request);
`stream_request_lean` sends one streamed completion on it and returns the same `StreamResult`
as `client.stream_request` (same fields, error classes, messages and plausibility flags: the
per-event accounting is `client._Stream`'s).

Why (docs/PERFORMANCE.md, "The lean receive path and worker processes"): with httpx at
concurrency 64 the client's own CPU went to httpcore's pool (every request start and end walks
every pooled connection) and to a full `json.loads` of every SSE event, and each chunk was
stamped after an await chain. Here:

* every read is handled in `data_received`, the socket's own callback, and stamped there with
  `time.perf_counter_ns()`: HTTP framing (content-length, chunked, close-delimited), gzip /
  deflate (`limits._Decoder`, bounded pieces), SSE lines and the event accounting all run in
  that callback; the request's coroutine only waits for the end;
* a plain content event is recognised from its bytes: the first content event of a stream is
  parsed in full, and when its bytes are `prefix + "piece" + suffix` with nothing escaped, a
  later event with the same prefix and suffix and an unescaped piece between them is the same
  JSON with another piece: it is counted (and its text kept) without parsing. Anything else
  (the role chunk, usage, tool calls, reasoning, the finish event, errors, any escape) is
  parsed in full, as before.

The HTTP/1.1 side is `http1.py`, the per-event accounting `lean_events.py`. Limits are those
of `limits.py`, read when a request starts: the decoded stream by
MAX_STREAM_BYTES, a line by MAX_SSE_LINE_BYTES, JSON depth, an error body read to
MAX_ERROR_BODY_BYTES only, response headers to MAX_HEAD_BYTES. Timeouts: connect
(`connect_timeout_s`), silence between reads (`first_byte_timeout_s`, as httpx's read timeout),
the total (`total_timeout_s`) and the caller's deadline. TLS: https:// with the context httpx
would build (ALPN http/1.1). Proxies: `lean_supported` is False when an HTTP(S)_PROXY /
ALL_PROXY variable applies to the endpoint (NO_PROXY does not exempt it and it is not this
machine); the sweep then uses the httpx path. A Content-Encoding not asked for is refused
unread, as `limits.LimitedTransport` refuses it. The request body is written at once (the
transport buffers it), so there is no write timeout of its own: the total timeout bounds it.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
import urllib.request

from desktop_app.core.endpoint import limits as _limits
from desktop_app.core.endpoint.client import API_PATHS, fail_out_of_time
from desktop_app.core.endpoint.http1 import (
    _DONE,
    LeanClient,
    _ConnectFailed,
    _ConnectTimedOut,
    _Conn,
    _Exchange,
)
from desktop_app.core.endpoint.lean_events import LeanStream
from desktop_app.core.endpoint.types import EndpointConfig, StreamResult
from desktop_app.core.redact import redact_url

__all__ = ["HTTP_CLIENTS", "LeanClient", "LeanStream", "lean_supported", "stream_request_lean"]

HTTP_CLIENTS = ("lean", "httpx")  # SweepConfig.http_client, `--http-client`


def lean_supported(config: EndpointConfig) -> bool:
    """Whether the lean path can reach `config`'s endpoint: http:// or https://, and no proxy
    from the environment applies to it (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, minus NO_PROXY)."""
    parts = urllib.parse.urlsplit(config.root_url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return False
    # A server on this machine is reached directly whatever the proxy variables say, as the
    # httpx path does (limits.LOOPBACK_HOSTS).
    loopback = getattr(_limits, "LOOPBACK_HOSTS", ("localhost", "127.0.0.1", "[::1]"))
    if parts.hostname in loopback or f"[{parts.hostname}]" in loopback:
        return True
    proxies = urllib.request.getproxies_environment()
    if not (proxies.get(scheme) or proxies.get("all")):
        return True
    # CPython's own no_proxy rule (what httpx and requests follow), absent from typeshed.
    return bool(urllib.request.proxy_bypass_environment(  # type: ignore[attr-defined]
        parts.hostname, proxies))


async def stream_request_lean(client: LeanClient, config: EndpointConfig, body: dict, *,
                              path: str | None = None, headers: dict | None = None,
                              deadline: float | None = None) -> StreamResult:
    """POST one streamed completion on the lean path and time it; never raises for a failed
    request. Same contract, body handling, limits and StreamResult as `client.stream_request`
    (see there); `sent_ns` is stamped just before the request is written to its connection,
    `queued_ns` when this call began (the difference is a new connection's set-up).
    Cancelling the caller closes the connection at once and re-raises CancelledError."""
    url = config.v1_url + (path or API_PATHS[config.api])
    body = {**body, "stream": True}
    options = body.setdefault("stream_options", {"include_usage": True})
    st = LeanStream(isinstance(options, dict) and bool(options.get("include_usage")))
    st.max_chunks = _limits.chunk_cap(body)
    payload = json.dumps(body).encode()
    split = urllib.parse.urlsplit(url)
    target = (split.path or "/") + (f"?{split.query}" if split.query else "")
    shown = redact_url(url)
    budget_s = config.total_timeout_s
    by_deadline = False
    if deadline is not None:
        left = max(0.0, deadline - time.perf_counter())
        if left < budget_s:
            budget_s, by_deadline = left, True
    conn: _Conn | None = None
    ex: _Exchange | None = None
    try:
        async with asyncio.timeout(budget_s):
            st.sent_ns = st.queued_ns = time.perf_counter_ns()
            request = client.head(target, len(payload), headers) + payload
            conn = client.take()
            reused = conn is not None
            while True:
                if conn is None:
                    conn = await client.connect()
                ex = _Exchange(st, conn, shown, config.first_byte_timeout_s, may_resend=reused)
                conn.exchange = ex
                st.sent_ns = time.perf_counter_ns()
                assert conn.transport is not None  # connect() returns a connected one
                conn.transport.write(request)
                await ex.future
                if not ex.unanswered:
                    break
                # The kept-alive connection was closed under the request before one byte came
                # back: once more on a new connection (timed from that send), never again.
                client.resent += 1
                st.flag("resent")
                _drop(conn, ex)
                conn, reused = None, False
    except TimeoutError:
        fail_out_of_time(st, config, by_deadline)
    except _ConnectTimedOut:
        st.fail("timeout", f"could not connect to {shown} within {config.connect_timeout_s:g} s")
    except _ConnectFailed as exc:
        st.fail("connect", f"cannot connect to {shown}: {exc}")
    finally:
        if conn is not None:
            if ex is not None and ex.state == _DONE and ex.reusable:
                client.give(conn)
            else:
                _drop(conn, ex)  # also on CancelledError: dropped mid-stream
    return st.result()


def _drop(conn: _Conn, ex: _Exchange | None) -> None:
    if ex is not None:
        ex.cancel()
    conn.exchange = None
    conn.closed = True
    if conn.transport is not None:
        conn.transport.abort()
