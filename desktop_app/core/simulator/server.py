"""The simulator's HTTP server: an OpenAI/vLLM-compatible endpoint backed by the simulated engine.

Everything it answers is simulated and says so (`/version` has `"simulated": true`, models are
owned by "throughline-simulator"); docs/SIMULATOR.md describes the endpoints for users.

Entry points: `run()` serves until SIGINT/SIGTERM (the CLI's `simulate` command),
`serve_in_thread()` runs a real server on loopback in a thread of its own (tests and other
in-process users), `build_app()` gives the bare Starlette app.

Times in the trace are `time.perf_counter()` seconds of the server process; on Linux that is
CLOCK_MONOTONIC, directly comparable with a client's `time.perf_counter_ns()` on the same machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import random
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator

import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from desktop_app import __version__
from desktop_app.core.simulator import faults as faultlib
from desktop_app.core.simulator import responders
from desktop_app.core.simulator.engine import Engine, Profile
from desktop_app.core.simulator.faults import FaultPicker, FaultSpec, FaultSpecError
from desktop_app.core.simulator import tokenizer
from desktop_app.core.simulator.realtime import RealtimeDriver, RequestHandle
from desktop_app.core.simulator.responders import ApiError, ParsedRequest, Script

TRACE_LIMIT = 100_000  # records kept by /sim/trace (the oldest are dropped)
# vLLM's buckets for vllm:request_queue_time_seconds.
QUEUE_BUCKETS_S = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
                   60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)


class SimulatorError(RuntimeError):
    """The simulator cannot start (port in use, bad address); the message is fit for a user."""


class SimState:
    """Everything one simulated server holds: engine, driver, faults, counters and the trace."""

    def __init__(self, profile: Profile, faults: FaultSpec | None = None) -> None:
        self.profile = profile
        self.faults = faults or FaultSpec()
        self.engine = Engine(profile)
        self.driver = RealtimeDriver(self.engine)
        self.picker = FaultPicker(faults)
        self.rng = random.Random(self.faults.seed or 0)
        self.trace: deque[dict] = deque(maxlen=TRACE_LIMIT)
        self.queue_counts = [0] * (len(QUEUE_BUCKETS_S) + 1)  # last one is +Inf
        self.queue_sum_s = 0.0
        self.created = int(time.time())
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_VllmCollector(self))

    def drain_queue_times(self) -> None:
        """Move the engine's new queue times into the histogram."""
        times = self.engine.queue_times_s
        if not times:
            return
        for q in times:
            i = next((i for i, b in enumerate(QUEUE_BUCKETS_S) if q <= b), len(QUEUE_BUCKETS_S))
            self.queue_counts[i] += 1
            self.queue_sum_s += q
        times.clear()

    def new_record(self, rid: str, model: str, endpoint: str, stream: bool,
                   prompt_tokens: int) -> dict:
        """Start a trace record for a request that arrived now."""
        record = {
            "id": rid, "model": model, "endpoint": endpoint, "stream": stream,
            "arrival_s": time.perf_counter(), "first_token_s": None, "last_token_s": None,
            "end_s": None, "prompt_tokens": prompt_tokens, "completion_tokens": 0,
            "planned_tokens": 0, "queue_s": None, "preemptions": 0, "finish_reason": None,
            "status": None, "fault": None, "disconnected": False,
        }
        self.trace.append(record)
        return record


class _VllmCollector:
    """Exposes the engine's state under vLLM's metric names, read at scrape time."""

    def __init__(self, state: SimState) -> None:
        self.state = state

    def collect(self):
        st = self.state
        st.drain_queue_times()
        labels, value = ["model_name"], [st.profile.model]

        def gauge(name: str, doc: str, v: float) -> GaugeMetricFamily:
            g = GaugeMetricFamily(name, doc, labels=labels)
            g.add_metric(value, v)
            return g

        def counter(name: str, doc: str, v: float) -> CounterMetricFamily:
            c = CounterMetricFamily(name, doc, labels=labels)
            c.add_metric(value, v)
            return c

        yield gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
                    len(st.engine.running))
        yield gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
                    len(st.engine.waiting))
        yield gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
                    st.engine.kv_usage)
        yield counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.",
                      st.engine.num_preemptions)
        yield counter("vllm:prompt_tokens", "Number of prefill tokens processed.",
                      st.driver.prompt_tokens_total)
        yield counter("vllm:generation_tokens", "Number of generation tokens processed.",
                      st.driver.generation_tokens_total)
        h = HistogramMetricFamily("vllm:request_queue_time_seconds",
                                  "Histogram of time spent in WAITING phase for request.",
                                  labels=labels)
        cumulative, buckets = 0, []
        for bound, count in zip((*QUEUE_BUCKETS_S, float("inf")), st.queue_counts):
            cumulative += count
            buckets.append(("+Inf" if bound == float("inf") else repr(bound), cumulative))
        h.add_metric(value, buckets, sum_value=st.queue_sum_s)
        yield h


# --- the answer on the wire ---------------------------------------------------------------
_SSE_HEADERS = [(b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-cache")]
_JSON_HEADERS = [(b"content-type", b"application/json")]
_JS_CACHE: dict[str, bytes] = {}


def _js(text: str) -> bytes:
    """JSON string literal for `text` (cached: the same pieces recur in every answer)."""
    out = _JS_CACHE.get(text)
    if out is None:
        out = json.dumps(text).encode()
        if len(_JS_CACHE) < 50_000:
            _JS_CACHE[text] = out
    return out


class _Encoder:
    """Pre-encoded SSE events for one response, in vLLM's chunk shapes.

    The per-token work is a dict lookup: each distinct piece's whole event is built once, from
    byte templates, instead of a json.dumps per token.
    """

    def __init__(self, rid: str, created: int, model: str, endpoint: str,
                 call_ids: list[str], calls: tuple[responders.ToolCall, ...]) -> None:
        self.chat = endpoint == "chat"
        obj = b'"chat.completion.chunk"' if self.chat else b'"text_completion"'
        self.meta = (b'{"id":' + _js(rid) + b',"object":' + obj + b',"created":'
                     + str(created).encode() + b',"model":' + _js(model))
        self.head = b"data: " + self.meta + b',"choices":[{"index":0,'
        if self.chat:
            self.tail = b',"logprobs":null,"finish_reason":null}]}\n\n'
        else:
            self.tail = b',"logprobs":null,"finish_reason":null,"stop_reason":null}]}\n\n'
        self.call_ids = call_ids
        self.calls = calls
        self._events: dict[object, bytes] = {}

    def role(self) -> bytes:
        return self.head + b'"delta":{"role":"assistant","content":""}' + self.tail

    def token(self, tok: responders.ScriptToken) -> bytes:
        event = self._events.get(tok)
        if event is not None:
            return event
        if isinstance(tok, str):
            if self.chat:
                event = self.head + b'"delta":{"content":' + _js(tok) + b"}" + self.tail
            else:
                event = self.head + b'"text":' + _js(tok) + self.tail
        else:
            i, piece = tok
            if piece is None:
                fn = (b'{"name":' + _js(self.calls[i].name) + b',"arguments":""}')
                call = (b'{"index":' + str(i).encode() + b',"id":' + _js(self.call_ids[i])
                        + b',"type":"function","function":' + fn + b"}")
            else:
                call = (b'{"index":' + str(i).encode() + b',"function":{"arguments":'
                        + _js(piece) + b"}}")
            event = self.head + b'"delta":{"tool_calls":[' + call + b"]}" + self.tail
        if len(self._events) < 4096:
            self._events[tok] = event
        return event

    def finish(self, reason: str) -> bytes:
        body = b'"delta":{}' if self.chat else b'"text":""'
        return (self.head + body + b',"logprobs":null,"finish_reason":' + _js(reason)
                + b',"stop_reason":null}]}\n\n')

    def usage(self, prompt: int, completion: int) -> bytes:
        return (b"data: " + self.meta + b',"choices":[],"usage":' + _usage_json(prompt, completion)
                + b"}\n\n")

    def malformed(self) -> bytes:
        return b"data: " + self.meta + b',"choices":[{"index":0,"delta":{"content":\n\n'


def _usage_json(prompt: int, completion: int) -> bytes:
    return (b'{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d}'
            % (prompt, prompt + completion, completion))


class SimResponse(Response):
    """Runs one request through the engine and writes the answer (streamed or whole).

    A client disconnect aborts the request in the engine. Faults act here: `reset`, `stall`
    and `bad_sse` strike after `after` tokens; `no_usage` drops the usage chunk;
    `bad_tool_json` was applied to the script; `disconnect` closes before any header.
    """

    def __init__(self, st: SimState, parsed: ParsedRequest, script: Script, record: dict,
                 fault: str | None) -> None:  # no super().__init__: __call__ does it all
        self.st, self.parsed, self.script, self.record, self.fault = (
            st, parsed, script, record, fault)
        self.background = None
        call_ids = [f"chatcmpl-tool-{uuid.uuid4().hex}" for _ in script.tool_calls]
        self.enc = _Encoder(record["id"], int(time.time()), parsed.model, parsed.endpoint,
                            call_ids, script.tool_calls)
        if fault == "bad_tool_json":  # the last argument piece becomes "]": never valid JSON
            last = max(i for i, t in enumerate(script.tokens) if isinstance(t, tuple)
                       and t[1] is not None)
            script.tokens[last] = (script.tokens[last][0], "]")
        self.server_closed = False  # the server ended the exchange (done, or a fault)

    async def __call__(self, scope, receive, send) -> None:
        st, rec, parsed = self.st, self.record, self.parsed
        if self.fault == "disconnect":
            rec["status"], rec["end_s"] = 0, time.perf_counter()
            if faultlib.close_connection(scope):
                while (await receive())["type"] != "http.disconnect":
                    pass
                return
            await _send_whole(send, 500, b'{"error":{"message":"simulated disconnect"}}')
            return
        handle = st.driver.submit(rec["id"], parsed.prompt_tokens, len(self.script.tokens))
        gone = asyncio.Event()
        watcher = asyncio.get_running_loop().create_task(self._watch(receive, handle, gone))
        try:
            if parsed.stream:
                await self._stream(scope, send, handle, gone)
            else:
                await self._whole(scope, send, handle, gone)
        finally:
            self.server_closed = True
            watcher.cancel()
            handle.cancel()  # a no-op once finished
            req = handle.req
            rec["end_s"] = time.perf_counter()
            rec["preemptions"] = req.preemptions
            if req.admitted_s is not None:
                rec["queue_s"] = req.admitted_s - req.arrival_s

    async def _watch(self, receive, handle: RequestHandle, gone: asyncio.Event) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        if not self.server_closed:
            self.record["disconnected"] = True
            handle.cancel()
        gone.set()

    def _tail(self) -> bytes:
        p = self.parsed
        out = self.enc.finish(self.script.finish_reason)
        if p.include_usage and self.fault != "no_usage":
            out += self.enc.usage(p.prompt_tokens, len(self.script.tokens))
        self.record["finish_reason"] = self.script.finish_reason
        return out + b"data: [DONE]\n\n"

    async def _stream(self, scope, send, handle: RequestHandle, gone: asyncio.Event) -> None:
        enc, rec, tokens = self.enc, self.record, self.script.tokens
        total = len(tokens)
        await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
        rec["status"] = 200
        pending = self.fault in ("reset", "stall", "bad_sse")
        strike_at = min(self.st.faults.after_tokens, total)
        if pending and strike_at == 0:
            pending = False
            if await self._strike(scope, send, gone):
                return
        sent, first = 0, enc.chat
        async for avail in handle:
            while sent < avail:
                stop = strike_at if pending and sent < strike_at < avail else avail
                parts = [enc.role()] if first else []
                first = False
                parts += [enc.token(t) for t in tokens[sent:stop]]
                sent = stop
                last = sent == total and not pending
                if last:
                    parts.append(self._tail())
                    self.server_closed = True
                await send({"type": "http.response.body", "body": b"".join(parts),
                            "more_body": not last})
                now = time.perf_counter()
                if rec["first_token_s"] is None:
                    rec["first_token_s"] = now
                rec["last_token_s"], rec["completion_tokens"] = now, sent
                if gone.is_set() or last:
                    return
                if pending and sent >= strike_at:
                    pending = False
                    if await self._strike(scope, send, gone):
                        return
        if gone.is_set() or handle.cancelled:
            return
        self.server_closed = True  # a fault struck after the last token: finish now
        await send({"type": "http.response.body", "body": self._tail(), "more_body": False})

    async def _strike(self, scope, send, gone: asyncio.Event) -> bool:
        """Inject a mid-stream fault; True when the connection is gone afterwards."""
        if self.fault == "bad_sse":
            await send({"type": "http.response.body", "body": self.enc.malformed(),
                        "more_body": True})
            return False
        if self.fault == "stall":
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(gone.wait(), self.st.faults.stall_s)
            return gone.is_set()
        self.server_closed = True  # reset: the server, not the client, ends it
        if faultlib.reset_connection(scope):
            await gone.wait()
        else:  # in-process ASGI: end the body without a finish chunk
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        return True

    async def _whole(self, scope, send, handle: RequestHandle, gone: asyncio.Event) -> None:
        async for _ in handle:
            pass
        if gone.is_set() or handle.cancelled:
            return
        rec, p, script = self.record, self.parsed, self.script
        body = _whole_body(self.enc, p, script, self.record["id"])
        now = time.perf_counter()
        rec["first_token_s"] = rec["last_token_s"] = now
        rec["completion_tokens"], rec["status"] = len(script.tokens), 200
        rec["finish_reason"] = script.finish_reason
        if self.fault == "reset":
            headers = [*_JSON_HEADERS, (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body[: len(body) // 2],
                        "more_body": True})
            await self._strike(scope, send, gone)
            return
        self.server_closed = True
        await _send_whole(send, 200, body)


def _whole_body(enc: _Encoder, p: ParsedRequest, script: Script, rid: str) -> bytes:
    """The non-streaming response (chat.completion or text_completion), with usage."""
    content = "".join(t for t in script.tokens if isinstance(t, str))
    usage = json.loads(_usage_json(p.prompt_tokens, len(script.tokens)))
    base = {"id": rid, "created": int(time.time()), "model": p.model}
    if p.endpoint != "chat":
        choice = {"index": 0, "text": content, "logprobs": None,
                  "finish_reason": script.finish_reason, "stop_reason": None}
        return json.dumps({**base, "object": "text_completion", "choices": [choice],
                           "usage": usage}).encode()
    calls: dict[int, dict] = {}
    for tok in script.tokens:
        if isinstance(tok, tuple):
            i, piece = tok
            if piece is None:
                calls[i] = {"id": enc.call_ids[i], "type": "function",
                            "function": {"name": script.tool_calls[i].name, "arguments": ""}}
            elif i in calls:
                calls[i]["function"]["arguments"] += piece
    message = {"role": "assistant", "content": content or (None if calls else ""),
               "tool_calls": list(calls.values())}
    choice = {"index": 0, "message": message, "logprobs": None,
              "finish_reason": script.finish_reason, "stop_reason": None}
    return json.dumps({**base, "object": "chat.completion", "choices": [choice],
                       "usage": usage}).encode()


async def _send_whole(send, status: int, body: bytes) -> None:
    headers = [*_JSON_HEADERS, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


# --- endpoints ------------------------------------------------------------------------------
def _state(request: Request) -> SimState:
    return request.app.state.sim


def _error(exc: ApiError) -> JSONResponse:
    body = {"error": {"message": exc.message, "type": exc.type, "param": exc.param,
                      "code": exc.code}}
    return JSONResponse(body, status_code=exc.status, headers=exc.headers)


async def _models(request: Request) -> Response:
    st = _state(request)
    data = [{"id": m, "object": "model", "created": st.created, "owned_by": responders.OWNED_BY,
             "root": m, "parent": None, "max_model_len": st.profile.max_model_len,
             "simulated": True} for m in responders.model_ids(st.profile)]
    return JSONResponse({"object": "list", "data": data})


async def _completion(request: Request, endpoint: str) -> Response:
    st = _state(request)
    try:
        parsed = responders.parse_request(await request.body(), endpoint, st.profile)
        fault = st.picker.pick(request.headers.get(faultlib.FAULT_HEADER))
    except ApiError as exc:
        return _error(exc)
    except FaultSpecError as exc:
        return _error(ApiError(str(exc), param=faultlib.FAULT_HEADER))
    ctx = responders.ResponderContext(st.profile, endpoint, parsed.prompt_text,
                                      parsed.prompt_tokens, st.rng)
    plan = parsed.responder(parsed.body, ctx)
    script = responders.fit_script(plan, parsed.max_tokens, parsed.min_tokens, parsed.ignore_eos,
                                   filler_offset=parsed.prompt_tokens)
    has_args = any(isinstance(t, tuple) and t[1] is not None for t in script.tokens)
    fault = faultlib.applicable(fault, parsed.stream, has_args)
    prefix = "chatcmpl-" if endpoint == "chat" else "cmpl-"
    record = st.new_record(prefix + uuid.uuid4().hex, parsed.model, endpoint, parsed.stream,
                           parsed.prompt_tokens)
    record["fault"] = fault
    record["planned_tokens"] = len(script.tokens)
    if fault in ("http500", "http429"):
        record["end_s"] = time.perf_counter()
        record["status"] = 500 if fault == "http500" else 429
        if fault == "http500":
            return _error(ApiError("simulated internal server error (fault injection)",
                                   status=500, type_="internal_server_error"))
        retry = f"{st.faults.retry_after_s:g}"
        return _error(ApiError("simulated rate limit (fault injection)", status=429,
                               type_="rate_limit_error", code="rate_limit_exceeded",
                               headers={"Retry-After": retry}))
    return SimResponse(st, parsed, script, record, fault)


async def _chat(request: Request) -> Response:
    return await _completion(request, "chat")


async def _completions(request: Request) -> Response:
    return await _completion(request, "completions")


async def _tokenize(request: Request) -> Response:
    st = _state(request)
    try:
        text = responders.parse_tokenize_request(await request.body(), st.profile)
    except ApiError as exc:
        return _error(exc)
    ids = tokenizer.token_ids(text)
    return JSONResponse({"count": len(ids), "max_model_len": st.profile.max_model_len,
                         "tokens": ids, "token_strs": None})


async def _metrics(request: Request) -> Response:
    return Response(generate_latest(_state(request).registry), media_type=CONTENT_TYPE_LATEST)


async def _health(request: Request) -> Response:
    return Response(status_code=200)


async def _version(request: Request) -> Response:
    st = _state(request)
    return JSONResponse({
        "version": f"{__version__}-simulated", "engine": st.profile.engine_label,
        "simulated": True, "profile": st.profile.name, "model": st.profile.model,
        "faults": st.faults.describe() if st.faults.probabilities else None,
    })


async def _trace(request: Request) -> Response:
    st = _state(request)
    if request.method == "DELETE":
        st.trace.clear()
        return Response(status_code=204)
    return JSONResponse({
        "clock": "time.perf_counter() seconds of the server process (CLOCK_MONOTONIC on Linux)",
        "now_s": time.perf_counter(), "limit": TRACE_LIMIT, "records": list(st.trace),
    })


def build_app(profile: Profile, faults: FaultSpec | None = None) -> Starlette:
    """The simulator as a Starlette app (its state is `app.state.sim`, a SimState).

    Faults that act on the connection (`disconnect`, `reset`) need the transport that
    `run()`/`serve_in_thread()` put into the scope; in-process ASGI tests see them as HTTP 500.
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        await app.state.sim.driver.close()

    app = Starlette(
        routes=[
            Route("/v1/models", _models, methods=["GET"]),
            Route("/v1/chat/completions", _chat, methods=["POST"]),
            Route("/v1/completions", _completions, methods=["POST"]),
            Route("/tokenize", _tokenize, methods=["POST"]),
            Route("/metrics", _metrics, methods=["GET"]),
            Route("/health", _health, methods=["GET"]),
            Route("/version", _version, methods=["GET"]),
            Route("/sim/trace", _trace, methods=["GET", "DELETE"]),
        ],
        lifespan=lifespan,
    )
    app.state.sim = SimState(profile, faults)
    return app


# --- serving ----------------------------------------------------------------------------------
class _Protocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    """uvicorn's HTTP protocol, plus the connection's transport in the scope (for faults)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        inner = self.app

        async def app(scope, receive, send):
            scope[faultlib.TRANSPORT_KEY] = self.transport
            await inner(scope, receive, send)

        self.app = app


class _Server(uvicorn.Server):
    """uvicorn.Server that reports readiness and returns normally after SIGINT/SIGTERM."""

    def __init__(self, config: uvicorn.Config, url: str,
                 ready: Callable[[str], None] | None) -> None:
        super().__init__(config)
        self._url = url
        self._ready = ready

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self._ready is not None:
            self._ready(self._url)

    @contextlib.contextmanager
    def capture_signals(self):
        # uvicorn re-raises the signal after shutting down; run() should just return.
        import signal

        if threading.current_thread() is not threading.main_thread():
            yield
            return
        sigs = (signal.SIGINT, signal.SIGTERM)
        original = {sig: signal.signal(sig, self.handle_exit) for sig in sigs}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must be IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only then, and
    # without it Nagle plus delayed ACKs add 40 ms to responses written in several pieces.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise SimulatorError(f"port {port} on {host} is in use") from None
        raise SimulatorError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    except (OverflowError, TypeError) as exc:  # port out of range, bad host type
        sock.close()
        raise SimulatorError(f"cannot listen on {host!r} port {port!r}: {exc}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _url(host: str, sock: socket.socket) -> str:
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def _make_server(app: Starlette, url: str, ready: Callable[[str], None] | None) -> _Server:
    config = uvicorn.Config(
        app, http=_Protocol, lifespan="on", log_level="warning", access_log=False,
        log_config=None, timeout_graceful_shutdown=2, timeout_keep_alive=30,
    )
    return _Server(config, url, ready)


def run(host: str, port: int, profile: Profile, faults: FaultSpec | None = None,
        ready: Callable[[str], None] | None = None) -> None:
    """Serve the simulator on host:port until SIGINT/SIGTERM, then return.

    Binds the socket first, so a busy port raises SimulatorError("port 8000 on 127.0.0.1 is
    in use") before uvicorn starts; port 0 picks a free port. `ready(url)` is called once,
    when the server accepts connections. Logs only warnings; no access log.
    """
    sock = _bind(host, port)
    try:
        server = _make_server(build_app(profile, faults), _url(host, sock), ready)
        server.run(sockets=[sock])
    finally:
        sock.close()


class RunningServer:
    """A simulator serving in a background thread: `.url`, `.state` (SimState), `.stop()`."""

    def __init__(self, url: str, state: SimState, server: _Server, thread: threading.Thread,
                 sock: socket.socket) -> None:
        self.url = url
        self.state = state
        self._server = server
        self._thread = thread
        self._sock = sock

    def stop(self, timeout_s: float = 10.0) -> None:
        """Shut the server down and wait for its thread (open streams are cut after 2 s)."""
        self._server.should_exit = True
        self._thread.join(timeout_s)
        self._sock.close()


@contextlib.contextmanager
def serve_in_thread(profile: Profile, faults: FaultSpec | None = None, host: str = "127.0.0.1",
                    port: int = 0, timeout_s: float = 10.0) -> Iterator[RunningServer]:
    """Run a real simulator (own thread, own event loop) for the `with` block; yields it.

    The state must only be read from the test's thread for plain values (counters, trace);
    the engine belongs to the server's loop.
    """
    sock = _bind(host, port)
    url = _url(host, sock)
    app = build_app(profile, faults)
    started = threading.Event()
    server = _make_server(app, url, lambda _url: started.set())
    errors: list[BaseException] = []

    def target() -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # noqa: BLE001 - reported to the caller below
            errors.append(exc)
            started.set()

    thread = threading.Thread(target=target, name="sim-server", daemon=True)
    thread.start()
    if not started.wait(timeout_s) or errors:
        server.should_exit = True
        thread.join(timeout_s)
        sock.close()
        raise SimulatorError(f"simulator did not start: {errors[0] if errors else 'timeout'}")
    running = RunningServer(url, app.state.sim, server, thread, sock)
    try:
        yield running
    finally:
        running.stop()

