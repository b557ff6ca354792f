"""`throughline profiles`: the simulator's profiles."""

from __future__ import annotations

import argparse

from desktop_app.cli.common import global_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `profiles` subcommand."""
    p = sub.add_parser("profiles", parents=[global_options()],
                       help="list the simulator profiles")
    p.set_defaults(handler=run_profiles)


def run_profiles(args: argparse.Namespace) -> int:
    from desktop_app.core.simulator.profiles import (
        ProfileError,
        available_profiles,
        load_profile,
    )

    for name in available_profiles():
        try:
            profile = load_profile(name)
        except ProfileError as exc:
            print(f"{name:16} (cannot be loaded: {exc})")
            continue
        print(f"{name:16} max_num_seqs={profile.max_num_seqs:<5} {profile.description}")
    return 0
