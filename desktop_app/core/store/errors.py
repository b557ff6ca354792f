"""The store's errors: one for an unusable file, one for an id that is not there."""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """The results file cannot be used: wrong format, newer schema, or a failed background write."""


# What a missing id is (`NotFoundError.what`), in the exception's own English.
MISSING_WORDS = {"run": "run", "cell": "cell", "question_row": "SQL question row"}


class NotFoundError(StoreError, LookupError):
    """No run, cell or question with the given id: `what` (a MISSING_WORDS code), `id` and
    `path` say which, for the reader's language (`report.store_words`)."""

    def __init__(self, what: str, id: object, path: Path | str) -> None:
        super().__init__(f"no {MISSING_WORDS[what]} {id} in {path}")
        self.what, self.id, self.path = what, id, str(path)


# What each problem code says in the exception's own (English) message, for logs and the
# English words of report/store_words.py, which renders the codes for a reader.
PROBLEM_WORDS = {
    "is_directory": "is a folder, not a results file",
    "not_regular": "is not a regular file (a pipe or a device cannot hold results)",
    "not_a_database": "is not an SQLite database (not a Throughline results file)",
    "truncated": "is truncated (cut short)",
    "corrupt": "is corrupt",
    "not_throughline": "is an SQLite file but not a Throughline results database",
    "newer_schema": "was written by a newer Throughline",
    "read_only": "cannot be written (read-only)",
    "disk_full": "cannot be written: the disk is full",
    "busy": "is locked by another process",
    "io_error": "could not be read or written (a disk error, a quota or a file-size limit)",
    "cannot_open": "cannot be opened",
}
STORE_PROBLEMS = tuple(PROBLEM_WORDS)
"""The codes of :class:`StoreUnusable`, each one way a results file cannot be used."""

DETAIL_CODES = ("no_write_permission", "no_write_permission_in", "free_bytes", "short_file",
                "no_sqlite_header", "shorter_than_header", "shorter_than_pages",
                "no_schema_version", "schema_too_new", "symlink_loop", "special_file", "missing_tables")
"""What Throughline itself found wrong (`StoreUnusable.detail_code`), as opposed to what the
system or SQLite said."""


class StoreUnusable(StoreError):
    """The results file at `path` cannot be opened for a run (found before anything is sent)
    or, met by a run's writer, written any more.

    `code` is one of :data:`STORE_PROBLEMS` (a GUI or CLI puts it in words); `detail` is what
    the system or SQLite said, or, when Throughline itself found it, the same in English with
    `detail_code` (one of :data:`DETAIL_CODES`) and its `values` for the words catalogue
    (`report/store_words.py`). The message (English) names the path and what is wrong.
    """

    def __init__(self, path: Path | str, code: str, detail: str = "", *,
                 detail_code: str | None = None, values: dict | None = None) -> None:
        self.path, self.code, self.detail = Path(path), code, detail
        self.detail_code, self.values = detail_code, dict(values or {})
        what = PROBLEM_WORDS.get(code, code)
        super().__init__(f"results database {self.path} {what}"
                         + (f": {detail}" if detail else ""))

    def __reduce__(self):
        # Raised in a worker process and shown by the window: it must cross a pipe whole.
        return (_unusable, (self.path, self.code, self.detail, self.detail_code, self.values))


def _unusable(path, code, detail, detail_code, values) -> StoreUnusable:
    return StoreUnusable(path, code, detail, detail_code=detail_code, values=values)
