"""The log file: where a crash's traceback goes, with every credential blanked.

One rotating file per user (`<user data>/logs/throughline.log`, 1 MB x 3). Every record is
formatted, traceback included, and then passed through `redact_text`, so an API key that ends up
in an exception message (an HTTP library quoting a header, a URL with `?key=`) never reaches the
disk.
"""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from desktop_app import paths
from desktop_app.core.redact import redact_text

LOG_NAME = "throughline.log"
_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


class RedactingFormatter(logging.Formatter):
    """A formatter whose output, exception text included, has credentials blanked."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))


def log_path() -> Path:
    """Where the log file is (the folder may not exist yet)."""
    return paths.user_data_dir() / "logs" / LOG_NAME


def setup_file_logging(level: int = logging.INFO) -> Path | None:
    """Add the rotating log file to the root logger once per process; returns its path, or None
    when the folder cannot be written (then records only go where they went before)."""
    root = logging.getLogger()
    path = log_path()
    for handler in root.handlers[:]:
        if getattr(handler, "_throughline", False):
            if Path(handler.baseFilename) == path:
                return path
            # The data folder moved (another HOME or XDG_DATA_HOME): follow it.
            root.removeHandler(handler)
            handler.close()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3,
                                                       encoding="utf-8", delay=True)
    except OSError:
        return None
    handler._throughline = True  # type: ignore[attr-defined]
    handler.setFormatter(RedactingFormatter(_FORMAT))
    handler.setLevel(level)
    if not root.handlers:
        # With a handler on the root, logging's last-resort stderr output stops; keep warnings
        # on the terminal as before.
        console = logging.StreamHandler()
        console.setFormatter(RedactingFormatter("%(name)s: %(message)s"))
        console.setLevel(logging.WARNING)
        root.addHandler(console)
    root.addHandler(handler)
    # httpx logs every request at INFO: thousands of lines per sweep, none about the app.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if root.level > level or root.level == logging.NOTSET:
        root.setLevel(level)
    return path
