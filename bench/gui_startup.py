"""Start-up time of the desktop app: process start to the main window's first paint.

The parent stamps `time.perf_counter()` just before it spawns a child Python that runs the app
as `python -m desktop_app gui` does (`cli.main(["gui"])`, the built-in `fast` simulator
included). The child is this script with `--child`: before calling the CLI it wraps
`gui.app.build_window` (here, not in app code) so that an application-wide event filter stamps
the first Paint event of any widget in the main window, prints the stamps as one JSON line and
closes the window. On Linux perf_counter is CLOCK_MONOTONIC, shared by every process, so the
parent's and the child's stamps compare directly.

Each child gets a fresh settings folder (XDG_CONFIG_HOME) and results file (THROUGHLINE_DB) in a
temporary directory. One run per platform is made first and not counted (it compiles any .pyc
that is stale and warms the OS file cache); then `--runs` runs are timed.

    xvfb-run -a .venv/bin/python bench/gui_startup.py      # xcb (under Xvfb) and offscreen
    .venv/bin/python bench/gui_startup.py --platforms offscreen --runs 5
"""

from __future__ import annotations

import time

CHILD_T0 = time.perf_counter()  # the child's first statement after the interpreter started

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 1.0  # median start-up to first paint
MARK = "GUI_STARTUP "


def child(profile: str, wait_endpoint_s: float) -> int:
    """Run the app through the CLI; print the stamps at the first paint (and when the simulator
    became the active endpoint), then close the window."""
    sys.path.insert(0, str(ROOT))
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QWidget

    import desktop_app.gui.app as gui_app
    from desktop_app.cli import main

    stamps = {"child_start": CHILD_T0, "imported": time.perf_counter()}
    build_window = gui_app.build_window

    def report_and_close(window) -> None:
        print(MARK + json.dumps(stamps), flush=True)
        window.close()

    class FirstPaint(QObject):
        def __init__(self, window) -> None:
            super().__init__()
            self.window = window

        def eventFilter(self, obj, event):  # noqa: N802 - Qt override
            if (event.type() == QEvent.Type.Paint and isinstance(obj, QWidget)
                    and obj.window() is self.window):
                stamps["first_paint"] = time.perf_counter()
                stamps["painted"] = type(obj).__name__
                from PySide6.QtWidgets import QApplication

                QApplication.instance().removeEventFilter(self)
                if wait_endpoint_s <= 0:
                    QTimer.singleShot(0, lambda: report_and_close(self.window))
                else:
                    QTimer.singleShot(int(wait_endpoint_s * 1000),
                                      lambda: report_and_close(self.window))
            return False

    def on_endpoint(window, endpoint) -> None:
        if endpoint is not None and "endpoint_ready" not in stamps:
            stamps["endpoint_ready"] = time.perf_counter()
            if "first_paint" in stamps:
                QTimer.singleShot(0, lambda: report_and_close(window))

    def timed_build_window(app, simulator_profile, **kwargs):
        stamps["build_start"] = time.perf_counter()
        window, shell = build_window(app, simulator_profile, **kwargs)
        stamps["built"] = time.perf_counter()
        window._bench_filter = FirstPaint(window)  # kept alive by the window
        app.installEventFilter(window._bench_filter)
        shell.context.endpoint_changed.connect(lambda e: on_endpoint(window, e))
        return window, shell

    gui_app.build_window = timed_build_window
    return main(["gui", "--simulator-profile", profile] if profile != "fast" else ["gui"])


def one_run(platform: str, profile: str, wait_endpoint_s: float, tmp: Path) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM=platform, XDG_CONFIG_HOME=str(tmp / "config"),
               THROUGHLINE_DB=str(tmp / "results.db"), PYTHONPATH=str(ROOT))
    command = [sys.executable, __file__, "--child", "--profile", profile,
               "--wait-endpoint", str(wait_endpoint_s)]
    t0 = time.perf_counter()
    proc = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    exited = time.perf_counter()
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if not lines or "first_paint" not in lines[-1]:
        raise RuntimeError(f"no first paint (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    stamps = json.loads(lines[-1][len(MARK):])
    out = {k: (v - t0 if isinstance(v, float) else v) for k, v in stamps.items()}
    out["exited"] = exited - t0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--platforms", nargs="+", default=None,
                        help="QT_QPA_PLATFORMs (default: xcb if DISPLAY is set, and offscreen)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", default="fast", help="built-in simulator profile")
    parser.add_argument("--wait-endpoint", type=float, default=10.0,
                        help="after the first paint, wait up to this many seconds for the "
                             "simulator to become the active endpoint (0: close at once)")
    args = parser.parse_args(argv)
    if args.child:
        return child(args.profile, args.wait_endpoint)
    platforms = args.platforms or (["xcb"] if os.environ.get("DISPLAY") else []) + ["offscreen"]
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, Python {sys.version.split()[0]}")
    print("| platform | run | first statement | imports done | window built | first paint | "
          "simulator active | process exit |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    summary = []
    for platform in platforms:
        paints, actives = [], []
        for run in range(args.runs + 1):
            with tempfile.TemporaryDirectory() as tmp:
                r = one_run(platform, args.profile, args.wait_endpoint, Path(tmp))
            label = "warm-up" if run == 0 else str(run)
            if run:
                paints.append(r["first_paint"])
                if "endpoint_ready" in r:
                    actives.append(r["endpoint_ready"])

            def ms(key: str) -> str:
                return f"{r[key] * 1000:.0f}" if key in r else "-"

            print(f"| {platform} | {label} | {ms('child_start')} | {ms('imported')} | "
                  f"{ms('built')} | {ms('first_paint')} | {ms('endpoint_ready')} | "
                  f"{ms('exited')} |", flush=True)
        summary.append((platform, paints, actives))
    print(f"\n# ms from spawn, {args.runs} runs after one warm-up, load average now "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| platform | first paint median | first paint max | simulator active median | "
          f"target (median < {TARGET_S:g} s) |")
    print("|---|---:|---:|---:|---|")
    for platform, paints, actives in summary:
        median = statistics.median(paints)
        active = f"{statistics.median(actives) * 1000:.0f}" if actives else "-"
        print(f"| {platform} | {median * 1000:.0f} | {max(paints) * 1000:.0f} | {active} | "
              f"{'met' if median < TARGET_S else 'missed'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
