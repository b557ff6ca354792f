"""Helpers shared by the simulator tests: read SSE streams the way a careful client does."""

from __future__ import annotations

import json

import httpx

CHAT = "/v1/chat/completions"
COMPLETIONS = "/v1/completions"
MODEL = "sim/llama-sim-8b"


def chat_body(max_tokens: int = 8, stream: bool = True, usage: bool | None = None,
              content: str = "hello there", **extra) -> dict:
    """A chat request body; `usage` sets stream_options.include_usage when not None."""
    body = {"model": MODEL, "messages": [{"role": "user", "content": content}],
            "max_tokens": max_tokens, "stream": stream, **extra}
    if usage is not None:
        body["stream_options"] = {"include_usage": usage}
    return body


def read_sse(response: httpx.Response) -> tuple[list[dict], list[str]]:
    """(parsed data events, raw data payloads that were not JSON); [DONE] is kept as raw."""
    events, raw = [], []
    for line in response.iter_lines():
        if not line.startswith("data: "):
            continue
        data = line[len("data: "):]
        try:
            events.append(json.loads(data))
        except ValueError:
            raw.append(data)
    return events, raw


def stream(client: httpx.Client, path: str, body: dict, headers: dict | None = None,
           ) -> tuple[httpx.Response, list[dict], list[str]]:
    with client.stream("POST", path, json=body, headers=headers) as response:
        if response.status_code != 200:
            response.read()
            return response, [], []
        events, raw = read_sse(response)
    return response, events, raw


def classify(client: httpx.Client, body: dict, headers: dict | None = None) -> str | None:
    """Which failure a client observes on one streamed request (None: a clean stream).

    The classes are those of the simulator's fault kinds, inferred only from what the client
    sees: so comparing them with the server's trace checks that each fault looks as it should.
    """
    got_headers = False
    try:
        with client.stream("POST", CHAT, json=body, headers=headers) as response:
            got_headers = True
            if response.status_code == 500:
                return "http500"
            if response.status_code == 429:
                assert response.headers.get("retry-after")
                return "http429"
            events, raw = read_sse(response)
    except (httpx.RemoteProtocolError, httpx.ReadError):
        return "reset" if got_headers else "disconnect"
    if [r for r in raw if r != "[DONE]"]:
        return "bad_sse"
    if "[DONE]" not in raw:
        return "cut"
    if body.get("stream_options", {}).get("include_usage") and not any(
        "usage" in e for e in events
    ):
        return "no_usage"
    return None


def content_tokens(events: list[dict]) -> list[str]:
    """The non-empty content deltas of a chat stream, one per chunk."""
    out = []
    for e in events:
        for choice in e.get("choices", []):
            text = choice.get("delta", {}).get("content")
            if text:
                out.append(text)
    return out


def record_eval(db, base_url: str, ids: str, *more: str) -> None:
    """A SQL evaluation of sales-25's questions `ids` against `base_url`, stored in `db` (the
    conversations a replay sends again)."""
    import pytest

    from desktop_app.cli import main

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("THROUGHLINE_DB", str(db))
        assert main(["sqleval", "--base-url", base_url, "--questions", "sales-25",
                     "--ids", ids, *more]) == 0
