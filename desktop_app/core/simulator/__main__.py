"""`python -m desktop_app.core.simulator`: run the simulator in a process of its own.

Prints `READY http://HOST:PORT` on stdout (flushed) once it accepts connections, so a parent
(`launcher.start_simulator`, a test, a script) can wait for that line. A bad profile, fault spec
or busy port exits with status 2 and one line on stderr. SIGINT/SIGTERM stop it cleanly (exit 0).
"""

from __future__ import annotations

import argparse
import sys


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
    args = parser.parse_args(argv)

    # Imported here so that --help is instant.
    from desktop_app.core.simulator.faults import FaultSpecError, parse_faults
    from desktop_app.core.simulator.profiles import ProfileError, load_profile
    from desktop_app.core.simulator.server import SimulatorError, run

    try:
        profile = load_profile(args.profile)
        faults = parse_faults(args.faults) if args.faults else None
        run(args.host, args.port, profile, faults,
            ready=lambda url: print(f"READY {url}", flush=True))
    except (ProfileError, FaultSpecError, SimulatorError) as exc:
        print(f"simulator: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
