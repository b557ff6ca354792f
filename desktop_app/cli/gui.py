"""`throughline gui` (and `throughline` alone): the desktop app."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop_app.cli.common import global_options
from desktop_app.core.files import absolute

# The window's languages are Qt's locale names; `zh` is the one every other command takes.
_WINDOW_LANGS = {"zh": "zh_CN"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `gui` subcommand."""
    gui = sub.add_parser("gui", parents=[global_options(lang=False)],
                         help="start the desktop app (the default)")
    gui.add_argument(
        "--simulator-profile",
        default="fast",
        metavar="NAME",
        help="profile of the built-in simulated endpoint the app starts with (default: fast)",
    )
    gui.add_argument(
        "--screenshots",
        type=Path,
        metavar="DIR",
        help="run a small sweep and two SQL evaluations on the built-in simulator (profile "
        "instant; results in a throwaway database unless --db is given), save a PNG of every "
        "page into DIR, print the paths and exit; works offscreen (QT_QPA_PLATFORM=offscreen)",
    )
    gui.add_argument(
        "--screenshot-size",
        type=_window_size,
        default=None,
        metavar="WxH",
        help="with --screenshots, the window's size in pixels (default: 1280x800)",
    )
    gui.add_argument(
        "--lang",
        choices=("system", "en", "zh", "zh_CN"),
        default=argparse.SUPPRESS,
        help="language of the window this time (default: the one chosen in the app's Settings "
        "menu, at first the system's)",
    )
    gui.set_defaults(handler=run_gui)


def _window_size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()
            and 320 <= int(width) <= 8192 and 240 <= int(height) <= 8192):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a window size: give WIDTHxHEIGHT in pixels, e.g. 1024x700 "
            "(320x240 to 8192x8192)")
    return int(width), int(height)


def run_gui(args: argparse.Namespace) -> int:
    from desktop_app.gui.launch import launch_gui

    screenshots = getattr(args, "screenshots", None)
    db = getattr(args, "db", None)
    lang = getattr(args, "lang", None)
    return launch_gui(simulator_profile=getattr(args, "simulator_profile", "fast"),
                      screenshots=screenshots,
                      screenshot_size=getattr(args, "screenshot_size", None),
                      results_db=absolute(db) if screenshots is not None and db else None,
                      language=_WINDOW_LANGS.get(lang, lang))
