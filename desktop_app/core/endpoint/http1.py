"""HTTP/1.1 for the lean path (`endpoint.lean`) on asyncio's protocol callbacks.

`LeanClient` keeps keep-alive connections to one endpoint, one per request in flight, taken
and given back in O(1). `_Conn.data_received` stamps each read with `time.perf_counter_ns()`
and hands it to the `_Exchange` reading the response: status line and headers (at most
MAX_HEAD_BYTES), framing (content-length, chunked, close-delimited), gzip / deflate in bounded
pieces (`limits._Decoder`), the decoded size against MAX_STREAM_BYTES, then the SSE parser and
the stream's accounting (`lean_events`), or an error / JSON answer read to
MAX_ERROR_BODY_BYTES. It all runs in the callback; the request's coroutine waits on
`_Exchange.future`. Failures are recorded on the stream with the httpx path's error classes
and words (`client.stream_request`).
"""

from __future__ import annotations

import asyncio
import base64
import select
import ssl
import time
import urllib.parse
from typing import cast

import httpx

from desktop_app import __version__
from desktop_app.core.endpoint import limits as _limits
from desktop_app.core.endpoint.client import (
    EndpointError,
    _retry_after_s,
    _tls_verify,
    error_text,
    status_text,
    web_page_words,
)
from desktop_app.core.endpoint.lean_events import ByteEvents, ByteSSEParser, LeanStream
from desktop_app.core.endpoint.limits import ResponseLimitError, _Decoder
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.redact import remember_secret, remember_url_secrets

__all__ = ["LeanClient"]

MAX_HEAD_BYTES = 64 * 1024  # response status line and headers
KEEPALIVE_S = 2.0  # as make_client's keepalive_expiry (a server closing at 5 s never races us)
_SPARE_IDLE = 4
_DECODED = ("gzip", "x-gzip", "deflate", "identity")  # decoded in bounded pieces (limits.py)


class _ProtocolError(Exception):
    """The server broke HTTP/1.1 framing (httpx calls it RemoteProtocolError)."""


class _Conn(asyncio.Protocol):
    """One keep-alive connection; hands every read to the exchange using it, stamped.

    `idle_limit_s` and `requests_left` are what the server's `Keep-Alive: timeout=T, max=N`
    allows (None: no `max` given); `served` counts the answers it carried."""

    __slots__ = ("transport", "closed", "idle_since", "exchange", "idle_limit_s",
                 "requests_left", "served")

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self.exchange: _Exchange | None = None
        self.idle_limit_s = KEEPALIVE_S
        self.requests_left: int | None = None
        self.served = 0

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter_ns()
        ex = self.exchange
        if ex is None:  # bytes on an idle connection: it cannot be reused
            self.closed = True
            if self.transport is not None:
                self.transport.abort()
            return
        ex.feed(data, now)

    def eof_received(self) -> bool:
        return False  # close the transport; connection_lost follows

    def connection_lost(self, exc) -> None:
        self.closed = True
        ex = self.exchange
        if ex is not None:
            ex.lost(exc)


_HEAD, _BODY, _DONE = 0, 1, 2
_SIZE, _CRLF, _TRAILER = 0, 1, 2


class _Exchange:
    """One response being read: framing, decoding, limits, SSE, accounting. Runs entirely in
    the connection's callbacks; `future` is set when it ends (`reusable` says whether the
    connection may carry another request)."""

    def __init__(self, st: LeanStream, conn: _Conn, url: str, read_timeout_s: float,
                 *, may_resend: bool = False) -> None:
        self.st = st
        self.conn = conn
        # On a kept-alive connection the server may have closed it between two requests (as
        # llama.cpp's server does after a streamed reply, whatever its Keep-Alive header says):
        # when it closes before one byte of the answer came, the request never reached an
        # engine and may be sent again on a new connection (`unanswered`), as urllib3 and
        # httpcore do; never once a byte arrived.
        self.may_resend = may_resend
        self.unanswered = False
        self.got_bytes = False
        self.url = url  # for messages: no credentials
        self.future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.state = _HEAD
        self.head = b""
        self.reusable = False
        self.keep_alive = True
        self.mode = "close"  # "length", "chunked" or "close"
        self.left = 0  # content-length bytes, or the current chunk's, still to come
        self.cstate = _SIZE
        self.cline = b""
        self.decoders: list[_Decoder] = []
        self.total = 0  # decoded bytes so far
        self.limit = _limits.MAX_STREAM_BYTES
        self.sink = "sse"  # "sse", or "body" (an error / JSON answer, read to a cap)
        self.body: list[bytes] = []
        self.body_len = 0
        # Its events are bytes (ByteSSEParser), said once here rather than per read.
        self.parser = cast(ByteEvents, ByteSSEParser())
        self.on_bytes = st.on_bytes
        self.read_timeout_s = read_timeout_s
        # A drip never falls silent: besides silence, the headers must be whole within the read
        # timeout of the send, an error / JSON body within it of the headers, and a stream must
        # complete an event within it of the last (limits.py, "Deadlines").
        self.started = self.last_read = self.last_event = time.perf_counter()
        self.max_chunks = st.max_chunks
        self.timer = asyncio.get_running_loop().call_later(read_timeout_s, self._check_silence)

    # -- ending ---------------------------------------------------------------------------------

    def _end(self, reusable: bool) -> None:
        if self.state == _DONE:
            return
        self.state = _DONE
        self.timer.cancel()
        self.reusable = reusable and self.keep_alive
        if not self.future.done():
            self.future.set_result(None)

    def fail(self, error_class: str, message: str) -> None:
        self.st.fail(error_class, message)
        self._end(False)

    def _check_silence(self) -> None:
        if self.state == _DONE:
            return
        now = time.perf_counter()
        limit = self.read_timeout_s
        quiet = now - self.last_read
        # Since the send while the headers come, since the headers for an error / JSON body,
        # since the last complete event for a stream.
        since = now - (self.started if self.state == _HEAD or self.sink != "sse"
                       else self.last_event)
        if quiet >= limit:
            self.fail("timeout", f"the server sent nothing for {limit:g} s (read timeout)")
        elif since >= limit:
            if self.state == _HEAD:
                what = f"the server did not finish its headers within {limit:g} s of the request"
            elif self.sink == "sse":
                what = (f"the server sent bytes for {limit:g} s without completing an event "
                        f"({len(self.st.chunk_times)} content chunks in)")
            else:
                what = f"the server sent its answer for {limit:g} s without finishing it"
            self.fail("timeout", what + " (read timeout)")
            if self.conn.transport is not None:
                self.conn.transport.abort()
        else:
            self.timer = asyncio.get_running_loop().call_later(
                limit - max(quiet, since), self._check_silence)

    def cancel(self) -> None:
        self.timer.cancel()
        self.state = _DONE

    def lost(self, exc: BaseException | None) -> None:
        """The connection closed (`exc` None: the server closed it cleanly)."""
        if self.state == _DONE:
            return
        st = self.st
        try:
            if self.state == _BODY and self.mode == "close" and exc is None:
                self._finish_body(time.perf_counter_ns())
                self._end(False)
                return
        except (ResponseLimitError, httpx.DecodingError) as err:
            self._failed(err)
            return
        why = (f"{type(exc).__name__}: {exc}" if exc is not None else
               "RemoteProtocolError: peer closed connection without sending complete message "
               "body" + (" (incomplete chunked read)" if self.mode == "chunked" else ""))
        if self.state == _HEAD:
            if self.may_resend and not self.got_bytes:
                self.unanswered = True
                self._end(False)
                return
            reason = (f"{exc}" if exc is not None
                      else "Server disconnected without sending a response.")
            self.fail("connection_closed", f"the server closed the connection before answering "
                      f"({reason})")
        else:
            self.fail("stream_cut", f"the connection broke after {len(st.chunk_times)} content "
                      f"chunks: {why}")

    def _failed(self, exc: Exception) -> None:
        st = self.st
        if isinstance(exc, ResponseLimitError):
            self.fail("malformed_stream", f"{exc} ({len(st.chunk_times)} content chunks in)")
        elif isinstance(exc, httpx.DecodingError):
            self.fail("malformed_stream", f"DecodingError: {exc}")
        elif st.first_byte_ns is None:
            self.fail("connection_closed", f"the server closed the connection before answering "
                      f"({exc})")
        else:
            self.fail("stream_cut", f"the connection broke after {len(st.chunk_times)} content "
                      f"chunks: RemoteProtocolError: {exc}")
        transport = self.conn.transport
        if transport is not None:
            transport.abort()

    # -- reading --------------------------------------------------------------------------------

    def feed(self, data: bytes, now: int) -> None:
        if self.state == _DONE:
            return
        self.last_read = now / 1e9
        self.got_bytes = True
        try:
            if self.state == _HEAD:
                rest = self._read_head(data, now)
                if rest is None or self.state != _BODY:
                    return
                data = rest
            if self.mode == "chunked":
                self._chunked(data, now)
            elif self.mode == "length":
                take = data[:self.left] if len(data) > self.left else data
                self.left -= len(take)
                self._deliver(take, now)
                if self.left == 0 and self.state == _BODY:
                    self._finish_body(now)
                    self._end(len(data) == len(take))
            else:
                self._deliver(data, now)
        except (ResponseLimitError, httpx.DecodingError, _ProtocolError) as exc:
            self._failed(exc)
        except Exception as exc:  # noqa: BLE001 - never leave the request waiting for nothing
            self.fail("malformed_stream", f"{type(exc).__name__}: {exc}")
            if self.conn.transport is not None:
                self.conn.transport.abort()

    def _read_head(self, data: bytes, now: int) -> bytes | None:
        buf = self.head + data if self.head else data
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD_BYTES:
                    raise _ProtocolError(f"response headers passed {_limits.mib(MAX_HEAD_BYTES)}")
                self.head = buf
                return None
            if end > MAX_HEAD_BYTES:
                raise _ProtocolError(f"response headers passed {_limits.mib(MAX_HEAD_BYTES)}")
            status, headers, keep = _parse_head(buf[:end])
            buf = buf[end + 4:]
            if 100 <= status < 200 and status != 101:
                continue  # 100 Continue and the like: the real answer follows
            break
        self.head = b""
        self.keep_alive = keep and self._keep_alive_allows(headers.get("keep-alive"))
        st = self.st
        st.first_byte_ns = now
        st.status_code = status
        self.state = _BODY
        self.started = self.last_event = now / 1e9
        if not 200 <= status < 300:
            st.retry_after_s = _retry_after_s(headers.get("retry-after"))
            self.sink = "body"
        elif headers.get("content-type", "").startswith("application/json"):
            self.sink = "json"
        elif headers.get("content-type", "").lower().startswith("text/html"):
            self.sink = "html"  # a login page or a proxy's, read to a cap like an error
        encodings = [e.strip().lower() for e in headers.get("content-encoding", "").split(",")
                     if e.strip()]
        other = [e for e in encodings if e not in _DECODED]
        refuse = getattr(_limits, "UnsupportedEncoding", None)
        if other and refuse is not None:
            # As LimitedTransport: an encoding not asked for is never read (httpx would inflate
            # br / zstd whole, or hand over bytes no parser can read). A stream fails with the
            # named error; an error or JSON answer keeps its status, its body unread.
            if self.sink == "sse":
                raise refuse(f"UnsupportedEncoding: {self.url} answered in Content-Encoding "
                             f"{', '.join(encodings)[:80]}, which was not asked for (gzip, "
                             "deflate only); the body was not read", encoding=other[0][:40])
            self._finish_body(now)
            self._end(False)
            return None
        if encodings and not other:
            self.decoders = [_Decoder(e) for e in reversed(encodings)]
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self.mode = "chunked"
        elif "content-length" in headers:
            try:
                self.left = int(headers["content-length"])
            except ValueError:
                raise _ProtocolError("invalid Content-Length") from None
            if self.left < 0:
                raise _ProtocolError("invalid Content-Length")
            self.mode = "length"
            if self.left == 0:
                self._finish_body(now)
                self._end(not buf)
                return None
        elif status in (204, 304):
            self._finish_body(now)
            self._end(not buf)
            return None
        else:
            self.mode = "close"
            self.keep_alive = False
        return buf

    def _keep_alive_allows(self, value: str | None) -> bool:
        """Honour `Keep-Alive: timeout=T, max=N` (RFC 2068's header, still sent by llama.cpp's
        server and Apache): idle at most half of T here, and no request after the N-th."""
        conn = self.conn
        conn.served += 1
        if conn.requests_left is not None:
            conn.requests_left -= 1
        if not value:
            return conn.requests_left is None or conn.requests_left > 0
        for part in value.split(","):
            name, _, number = part.strip().partition("=")
            try:
                n = int(number.strip())
            except ValueError:
                continue
            name = name.strip().lower()
            if name == "timeout":
                conn.idle_limit_s = min(KEEPALIVE_S, max(0.0, n / 2))
            elif name == "max":
                # Apache sends the answers left, cpp-httplib (llama.cpp) the total per connection,
                # unchanged: read as the total, which never overshoots either.
                left = max(0, n - conn.served)
                conn.requests_left = (left if conn.requests_left is None
                                      else min(left, conn.requests_left))
        return conn.idle_limit_s > 0 and (conn.requests_left is None or conn.requests_left > 0)

    def _chunked(self, data: bytes, now: int) -> None:
        i, n = 0, len(data)
        while i < n and self.state == _BODY:
            if self.left:
                take = min(self.left, n - i)
                self._deliver(data[i:i + take] if take != n or i else data, now)
                self.left -= take
                i += take
                if not self.left:
                    self.cstate = _CRLF
                continue
            j = data.find(b"\n", i)
            if j < 0:
                self.cline += data[i:]
                if len(self.cline) > 4096:
                    raise _ProtocolError("a chunk-size line passed 4 KiB")
                return
            line = (self.cline + data[i:j]) if self.cline else data[i:j]
            self.cline = b""
            i = j + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if self.cstate == _CRLF:
                if line:
                    raise _ProtocolError("a chunk did not end with CRLF")
                self.cstate = _SIZE
            elif self.cstate == _SIZE:
                try:
                    size = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise _ProtocolError(f"invalid chunk size {line[:40]!r}") from None
                if size < 0:
                    raise _ProtocolError(f"invalid chunk size {line[:40]!r}")
                if size == 0:
                    self.cstate = _TRAILER
                else:
                    self.left = size
            elif not line:  # the blank line after the trailers: the body is complete
                self._finish_body(now)
                self._end(i == n)
                return

    def _deliver(self, raw: bytes, now: int) -> None:
        if not raw:
            return
        if self.decoders:
            for piece in self._decoded(raw, 0):
                self._take(piece, now)
                if self.state != _BODY:
                    return
        else:
            self._take(raw, now)

    def _decoded(self, raw: bytes, i: int):
        if i == len(self.decoders):
            yield raw
            return
        for piece in self.decoders[i].feed(raw):
            yield from self._decoded(piece, i + 1)

    def _take(self, piece: bytes, now: int) -> None:
        self.total += len(piece)
        if self.total > self.limit:
            raise _limits.DecompressedTooLarge(
                f"DecompressedTooLarge: the streamed answer from {self.url} passed "
                f"{_limits.mib(self.limit)} (after decoding)", limit=self.limit)
        if self.sink == "sse":
            on_bytes = self.on_bytes
            events = self.parser.feed(piece)
            if events:
                for event in events:
                    on_bytes(event, now)
                self.last_event = now / 1e9
                if self.max_chunks is not None and len(self.st.chunk_times) > self.max_chunks:
                    raise _limits.StreamedTooMuch(_limits.too_much_words(self.max_chunks),
                                                  limit=self.max_chunks)
            return
        self.body.append(piece)
        self.body_len += len(piece)
        if self.body_len >= _limits.MAX_ERROR_BODY_BYTES:
            self._finish_body(now)  # the rest is not read: the connection is dropped
            self._end(False)

    def _finish_body(self, now: int) -> None:
        """The body ended (or was read far enough): flush the decoders and the SSE parser, or
        judge the error / JSON answer read."""
        if self.state != _BODY:
            return
        st = self.st
        if self.sink == "sse":
            if self.decoders:
                for i, dec in enumerate(self.decoders):
                    for piece in dec.flush():
                        for out in self._decoded(piece, i + 1):
                            self._take(out, now)
            for event in self.parser.close():
                self.on_bytes(event, now)
            return
        body = b"".join(self.body)[:_limits.MAX_ERROR_BODY_BYTES]
        if self.sink == "body":
            st.fail("http_status", f"HTTP {status_text(st.status_code or 0)} from {self.url}: "
                    f"{error_text(body)}")
        elif self.sink == "html":
            st.fail("malformed_stream", web_page_words(self.url))
        else:
            st.fail("malformed_stream", f"{self.url} answered JSON, not an event stream: "
                    "does the server support stream: true?")


def _parse_head(head: bytes) -> tuple[int, dict[str, str], bool]:
    """Status, headers (lower-case names; repeated ones joined with ", ") and keep-alive."""
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/"):
        raise _ProtocolError(f"not an HTTP response: {lines[0][:60]!r}")
    try:
        status = int(parts[1])
    except ValueError:
        raise _ProtocolError(f"invalid status line {lines[0][:60]!r}") from None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            continue
        key = name.strip().lower().decode("latin-1")
        text = value.strip().decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    connection = headers.get("connection", "").lower()
    keep = "close" not in connection and (parts[0] != b"HTTP/1.0" or "keep-alive" in connection)
    return status, headers, keep


class _ConnectFailed(Exception):
    pass


class _ConnectTimedOut(Exception):
    pass


class LeanClient:
    """The lean path's connections to one endpoint (`config.root_url`), reused keep-alive.

    Built like `client.make_client` (same headers, the key and URL credentials remembered for
    redaction); raises EndpointError when TLS cannot be set up for an https:// URL. Use it as
    an async context manager, or call `aclose()`."""

    def __init__(self, config: EndpointConfig, concurrency: int = 1) -> None:
        parts = urllib.parse.urlsplit(config.root_url)
        self.https = parts.scheme.lower() == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.https else 80)
        remember_url_secrets(config.base_url)
        remember_secret(config.api_key)
        self.ssl: ssl.SSLContext | None = None
        if self.https:
            context = _tls_verify(config)  # EndpointError when the CA settings are broken
            if not isinstance(context, ssl.SSLContext):  # verify_tls=False
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
            context.set_alpn_protocols(["http/1.1"])
            self.ssl = context
        hostport = parts.netloc.rpartition("@")[2]
        fixed = [("Host", hostport), ("User-Agent", f"throughline/{__version__}"),
                 ("Accept-Encoding", "gzip, deflate")]
        if config.api_key:
            fixed.append(("Authorization", f"Bearer {config.api_key}"))
        if parts.username is not None:  # as httpx does: URL credentials are Basic auth
            user = urllib.parse.unquote(parts.username)
            password = urllib.parse.unquote(parts.password or "")
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            fixed = [(k, v) for k, v in fixed if k != "Authorization"]
            fixed.append(("Authorization", f"Basic {token}"))
        fixed += [("Content-Type", "application/json"), ("Accept", "text/event-stream")]
        self._fixed = _header_lines(fixed)
        self._connect_timeout_s = config.connect_timeout_s
        self._idle: list[_Conn] = []
        self._max_idle = max(1, concurrency) + _SPARE_IDLE
        self._closed = False
        self.resent = 0  # requests sent again after a kept-alive connection closed under them

    async def __aenter__(self) -> LeanClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every idle connection (those in use close when their request ends)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            if conn.transport is not None:
                conn.transport.close()

    def head(self, target: str, length: int, extra: dict | None) -> bytes:
        """The request line and headers of a POST of `length` bytes to `target`."""
        more = _header_lines(list(extra.items())) if extra else b""
        return (b"POST " + target.encode("ascii") + b" HTTP/1.1\r\n" + self._fixed + more
                + b"Content-Length: " + str(length).encode() + b"\r\n\r\n")

    def take(self) -> _Conn | None:
        """An idle connection still fit to use, or None: not closed, within the idle time the
        server allows, and with nothing to read (a readable idle socket holds the server's close
        or bytes nobody asked for, as httpcore checks)."""
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()
            if (not conn.closed and conn.transport is not None and not conn.transport.is_closing()
                    and now - conn.idle_since < conn.idle_limit_s and not _readable(conn)):
                return conn
            if conn.transport is not None:
                conn.transport.close()
        return None

    def give(self, conn: _Conn) -> None:
        """Keep `conn` for the next request (or close it when enough are idle)."""
        conn.exchange = None
        if self._closed or conn.closed or len(self._idle) >= self._max_idle:
            if conn.transport is not None:
                conn.transport.close()
            return
        conn.idle_since = time.monotonic()
        self._idle.append(conn)

    async def connect(self) -> _Conn:
        """A new connection; raises _ConnectTimedOut or _ConnectFailed."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                _, conn = await loop.create_connection(
                    _Conn, self.host, self.port, ssl=self.ssl,
                    server_hostname=self.host if self.ssl else None)
        except TimeoutError:
            raise _ConnectTimedOut() from None
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise _ConnectFailed(str(exc) or type(exc).__name__) from None
        return conn


def _readable(conn: _Conn) -> bool:
    """Whether an idle connection's socket has something to read (its close, or stray bytes)."""
    sock = conn.transport.get_extra_info("socket") if conn.transport is not None else None
    if sock is None:
        return False
    try:
        fd = sock.fileno()
        if hasattr(select, "poll"):  # select() refuses descriptors above 1023 (c=1024 runs)
            poll = select.poll()
            poll.register(fd, select.POLLIN)
            return bool(poll.poll(0))
        ready, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(ready)


def _header_lines(pairs: list[tuple[str, str]]) -> bytes:
    out = []
    for name, value in pairs:
        if any(c in f"{name}{value}" for c in "\r\n\0"):
            raise EndpointError(f"the header {name!r} holds a line break")
        out.append(f"{name}: {value}\r\n".encode("latin-1", "replace"))
    return b"".join(out)
