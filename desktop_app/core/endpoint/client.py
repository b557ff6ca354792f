"""The HTTP client of a benchmark run: one connection pool, streamed requests timed to the byte.

`make_client` builds the one `httpx.AsyncClient` a run shares; `stream_request` sends one streamed
completion and returns a `StreamResult` whatever happens (it never raises for a failed request);
`complete` makes a plain non-streamed call for discovery and calibration and raises
`EndpointError` when it fails.

Timing (docs/DOMAIN.md): `sent_ns` is stamped when httpcore starts writing the request headers
(its `trace` extension), so time spent waiting for a pooled connection or for a busy event loop
before the write is not counted as server latency; `queued_ns` keeps the moment the request was
handed to httpx, and their difference is the client's own wait. `first_byte_ns` is stamped when
the response headers are in, and each SSE event with the stamp of the read
that completed it. Per-event work is one `json.loads` and a few dict lookups.

TLS: httpx 0.28 builds an SSL context for every client, even one that only speaks http://, and
`SSL_CERT_FILE` pointing at a missing file makes `AsyncClient()` raise. For http:// endpoints the
client therefore gets `verify=False` (no TLS is ever negotiated, so nothing is skipped; it also
saves loading the CA bundle). For https:// it builds the context itself, as httpx would, and
turns a broken certificate setting into an `EndpointError` that says which variable to fix.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import ssl
import time
from collections.abc import Callable
from datetime import datetime, timezone
from http import HTTPStatus
from typing import Literal

import httpx

from desktop_app import __version__
from desktop_app.core.endpoint import limits as _limits
from desktop_app.core.endpoint.messages import ENDPOINT_MESSAGES
from desktop_app.core.endpoint.limits import (
    LimitedTransport,
    ResponseLimitError,
    clean_text,
    env_proxy_mounts,
    loads_limited,
    with_limit,
)
from desktop_app.core.endpoint.sse import SSEParser
from desktop_app.core.endpoint.types import EndpointConfig, StreamResult
from desktop_app.core.parsing import dict_at
from desktop_app.core.redact import redact_text, redact_url, remember_secret, remember_url_secrets

__all__ = ["EndpointError", "complete", "error_message", "make_client", "status_text",
           "stream_request"]

API_PATHS = {"chat": "/chat/completions", "completions": "/completions"}
_SPARE_CONNECTIONS = 4  # beyond the run's concurrency: /metrics scrapes, /tokenize, discovery
_WRITE_TIMEOUT_S = 60.0  # sending a request body; only a server that stopped reading hits it
# usage.completion_tokens and the content chunks streamed disagree when one exceeds the other
# by more than this factor plus this many tokens (a chunk may carry a few tokens; 100x cannot).
USAGE_MARGIN_FACTOR = 2
USAGE_MARGIN_TOKENS = 8
# Codes a StreamResult's `flags` may carry (counted per cell; the diagnosis names them).
PLAUSIBILITY_FLAGS = ("negative_usage", "absurd_usage", "usage_mismatch", "no_content",
                      "prompt_usage_beyond_sent")
# What happened to a request on the wire that its figures do not show: `resent`, sent again on
# a new connection after the server closed its kept-alive one under it with nothing answered
# (its figures are the second attempt's, timed from that send).
CONNECTION_FLAGS = ("resent",)


class EndpointError(Exception):
    """A call the app cannot go on without failed; the message names the URL and the cause and
    is fit to show a user. `url`, `status_code` (None: no HTTP answer) and `retry_after_s` (a
    429/503's Retry-After in seconds, None without one) are kept for callers.

    Raised with a `code` (one of ENDPOINT_MESSAGES, or "url:<InputError code>" for a base URL
    refused as typed) and its params, the message is the code's English and the CLI and the
    window say it in the reader's language (`report.endpoint_words`). Raised with a message
    and no code, that English is all there is. Params are redacted as the message is."""

    def __init__(self, message: str = "", *, code: str = "", url: str | None = None,
                 status_code: int | None = None, retry_after_s: float | None = None,
                 **params) -> None:
        self.url = redact_url(url) if url else url
        # Messages quote URLs and the server's own words: credentials never pass.
        self.params = {k: redact_text(clean_text(v)) if isinstance(v, str) else v
                       for k, v in params.items()}
        self.code = code
        if code and not message:
            message = endpoint_message(code, self.url, self.params)
        super().__init__(redact_text(clean_text(message)))
        self.status_code = status_code
        self.retry_after_s = retry_after_s


def endpoint_message(code: str, url: str | None, params: dict) -> str:
    """The English of an EndpointError code."""
    if code.startswith("url:"):
        from desktop_app.core.parsing import INPUT_MESSAGES

        # The URL as typed is `typed_url` (`url` is the error's own, redacted).
        values = {("url" if k == "typed_url" else k): v for k, v in params.items()}
        return f"{params.get('field', 'base URL')}: " + INPUT_MESSAGES[code[4:]].format(**values)
    return ENDPOINT_MESSAGES[code].format(url=url or "", **params)


def make_client(config: EndpointConfig, concurrency: int) -> httpx.AsyncClient:
    """The one client a run shares: keep-alive pool sized to `concurrency` plus a few spares.

    Timeouts (seconds): connect = `connect_timeout_s`; read = `first_byte_timeout_s` (it bounds
    the wait for the headers and for every later read, so also the longest silence mid-stream);
    pool (waiting for a free connection) = `first_byte_timeout_s`. The total per request is
    enforced by `stream_request`/`complete`. Sends `Authorization: Bearer` when `api_key` is set.
    Every body read through it is bounded by `limits.LimitedTransport` (sizes after decoding;
    docs/RELIABILITY.md, "Hostile servers"); the key and a URL's credentials are remembered so
    `redact_text` blanks them. Raises EndpointError when TLS cannot be set up for an https:// URL.
    """
    headers = {"User-Agent": f"throughline/{__version__}"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    # Only encodings LimitedTransport decodes in bounded pieces (a gzip bomb is counted as it
    # inflates, never inflated whole).
    headers["Accept-Encoding"] = "gzip, deflate"
    remember_url_secrets(config.base_url)
    remember_secret(config.api_key)
    size = max(1, concurrency) + _SPARE_CONNECTIONS
    limits = httpx.Limits(
        max_connections=size,
        max_keepalive_connections=size,
        # Shorter than the common 5 s server keep-alive (llama.cpp's httplib, uvicorn): a
        # connection the server is closing just as we reuse it fails with "Server
        # disconnected without sending a response" (seen against llama.cpp's server).
        keepalive_expiry=2.0,
    )
    verify = _tls_verify(config)
    return httpx.AsyncClient(
        headers=headers,
        limits=limits,
        timeout=httpx.Timeout(connect=config.connect_timeout_s, read=config.first_byte_timeout_s,
                              write=_WRITE_TIMEOUT_S, pool=config.first_byte_timeout_s),
        verify=verify,
        # Every byte read passes the limits of `limits.py` (body sizes, decoded size).
        transport=LimitedTransport(httpx.AsyncHTTPTransport(verify=verify, limits=limits)),
        # A client given its own transport ignores HTTP(S)_PROXY; these mounts honour them as
        # httpx would, bounded the same way, loopback always direct.
        mounts=env_proxy_mounts(verify, limits),
    )


def _tls_verify(config: EndpointConfig) -> ssl.SSLContext | bool:
    if not config.root_url.lower().startswith("https://") or not config.verify_tls:
        return False
    try:
        return httpx.create_ssl_context(verify=True, trust_env=True)
    except (OSError, ssl.SSLError) as exc:
        where = ", ".join(f"{k}={os.environ[k]}" for k in ("SSL_CERT_FILE", "SSL_CERT_DIR")
                          if os.environ.get(k))
        raise EndpointError(code="tls_env" if where else "tls", url=config.root_url,
                            detail=str(exc), where=where) from None


def error_message(response: httpx.Response) -> str:
    """The server's own words from an error response whose body has been read.

    Understands OpenAI's `{"error": {"message"}}`, `{"error": "..."}`, FastAPI's `{"detail"}`
    and `{"message"}`; otherwise the start of the body text.
    """
    return error_text(response.content)


def error_text(body: bytes) -> str:
    """The server's own words from an error body (see `error_message`), at most 300 characters,
    lone surrogates replaced; a body nested too deeply is quoted as text."""
    try:
        data = loads_limited(body)
    except ValueError:
        return clean_text(body[:1200].decode("utf-8", "replace").strip()[:300])
    return clean_text(_error_words(data))


def _error_words(data) -> str:
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            for key in ("message", "detail", "error"):
                if err.get(key):
                    return str(err[key])[:300]
        elif err:
            return str(err)[:300]
    return json.dumps(data)[:300]


def status_text(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def fail_out_of_time(st, config: EndpointConfig, by_deadline: bool) -> None:
    """A stream whose time ran out: cut at the cell's budget, or past the total timeout (the
    words both receive paths use)."""
    if by_deadline:
        st.fail("timeout", "cut at the cell's time budget before it finished "
                f"({len(st.chunk_times)} content chunks in)")
    else:
        st.fail("timeout", f"no complete answer within {config.total_timeout_s:g} s "
                "(total timeout)")


def web_page_words(url: str) -> str:
    """What a 200 text/html answer to a streamed request is (both receive paths say it)."""
    return (f"{url} answered a web page (text/html), not an event stream: a login page, a "
            "proxy or a web server answered in front of the API; check the URL")


def _retry_after_s(value: str | None) -> float | None:
    """Retry-After as seconds: a number, or an HTTP date turned into seconds from now."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class _Stream:
    """What one streamed request has seen so far; `result()` turns it into a StreamResult."""

    __slots__ = ("calls", "chunk_times", "whole", "done", "error_class", "error_message",
                 "finish_reason", "first_answer_ns", "first_byte_ns", "flags", "keep_calls",
                 "max_chunks", "parts", "queued_ns", "reasoning_chunks", "response_id",
                 "retry_after_s", "sent_ns", "server_error", "status_code", "text_chars",
                 "usage", "usage_asked")

    def __init__(self, usage_asked: bool, keep_calls: bool = False) -> None:
        self.usage_asked = usage_asked
        # Tool calls as their deltas arrive, by index: [id, name, argument pieces] (the SQL
        # agent's replies; a sweep's are counted, never kept).
        self.keep_calls = keep_calls
        self.calls: dict[int, list] = {}
        self.whole: dict | None = None  # a JSON answer to the streamed request (accept_json)
        self.sent_ns = time.perf_counter_ns()
        self.queued_ns = self.sent_ns
        self.first_byte_ns: int | None = None
        self.status_code: int | None = None
        self.chunk_times: list[int] = []
        self.first_answer_ns: int | None = None  # first chunk with content or a tool call
        self.reasoning_chunks = 0  # chunks that carried reasoning and no answer
        self.parts: list[str] = []
        self.response_id: str | None = None
        self.usage: dict | None = None
        self.finish_reason: str | None = None
        self.done = False  # data: [DONE] seen
        self.server_error: str | None = None  # an {"error": ...} event mid-stream
        self.error_class: str | None = None
        self.error_message: str | None = None
        self.retry_after_s: float | None = None
        self.flags: list[str] = []  # PLAUSIBILITY_FLAGS and CONNECTION_FLAGS codes
        self.text_chars = 0  # streamed text kept so far (at most MAX_STREAM_TEXT_CHARS)
        self.max_chunks: int | None = None  # limits.chunk_cap of the request's body

    def fail(self, error_class: str, message: str) -> None:
        if self.error_class is None:  # the first failure is the cause; later ones follow from it
            # What a server sent back may echo credentials (an Authorization header, a URL).
            self.error_class, self.error_message = error_class, redact_text(clean_text(message))

    def flag(self, code: str) -> None:
        if code not in self.flags:
            self.flags.append(code)

    def on_event(self, data: str, now: int) -> None:
        """Account for one SSE payload that arrived at `now` (perf_counter_ns)."""
        if data == "[DONE]":
            self.done = True
            return
        try:
            obj = loads_limited(data)
            if self.response_id is None:
                rid = obj.get("id")
                self.response_id = clean_text(rid)[:200] if isinstance(rid, str) else None
            usage = obj.get("usage")
            if usage:
                self.usage = usage
            choices = obj.get("choices")
            if not choices:
                if "error" in obj or obj.get("object") == "error":  # vLLM, TGI mid-stream
                    err = obj.get("error", obj)
                    self.server_error = str(err.get("message", err) if isinstance(err, dict)
                                            else err)[:300]
                return
            content = answer = False
            for choice in choices:
                delta = choice.get("delta")
                piece = delta.get("content") if delta is not None else choice.get("text")
                if piece:
                    if isinstance(piece, str) and self.text_chars < _limits.MAX_STREAM_TEXT_CHARS:
                        self.parts.append(piece)
                        self.text_chars += len(piece)
                    content = answer = True
                elif delta and delta.get("tool_calls"):
                    content = answer = True
                elif delta and (delta.get("reasoning_content") or delta.get("reasoning")):
                    content = True  # a token (TTFT counts it), not yet the answer
                if self.keep_calls and delta and delta.get("tool_calls"):
                    self.add_calls(delta["tool_calls"])
                reason = choice.get("finish_reason")
                if reason:
                    self.finish_reason = reason
            if content:
                self.chunk_times.append(now)
                if answer:
                    if self.first_answer_ns is None:
                        self.first_answer_ns = now
                else:
                    self.reasoning_chunks += 1
        except ResponseLimitError as exc:  # JSONTooDeep
            self.fail("malformed_stream", f"{exc} in an SSE event")
        except (ValueError, AttributeError, TypeError):  # not JSON, or not the chunk's shape
            self.fail("malformed_stream", f"unparseable SSE data: {data[:120]!r}")

    def add_calls(self, deltas) -> None:
        """Merge tool-call deltas (OpenAI's streamed shape: the first piece of a call by its
        `index` carries its id and name, later ones more of its arguments; a server may send
        a whole call at once). At most MAX_STREAM_CALLS calls, and their text counts against
        MAX_STREAM_TEXT_CHARS with the content's."""
        if not isinstance(deltas, list):
            return
        for d in deltas:
            if not isinstance(d, dict):
                continue
            i = d.get("index")
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < 10**6:
                i = len(self.calls)
            call = self.calls.get(i)
            if call is None:
                if len(self.calls) >= _limits.MAX_STREAM_CALLS:
                    continue
                call = self.calls[i] = [None, "", []]
            fn = dict_at(d, "function")
            if isinstance(d.get("id"), str) and call[0] is None:
                call[0] = d["id"][:200]
            for key, slot in (("name", 1), ("arguments", 2)):
                piece = fn.get(key)
                if not isinstance(piece, str):
                    if key == "arguments" and piece is not None:  # a server sent an object
                        piece = json.dumps(piece)[:_limits.MAX_STREAM_TEXT_CHARS]
                    else:
                        continue
                if self.text_chars >= _limits.MAX_STREAM_TEXT_CHARS:
                    continue
                self.text_chars += len(piece)
                if slot == 1:
                    call[1] += piece
                else:
                    call[2].append(piece)

    def tool_calls(self) -> tuple[dict, ...]:
        """The tool calls received so far, in index order, in the non-streamed shape."""
        return tuple({"id": c[0], "type": "function",
                      "function": {"name": c[1], "arguments": "".join(c[2])}}
                     for _, c in sorted(self.calls.items()))

    def take_whole(self, obj) -> None:
        """A whole (non-streamed) chat completion, from a server that answered JSON to a
        streamed request: kept as it came (`StreamResult.whole`) for the caller to read as
        any non-streamed reply, its usage and finish reason taken, counted as one chunk."""
        if not isinstance(obj, dict):
            self.fail("malformed_stream", f"did not answer with a JSON object: "
                      f"{type(obj).__name__}")
            return
        self.whole = obj
        now = time.perf_counter_ns()
        self.chunk_times.append(now)
        self.first_answer_ns = now
        if isinstance(obj.get("usage"), dict):
            self.usage = obj["usage"]
        choices = obj.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        self.finish_reason = reason if isinstance(reason, str) else "stop"
        self.done = True

    def result(self) -> StreamResult:
        if self.server_error is not None:
            self.fail("stream_cut", f"the server reported an error mid-stream: {self.server_error}")
        if (self.status_code is not None and self.error_class is None
                and self.finish_reason is None and not self.done):
            self.fail("stream_cut", "the stream ended without a finish_reason or [DONE] "
                      "(the server cut it)")
        usage = self.usage if isinstance(self.usage, dict) else {}
        completion = self._count(usage.get("completion_tokens"))
        prompt = self._count(usage.get("prompt_tokens"))
        details = usage.get("prompt_tokens_details")
        cached = self._count(details.get("cached_tokens")) if isinstance(details, dict) else None
        streamed = len(self.chunk_times)
        if (self.status_code is not None and self.error_class is None and streamed == 0
                and (self.done or self.finish_reason is not None)):
            self.fail("no_content", "the stream completed without any content (no chunk carried "
                      "text, reasoning or a tool call: choices null, missing or empty)")
            self.flag("no_content")
        source: Literal["usage", "client"]
        if isinstance(completion, int):
            source = "usage"
            if (self.error_class is None and streamed
                    and (completion > USAGE_MARGIN_FACTOR * streamed + USAGE_MARGIN_TOKENS
                         or streamed > USAGE_MARGIN_FACTOR * completion + USAGE_MARGIN_TOKENS)):
                self.flag("usage_mismatch")
        else:
            source, completion = "client", len(self.chunk_times)
            if (self.usage_asked and self.error_class is None
                    and not {"negative_usage", "absurd_usage"} & set(self.flags)):
                # It completed, so its timings stand; the class only says the counts are ours.
                self.error_class = "no_usage"
                self.error_message = ("no usage in the stream although include_usage was asked: "
                                      "token counts are the client's (one per content chunk)")
        times = self.chunk_times
        return StreamResult(
            sent_ns=self.sent_ns, queued_ns=self.queued_ns, first_byte_ns=self.first_byte_ns,
            first_token_ns=times[0] if times else None,
            first_answer_ns=self.first_answer_ns,
            reasoning_chunks=self.reasoning_chunks,
            last_token_ns=times[-1] if times else None,
            chunk_times_ns=tuple(times), response_id=self.response_id,
            status_code=self.status_code,
            prompt_tokens=prompt,
            completion_tokens=completion, tokens_source=source,
            cached_tokens=cached,
            finish_reason=clean_text(self.finish_reason)[:40]
            if isinstance(self.finish_reason, str) else None,
            text="".join(self.parts), tool_calls=self.tool_calls(),
            raw_usage=self.usage if self.keep_calls and isinstance(self.usage, dict) else None,
            whole=self.whole,
            error_class=self.error_class, error_message=self.error_message,
            retry_after_s=self.retry_after_s, flags=tuple(self.flags),
        )

    def _count(self, value) -> int | None:
        """A usage count the figures can rest on, else None with the reason flagged: negative
        counts and counts above MAX_PLAUSIBLE_TOKENS are impossible (the client's own count
        is used instead)."""
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        if value < 0:
            self.flag("negative_usage")
            return None
        if value > _limits.MAX_PLAUSIBLE_TOKENS:
            self.flag("absurd_usage")
            return None
        return value


async def stream_request(client: httpx.AsyncClient, config: EndpointConfig, body: dict, *,
                         path: str | None = None, headers: dict | None = None,
                         deadline: float | None = None, keep_calls: bool = False,
                         accept_json: bool = False,
                         live: Callable[[Callable[[], StreamResult]], None] | None = None,
                         ) -> StreamResult:
    """POST one streamed completion and time it; never raises for a failed request.

    The URL is `config.v1_url` + `path` (default `/chat/completions` or `/completions` by
    `config.api`). `stream: true` is set and `stream_options: {"include_usage": true}` added
    unless the body has `stream_options`. The whole request is bounded by
    `config.total_timeout_s` seconds. Failures come back as `error_class` (see ERROR_CLASSES)
    with a message; a stream without usage where usage was asked is `no_usage` but keeps all
    its timings (it completed: its TTFT and decode times are valid, only the token count is the
    client's). Cancelling the caller closes the connection at once and re-raises CancelledError.

    `deadline` (a `time.perf_counter()` value, e.g. the end of a cell's time budget) cuts the
    request there if it comes before the total timeout: it ends `timeout`, saying which limit.
    What the server sends is bounded (`limits.py`): the decoded stream by MAX_STREAM_BYTES, a
    line by MAX_SSE_LINE_BYTES, an event's JSON by MAX_JSON_DEPTH (each a `malformed_stream`
    naming its error class), an error body is read to MAX_ERROR_BODY_BYTES only. Usage counts
    that cannot be true are flagged (`StreamResult.flags`) and replaced by the client's count.

    For a caller that needs the reply itself (the SQL agent): `keep_calls` keeps the tool calls
    (`StreamResult.tool_calls`), `accept_json` takes a whole JSON completion from a server that
    ignores `stream: true` (read to MAX_BODY_BYTES), and `live` is handed at once a function
    that returns what has arrived so far as a StreamResult, so a caller cancelled midway still
    has the text, the calls and the tokens streamed until then.
    """
    url = config.v1_url + (path or API_PATHS[config.api])
    body = {**body, "stream": True}
    options = body.setdefault("stream_options", {"include_usage": True})
    st = _Stream(isinstance(options, dict) and bool(options.get("include_usage")), keep_calls)
    if live is not None:
        live(st.result)
    st.max_chunks = _limits.chunk_cap(body)
    request = client.build_request(
        "POST", url, content=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "text/event-stream",
                 **(headers or {})})

    fresh = [False]  # whether this attempt opened its own connection

    async def trace(event: str, info: dict) -> None:
        if event.endswith("send_request_headers.started"):  # http11. or http2.
            st.sent_ns = time.perf_counter_ns()
        elif event == "connection.connect_tcp.started":
            fresh[0] = True

    request.extensions["trace"] = trace
    with_limit(request, _limits.MAX_STREAM_BYTES, "stream")
    shown = redact_url(url)
    response: httpx.Response | None = None
    budget_s = config.total_timeout_s
    by_deadline = False
    if deadline is not None:
        left = max(0.0, deadline - time.perf_counter())
        if left < budget_s:
            budget_s, by_deadline = left, True
    try:
        async with asyncio.timeout(budget_s):
            st.sent_ns = st.queued_ns = time.perf_counter_ns()
            for attempt in range(RESENDS + 1):
                try:
                    response = await client.send(request, stream=True)
                    break
                except (httpx.RemoteProtocolError, httpx.WriteError, httpx.ReadError) as exc:
                    if fresh[0] or attempt == RESENDS or not _nothing_came(exc):
                        raise
                    # A kept-alive connection the server closed under the request before one
                    # byte of the answer came (httpcore checks a pooled connection before
                    # reuse, but a close can land just after): sent again. The pool may hand
                    # out another connection closed the same way (several replies ended at
                    # once), each dropped as it fails, so a few tries reach a live or new one.
                    st.flag("resent")
            assert response is not None  # the loop breaks with one or raises
            st.first_byte_ns = time.perf_counter_ns()
            st.status_code = response.status_code
            if not response.is_success:
                body_start = await _limits.read_some(response, _limits.MAX_ERROR_BODY_BYTES)
                st.retry_after_s = _retry_after_s(response.headers.get("retry-after"))
                st.fail("http_status", f"HTTP {status_text(response.status_code)} from {shown}: "
                        f"{error_text(body_start)}")
            elif response.headers.get("content-type", "").lower().startswith("text/html"):
                # A login page, a proxy's or a web server's: the API is not what answered.
                await _limits.read_some(response, _limits.MAX_ERROR_BODY_BYTES)
                st.fail("malformed_stream", web_page_words(shown))
            elif response.headers.get("content-type", "").startswith("application/json"):
                if accept_json:
                    st.take_whole(loads_limited(await _read_body(response, shown)))
                else:
                    await _limits.read_some(response, _limits.MAX_ERROR_BODY_BYTES)
                    st.fail("malformed_stream", f"{shown} answered JSON, not an event stream: "
                            "does the server support stream: true?")
            else:
                parser, on_event, clock = SSEParser(), st.on_event, time.perf_counter_ns
                # A drip is never silent: an event must complete within the read timeout of
                # the last (limits.py, "Deadlines"), and no more chunks come than were asked.
                patience_ns = int(config.first_byte_timeout_s * 1e9)
                last_event, cap = st.first_byte_ns, st.max_chunks
                async for chunk in response.aiter_bytes():
                    now = clock()
                    events = parser.feed(chunk)
                    if not events:
                        if now - last_event >= patience_ns:
                            st.fail("timeout", f"the server sent bytes for "
                                    f"{config.first_byte_timeout_s:g} s without completing an "
                                    f"event ({len(st.chunk_times)} content chunks in) (read "
                                    "timeout)")
                            break
                        continue
                    last_event = now
                    for data in events:
                        on_event(data, now)
                    if cap is not None and len(st.chunk_times) > cap:
                        raise _limits.StreamedTooMuch(_limits.too_much_words(cap), limit=cap)
                now = clock()
                for data in parser.close():
                    on_event(data, now)
    except TimeoutError:
        fail_out_of_time(st, config, by_deadline)
    except httpx.TimeoutException as exc:
        st.fail("timeout", _timeout_message(exc, config, shown))
    except ResponseLimitError as exc:  # SSELineTooLong, DecompressedTooLarge, ...
        st.fail("malformed_stream", f"{exc} ({len(st.chunk_times)} content chunks in)")
    except (httpx.ConnectError, httpx.UnsupportedProtocol, httpx.ProxyError) as exc:
        st.fail("connect", f"cannot connect to {shown}: {exc or type(exc).__name__}")
    except httpx.TransportError as exc:  # ReadError, WriteError, RemoteProtocolError, ...
        if st.first_byte_ns is None:
            st.fail("connection_closed", f"the server closed the connection before answering "
                    f"({exc})")
        else:
            st.fail("stream_cut", f"the connection broke after {len(st.chunk_times)} content "
                    f"chunks: {type(exc).__name__}: {exc}")
    except httpx.HTTPError as exc:  # DecodingError and the like
        st.fail("malformed_stream", f"{type(exc).__name__}: {exc}")
    finally:
        if response is not None:
            await response.aclose()  # also on CancelledError: drops the connection mid-stream
    return st.result()


async def _read_body(response: httpx.Response, url: str) -> bytes:
    """A whole body to MAX_BODY_BYTES (a streamed request's own limit is the stream's)."""
    pieces, size = [], 0
    async for piece in response.aiter_bytes():
        size += len(piece)
        if size > _limits.MAX_BODY_BYTES:
            raise _limits.ResponseTooLarge(
                f"ResponseTooLarge: the response body from {url} passed "
                f"{_limits.mib(_limits.MAX_BODY_BYTES)} (after decoding)",
                limit=_limits.MAX_BODY_BYTES)
        pieces.append(piece)
    return b"".join(pieces)


# How many times a request is sent again on a reused connection closed before any answer.
RESENDS = 4


def _nothing_came(exc: httpx.TransportError) -> bool:
    """Whether the request failed before one byte of an answer: the request was not written,
    the connection was reset under it (a server that closed the kept-alive connection answers
    the request it never read with a reset, which drops whatever was unread: nothing of this
    answer was sent), or h11 saw the close with nothing read (its own words for that case)."""
    return (isinstance(exc, (httpx.WriteError, httpx.ReadError))
            or "without sending a response" in str(exc))


def _timeout_message(exc: httpx.TimeoutException, config: EndpointConfig, url: str) -> str:
    """A timeout in a stream's words (the request's failure message), URL included."""
    why = _timeout_error(exc, config)
    if "message" in why:
        return why["message"]
    return endpoint_message(why.pop("code"), url, why)


def _timeout_error(exc: httpx.TimeoutException, config: EndpointConfig) -> dict:
    """An EndpointError's code and params for a timeout."""
    if isinstance(exc, httpx.ConnectTimeout):
        return {"code": "connect_within", "seconds": config.connect_timeout_s}
    if isinstance(exc, httpx.PoolTimeout):
        return {"code": "no_free_connection", "seconds": config.first_byte_timeout_s}
    if isinstance(exc, _limits.ExchangeDeadline):  # a drip: it names its phase
        return {"code": "drip", "detail": str(exc)}
    if isinstance(exc, httpx.ReadTimeout):
        return {"code": "read_timeout", "seconds": config.first_byte_timeout_s}
    return {"message": f"{type(exc).__name__}: {exc}"}


async def complete(client: httpx.AsyncClient, config: EndpointConfig, body: dict, *,
                   path: str | None = None) -> dict:
    """POST one non-streamed completion and return its JSON (with `usage`).

    URL as for `stream_request`; `stream` is forced false and `stream_options` dropped. Bounded
    by `config.total_timeout_s` seconds. Raises EndpointError naming the URL and the status or
    cause when the call fails or the answer is not a JSON object.
    """
    url = config.v1_url + (path or API_PATHS[config.api])
    body = {**body, "stream": False}
    body.pop("stream_options", None)
    target = url
    url = redact_url(url)  # what messages say (the request itself goes to the real URL)
    error_start = b""
    try:
        async with asyncio.timeout(config.total_timeout_s):
            response = await client.send(client.build_request("POST", target, json=body),
                                         stream=True)
            try:
                if response.is_success:
                    await response.aread()
                else:  # an error body is read to MAX_ERROR_BODY_BYTES only, as in a stream
                    error_start = await _limits.read_some(response,
                                                          _limits.MAX_ERROR_BODY_BYTES)
            finally:
                await response.aclose()
    except (TimeoutError, httpx.TimeoutException) as exc:
        why = (_timeout_error(exc, config) if isinstance(exc, httpx.TimeoutException)
               else {"code": "no_answer_within", "seconds": config.total_timeout_s})
        raise EndpointError(url=url, **why) from None
    except ResponseLimitError as exc:  # its message already names its class
        raise EndpointError(code="request_failed", url=url, detail=str(exc)) from None
    except httpx.HTTPError as exc:
        raise EndpointError(code="request_failed", url=url,
                            detail=f"{type(exc).__name__}: {exc}") from None
    if not response.is_success:
        raise EndpointError(code="http_auth" if response.status_code in (401, 403)
                            else "http_status", url=url,
                            status=status_text(response.status_code),
                            detail=error_text(error_start), status_code=response.status_code,
                            retry_after_s=_retry_after_s(response.headers.get("retry-after")))
    try:
        data = loads_limited(response.content)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise EndpointError(code="not_json_object", url=url, start=repr(response.text[:120]),
                            status_code=response.status_code)
    return data
