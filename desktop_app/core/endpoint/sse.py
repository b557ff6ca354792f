"""An incremental Server-Sent Events parser: bytes in as they arrive, complete events out.

Pure (no I/O, no clock), so the client can stamp each event with the time of the read that
completed it. It follows the WHATWG event-stream rules that matter for LLM servers:

* lines end with `\\n`, `\\r\\n` or a lone `\\r`, and a `\\r\\n` pair may be split across reads;
* an event is its `data:` lines joined with `\\n`, dispatched at a blank line; one space after
  the colon is dropped; events with no data line (only `event:`/`id:`/`retry:`) are skipped;
* comment lines (`: ping`, sent by llama-cpp-python every 15 s) are ignored;
* a leading UTF-8 byte-order mark is dropped.

One deliberate departure: `close()` dispatches a final event that lacks its blank line (the
standard discards it) because a server that ends its stream right after `data: [DONE]` still
means it. `[DONE]` itself is returned like any other payload: the caller decides what it means.
"""

from __future__ import annotations

__all__ = ["SSEParser", "parse_all"]

_BOM = b"\xef\xbb\xbf"


class SSEParser:
    """Feed bytes with `feed()`, get the data payload (str) of every event they complete.

    Splitting the same bytes into reads differently never changes the events, only which
    `feed()` call returns them. Call `close()` when the stream ends.
    """

    __slots__ = ("_buf", "_data", "_skip_lf", "_started")

    def __init__(self) -> None:
        self._buf = b""  # the unfinished last line (never contains b"\r")
        self._data: list[str] = []  # data lines of the event being read
        self._skip_lf = False  # the previous read ended with b"\r": a b"\n" next ends no line
        self._started = False  # past the optional byte-order mark

    def feed(self, chunk: bytes) -> list[str]:
        """The payloads of the events completed by `chunk` (often one, may be none or several)."""
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if b"\r" in chunk:
            # Normalise line ends once per read; a trailing b"\r" may be half of a b"\r\n".
            self._skip_lf = chunk[-1:] == b"\r"
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if self._buf:
            chunk = self._buf + chunk
        if not self._started:
            if len(chunk) < len(_BOM) and _BOM.startswith(chunk):
                self._buf = chunk  # maybe the start of a BOM: wait for more
                return []
            self._started = True
            if chunk.startswith(_BOM):
                chunk = chunk[len(_BOM):]
        lines = chunk.split(b"\n")
        self._buf = lines.pop()
        events: list[str] = []
        for line in lines:
            self._line(line, events)
        return events

    def close(self) -> list[str]:
        """The payload of a last event the stream ended without a blank line for, if any."""
        events: list[str] = []
        if self._buf:
            line, self._buf = self._buf, b""
            if not self._started and line.startswith(_BOM):
                line = line[len(_BOM):]
            self._line(line, events)
        self._started = True
        self._line(b"", events)
        return events

    def _line(self, line: bytes, events: list[str]) -> None:
        if not line:
            if self._data:
                events.append("\n".join(self._data))
                self._data = []
            return
        # b"\n" never occurs inside a multi-byte UTF-8 character, so lines decode whole.
        if line.startswith(b"data:"):
            value = line[5:]
        elif line[:1] == b":":
            return  # a comment (keep-alive ping)
        else:
            field, _, value = line.partition(b":")
            if field != b"data":
                return  # event:, id:, retry: and unknown fields carry nothing we use
        if value[:1] == b" ":
            value = value[1:]
        self._data.append(value.decode("utf-8", "replace"))


def parse_all(data: bytes) -> list[str]:
    """Every event payload in a complete byte stream (a convenience for tests and tools)."""
    parser = SSEParser()
    return parser.feed(data) + parser.close()
