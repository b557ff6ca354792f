"""The simulator's HTTP server: an OpenAI/vLLM-compatible endpoint backed by the simulated engine.

Everything it answers is simulated and says so (`/version` has `"simulated": true`, models are
owned by "throughline-simulator"); docs/SIMULATOR.md describes the endpoints for users.

Entry points: `run()` serves until SIGINT/SIGTERM (the CLI's `simulate` command),
`serve_in_thread()` runs a real server on loopback in a thread of its own (tests and other
in-process users), `build_app()` gives the bare Starlette app.

This module holds the routes (endpoint handlers and `build_app`) and the serving machinery
(socket binding, the uvicorn server, `run`, `serve_in_thread`). The rest of the package:
`requests` validates request bodies, `responders` decides what the model says, `state` keeps the
per-server state and `/metrics`, `wire` encodes and writes the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from desktop_app import __version__
from desktop_app.core.parsing import CodedError
from desktop_app.core.simulator import faults as faultlib
from desktop_app.core.simulator import validation
from desktop_app.core.simulator import responders, tokenizer
from desktop_app.core.simulator.engine import Profile
from desktop_app.core.simulator.faults import FaultSpec, FaultSpecError
from desktop_app.core.simulator.validation import ApiError
from desktop_app.core.simulator.state import TRACE_LIMIT, SimState
from desktop_app.core.simulator.wire import SimResponse

__all__ = ["RunningServer", "SimState", "SimulatorError", "build_app", "run", "serve_in_thread"]


READ_KEY = "throughline.read_s"


class SimulatorError(CodedError, RuntimeError):
    """The simulator cannot start (port in use, bad address): a code and its values, said in the
    reader's language by `report.errors.error_text`."""


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
    # The trace's arrival is the moment this server's loop read the bytes that began the
    # request (`_Protocol`), not when its handler ran: at concurrency 64 a burst's last
    # request waited 13-30 ms behind the others' parsing and tokenizing, which
    # bench/client_fidelity.py would charge to the client's send offset. The engine still
    # sees each request once it is parsed, as a real server's does.
    arrived = request.scope.get(READ_KEY) or time.perf_counter()
    st = _state(request)
    # The loop polls its sockets only between turns, and a turn runs every handler that is
    # ready: a burst's parsing in one turn held the next reads, and their arrival stamps, back
    # by 5-15 ms at concurrency 64. Parsing in short turns of its own keeps the reads prompt
    # (bench/client_fidelity.py: send offset p99 2.4-4.6 ms, was 6.8-17 ms).
    await asyncio.sleep(0)
    try:
        parsed = validation.parse_request(await request.body(), endpoint, st.profile)
        fault = st.picker.pick(request.headers.get(faultlib.FAULT_HEADER))
    except ApiError as exc:
        return _error(exc)
    except FaultSpecError as exc:
        return _error(ApiError(str(exc), param=faultlib.FAULT_HEADER))
    await asyncio.sleep(0)
    ctx = responders.ResponderContext(st.profile, endpoint, parsed.prompt_text,
                                      parsed.prompt_tokens, st.rng)
    plan = parsed.responder(parsed.body, ctx)
    script = responders.fit_script(plan, parsed.max_tokens, parsed.min_tokens, parsed.ignore_eos,
                                   filler_offset=parsed.prompt_tokens)
    has_args = any(isinstance(t, tuple) and t[1] is not None for t in script.tokens)
    fault = faultlib.applicable(fault, parsed.stream, has_args)
    prefix = "chatcmpl-" if endpoint == "chat" else "cmpl-"
    record = st.new_record(prefix + uuid.uuid4().hex, parsed.model, endpoint, parsed.stream,
                           parsed.prompt_tokens, arrived)
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
        text = validation.parse_tokenize_request(await request.body(), st.profile)
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
    key = os.environ.get(API_KEY_ENV)
    if key:
        app.add_middleware(_RequireKey, key=key)
    return app


API_KEY_ENV = "THROUGHLINE_SIM_API_KEY"
"""When set, the simulator answers /v1/* only with `Authorization: Bearer <value>`, as vLLM's
--api-key does (401 otherwise): a check that a client really sends the key it was given."""


class _RequireKey:
    """ASGI middleware: 401 for /v1/* requests without the expected bearer token."""

    def __init__(self, app, key: str) -> None:
        self.app = app
        self.expected = f"Bearer {key}".encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                response = JSONResponse({"error": {"message": "Unauthorized",
                                                   "type": "invalid_request_error",
                                                   "param": None, "code": 401}},
                                        status_code=401)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


# --- serving ----------------------------------------------------------------------------------
class _Protocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    """uvicorn's HTTP protocol, plus the connection's transport in the scope (for faults) and
    the moment the loop read the bytes that began each request (`READ_KEY`, the trace's
    arrival)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        inner = self.app  # type: ignore[has-type]  # the base is chosen at run time

        async def app(scope, receive, send):
            scope[faultlib.TRANSPORT_KEY] = self.transport
            await inner(scope, receive, send)

        self.app = app

    def data_received(self, data: bytes) -> None:
        # Both of uvicorn's parsers build a new scope, synchronously, for each request that
        # begins in `data`; the app's task runs later, after whatever else this loop turn holds.
        read_s = time.perf_counter()
        before = getattr(self, "scope", None)
        super().data_received(data)
        scope = getattr(self, "scope", None)
        if scope is not None and scope is not before:
            scope.setdefault(READ_KEY, read_s)


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
            raise SimulatorError(code="sim_port_in_use", port=port, host=host) from None
        raise SimulatorError(code="sim_cannot_listen", host=host, port=port,
                             detail=str(exc.strerror or exc)) from None
    except (OverflowError, TypeError) as exc:  # port out of range, bad host type
        sock.close()
        raise SimulatorError(code="sim_cannot_listen", host=repr(host), port=repr(port),
                             detail=str(exc)) from None
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
        if errors:
            raise SimulatorError(code="sim_not_started", detail=str(errors[0]))
        raise SimulatorError(code="sim_start_timeout", seconds=f"{timeout_s:g}")
    running = RunningServer(url, app.state.sim, server, thread, sock)
    try:
        yield running
    finally:
        running.stop()

