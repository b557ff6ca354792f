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




# Modules whose verdicts rest on the machine's load holding still from one sweep to the next:
# one worker runs them one after the other (`--dist loadgroup`), so the core test_verdicts_busy
# burns on purpose never lands between two sweeps of test_compare_noise's identical servers (it
# did: one TTFT cell 30 % apart, a real difference of load, not noise inside a sweep). Every
# other module is a group of its own, as `--dist loadfile` had it.
STEADY_LOAD = {"test_verdicts_busy.py", "test_compare_noise.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        group = "steady-load" if name in STEADY_LOAD else str(item.path.relative_to(ROOT))
        item.add_marker(pytest.mark.xdist_group(group))
