"""Limits on everything the client reads from a server, each with a named error.

A server may misbehave (docs/RELIABILITY.md, "Hostile servers"): a gzip body that inflates a
thousandfold, an SSE line of hundreds of megabytes, a JSON event nested 100,000 deep, a /metrics
of 200 MB. Every byte the run's HTTP client reads passes through `LimitedTransport`, which
decodes gzip/deflate itself in bounded pieces (so what is counted is the size *after*
decoding, and no single read can inflate past `DECODE_PIECE_BYTES`) and raises once a body
passes its limit. The module-level defaults below are read when a request is made, so a caller
(a test) may lower them.

Errors: every one is a `ResponseLimitError`, itself an `httpx.HTTPError`, so code that already
treats a failed HTTP call as a failure (discovery's optional probes, the /metrics scraper,
`complete`) stays correct; `JSONTooDeep` is also a `ValueError` ("not valid JSON").

Limit (module default), what it bounds, and its error:

* `MAX_BODY_BYTES` (16 MiB): a non-streamed body (`/v1/models`, probes, `complete`), after
  decoding: `ResponseTooLarge`.
* `MAX_STREAM_BYTES` (64 MiB): one streamed answer, after decoding: `DecompressedTooLarge`.
* `MAX_ERROR_BODY_BYTES` (64 KiB): what is read of an error answer; the rest is dropped.
* `MAX_SSE_LINE_BYTES` (4 MiB): one SSE line, and one event's data lines: `SSELineTooLong`.
* `MAX_JSON_DEPTH` (64): nesting of any JSON document read: `JSONTooDeep`.
* `MAX_METRICS_BYTES` (8 MiB): one /metrics body: `MetricsTooLarge`.
* `MAX_METRICS_LINES` (20,000): wanted series lines handed to the Prometheus parser (the rest
  ignored).
* `MAX_STREAM_TEXT_CHARS` (1,000,000): streamed text kept per request (the rest counted only).
* `MAX_PLAUSIBLE_TOKENS` (10,000,000): a usage count above it is impossible (flag
  `absurd_usage`).

Deadlines (a server that drips bytes never trips a read timeout, which only counts silence):
the response's headers must be complete within the request's read timeout of its send (the
first-byte timeout; every 1xx interim answer counts towards it), and a non-streamed body within
the read timeout of its headers: `ExchangeDeadline` (an `httpx.ReadTimeout`, so callers that
treat a timeout as a timeout stay right), its message naming the phase. A streamed body is
held to its own rules by the stream's reader (an event within the read timeout of the last,
and no more than it asked for).

Encodings: the client asks for `Accept-Encoding: gzip, deflate` only. A body in any other
Content-Encoding (br, zstd, compress, ...) is refused when it is read, `UnsupportedEncoding`:
httpx would decode br or zstd whole and unbounded when brotli or zstandard happen to be
installed (a bomb), and pass it through undecoded (garbage to parse) when not.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import zlib
from collections.abc import AsyncIterator
from typing import cast

import httpx

__all__ = [
    "DecompressedTooLarge", "ExchangeDeadline", "JSONTooDeep", "LimitedTransport",
    "StreamedTooMuch", "chunk_cap", "MetricsTooLarge",
    "ResponseLimitError", "ResponseTooLarge", "SSELineTooLong", "UnsupportedEncoding",
    "clean_text", "loads_limited", "mib",
]

MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_STREAM_BYTES = 64 * 1024 * 1024
MAX_ERROR_BODY_BYTES = 64 * 1024
MAX_SSE_LINE_BYTES = 4 * 1024 * 1024
MAX_JSON_DEPTH = 64
MAX_METRICS_BYTES = 8 * 1024 * 1024
MAX_METRICS_LINES = 20_000
MAX_STREAM_TEXT_CHARS = 1_000_000
# Tool calls kept of one streamed reply (the SQL agent's); more are dropped unread.
MAX_STREAM_CALLS = 256
MAX_PLAUSIBLE_TOKENS = 10_000_000
DECODE_PIECE_BYTES = 256 * 1024  # at most this much decoded output per decompress call

# The request extension naming a request's decoded-size limit (bytes) and the error it raises.
LIMIT_EXTENSION = "throughline_max_bytes"


def mib(n: int) -> str:
    return f"{n / 1048576:g} MiB" if n >= 1048576 else f"{n / 1024:g} KiB"


class ResponseLimitError(httpx.HTTPError):
    """Something a server sent passed one of this module's limits. `limit` is the limit."""

    def __init__(self, message: str, *, limit: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit


class ResponseTooLarge(ResponseLimitError):
    """A non-streamed body passed `MAX_BODY_BYTES` (after decoding)."""


class DecompressedTooLarge(ResponseLimitError):
    """A streamed answer passed `MAX_STREAM_BYTES` (counted after decoding gzip/deflate)."""


class MetricsTooLarge(ResponseLimitError):
    """A /metrics body passed `MAX_METRICS_BYTES`."""


class SSELineTooLong(ResponseLimitError):
    """An SSE line (or one event's data) passed `MAX_SSE_LINE_BYTES`."""


class JSONTooDeep(ResponseLimitError, ValueError):
    """A JSON document nested deeper than `MAX_JSON_DEPTH`."""


class StreamedTooMuch(ResponseLimitError):
    """A stream sent more content chunks than its max_tokens allows (a chunk carries at least
    one token): it would never end on its own."""


def chunk_cap(body: dict) -> int | None:
    """Content chunks a stream asked for `body` may carry at most (None: no max_tokens asked):
    twice the tokens asked, and 16 more, as no engine sends more chunks than tokens."""
    asked = body.get("max_tokens", body.get("max_completion_tokens"))
    if isinstance(asked, bool) or not isinstance(asked, int) or asked <= 0:
        return None
    return 2 * asked + 16


def too_much_words(cap: int) -> str:
    return (f"StreamedTooMuch: the server streamed more than {cap} content chunks, twice the "
            "max_tokens asked and more, without finishing; the rest was not read")


class ExchangeDeadline(httpx.ReadTimeout):
    """The server kept sending but did not finish its headers (`phase` "headers") or its
    non-streamed body ("body") within the read timeout: a drip."""

    def __init__(self, message: str, *, phase: str, seconds: float) -> None:
        super().__init__(message)
        self.phase, self.seconds = phase, seconds


def _read_timeout(request: httpx.Request) -> float | None:
    value = (request.extensions.get("timeout") or {}).get("read")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


class UnsupportedEncoding(ResponseLimitError):
    """A body in a Content-Encoding the client did not ask for (only gzip and deflate are
    decoded, in bounded pieces); `encoding` is what the server sent. Code: unsupported_encoding."""

    code = "unsupported_encoding"

    def __init__(self, message: str, *, encoding: str) -> None:
        super().__init__(message)
        self.encoding = encoding


_DECODED = ("gzip", "x-gzip", "deflate", "identity")

_ERRORS = {"body": ResponseTooLarge, "stream": DecompressedTooLarge, "metrics": MetricsTooLarge}

# --- JSON -------------------------------------------------------------------------------------

_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def json_depth_exceeds(text: str | bytes, max_depth: int) -> bool:
    """Whether `text` nests arrays/objects deeper than `max_depth` (linear; strings skipped)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= max_depth:
        return False  # the common case: one cheap count
    depth = 0
    for m in _JSON_TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > max_depth:
                return True
        elif c in "]}":
            depth -= 1
    return False


def loads_limited(text: str | bytes, max_depth: int | None = None):
    """`json.loads` that raises `JSONTooDeep` (a ValueError) instead of nesting past the limit
    (or hitting Python's recursion limit)."""
    limit = MAX_JSON_DEPTH if max_depth is None else max_depth
    if json_depth_exceeds(text, limit):
        raise JSONTooDeep(f"JSONTooDeep: JSON nested deeper than {limit} levels", limit=limit)
    try:
        return json.loads(text)
    except RecursionError:
        raise JSONTooDeep("JSONTooDeep: JSON nested too deeply to parse", limit=limit) from None


# --- text -------------------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value):
    """`value` with lone surrogates (from JSON's "\\ud800", which no UTF-8 file can hold)
    replaced by U+FFFD; non-strings are returned as they are."""
    if isinstance(value, str) and _SURROGATE.search(value):
        return _SURROGATE.sub("\ufffd", value)
    return value


MAX_MODEL_ID_CHARS = 1024  # longer ids in /v1/models are not offered (a path is 4,096 at most)


# --- bodies -----------------------------------------------------------------------------------

class _Decoder:
    """gzip / deflate decoded in pieces of at most DECODE_PIECE_BYTES (an inflating read cannot
    allocate more than that at once). Identity passes bytes through."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._first = True
        self._d = self._new()

    def _new(self):
        if self.encoding in ("gzip", "x-gzip"):
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        if self.encoding == "deflate":
            return zlib.decompressobj()
        return None

    def feed(self, data: bytes):
        if self._d is None:
            if data:
                yield data
            return
        while data:
            if self._d.eof:  # the stream (or a gzip member) ended before this input
                if self.encoding == "deflate":
                    return  # bytes after a deflate stream: ignored, never kept
                self._d = self._new()  # a further gzip member
            try:
                out = self._d.decompress(data, DECODE_PIECE_BYTES)
            except zlib.error as exc:
                if self.encoding == "deflate" and self._first:  # raw deflate, no zlib header
                    self._first = False
                    self._d = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise httpx.DecodingError(
                    f"cannot decode the {self.encoding} body: {exc}") from None
            self._first = False
            if out:
                yield out
            # eof first: at a member's end CPython leaves a stale `unconsumed_tail` (the same
            # bytes as `unused_data`), and feeding that back looped forever on the event loop,
            # `unused_data` growing each turn (a body of concatenated gzip members).
            if self._d.eof:
                data = self._d.unused_data
            elif self._d.unconsumed_tail:
                data = self._d.unconsumed_tail
            else:
                data = b""

    def flush(self):
        if self._d is not None:
            out = self._d.flush()
            if out:
                yield out


class _RefusedStream(httpx.AsyncByteStream):
    """The body of an answer in an encoding not asked for: reading it raises, nothing is read
    (so a status and headers still reach the caller, and an error answer keeps its status)."""

    def __init__(self, inner: httpx.AsyncByteStream, error: UnsupportedEncoding) -> None:
        self._inner, self._error = inner, error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        raise self._error
        yield b""  # pragma: no cover - makes this an async generator

    async def aclose(self) -> None:
        await self._inner.aclose()


class _LimitedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, decoders: list[_Decoder], limit: int,
                 kind: str, url: str, within_s: float | None = None) -> None:
        self._inner, self._decoders = inner, decoders
        self._limit, self._kind, self._url = limit, kind, url
        self._total = 0
        # A non-streamed body must be whole this long after its headers (None: no deadline).
        self._within_s = within_s
        self._deadline = None if within_s is None else time.monotonic() + within_s

    def _count(self, piece: bytes) -> bytes:
        self._total += len(piece)
        if self._total > self._limit:
            cls = _ERRORS.get(self._kind, ResponseTooLarge)
            what = {"stream": "the streamed answer", "metrics": "the /metrics body"}.get(
                self._kind, "the response body")
            raise cls(f"{cls.__name__}: {what} from {self._url} passed {mib(self._limit)} "
                      "(after decoding)", limit=self._limit)
        return piece

    def _through(self, pieces, i: int = 0):
        if i == len(self._decoders):
            for piece in pieces:
                yield self._count(piece)
            return
        dec = self._decoders[i]
        for piece in pieces:
            yield from self._through(dec.feed(piece), i + 1)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._deadline is None:
            async for raw in self._inner:
                for piece in self._through([raw]):
                    yield piece
        else:
            reads = self._inner.__aiter__()
            while True:
                try:
                    async with asyncio.timeout(max(0.0, self._deadline - time.monotonic())):
                        raw = await anext(reads)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise ExchangeDeadline(
                        f"the server sent its answer for {self._within_s:g} s without finishing "
                        f"it ({mib(self._total)} in; {self._url})", phase="body",
                        seconds=self._within_s or 0.0) from None
                for piece in self._through([raw]):
                    yield piece
        for i, dec in enumerate(self._decoders):
            for piece in self._through(dec.flush(), i + 1):
                yield piece

    async def aclose(self) -> None:
        await self._inner.aclose()


class LimitedTransport(httpx.AsyncBaseTransport):
    """Wraps the run's transport: decodes gzip/deflate itself, in bounded pieces, and raises a
    `ResponseLimitError` once a body passes its limit. A request's limit is its extension
    `throughline_max_bytes` = (bytes, kind) with kind "body", "stream" or "metrics"; by default
    (MAX_BODY_BYTES, "body"). A body in another encoding (never asked for: the client sends
    `Accept-Encoding: gzip, deflate`) raises `UnsupportedEncoding` when read."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    def __getattr__(self, name: str):  # the wrapped transport's own attributes (its pool)
        if name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        within_s = _read_timeout(request)
        if within_s is None:
            response = await self._inner.handle_async_request(request)
        else:
            connect = (request.extensions.get("timeout") or {}).get("connect")
            # A slow connect is the connect timeout's to name, not the headers': the deadline
            # starts when the request is sent (httpcore's trace says when), and until then
            # allows for the connect too.
            head_s = within_s + (connect if isinstance(connect, (int, float)) else 0.0)
            loop = asyncio.get_running_loop()
            outer_trace = request.extensions.get("trace")

            async def trace(event: str, info: dict) -> None:
                if event.endswith("send_request_headers.started"):
                    clock.reschedule(loop.time() + within_s)
                if outer_trace is not None:
                    await outer_trace(event, info)

            request.extensions["trace"] = trace
            try:
                async with asyncio.timeout(head_s) as clock:
                    response = await self._inner.handle_async_request(request)
            except TimeoutError:
                url = str(request.url.copy_with(username=None, password=None))
                raise ExchangeDeadline(
                    f"the server did not finish its headers within {within_s:g} s of the "
                    f"request ({url})", phase="headers", seconds=within_s) from None
            finally:  # a request sent again is traced afresh, not through this clock
                if outer_trace is None:
                    request.extensions.pop("trace", None)
                else:
                    request.extensions["trace"] = outer_trace
        limit, kind = request.extensions.get(LIMIT_EXTENSION) or (MAX_BODY_BYTES, "body")
        encodings = [e.strip().lower() for e in
                     response.headers.get("content-encoding", "").split(",") if e.strip()]
        headers = response.headers
        decoders: list[_Decoder] = []
        url = str(request.url.copy_with(username=None, password=None))
        if encodings:
            decoders = [_Decoder(e) for e in reversed(encodings)]
            headers = httpx.Headers([(k, v) for k, v in response.headers.multi_items()
                                     if k.lower() not in ("content-encoding", "content-length")])
        other = [e for e in encodings if e not in _DECODED]
        inner = cast(httpx.AsyncByteStream, response.stream)  # an async transport's answer
        if other:
            error = UnsupportedEncoding(
                f"UnsupportedEncoding: {url} answered in Content-Encoding "
                f"{', '.join(encodings)[:80]}, which was not asked for (gzip, deflate only); "
                "the body was not read", encoding=other[0][:40])
            return httpx.Response(response.status_code, headers=headers,
                                  stream=_RefusedStream(inner, error),
                                  extensions=response.extensions)
        stream = _LimitedStream(inner, decoders, limit, kind, url,
                                within_s if kind != "stream" else None)
        return httpx.Response(response.status_code, headers=headers, stream=stream,
                              extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()


def with_limit(request: httpx.Request, limit: int, kind: str) -> httpx.Request:
    request.extensions[LIMIT_EXTENSION] = (limit, kind)
    return request


async def read_some(response: httpx.Response, limit: int) -> bytes:
    """The first `limit` bytes of a body (decoded); the rest is not read (the connection is
    dropped when the response is closed)."""
    pieces, size = [], 0
    try:
        async for chunk in response.aiter_bytes():
            pieces.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
    except ResponseLimitError:
        pass
    return b"".join(pieces)[:limit]


# --- proxies ----------------------------------------------------------------------------------

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""Hosts always reached directly, whatever the environment's proxy says: a server on this
machine (the simulator, a local engine) sent through a corporate proxy would be unreachable or
timed through the proxy."""


def env_proxy_mounts(verify, limits: httpx.Limits) -> dict[str, httpx.AsyncBaseTransport | None]:
    """The environment's proxies (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY, read as
    httpx reads them) as `httpx.AsyncClient(mounts=...)`, each proxy's transport wrapped in
    `LimitedTransport` so what comes through a proxy is bounded too; loopback hosts
    (`LOOPBACK_HOSTS`) always go direct (None: the client's own transport). Needed because a
    client given its own `transport=` ignores the environment's proxies altogether. A proxy
    that cannot be reached fails the request with httpx's ProxyError/ConnectError."""
    try:
        from httpx._utils import get_environment_proxies  # httpx's own reading of the env
    except ImportError:  # pragma: no cover - a later httpx moved it: no proxies, as before
        return {}
    mounts: dict[str, httpx.AsyncBaseTransport | None] = {}
    for pattern, proxy in get_environment_proxies().items():
        mounts[pattern] = None if proxy is None else LimitedTransport(
            httpx.AsyncHTTPTransport(verify=verify, limits=limits, proxy=proxy))
    if any(t is not None for t in mounts.values()):
        mounts.update({f"all://{host}": None for host in LOOPBACK_HOSTS})
    return mounts
