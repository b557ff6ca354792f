"""Test-wide set-up: Qt draws offscreen, and never touches the user's own settings or data."""

import os
import sys
from pathlib import Path

# Before any QApplication exists (pytest-qt creates one lazily).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    """Point the store, QSettings and user profiles at a throwaway home for every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("THROUGHLINE_DB", str(home / "results.db"))
    yield


@pytest.fixture(scope="session", autouse=True)
def _widgets_app_first(qapp):
    """One QApplication per test process, made before any test runs.

    The PDF writer makes a bare QGuiApplication when none exists (a headless CLI needs no
    widgets); in a test process that ran a report test first, every widget test after it then
    failed on pytest-qt's "not an instance of QApplication" warning (CI, 42 errors, depending on
    which modules xdist gave that process).
    """
    yield qapp




# Sweeps whose verdicts rest on the machine's load holding still from one sweep to the next
# (test_compare_noise's identical servers, test_verdicts_busy's sweeps beside a process that
# burns a core) take this lock while they measure, so a burn of one never lands between two
# sweeps of the other (it did: one TTFT cell 30 % apart, a real difference of load). A file
# lock, because the suite's workers are processes: `--dist loadgroup`, which was to keep the two
# modules on one worker, does nothing with pytest 9 (xdist 3.8 renames `item._nodeid`, which
# pytest 9 no longer reads), so each of their tests went to any worker.
@pytest.fixture(scope="session")
def steady_load(tmp_path_factory):
    """A context manager: hold the machine's steady-load lock while measuring."""
    import contextlib
    import fcntl

    # Shared by every worker of one run (each worker's basetemp is a folder inside it).
    path = tmp_path_factory.getbasetemp().parent / "steady-load.lock"

    @contextlib.contextmanager
    def held():
        with open(path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    return held
