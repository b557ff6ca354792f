"""What the command line writes to the terminal passes one gate.

Every command prints what servers said (model ids, engine versions, error bodies), what the
user typed (a base URL with `user:password@`) and what the store holds. Rather than each print
remembering to redact, `cli.main` swaps `sys.stdout` and `sys.stderr` for `ShownStream`s for
the whole command: every write passes `redact.shown` (credentials blanked, every form of every
remembered key and password, URLs without `user:password@`; control characters a terminal
would act on replaced one for one). The app's own cursor controls (a progress line's
carriage return and erase) go through `control`, the one way past the gate.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from desktop_app.core.redact import shown

__all__ = ["ShownStream", "control", "shown_output"]


class ShownStream:
    """A text stream whose writes pass `redact.shown`; anything else (isatty, fileno, flush,
    encoding, buffer) is the wrapped stream's."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: Any) -> int:
        if isinstance(text, str):
            self.raw.write(shown(text))
            return len(text)
        return self.raw.write(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def control(self, sequence: str) -> None:
        """Write the app's own terminal controls (`"\\r\\x1b[2K"`) as they are."""
        self.raw.write(sequence)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def control(stream, sequence: str) -> None:
    """Write a cursor control of the app's own to `stream`, past a `ShownStream`'s gate."""
    getattr(stream, "control", stream.write)(sequence)


@contextmanager
def shown_output() -> Iterator[None]:
    """`sys.stdout` and `sys.stderr` wrapped in `ShownStream`s until the block ends."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ShownStream(out), ShownStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
