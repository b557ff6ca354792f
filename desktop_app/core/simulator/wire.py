"""The answer on the wire: SSE byte templates, and the response writer (`SimResponse`).

`_Encoder` pre-encodes one response's SSE events in vLLM's chunk shapes (role chunk, one chunk per
token, finish chunk, usage chunk) from byte templates, caching each distinct piece's whole event,
so the per-token work is a dict lookup rather than a `json.dumps`. `_whole_body` builds the
non-streaming `chat.completion` / `text_completion` body. `SimResponse` is a raw ASGI response
that runs one request through the engine and writes its answer, streamed or whole, and is where
the mid-stream faults (`reset`, `stall`, `bad_sse`, `no_usage`, `disconnect`) act.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid

from starlette.responses import Response

from desktop_app.core.simulator import faults as faultlib
from desktop_app.core.simulator import responders
from desktop_app.core.simulator.realtime import RequestHandle
from desktop_app.core.simulator.validation import ParsedRequest
from desktop_app.core.simulator.responders import Script
from desktop_app.core.simulator.state import SimState

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
            call_index = script.tokens[last][0]  # a tuple: the search above kept only those
            script.tokens[last] = (int(call_index), "]")
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
