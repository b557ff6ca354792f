"""Regression for the PySide6 6.12.0 abort on Python 3.11 (see pyproject's pin).

6.12.0 drops one reference to None/True/False on every call that returns None and every
signal emit; after ~5,000 calls the interpreter dies with `Fatal Python error: none_dealloc`.
Run in a child process: the failure is an abort, which would take pytest down with it.
"""

import subprocess
import sys

SCRIPT = """
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QPushButton

class Emitter(QObject):
    fired = Signal(bool)

app = QApplication([])
button = QPushButton("x")
emitter = Emitter()
seen = []
emitter.fired.connect(seen.append)
for i in range(20_000):
    button.setEnabled(i % 2 == 0)
    emitter.fired.emit(i % 2 == 0)
print("survived", len(seen))
"""


def test_20000_calls_returning_none_do_not_abort():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-500:]}"
    assert "survived 20000" in result.stdout
