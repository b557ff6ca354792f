"""Start the desktop app, or explain in one line why it cannot start here.

Nothing in this module imports Qt at import time: the checks run first, so a machine without a
display or without Qt's system libraries gets a sentence, not a Qt trace.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_NO_DISPLAY_HINT = (
    "no display available (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop app cannot "
    "open a window; the headless commands work here: throughline sim, throughline whatif, "
    "throughline runs (see throughline --help)"
)

# Platforms that draw without a window system, e.g. for tests and screenshots.
_HEADLESS_PLATFORMS = {"offscreen", "minimal", "vnc", "eglfs", "linuxfb"}


def display_problem() -> str | None:
    """Why a window cannot be shown here, or None when it can."""
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0]
    if platform in _HEADLESS_PLATFORMS:
        return None
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return _NO_DISPLAY_HINT
    return None


def launch_gui(simulator_profile: str = "fast", screenshots: Path | None = None,
               results_db: Path | None = None, language: str | None = None,
               screenshot_size: tuple[int, int] | None = None) -> int:
    """Run the app until its window closes; returns the exit status. With `screenshots` (a
    folder), save a PNG of every page there, filled with runs on the simulator, and exit.
    `language` ("system", "en", "zh_CN") overrides the one chosen in the app's settings."""
    problem = display_problem()
    if problem:
        print(f"throughline: {problem}", file=sys.stderr)
        return 1
    try:
        from desktop_app.gui.app import run_app
    except ImportError as exc:
        print(
            f"throughline: Qt could not be loaded ({exc}); run 'make run' to install the "
            "system libraries it needs, or use the headless commands (throughline --help)",
            file=sys.stderr,
        )
        return 1
    return run_app(simulator_profile=simulator_profile, screenshots=screenshots,
                   results_db=results_db, language=language,
                   screenshot_size=screenshot_size)
