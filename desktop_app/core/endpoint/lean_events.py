"""The lean path's per-event accounting (`endpoint.lean`): SSE events as bytes, and plain
content events counted from their bytes.

`ByteSSEParser` is `sse.SSEParser` (same line rules, byte-order mark and limits) returning each
event's data as bytes. `LeanStream` is `client._Stream` (the httpx path's accounting, whose
`result()` makes the StreamResult) with `on_bytes`: the first content event of a stream is
parsed in full and, when its bytes are `prefix + "piece" + suffix` with nothing escaped, a later
event with the same prefix and suffix and an unescaped piece between them is the same JSON with
another piece, so it is counted (and its text kept) without parsing. Everything else goes
through `_Stream.on_event` as on the httpx path.
"""

from __future__ import annotations

import json
import re
from typing import Protocol

from desktop_app.core.endpoint import limits as _limits
from desktop_app.core.endpoint.client import _Stream
from desktop_app.core.endpoint.sse import SSEParser

__all__ = ["ByteSSEParser", "LeanStream"]

# A piece between a learnt prefix and suffix may be counted unparsed only if it holds no quote,
# backslash or control character (then it is one JSON string with no escapes).
_UNSAFE = re.compile(rb'["\\\x00-\x1f]')
_LEARN_TRIES = 4  # content events parsed twice while looking for a template, at most


class ByteEvents(Protocol):
    """A `ByteSSEParser` as its reader sees it: SSEParser's calls, each event's data bytes."""

    def feed(self, chunk: bytes) -> list[bytes]: ...

    def close(self) -> list[bytes]: ...


class ByteSSEParser(SSEParser):
    """`SSEParser` (same line rules, BOM, limits) returning each event's data as bytes."""

    __slots__ = ()

    def _line(self, line: bytes, events: list) -> None:
        if not line:
            if self._data:
                events.append(self._data[0] if len(self._data) == 1 else b"\n".join(self._data))
                self._data, self._data_len = [], 0
            return
        if line.startswith(b"data:"):
            value = line[5:]
        elif line[:1] == b":":
            return
        else:
            field, _, value = line.partition(b":")
            if field != b"data":
                return
        if value[:1] == b" ":
            value = value[1:]
        self._data_len += len(value) + 1
        if self._data_len > self._max_line:
            raise self._too_long(self._data_len, "an SSE event's data")
        self._data.append(value)


class LeanStream(_Stream):
    """`_Stream` that counts plain content events from their bytes (see the module's words)."""

    __slots__ = ("_prefix", "_suffix", "_plen", "_slen", "_tries")

    def __init__(self, usage_asked: bool) -> None:
        super().__init__(usage_asked)
        self._prefix: bytes | None = None
        self._suffix = b""
        self._plen = self._slen = 0
        self._tries = _LEARN_TRIES

    def on_bytes(self, data: bytes, now: int) -> None:
        """Account for one SSE payload (bytes) that arrived at `now` (perf_counter_ns)."""
        prefix = self._prefix
        if (prefix is not None and data.startswith(prefix) and data.endswith(self._suffix)
                and len(data) > self._plen + self._slen):
            piece = data[self._plen:len(data) - self._slen]
            if not _UNSAFE.search(piece):
                if self.text_chars < _limits.MAX_STREAM_TEXT_CHARS:
                    text = piece.decode("utf-8", "replace")
                    self.parts.append(text)
                    self.text_chars += len(text)
                self.chunk_times.append(now)
                if self.first_answer_ns is None:
                    self.first_answer_ns = now
                return
        if data == b"[DONE]":
            self.done = True
            return
        before = len(self.chunk_times)
        self.on_event(data.decode("utf-8", "replace"), now)
        if prefix is None and self._tries and len(self.chunk_times) > before:
            self._tries -= 1
            self._learn(data)

    def _learn(self, data: bytes) -> None:
        """Take `data` (a content event already accounted for) as the template of plain
        content events if it is one: one choice, a non-empty string piece, nothing escaped."""
        if b"\\" in data:
            return
        try:
            obj = json.loads(data)  # on_event parsed it already: depth-checked, valid
        except ValueError:
            return
        if not isinstance(obj, dict) or obj.get("usage") or "error" in obj:
            return
        choices = obj.get("choices")
        if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], dict):
            return
        choice = choices[0]
        if choice.get("finish_reason"):
            return
        delta = choice.get("delta")
        if delta is not None:
            if not isinstance(delta, dict):
                return
            piece, key = delta.get("content"), b'"content":'
        else:
            piece, key = choice.get("text"), b'"text":'
        if not isinstance(piece, str) or not piece:
            return
        needle = key + b'"' + piece.encode("utf-8", "surrogatepass") + b'"'
        if data.count(needle) != 1:
            return
        start = data.index(needle) + len(key) + 1
        end = start + len(needle) - len(key) - 2
        self._prefix, self._suffix = data[:start], data[end:]
        self._plen, self._slen = start, len(data) - end
