"""An incremental Server-Sent Events parser: bytes in as they arrive, complete events out.

Pure (no I/O, no clock), so the client can stamp each event with the time of the read that
completed it. It follows the WHATWG event-stream rules that matter for LLM servers:

* lines end with `\\n`, `\\r\\n` or a lone `\\r`, and a `\\r\\n` pair may be split across reads;
* an event is its `data:` lines joined with `\\n`, dispatched at a blank line; one space after
  the colon is dropped; events with no data line (only `event:`/`id:`/`retry:`) are skipped;
* comment lines (`: ping`, sent by llama-cpp-python every 15 s) are ignored;
* a leading UTF-8 byte-order mark is dropped.

Bounded: a line, or one event's data lines together, longer than `MAX_SSE_LINE_BYTES` (4 MiB,
`limits.py`) raises `SSELineTooLong`; a long line's pieces are joined once, so feeding costs
linear time whatever the split.

One deliberate departure: `close()` dispatches a final event that lacks its blank line (the
standard discards it) because a server that ends its stream right after `data: [DONE]` still
means it. `[DONE]` itself is returned like any other payload: the caller decides what it means.
"""

from __future__ import annotations

from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.limits import SSELineTooLong

__all__ = ["SSELineTooLong", "SSEParser", "parse_all"]

_BOM = b"\xef\xbb\xbf"


class SSEParser:
    """Feed bytes with `feed()`, get the data payload (str) of every event they complete.

    Splitting the same bytes into reads differently never changes the events, only which
    `feed()` call returns them. Call `close()` when the stream ends.
    """

    __slots__ = ("_buf", "_buf_len", "_data", "_data_len", "_max_line", "_skip_lf", "_started")

    def __init__(self, max_line_bytes: int | None = None) -> None:
        # The unfinished last line, as the pieces it arrived in (never containing b"\r"):
        # joined once when its end arrives, so a long line costs linear time, not quadratic.
        self._buf: list[bytes] = []
        self._buf_len = 0
        self._data: list = []  # data lines of the event being read (bytes: ByteSSEParser)
        self._data_len = 0
        self._skip_lf = False  # the previous read ended with b"\r": a b"\n" next ends no line
        self._started = False  # past the optional byte-order mark
        # A line (or one event's data lines together) longer than this raises SSELineTooLong;
        # None: the module default, limits.MAX_SSE_LINE_BYTES, read now.
        self._max_line = limits.MAX_SSE_LINE_BYTES if max_line_bytes is None else max_line_bytes

    def _too_long(self, size: int, what: str = "an SSE line") -> SSELineTooLong:
        return SSELineTooLong(f"SSELineTooLong: {what} passed {limits.mib(self._max_line)} "
                              f"({size:,} bytes without a line end)", limit=self._max_line)

    def feed(self, chunk: bytes) -> list[str]:
        """The payloads of the events completed by `chunk` (often one, may be none or several).

        Raises SSELineTooLong when a line or an event's data passes the limit."""
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
        if not self._started:
            if self._buf:
                chunk = b"".join(self._buf) + chunk
                self._buf, self._buf_len = [], 0
            if len(chunk) < len(_BOM) and _BOM.startswith(chunk):
                if chunk:
                    self._buf, self._buf_len = [chunk], len(chunk)  # maybe a BOM's start
                return []
            self._started = True
            if chunk.startswith(_BOM):
                chunk = chunk[len(_BOM):]
        end = chunk.rfind(b"\n")
        if end < 0:
            self._buf.append(chunk)
            self._buf_len += len(chunk)
            if self._buf_len > self._max_line:
                raise self._too_long(self._buf_len)
            return []
        head, tail = chunk[:end], chunk[end + 1:]
        if self._buf:
            first = chunk.find(b"\n")
            if self._buf_len + first > self._max_line:
                raise self._too_long(self._buf_len + first)
            self._buf.append(head)
            head = b"".join(self._buf)
        self._buf, self._buf_len = ([tail], len(tail)) if tail else ([], 0)
        if len(tail) > self._max_line:
            raise self._too_long(len(tail))
        lines = head.split(b"\n")
        events: list[str] = []
        for line in lines:
            if len(line) > self._max_line:
                raise self._too_long(len(line))
            self._line(line, events)
        return events

    def close(self) -> list[str]:
        """The payload of a last event the stream ended without a blank line for, if any."""
        events: list[str] = []
        if self._buf:
            line = b"".join(self._buf)
            self._buf, self._buf_len = [], 0
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
                self._data, self._data_len = [], 0
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
        self._data_len += len(value) + 1
        if self._data_len > self._max_line:
            raise self._too_long(self._data_len, "an SSE event's data")
        self._data.append(value.decode("utf-8", "replace"))


def parse_all(data: bytes) -> list[str]:
    """Every event payload in a complete byte stream (a convenience for tests and tools)."""
    parser = SSEParser()
    return parser.feed(data) + parser.close()
