"""Reading a file the user named, bounded, and keeping a path inside the folder it belongs to.

Every file Throughline reads because a user pointed at it (a results file to import, a question
set, a gold CSV, a sweep file) goes through :func:`read_bounded`, so each caller refuses the same
hostile inputs the same way instead of each with its own ``read_bytes()``:

- a FIFO, a device (``/dev/zero``, ``/dev/urandom``) or a socket: ``read_bytes()`` blocks on a
  FIFO with no writer and reads a device until memory runs out. The file is opened with
  ``O_NONBLOCK`` (which returns at once for a FIFO) and refused unless ``fstat`` says regular.
- a file larger than the caller's bound, sparse ones included: refused by its size before one
  byte is read, and never more than the bound is read should it grow meanwhile.
- a symlink loop: named as one (``pathlib.resolve`` raises RuntimeError on it, a traceback).

:func:`inside` resolves a path and refuses it when it leads out of its folder: a gold file that
is a symlink to ``/etc/shadow`` in a downloaded archive, a set name of ``../../..``.

The errors carry a ``code`` and ``values`` for a words catalogue, and an English message.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from desktop_app.core.parsing import InputError, Phrase

_WORDS = {
    "missing": "no such file",
    "is_directory": "is a folder, not a file",
    "not_regular": "is a {kind}, not a regular file",
    "too_large": "{size:,} bytes, more than the {limit:,} {what} may have",
    "symlink_loop": "is a loop of symbolic links",
    "unreadable": "cannot be read: {reason}",
    "outside_folder": "leads outside {folder} (to {target}); only files inside it are read",
}
FILE_PROBLEMS = tuple(_WORDS)
"""The codes of :class:`LocalFileError`."""


class LocalFileError(OSError):
    """A file the user named that cannot be read as one: ``code`` (one of
    :data:`FILE_PROBLEMS`) and ``values`` say why; the message (English) does too, without the
    path, which each caller puts where its own errors put it."""

    def __init__(self, path: Path | str, code: str, **values: object) -> None:
        self.path, self.code, self.values = Path(path), code, values
        shown = {**values, "kind": KIND_WORDS.get(str(values.get("kind")), "")}
        self.text = _WORDS[code].format(**shown)
        super().__init__(self.text)

    def __str__(self) -> str:
        return self.text

    def phrase(self) -> Phrase:
        """What is wrong, as a part of a caller's message (`file_<code>` in INPUT_MESSAGES),
        which the reader's language words with the rest."""
        return Phrase(f"file_{self.code}", dict(self.values))


KIND_WORDS = {"fifo": "named pipe (FIFO)", "device": "device", "socket": "socket",
              "special": "special file"}
"""The English words of ``not_regular``'s ``kind`` code."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special"


def _refusal(path: Path, exc: OSError) -> LocalFileError:
    if exc.errno == errno.ENOENT:
        return LocalFileError(path, "missing")
    if exc.errno == errno.EISDIR:
        return LocalFileError(path, "is_directory")
    if exc.errno == errno.ELOOP:
        return LocalFileError(path, "symlink_loop")
    return LocalFileError(path, "unreadable", reason=exc.strerror or str(exc))


def read_bounded(path: Path | str, max_bytes: int, *, what: str = "a file") -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them.

    Raises :class:`LocalFileError` for a missing file, a folder, a FIFO, device or socket, a
    symlink loop, a file larger than ``max_bytes`` (``what`` names what the bound is for: "an
    import", "a gold file"), or any other failure to read. Never blocks on a FIFO.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _refusal(path, exc) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise LocalFileError(path, "is_directory")
        if not stat.S_ISREG(info.st_mode):
            raise LocalFileError(path, "not_regular", kind=_kind(info.st_mode))
        if info.st_size > max_bytes:
            raise LocalFileError(path, "too_large", size=info.st_size, limit=max_bytes,
                                 what=what)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:  # it grew after fstat
                raise LocalFileError(path, "too_large", size=total, limit=max_bytes, what=what)
        return b"".join(chunks)
    except LocalFileError:
        raise
    except OSError as exc:
        raise _refusal(path, exc) from None
    finally:
        os.close(fd)


def check_regular(path: Path | str) -> None:
    """Raise :class:`LocalFileError` when ``path`` exists and is neither a regular file nor a
    folder (a FIFO, a device, a socket) or is a symlink loop; a missing path is fine (it may be
    a file to create)."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _refusal(path, exc) from None
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        raise LocalFileError(path, "not_regular", kind=_kind(info.st_mode))


def absolute(path: Path | str) -> Path:
    """``path`` with ``~`` expanded, made absolute without following symlinks (a loop is then
    found, and named, by whatever opens it, where ``Path.resolve`` raises RuntimeError)."""
    return Path(os.path.abspath(os.path.expanduser(str(path))))


def inside(path: Path | str, folder: Path | str) -> Path:
    """``path`` resolved, when it lies inside ``folder`` (resolved too); LocalFileError
    ``outside_folder`` when it (or a symlink on the way) leads anywhere else, or
    ``symlink_loop``."""
    path, folder = Path(path), Path(folder)
    try:
        real, base = path.resolve(), folder.resolve()
    except RuntimeError:  # Python 3.11's word for a loop
        raise LocalFileError(path, "symlink_loop") from None
    except OSError as exc:
        raise _refusal(path, exc) from None
    if real != base and base not in real.parents:
        raise LocalFileError(path, "outside_folder", folder=str(folder), target=str(real))
    return real


def read_text(path: Path | str, max_bytes: int, field: str, *, what: str,
              shown: str | None = None) -> tuple[bytes, str]:
    """The bytes of a regular file (`read_bounded`) and its UTF-8 text (a BOM dropped), or an
    InputError naming `field` and the file (`shown`, default the path) and what is wrong."""
    name = str(path) if shown is None else shown
    try:
        data = read_bounded(path, max_bytes, what=what)
    except LocalFileError as exc:
        raise InputError(field, code="qs_file", path=name, problem=exc.phrase()) from None
    try:
        return data, data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(field, code="text_not_utf8", path=name, offset=exc.start) from None
