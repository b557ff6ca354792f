"""The results file's connections blank every secret this process knows from what they write.

A server can copy the request's `Authorization` header into anything it answers (an error, the
content, a model id, a tool call), and what it answers is stored in many columns by many
callers: a run's model and engine, a request's response id, a step's reply JSON, a query's
result. Rather than each caller remembering to redact, every parameter bound to a statement on
the store's connections passes `redact.redact_known` (each remembered secret in each of its
written forms, JSON-escaped included, so `*_json` text is covered too): nothing that enters the
file can carry a known key, password or Basic token. Free-text errors still get the fuller
`redact_text` where the row specs say so (`tables._TableSpec.redacted`).

With no secret known (no key, no `user:password@` URL) a statement is bound as given; with some,
each string parameter costs one substring search per form (a few microseconds a row).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any, Self

from desktop_app.core.redact import known_secrets, redact_known

__all__ = ["RedactingConnection", "RedactingCursor"]


def _blank(params: Any) -> Any:
    if isinstance(params, Mapping):
        return {k: redact_known(v) if isinstance(v, str) else v for k, v in params.items()}
    if isinstance(params, (tuple, list)):
        return tuple(redact_known(v) if isinstance(v, str) else v for v in params)
    return params


class RedactingCursor(sqlite3.Cursor):
    """A cursor whose bound parameters are redacted (`_blank`)."""

    def execute(self, sql: str, parameters: Any = (), /) -> Self:
        if known_secrets():
            parameters = _blank(parameters)
        return super().execute(sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> Self:
        if known_secrets():
            seq_of_parameters = map(_blank, seq_of_parameters)
        return super().executemany(sql, seq_of_parameters)


class RedactingConnection(sqlite3.Connection):
    """`sqlite3.connect(..., factory=RedactingConnection)`: `execute`, `executemany` and the
    cursors it hands out redact their parameters. (`executescript` takes no parameters; the
    store builds no SQL text from values.)"""

    # Typed loosely: sqlite3's own signature is a pair of overloads on the factory's type.
    def cursor(self, factory: Any = RedactingCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        # sqlite3.Connection.execute makes its cursor in C, past `cursor()`: go through ours.
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> sqlite3.Cursor:
        return self.cursor().executemany(sql, seq_of_parameters)
