"""`python -m desktop_app.core.simulator`: run the simulator in a process of its own.

Prints `READY http://HOST:PORT` on stdout (flushed) once it accepts connections, so a parent
(`launcher.start_simulator`, a test, a script) can wait for that line. A bad profile, fault spec
or busy port exits with status 2 and one line on stderr. SIGINT/SIGTERM stop it cleanly (exit 0).

`--exit-with-parent` (always passed by the launcher, never by `throughline sim`) ties the server's
life to its stdin: once serving, a daemon thread reads stdin until EOF, then stops the server as
SIGTERM would. A parent that keeps the write end of a pipe open, and never writes to it, thus
takes the simulator down with it however it dies (the OS closes the pipe), on any platform.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading


class _ParentWatch:
    """Stops the server (by raising SIGTERM in this process) when stdin reaches EOF."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._serving = False  # SIGTERM goes to the server's handler only while it serves

    def start(self) -> None:
        """Called once the server serves (its signal handlers are in place)."""
        with self._lock:
            self._serving = True
        threading.Thread(target=self._watch, name="sim-parent-watch", daemon=True).start()

    def stop(self) -> None:
        """Called once the server has returned: EOF from now on changes nothing."""
        with self._lock:
            self._serving = False

    def _watch(self) -> None:
        # os.read on the descriptor, not sys.stdin: a daemon thread blocked inside the buffered
        # reader holds its lock, and interpreter shutdown then aborts (SIGABRT) on that lock.
        try:
            while os.read(0, 4096):
                pass  # the parent never writes; anything it does is ignored
        except OSError:
            pass  # no usable stdin: treat as the parent being gone
        with self._lock:
            if self._serving:
                self._serving = False
                signal.raise_signal(signal.SIGTERM)  # the server shuts down gracefully


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, serve until a signal; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m desktop_app.core.simulator",
        description="Serve a simulated OpenAI/vLLM-compatible endpoint (everything it "
                    "returns is simulated).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    parser.add_argument("--port", type=int, default=8000, help="port; 0 picks a free one")
    parser.add_argument("--profile", default="fast", help="profile name or path to a .toml")
    parser.add_argument("--faults", default=None,
                        help="fault spec, e.g. reset=0.1,http429=0.05,seed=7")
    parser.add_argument("--questions", action="append", default=[], metavar="DIR",
                        help="a question-set folder the SQL personas answer too (besides the "
                        "bundled and imported sets); repeatable")
    parser.add_argument("--exit-with-parent", action="store_true",
                        help="stop when stdin reaches EOF (for a parent holding a pipe open)")
    args = parser.parse_args(argv)

    # Imported here so that --help is instant.
    from desktop_app.core.simulator.faults import FaultSpecError, parse_faults
    from desktop_app.core.simulator.profiles import ProfileError, load_profile
    from desktop_app.core.simulator.personas import add_question_sets
    from desktop_app.core.simulator.server import SimulatorError, run

    add_question_sets(args.questions)

    watch = _ParentWatch() if args.exit_with_parent else None

    def ready(url: str) -> None:
        print(f"READY {url}", flush=True)
        if watch is not None:
            watch.start()

    try:
        profile = load_profile(args.profile)
        faults = parse_faults(args.faults) if args.faults else None
        run(args.host, args.port, profile, faults, ready=ready)
    except (ProfileError, FaultSpecError, SimulatorError) as exc:
        print(f"simulator: {exc}", file=sys.stderr, flush=True)
        return 2
    finally:
        if watch is not None:
            watch.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
