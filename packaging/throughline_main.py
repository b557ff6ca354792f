"""The frozen build's entry point: the `throughline` command (no subcommand opens the window)."""

import multiprocessing
import sys

if __name__ == "__main__":
    # Worker processes are started with "spawn": in a frozen build each one re-runs this
    # executable, and freeze_support() turns that run into the worker instead of a second app.
    multiprocessing.freeze_support()
    from desktop_app.cli import main

    sys.exit(main())
