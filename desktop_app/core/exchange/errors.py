"""The one error an export or import raises for bad input, and how a file is read for import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_app.core.files import LocalFileError, read_bounded
from desktop_app.core.parsing import InputError

MAX_IMPORT_BYTES = 512 * 1024 * 1024
"""The largest results file an import reads (bytes): a vllm bench serve --save-detailed file of
100,000 requests at 128 output tokens is about 0.3 GB."""


class ExchangeError(InputError):
    """An export or import that cannot be done; the message names the run, file or line.

    A subclass of :class:`InputError`, so the command line shows it as one line and exits 2.
    ``field`` is what the message is about: ``--run``, ``--out`` or the input file's path.
    Line breaks that a file's own text brings into the message are shown as ``\\n``, so it
    stays one line whatever the file holds.
    """

    def __init__(self, field: str, message: str = "", *, code: str = "", **params) -> None:
        def one_line(text: str) -> str:
            return text.replace("\r", "\\r").replace("\n", "\\n")

        if code and not message:  # the code's English, kept to one line like any message
            from desktop_app.core.parsing import INPUT_MESSAGES

            message = INPUT_MESSAGES[code].format(**params)
        super().__init__(one_line(field), one_line(message), code=code, **params)


def read_text(path: Path) -> str:
    """The file's text as UTF-8; ExchangeError naming the file (and the byte) when it is not, or
    when it is not a regular file of at most MAX_IMPORT_BYTES (`core.files.read_bounded`)."""
    try:
        data = read_bounded(path, MAX_IMPORT_BYTES, what="an imported results file")
    except LocalFileError as exc:
        values: dict[str, Any] = dict(exc.values)
        raise ExchangeError(str(path), exc.text, code=f"file_{exc.code}", **values) from None
    try:
        text = data.decode("utf-8-sig")  # a BOM from a Windows editor is not an error
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ExchangeError(str(path), code="not_utf8", line=line, byte=data[exc.start],
                            offset=exc.start) from None
    if not text.strip():
        raise ExchangeError(str(path), code="empty_file")
    return text


def parse_json(path: Path, text: str) -> Any:
    """``text`` parsed as JSON; ExchangeError naming the file and line when it is cut or broken."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ExchangeError(str(path), code="json_too_deep") from None
    except json.JSONDecodeError as exc:
        raise _json_problem(path, text, exc) from None


def _json_problem(path: Path, text: str, exc: json.JSONDecodeError,
                  line_offset: int = 0) -> ExchangeError:
    # A file cut short fails at its very end, or in a string left open to the end: name the
    # last line, where the cut is. Anything else is broken where the parser stopped.
    end = len(text.rstrip())
    if exc.pos >= end or exc.msg.startswith("Unterminated string"):
        last = text.count("\n", 0, end) + 1 + line_offset
        return ExchangeError(str(path), code="json_truncated", line=last)
    return ExchangeError(str(path), code="json_invalid", line=exc.lineno + line_offset,
                         detail=exc.msg)


def parse_json_lines(path: Path, text: str) -> list[Any]:
    """One JSON document per non-empty line (``vllm bench serve --append-result`` writes these)."""
    docs = []
    # Split on "\n" only: str.splitlines() also cuts at U+2028 and other separators that JSON
    # allows raw inside strings (orjson, which AIPerf uses, writes them so).
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            docs.append(json.loads(line))
        except RecursionError:
            raise ExchangeError(str(path), code="json_line_too_deep", line=number) from None
        except json.JSONDecodeError as exc:
            raise _json_problem(path, line, exc, number - 1) from None
    return docs
