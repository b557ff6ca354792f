"""Where the results file lives, and how the store writes times (ISO-8601 UTC text)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from desktop_app import paths


# --------------------------------------------------------------------------- locations and time


def default_db_path() -> Path:
    """The results file when nothing else is asked for: ``<user data>/throughline/results.db``."""
    return paths.user_data_dir() / "results.db"


def resolve_db_path(cli_value: str | None) -> Path:
    """The results file to use: ``cli_value`` if given, else ``$THROUGHLINE_DB``, else the default.

    ``~`` is expanded. Folders are created by :meth:`Store.open`, not here.
    """
    return paths.results_db_path(cli_value)


def utc_now_iso() -> str:
    """Now, as the store writes times: ISO-8601 UTC, ms, ``2026-12-02T11:29:00.123+00:00``."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _iso(value: datetime | str) -> str:
    # One format everywhere, so ISO strings compare correctly as text. Naive datetimes are taken as
    # local time, Python's own convention for astimezone().
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return value
