"""The core must import without Qt: checked in a fresh interpreter, since pytest-qt has
already imported PySide6 into this one."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import desktop_app.core

ROOT = Path(__file__).resolve().parents[2]


def _core_modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.walk_packages(desktop_app.core.__path__, "desktop_app.core.")
    )


def test_every_core_module_imports_without_qt():
    modules = _core_modules()
    assert "desktop_app.core.store" in modules and "desktop_app.core.simulator.engine" in modules
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'qasync', 'pyqtgraph', 'shiboken6'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"core pulled in Qt modules: {result.stdout.strip()}"


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken" in result.stdout
