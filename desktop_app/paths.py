"""The one place that finds the app's bundled data: resources/ and questions/.

In a source checkout (or an editable install) they sit next to the `desktop_app` package; a
frozen build sets `sys._MEIPASS` (PyInstaller) or ships them beside the executable. User data
(the results store, user profiles) lives in platformdirs folders, never in the install.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "throughline"


def _bundle_root() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen)
    return Path(__file__).resolve().parent.parent


def resources_dir() -> Path:
    """Bundled resources: simulator profiles, icons, styles."""
    return _bundle_root() / "resources"


def questions_dir() -> Path:
    """Bundled question sets (data only)."""
    return _bundle_root() / "questions"


def user_questions_dir() -> Path:
    """Where `throughline questions import` puts imported sets by default; may not exist."""
    return user_data_dir() / "questions"


def question_set_dirs() -> tuple[Path, Path]:
    """The folders a set is looked up in by name: the bundled sets first, then imported ones."""
    return questions_dir(), user_questions_dir()


def user_config_dir() -> Path:
    """Where users put their own files (e.g. `profiles/*.toml`); may not exist yet."""
    return platformdirs.user_config_path(APP_NAME)


def user_data_dir() -> Path:
    """Where the results store and built data live; may not exist yet."""
    return platformdirs.user_data_path(APP_NAME)


def results_db_path(cli_value: str | None = None) -> Path:
    """The results store's file: `cli_value` if given, else `$THROUGHLINE_DB`, else
    `<user data dir>/results.db` (`~` expanded). Kept here, free of the store's imports, so the
    desktop app can name the file before its first paint."""
    chosen = cli_value or os.environ.get("THROUGHLINE_DB") or None
    return Path(chosen).expanduser() if chosen else user_data_dir() / "results.db"
