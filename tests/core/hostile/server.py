"""A hostile OpenAI-compatible server for tests: raw asyncio, hand-written HTTP/1.1.

Every behaviour is selected by the first path segment, so a base URL such as
`http://127.0.0.1:PORT/<behaviour>/v1` makes every request of a run meet it; an optional
argument follows a dot (`/huge_line.5/v1`: a 5 MB line). Apart from its behaviour the server is
a plain vLLM look-alike: `/v1/models` lists model "m" owned by vllm, `/tokenize` counts words,
`/metrics` has vLLM's gauges, and a chat completion streams `max_tokens` one-word chunks, a
usage chunk and `[DONE]`.

Behaviours (argument in brackets, with its default):

| name | what it does |
|---|---|
| `ok` | behaves |
| `gzip_bomb[.MB=64]` | the stream body is gzip that inflates to MB megabytes of SSE comment lines |
| `gzip_members[.MB=1024]` | the same as MB gzip members of 1 MiB each (a 1 GB inflation without compressing 1 GB first) |
| `huge_line[.MB=5]` | one SSE line of MB megabytes without a newline, then the connection stays open |
| `endless` | content chunks every millisecond, never `[DONE]` |
| `slowloris[.S=2]` | headers, then one byte every S seconds |
| `usage_negative` | usage prompt_tokens -5, completion_tokens -80 |
| `usage_huge` | usage counts of 10**20 |
| `usage_prompt_million` | usage prompt_tokens 1,000,000 (below the absurd bound, for any prompt) |
| `usage_100x` | usage.completion_tokens 100x the chunks streamed |
| `no_choices` | every chunk has `choices` null or missing: no content at all |
| `surrogate` | lone surrogate escapes ("\\ud800") in content and in the id |
| `deep_event[.N=100000]` | one event nested N deep |
| `deep_models[.N=100000]` | /v1/models nested N deep |
| `metrics_huge[.MB=200]` | a /metrics of MB megabytes of vLLM gauge lines |
| `metrics_inf` | /metrics with `vllm:num_requests_running inf` and waiting NaN; a chat completion streams only once two more /metrics requests arrived after it (or 10 s passed), so a run's cell outlasts a whole scrape |
| `error_huge[.MB=200]` | chat answers 500 with an MB-megabyte error body |
| `tokenize_negative` | /tokenize answers negative counts |
| `echo_auth` | chat answers 400 quoting the request's Authorization header and Host |
| `echo_all[.unknown,.error,.models_error]` | the request's Authorization header (and, for Basic, the `user:password` it encodes) copied into every reply: the model id, /version, a `Server` and an `X-Echo` header, streamed content and id, a non-streamed reply's content, tool-call id and SQL (`SELECT '<secret>'`); `.unknown`: no /version and no vLLM owner, so discovery quotes the `Server` header; `.error`: every chat answers 400 `{"you_sent": "<secret>"}` (no `message`: a client quotes the JSON, non-ASCII escaped); `.models_error`: so does /v1/models, with a 500 |
| `escape[.where=models]` | terminal escapes (`ESC[2J`, `ESC]0;...BEL`, C1 CSI `\x9b`, RLO U+202E) in the model id and /version (`models`), or in the error /v1/models answers with (`error`: a 500) |
| `long_model[.N=1048576]` | /v1/models lists a model id of N characters first, then `m` |
| `head_drip[.S=0.5]` | /v1/models and chat answer a status line, then one byte of a header every S s, never ending the headers |
| `continue_forever[.S=0.3]` | chat answers `100 Continue` every S s, never a final answer |
| `sse_drip[.S=0.5]` | chat streams a valid content event one byte every S s, again and again |
| `endless_slow[.S=0.05]` | chat streams a content chunk every S s, never a finish (past any max_tokens) |
| `models_drip[.S=0.5]` | /v1/models answers its JSON one byte every S s |
| `reasoning[.K=5]` | K chunks of `delta.reasoning_content` (vLLM's reasoning parsers), then the content |
| `reasoning_alt[.K=5]` | the same with `delta.reasoning` (vLLM's newer field, OpenRouter) |
| `encoding[.NAME=br]` | every chat answer (streamed or not) in Content-Encoding NAME (br, zstd, ...): bytes the client must refuse unread; `/v1/models` stays plain |
| `encoding_error[.NAME=br]` | chat answers 500 with a body in Content-Encoding NAME |

Chat completions of the `sql_` behaviours below (the SQL agent's calls, streamed or not), and
non-streamed ones of `ok`, get one JSON reply; `slowloris` and `endless` answer them as they answer a stream (so the body
dribbles in or never ends). Every reply reports usage: prompt_tokens = the request's JSON
length / 4 (the "true" count, below the client's high estimate), completion_tokens = the
`max_tokens` asked (the reply used all of it), unless the behaviour says otherwise.

| name | what a non-streamed chat completion answers |
|---|---|
| `ok` / `sql_submit` | a `submit_answer` call with `SELECT 1` |
| `sql_slow_calls[.N=60]` | N `run_sql` calls in one reply, each a query that never ends |
| `sql_greedy[.CTX=100000]` | a new `run_sql` call each step; /v1/models says `max_model_len` CTX, and a request whose prompt + max_tokens passes CTX gets vLLM's 400 |
| `sql_usage_negative` | as `sql_greedy`, usage prompt and completion -1,000,000 |
| `sql_usage_huge` | as `sql_greedy`, usage counts of 10**20 |
| `html_login` (any chat) | 200 with a `text/html` login page, as a proxy or SSO gate answers |
| `sql_usage_null` / `sql_usage_nan` | as `sql_greedy`, usage prompt and completion `null` / `NaN` |
| `sql_parts` | content as a list of parts (`[{"type": "text", "text": "...```sql ..."}]`) |
| `sql_content_number` | content 7, no tool calls |
| `sql_tool_calls_7` | `tool_calls: 7` |
| `sql_huge_name[.MB=1]` | one tool call whose name is MB megabytes long |
| `sql_text` | plain text, no tool call and no answer (the loop nudges once) |
| `sql_huge_args[.MB=8]` | a `run_sql` call whose arguments are MB megabytes (a comment in the SQL), every step |

`HostileServer` runs it on its own thread and loop: `with HostileServer() as srv: srv.url("ok")`.
Run as a script (`python server.py`) it prints its port and serves until killed.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import zlib

MODEL = "m"
_CHUNK = 64 * 1024
# /metrics requests received, by behaviour (read by behaviours that wait for scrapes).
_METRICS_ASKED: dict[str, int] = {}


def _deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def send_head(self, status: int, headers: dict[str, str]) -> None:
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error"
                  }.get(status, "X")
        lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await self.writer.drain()

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def json(self, status: int, body: bytes | dict | list) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        await self.send_head(status, {"Content-Type": "application/json",
                                      "Content-Length": str(len(data))})
        await self.send(data)


def _chunk(cid: str, content=None, finish=None, **extra) -> bytes:
    delta = {} if content is None else {"content": content}
    obj = {"id": cid, "object": "chat.completion.chunk", "model": MODEL,
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _usage(prompt, completion) -> bytes:
    obj = {"id": "u", "object": "chat.completion.chunk", "model": MODEL, "choices": [],
           "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                     "total_tokens": None}}
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


_GZIP_CACHE: dict[int, bytes] = {}


def _gzip_bomb(mb: int) -> bytes:
    if mb not in _GZIP_CACHE:
        line = b":" + b" " * 1022 + b"\n"  # SSE comment lines: nothing for the client to parse
        comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        block = line * 1024  # 1 MiB
        out = [comp.compress(block) for _ in range(mb)]
        out.append(comp.flush())
        _GZIP_CACHE[mb] = b"".join(out)
    return _GZIP_CACHE[mb]


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    conn = _Conn(reader, writer)
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            length = int(headers.get("content-length", "0") or 0)
            body = await reader.readexactly(length) if length else b""
            keep = await _route(conn, method, target.split("?", 1)[0], headers, body)
            if not keep:
                break
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    except asyncio.CancelledError:
        pass  # the server is shutting down; ending quietly keeps asyncio from logging it
    finally:
        try:
            writer.close()
        except Exception:  # noqa: BLE001
            pass


async def _route(conn: _Conn, method: str, path: str, headers: dict, body: bytes) -> bool:
    """Answer one request; returns whether the connection may be kept."""
    parts = path.strip("/").split("/", 1)
    name, _, arg = parts[0].partition(".")
    rest = "/" + (parts[1] if len(parts) > 1 else "")
    if name in _ECHOING:
        handled = await _ECHOING[name](conn, method, rest, arg, headers, body)
        if handled is not None:
            return handled
    if rest == "/v1/models":
        if name == "sql_greedy" and arg:
            await conn.json(200, {"object": "list", "data": [
                {"id": MODEL, "object": "model", "owned_by": "vllm", "max_model_len": int(arg)}]})
        elif name == "deep_models":
            await conn.json(200, _deep(int(arg or 100_000)))
        else:
            await conn.json(200, {"object": "list", "data": [
                {"id": MODEL, "object": "model", "owned_by": "vllm", "max_model_len": 100000}]})
        return True
    if rest == "/tokenize":
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            req = {}
        text = req.get("prompt") or " ".join(
            str(m.get("content", "")) for m in req.get("messages", []) if isinstance(m, dict))
        count = len(str(text).split()) + 3
        await conn.json(200, {"count": -count if name == "tokenize_negative" else count,
                              "max_model_len": 100000})
        return True
    if rest == "/metrics":
        _METRICS_ASKED[name] = _METRICS_ASKED.get(name, 0) + 1
        return await _metrics(conn, name, arg)
    if rest == "/version":
        await conn.json(200, {"version": "0.0-hostile"})
        return True
    if rest in ("/v1/chat/completions", "/v1/completions") and method == "POST":
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            req = {}
        return await _chat(conn, name, arg, req, headers)
    await conn.json(404, {"error": {"message": f"no {path}"}})
    return True


async def _metrics(conn: _Conn, name: str, arg: str) -> bool:
    if name == "metrics_huge":
        mb = int(arg or 200)
        line = b"vllm:num_requests_running{model_name=\"m\",replica=\"%07d\"} 1\n"
        block = b"".join(line % i for i in range(_CHUNK // len(line % 0)))
        total = mb * 1024 * 1024
        await conn.send_head(200, {"Content-Type": "text/plain",
                                   "Content-Length": str(total)})
        sent = 0
        while sent < total:
            piece = block[: total - sent]
            await conn.send(piece)
            sent += len(piece)
        return True
    if name == "metrics_inf":
        text = ("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} "
                "+Inf\n# TYPE vllm:num_requests_waiting gauge\n"
                "vllm:num_requests_waiting{model_name=\"m\"} NaN\n"
                "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{model_name=\"m\"} "
                "+Inf\n# TYPE vllm:num_preemptions_total counter\n"
                "vllm:num_preemptions_total{model_name=\"m\"} NaN\n")
    else:
        text = ("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 1\n"
                "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 0\n"
                "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{model_name=\"m\"} 0.1\n")
    data = text.encode()
    await conn.send_head(200, {"Content-Type": "text/plain", "Content-Length": str(len(data))})
    await conn.send(data)
    return True


_SSE_HEAD = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
             "Connection": "close"}


def _tool_call(i: int, name: str, args) -> dict:
    return {"id": f"call_{i}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


# A query SQLite never finishes: only the sandbox's time limit (progress handler) ends it.
_ENDLESS_SQL = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                "SELECT count(*) FROM c")


async def _sql_chat(conn: _Conn, name: str, arg: str, req: dict) -> bool:
    """One non-streamed chat completion for the SQL agent (see the second table above)."""
    asked = req.get("max_tokens")
    prompt = len(json.dumps({k: req.get(k) for k in ("messages", "tools")})) // 4
    completion = asked if isinstance(asked, int) else 16
    step = sum(1 for m in req.get("messages", []) if m.get("role") == "assistant")
    content, calls, extra = None, [], {}
    if name == "sql_slow_calls":
        calls = [_tool_call(i, "run_sql", {"sql": _ENDLESS_SQL + f" -- {i}"})
                 for i in range(int(arg or 60))]
    elif name in ("sql_greedy", "sql_usage_negative", "sql_usage_huge", "sql_usage_null",
                  "sql_usage_nan"):
        ctx = int(arg) if name == "sql_greedy" and arg else None
        if ctx is not None and prompt + completion > ctx:
            await conn.json(400, {"object": "error", "message": (
                f"This model's maximum context length is {ctx} tokens. However, you requested "
                f"{prompt + completion} tokens ({prompt} in the messages, {completion} in the "
                "completion)."), "type": "BadRequestError", "code": 400})
            return True
        calls = [_tool_call(step, "run_sql", {"sql": f"SELECT {step}"})]
        if name == "sql_usage_negative":
            prompt = completion = -1_000_000
        elif name in ("sql_usage_null", "sql_usage_nan"):
            prompt = completion = None if name == "sql_usage_null" else float("nan")
        elif name == "sql_usage_huge":
            prompt = completion = 10**20
    elif name == "sql_parts":
        content = [{"type": "text", "text": "The answer:\n```sql\nSELECT 1\n"},
                   {"type": "text", "text": "```\n"}]
    elif name == "sql_content_number":
        content = 7
    elif name == "sql_tool_calls_7":
        extra = {"tool_calls": 7}
    elif name == "sql_huge_name":
        calls = [_tool_call(0, "x" * int(float(arg or 1) * 1024 * 1024), {"sql": "SELECT 1"})]
    elif name == "sql_text":
        content = "I would first look at the tables, then write the query."
    elif name == "sql_huge_args":
        size = int(float(arg or 8) * 1024 * 1024)
        calls = [_tool_call(step, "run_sql", {"sql": f"SELECT {step} /* " + "x" * size + " */"})]
    else:
        calls = [_tool_call(0, "submit_answer", {"sql": "SELECT 1"})]
    message = {"role": "assistant", "content": content, **extra}
    if calls:
        message["tool_calls"] = calls
    await conn.json(200, {
        "id": "chatcmpl-sql", "object": "chat.completion", "model": MODEL,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion}})
    return True


async def _chat(conn: _Conn, name: str, arg: str, req: dict, headers: dict) -> bool:
    if name == "html_login":
        page = b"<!doctype html><html><body><form action=/login>Sign in</form></body></html>"
        await conn.send_head(200, {"Content-Type": "text/html; charset=utf-8",
                                   "Content-Length": str(len(page))})
        await conn.send(page)
        return True
    if name in ("encoding", "encoding_error"):
        # Not what was asked for (Accept-Encoding: gzip, deflate); random-looking bytes, as
        # a br or zstd body is to a client that does not decode it.
        data = bytes((i * 131 + 7) % 256 for i in range(4096))
        await conn.send_head(500 if name == "encoding_error" else 200, {
            **_SSE_HEAD, "Content-Encoding": arg or "br", "Content-Length": str(len(data))})
        await conn.send(data)
        return False
    # The sql_ behaviours answer one JSON reply even to a streamed request (as a server that
    # ignores stream: true does; the SQL agent streams and takes it).
    if name.startswith("sql_") or (not req.get("stream") and name == "ok"):
        return await _sql_chat(conn, name, arg, req)
    n = max(1, min(int(req.get("max_tokens") or 8), 4096))
    cid = "chatcmpl-hostile"
    if name == "error_huge":
        mb = int(arg or 200)
        total = mb * 1024 * 1024
        prefix = b'{"error": {"message": "'
        await conn.send_head(500, {"Content-Type": "application/json",
                                   "Content-Length": str(total)})
        await conn.send(prefix)
        sent, block = len(prefix), b"x" * _CHUNK
        while sent < total:
            piece = block[: total - sent]
            await conn.send(piece)
            sent += len(piece)
        return True
    if name == "echo_auth":
        message = (f"refused: you sent Authorization: {headers.get('authorization', '-')} "
                   f"to http://{headers.get('host', '?')}/v1 "
                   f"(Bearer was {headers.get('authorization', '-').split(' ')[-1]})")
        await conn.json(400, {"error": {"message": message}})
        return True
    if name == "gzip_members":
        member = _gzip_bomb(1)  # one gzip member inflating to 1 MiB; members concatenate
        count = int(arg or 1024)
        await conn.send_head(200, {**_SSE_HEAD, "Content-Encoding": "gzip",
                                   "Content-Length": str(len(member) * count)})
        for _ in range(count):
            await conn.send(member)
        return False
    if name == "gzip_bomb":
        data = _gzip_bomb(int(arg or 64))
        await conn.send_head(200, {**_SSE_HEAD, "Content-Encoding": "gzip",
                                   "Content-Length": str(len(data))})
        await conn.send(data)
        return False
    if name == "metrics_inf":
        # A scraper asks again only once its last scrape was parsed and handed on; without
        # this wait the cell's two requests could end before the first scrape's sample
        # (a few ms each against a scrape's HTTP round trip and parse on a thread).
        asked = _METRICS_ASKED.get(name, 0)
        for _ in range(2000):
            if _METRICS_ASKED.get(name, 0) >= asked + 2:
                break
            await asyncio.sleep(0.005)
    await conn.send_head(200, _SSE_HEAD)
    if name == "huge_line":
        total = int(float(arg or 5) * 1024 * 1024)
        await conn.send(b'data: {"id": "x", "choices": [{"delta": {"content": "')
        sent, block = 0, b"a" * _CHUNK
        while sent < total:
            await conn.send(block)
            sent += len(block)
        await asyncio.sleep(3600)  # and never end the line
        return False
    if name == "endless":
        i = 0
        while True:
            await conn.send(_chunk(cid, f"w{i} "))
            i += 1
            if i % 10 == 0:
                await asyncio.sleep(0.001)
    if name == "slowloris":
        every = float(arg or 2)
        first = _chunk(cid, "w0 ")
        await conn.send(first[:1])
        while True:
            await asyncio.sleep(every)
            await conn.send(b":")
    if name == "deep_event":
        deep = _deep(int(arg or 100_000))
        await conn.send(b"data: " + deep + b"\n\n")
        await conn.send(b"data: [DONE]\n\n")
        return False
    if name in ("reasoning", "reasoning_alt"):
        field = "reasoning_content" if name == "reasoning" else "reasoning"
        await conn.send(_chunk(cid, None, None).replace(
            b'"delta": {}', b'"delta": {"role": "assistant", "content": ""}'))
        for i in range(int(arg or 5)):
            obj = {"id": cid, "object": "chat.completion.chunk", "model": MODEL,
                   "choices": [{"index": 0, "delta": {field: f"think{i} ", "content": None},
                                "finish_reason": None}]}
            await conn.send(b"data: " + json.dumps(obj).encode() + b"\n\n")
            await asyncio.sleep(0.02)
    for i in range(n):
        if name == "no_choices":
            obj = {"id": cid, "object": "chat.completion.chunk", "model": MODEL}
            if i % 2:
                obj["choices"] = None
            await conn.send(b"data: " + json.dumps(obj).encode() + b"\n\n")
        elif name == "surrogate":
            raw = (b'data: {"id": "chatcmpl-\\ud800x", "choices": [{"index": 0, "delta": '
                   b'{"content": "w\\ud800 \\udfff"}, "finish_reason": null}]}\n\n')
            await conn.send(raw)
        else:
            await conn.send(_chunk(cid, f"w{i} "))
    if name != "no_choices":
        await conn.send(_chunk(cid, None, "length"))
    prompt = 10
    if name == "usage_negative":
        usage = _usage(-5, -80)
    elif name == "usage_huge":
        usage = _usage(10**20, 10**20)
    elif name == "usage_prompt_million":
        usage = _usage(1_000_000, n)
    elif name == "usage_100x":
        usage = _usage(prompt, 100 * n)
    elif name in ("reasoning", "reasoning_alt"):
        usage = _usage(prompt, n + int(arg or 5))  # reasoning tokens are completion tokens
    else:
        usage = _usage(prompt, n)
    await conn.send(usage)
    await conn.send(b"data: [DONE]\n\n")
    return False


def _echoed(headers: dict) -> str:
    """What `echo_all` copies back: the Authorization header, and the pair a Basic token
    encodes, decoded (as a debugging proxy that shows "who you are" would)."""
    auth = headers.get("authorization", "-")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "basic":
        import base64

        try:
            auth += " = " + base64.b64decode(token).decode("utf-8", "replace")
        except ValueError:
            pass
    return auth


async def _echo_all(conn: _Conn, method: str, rest: str, arg: str, headers: dict,
                    body: bytes) -> bool | None:
    """`echo_all`: the caller's credentials in every reply (see the table above); None leaves
    a path to the plain server."""
    secret = _echoed(headers)
    unknown = arg == "unknown"
    # Headers hold no line breaks; the rest of the secret is copied as sent.
    head = {"Server": f"echo ({secret})", "X-Echo": secret}

    async def reply(status: int, obj) -> bool:
        data = json.dumps(obj).encode()
        await conn.send_head(status, {**head, "Content-Type": "application/json",
                                      "Content-Length": str(len(data))})
        await conn.send(data)
        return True

    if rest == "/v1/models":
        if arg == "models_error":
            return await reply(500, {"you_sent": secret})
        return await reply(200, {"object": "list", "data": [
            {"id": f"m {secret}", "object": "model", "owned_by": "echo" if unknown else "vllm",
             "max_model_len": 100000}]})
    if rest == "/version":
        if unknown:
            return await reply(404, {"error": {"message": f"no /version for {secret}"}})
        return await reply(200, {"version": f"0.0-echo {secret}"})
    if rest == "/metrics" and unknown:
        return await reply(404, {"error": {"message": "no /metrics"}})
    if rest not in ("/v1/chat/completions", "/v1/completions") or method != "POST":
        return None
    if arg == "error":
        return await reply(400, {"you_sent": secret})
    try:
        req = json.loads(body or b"{}")
    except ValueError:
        req = {}
    if not req.get("stream"):
        quoted = secret.replace("'", "''")
        call = _tool_call(0, "submit_answer", {"sql": f"SELECT '{quoted}' AS n"})
        call["id"] = f"call {secret}"
        return await reply(200, {
            "id": f"chatcmpl {secret}", "object": "chat.completion", "model": f"m {secret}",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": f"You sent {secret}", "tool_calls": [call]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 8}})
    await conn.send_head(200, {**_SSE_HEAD, **head})
    cid = f"chatcmpl {secret}"
    n = max(1, min(int(req.get("max_tokens") or 8), 4096))
    await conn.send(_chunk(cid, f"you sent {secret} "))
    for i in range(1, n):
        await conn.send(_chunk(cid, f"w{i} "))
    await conn.send(_chunk(cid, None, "length"))
    await conn.send(_usage(10, n))
    await conn.send(b"data: [DONE]\n\n")
    return False


# What `escape` puts where a terminal would act on it: clear the screen, set the window's
# title, a C1 control sequence introducer, a right-to-left override.
ESCAPES = "\x1b[2J\x1b]0;owned\x07\x9b31m\u202e"


async def _escape(conn: _Conn, method: str, rest: str, arg: str, headers: dict,
                  body: bytes) -> bool | None:
    if rest == "/v1/models":
        if arg == "error":
            await conn.json(500, {"error": {"message": f"overloaded {ESCAPES}end"}})
            return True
        await conn.json(200, {"object": "list", "data": [
            {"id": f"m{ESCAPES}x", "object": "model", "owned_by": "vllm",
             "max_model_len": 100000}]})
        return True
    if rest == "/version":
        await conn.json(200, {"version": f"0.1{ESCAPES}"})
        return True
    return await _plain_sql(conn, method, rest, body)


async def _long_model(conn: _Conn, method: str, rest: str, arg: str, headers: dict,
                      body: bytes) -> bool | None:
    if rest != "/v1/models":
        return await _plain_sql(conn, method, rest, body)
    await conn.json(200, {"object": "list", "data": [
        {"id": "x" * int(arg or 1_048_576), "object": "model", "owned_by": "vllm"},
        {"id": MODEL, "object": "model", "owned_by": "vllm", "max_model_len": 100000}]})
    return True


async def _plain_sql(conn: _Conn, method: str, rest: str, body: bytes) -> bool | None:
    """A non-streamed chat completion answered as `ok` answers it (a behaviour that is about
    discovery still lets the SQL agent finish); None for anything else."""
    if rest != "/v1/chat/completions" or method != "POST":
        return None
    req = json.loads(body or b"{}")
    return None if req.get("stream") else await _sql_chat(conn, "ok", "", req)


async def _drip(conn: _Conn, method: str, rest: str, arg: str, headers: dict,
                body: bytes, *, name: str) -> bool | None:
    """The drips: a server that keeps sending, too slowly to ever finish (see the table)."""
    every = float(arg or {"endless_slow": 0.05, "continue_forever": 0.3}.get(name, 0.5))
    chat = rest in ("/v1/chat/completions", "/v1/completions") and method == "POST"
    if name == "models_drip":
        if rest != "/v1/models":
            return None
        data = json.dumps({"object": "list", "data": [
            {"id": MODEL, "object": "model", "owned_by": "vllm"}]}).encode()
        await conn.send_head(200, {"Content-Type": "application/json",
                                   "Content-Length": str(len(data))})
        for i in range(len(data)):
            await conn.send(data[i:i + 1])
            await asyncio.sleep(every)
        return True
    if name == "head_drip":
        if rest not in ("/v1/models", "/v1/chat/completions", "/v1/completions"):
            return None
        await conn.send(b"HTTP/1.1 200 OK\r\nX-Pad: ")
        while True:  # one byte of a header that never ends
            await asyncio.sleep(every)
            await conn.send(b"a")
    if not chat:
        return None
    if name == "continue_forever":
        while True:
            await conn.send(b"HTTP/1.1 100 Continue\r\n\r\n")
            await asyncio.sleep(every)
    await conn.send_head(200, _SSE_HEAD)
    if name == "sse_drip":
        event = _chunk("chatcmpl-drip", "w0 ")
        while True:  # a valid event, one byte at a time, again and again
            for i in range(len(event)):
                await conn.send(event[i:i + 1])
                await asyncio.sleep(every)
    i = 0
    while True:  # endless_slow: a content chunk every `every` s, never a finish
        await conn.send(_chunk("chatcmpl-slow", f"w{i} "))
        i += 1
        await asyncio.sleep(every)


_ECHOING = {"echo_all": _echo_all, "escape": _escape, "long_model": _long_model,
            **{name: functools.partial(_drip, name=name) for name in (
                "head_drip", "sse_drip", "continue_forever", "endless_slow", "models_drip")}}


async def serve(host: str = "127.0.0.1", port: int = 0) -> asyncio.Server:
    return await asyncio.start_server(_handle, host, port, limit=1024 * 1024)


class HostileServer:
    """The hostile server on a thread of its own; a context manager."""

    def __init__(self) -> None:
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._server: asyncio.Server | None = None

    def url(self, behaviour: str = "ok", *, userinfo: str = "") -> str:
        at = f"{userinfo}@" if userinfo else ""
        return f"http://{at}127.0.0.1:{self.port}/{behaviour}/v1"

    def __enter__(self) -> HostileServer:
        def run() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(serve())
            self.port = self._server.sockets[0].getsockname()[1]
            self._ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._server.wait_closed())
            self._loop.close()

        self._thread = threading.Thread(target=run, name="hostile-server", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        loop = self._loop
        if loop is None:
            return

        async def shut() -> None:
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shut(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)


def main() -> None:
    async def run() -> None:
        server = await serve()
        print(server.sockets[0].getsockname()[1], flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(run())


if __name__ == "__main__":
    main()
