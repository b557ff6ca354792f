"""Write a set of files all or nothing: each to a temporary file beside its target, then rename.

A reader never sees a half-written export: until every file is complete none has its final name,
and on any failure the temporary files are removed and earlier targets are left as they were.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from desktop_app.core.exchange.errors import ExchangeError

Writer = Callable[[IO[str]], None]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_out_dir(out_dir: Path) -> Path:
    """Create ``out_dir`` if needed and check it can be written; ExchangeError on ``--out``."""
    out_dir = Path(out_dir).expanduser()
    if out_dir.exists() and not out_dir.is_dir():
        raise ExchangeError("--out", f"{out_dir} is a file, not a folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExchangeError("--out", f"cannot create {out_dir}: {exc.strerror or exc}") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise ExchangeError("--out", f"{out_dir} is not writable")
    return out_dir


def write_all(files: Sequence[tuple[Path, Writer]]) -> list[Path]:
    """Write every ``(path, writer)`` pair (``writer`` fills a text stream, UTF-8, ``\\n`` line
    ends) and return the paths. Nothing is left under a final name unless all succeeded."""
    temps: list[tuple[str, Path]] = []
    try:
        for path, writer in files:
            fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
            temps.append((temp, path))
            os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes 0600; an export is a normal file
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
                writer(stream)
                stream.flush()
                os.fsync(stream.fileno())
        for temp, path in temps:
            os.replace(temp, path)
    except OSError as exc:
        for temp, _ in temps:
            try:
                os.unlink(temp)
            except FileNotFoundError:
                pass
        target = files[len(temps) - 1][0] if temps else files[0][0]
        raise ExchangeError("--out", f"cannot write {target}: {exc.strerror or exc}") from None
    except BaseException:
        for temp, _ in temps:
            try:
                os.unlink(temp)
            except FileNotFoundError:
                pass
        raise
    return [path for path, _ in files]
