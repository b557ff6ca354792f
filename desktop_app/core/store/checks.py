"""Whether a results file can take a run, checked before anything is sent to a server; and
whether a cell's rows all reached it (`rows_landed`, for `Store.update_cell`).

`Store.open` calls `check_file` before it connects and `unusable_from` on any SQLite error while
it opens, migrates and writes its schema version (that write is the probe that the file takes
writes). Every caller that opens a store (the commands, the desktop app, the sweep's worker
process) so gets one `StoreUnusable` naming the path and what is wrong (its `code`), never a
traceback, and never after a server was contacted: the commands open the store first.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import threading
from pathlib import Path

from desktop_app.core.files import KIND_WORDS, LocalFileError, check_regular
from desktop_app.core.store.errors import StoreUnusable

MIN_FREE_BYTES = 4 * 1024 * 1024
"""Less free space than this where the file lives (bytes) is a full disk: a sweep stores about
0.25 MB per 1,000 requests, and SQLite needs room for its journal before the first row."""

_HEADER = b"SQLite format 3\x00"

# Results files this process holds open through SQLite (Store and its writers), by real path.
# Their header is never read with a plain open(): closing any descriptor of a file drops every
# POSIX lock this process holds on it (sqlite.org/howtocorrupt.html 2.2), SQLite's included,
# and another process then checkpoints under our readers ("file is not a database").
_OPEN_HERE: dict[str, int] = {}
_OPEN_LOCK = threading.Lock()


def _key(path: Path) -> str:
    return os.path.realpath(path)


def opened(path: Path) -> None:
    """Note that this process now holds `path` open through SQLite."""
    with _OPEN_LOCK:
        _OPEN_HERE[_key(path)] = _OPEN_HERE.get(_key(path), 0) + 1


def closed(path: Path) -> None:
    """Note that one of this process's SQLite holds on `path` is closed."""
    with _OPEN_LOCK:
        left = _OPEN_HERE.get(_key(path), 0) - 1
        if left > 0:
            _OPEN_HERE[_key(path)] = left
        else:
            _OPEN_HERE.pop(_key(path), None)


def _held_here(path: Path) -> bool:
    with _OPEN_LOCK:
        return _key(path) in _OPEN_HERE

# SQLite's primary result codes (https://sqlite.org/rescode.html) and what each means here.
_CODES = {3: "read_only", 8: "read_only", 5: "busy", 6: "busy", 10: "io_error", 11: "corrupt",
          13: "disk_full", 14: "cannot_open", 26: "not_a_database"}


def _os_problem(path: Path, exc: OSError) -> StoreUnusable:
    code = {errno.ENOSPC: "disk_full", errno.EDQUOT: "disk_full", errno.EROFS: "read_only",
            errno.EACCES: "read_only", errno.EPERM: "read_only",
            errno.EISDIR: "is_directory"}.get(exc.errno or 0, "cannot_open")
    return StoreUnusable(path, code, exc.strerror or str(exc))


def check_file(path: Path) -> None:
    """Raise `StoreUnusable` when the file at `path` (or the folder it would be made in) cannot
    hold a run: a folder, not SQLite, cut short, read-only, or on a full disk. Cheap: reads the
    file's first 100 bytes, never its pages (SQLite itself finds damage inside the file)."""
    if path.is_dir():
        raise StoreUnusable(path, "is_directory")
    try:  # a FIFO would hang the header read below; SQLite cannot use a device either
        check_regular(path)
    except LocalFileError as exc:
        if exc.code == "symlink_loop":
            raise StoreUnusable(path, "cannot_open", "it is a loop of symbolic links",
                                detail_code="symlink_loop") from None
        kind = str(exc.values.get("kind", "special"))
        raise StoreUnusable(path, "not_regular", f"it is a {KIND_WORDS.get(kind, kind)}",
                            detail_code="special_file", values={"kind": kind}) from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_problem(path, exc) from None
    if path.exists() and not _held_here(path):  # already open here: checked when it opened
        try:
            size = path.stat().st_size
            with path.open("rb") as f:
                head = f.read(100)
        except OSError as exc:
            raise _os_problem(path, exc) from None
        if size:  # an empty file is a new database to SQLite
            _check_header(path, head, size)
        if not os.access(path, os.W_OK):
            raise StoreUnusable(path, "read_only", "no write permission",
                                 detail_code="no_write_permission")
    where = path.parent
    if not os.access(where, os.W_OK) and not Path(f"{path}-wal").exists():
        raise StoreUnusable(path, "read_only", f"no write permission in {where}",
                             detail_code="no_write_permission_in", values={"where": str(where)})
    try:
        usage = shutil.disk_usage(where)
    except OSError:
        return
    if usage.total and usage.free < MIN_FREE_BYTES:
        raise StoreUnusable(path, "disk_full", f"{usage.free:,} bytes free in {where}",
                             detail_code="free_bytes",
                             values={"free": usage.free, "where": str(where)})


def _check_header(path: Path, head: bytes, size: int) -> None:
    if not head.startswith(_HEADER):
        if len(head) < len(_HEADER) and _HEADER.startswith(head):
            raise StoreUnusable(path, "truncated", f"only {size} bytes", detail_code="short_file",
                                 values={"size": size})
        raise StoreUnusable(path, "not_a_database", "its first bytes are not SQLite's header",
                            detail_code="no_sqlite_header")
    if len(head) < 100:
        raise StoreUnusable(path, "truncated", f"only {size} bytes, shorter than its header",
                            detail_code="shorter_than_header", values={"size": size})
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    # The page count in the header is valid only when the change counter matches
    # "version-valid-for" (sqlite.org/fileformat.html, 1.3.7). Pages still in a -wal file may
    # be checkpointed later, so a file with a -wal is not judged by its length.
    valid = pages and head[24:28] == head[92:96]
    wal = Path(f"{path}-wal")
    if valid and size < pages * page and not (wal.exists() and wal.stat().st_size):
        raise StoreUnusable(path, "truncated",
                            f"{size:,} bytes where its header says {pages * page:,}",
                            detail_code="shorter_than_pages",
                            values={"size": size, "expected": pages * page})


def unusable_from(path: Path, exc: sqlite3.Error) -> StoreUnusable:
    """The `StoreUnusable` for an SQLite error met while opening `path`."""
    primary = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    code = _CODES.get(primary)
    if code is None:
        low = text.lower()
        code = ("read_only" if "readonly" in low or "read-only" in low
                else "disk_full" if "full" in low
                else "io_error" if "disk i/o error" in low
                else "corrupt" if "malformed" in low
                else "not_a_database" if "not a database" in low
                else "cannot_open")
    return StoreUnusable(path, code, text)


def rows_landed(writers, cell_id: int) -> tuple[int, int, str | None]:
    """(request rows of cell `cell_id` handed to `writers`, how many are committed, the last
    write error or None), once each writer has tried everything queued (`RunWriter.sync`)."""
    handed = stored = 0
    why = None
    for writer in writers:
        writer.sync()
        h, s, error = writer.cell_rows(cell_id)
        handed, stored = handed + h, stored + s
        why = why or error
    return handed, stored, why
