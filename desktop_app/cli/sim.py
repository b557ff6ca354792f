"""`throughline sim`: the built-in simulated endpoint, in the foreground."""

from __future__ import annotations

import argparse

from desktop_app.cli.common import CliError, cli_error, global_options, words_lang


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `sim` subcommand."""
    sim = sub.add_parser("sim", parents=[global_options()],
                         help="serve the built-in simulated endpoint in the foreground")
    sim.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    sim.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any free)")
    sim.add_argument("--profile", default="fast", help="simulator profile name or .toml path")
    sim.add_argument(
        "--faults",
        metavar="SPEC",
        help="inject faults, e.g. 'reset=0.1,http429=0.05,seed=7' (see docs/SIMULATOR.md)",
    )
    sim.set_defaults(handler=run_sim)


def run_sim(args: argparse.Namespace) -> int:
    from desktop_app.core.simulator import server
    from desktop_app.core.simulator.faults import FaultSpecError, parse_faults
    from desktop_app.core.simulator.profiles import ProfileError, load_profile

    from desktop_app.report.cli_words import cli_text
    from desktop_app.report.errors import error_text

    lang = words_lang(args)
    if not 0 <= args.port <= 65535:
        raise cli_error("--port", "not_port", value=args.port)
    try:
        profile = load_profile(args.profile)
        faults = parse_faults(args.faults) if args.faults else None
    except (ProfileError, FaultSpecError) as exc:
        raise CliError(error_text(exc, lang)) from None

    def ready(url: str) -> None:
        key = "sim_serving_faults" if args.faults else "sim_serving"
        print(cli_text(lang, "run", key, profile=profile.name, model=profile.model,
                       faults=args.faults, url=url), flush=True)

    try:
        server.run(args.host, args.port, profile, faults, ready=ready)
    except server.SimulatorError as exc:
        raise CliError(error_text(exc, lang)) from None
    return 0
