"""Write a set of files all or nothing: each to a temporary file beside its target, then rename.

A reader never sees a half-written export: until every file is complete none has its final name,
and on any failure the temporary files are removed and earlier targets are left as they were.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from desktop_app.core.exchange.errors import ExchangeError

Writer = Callable[[IO[str]], None]


def _read_umask() -> int:
    # Reading it means setting it for a moment, so it is read once, at import, not while other
    # threads may be creating files.
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def current_umask() -> int:
    """The process's umask, as it was when this module was imported."""
    return _UMASK


def check_out_dir(out_dir: Path) -> Path:
    """Create ``out_dir`` if needed and check it can be written; ExchangeError on ``--out``."""
    out_dir = Path(out_dir).expanduser()
    if out_dir.exists() and not out_dir.is_dir():
        raise ExchangeError("--out", code="out_is_file", path=out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExchangeError("--out", code="out_cannot_create", path=out_dir,
                            error=exc.strerror or exc) from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise ExchangeError("--out", code="out_not_writable", path=out_dir)
    return out_dir


def _remove(path: str | Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def write_all(files: Sequence[tuple[Path, Writer]]) -> list[Path]:
    """Write every ``(path, writer)`` pair (``writer`` fills a text stream, UTF-8) and return
    the paths. All or nothing: each file goes to a temporary file beside its target first; only
    when all are complete are they renamed into place, and a file already there is kept aside
    until then, so a failure at any point (a full disk, a writer's error) restores the folder as
    it was. ExchangeError naming ``--out`` for an OSError; other errors are re-raised."""
    temps: list[tuple[str, Path]] = []
    kept: list[tuple[str, Path]] = []  # (the earlier file, moved aside; its place)
    placed: list[Path] = []
    current = files[0][0] if files else None
    try:
        for path, writer in files:
            current = path
            fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
            temps.append((temp, path))
            os.chmod(temp, 0o666 & ~current_umask())  # mkstemp makes 0600; exports are shared
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
                writer(stream)
                stream.flush()
                os.fsync(stream.fileno())
        for temp, path in temps:
            current = path
            if path.exists():
                fd, aside = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".old",
                                             dir=path.parent)
                os.close(fd)
                os.replace(path, aside)
                kept.append((aside, path))
            os.replace(temp, path)
            placed.append(path)
    except BaseException as exc:
        for path in placed:
            _remove(path)
        for aside, path in kept:
            with contextlib.suppress(OSError):
                os.replace(aside, path)
        for temp, _ in temps:
            _remove(temp)
        if isinstance(exc, OSError):
            raise ExchangeError("--out", code="cannot_write", path=current,
                                error=exc.strerror or exc) from None
        raise
    for aside, _ in kept:
        _remove(aside)
    return [path for path, _ in files]
