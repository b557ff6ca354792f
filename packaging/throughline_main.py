"""The frozen build's entry point: the `throughline` command (no subcommand opens the window).

The app starts helpers of its own as `sys.executable -m MODULE ...` (the simulator's process,
the window's restart). In a frozen build sys.executable is this program, so `-m MODULE` is
honoured here as Python would: the module runs as __main__ with the arguments after it.
"""

import multiprocessing
import runpy
import sys

if __name__ == "__main__":
    # Worker processes are started with "spawn": in a frozen build each one re-runs this
    # executable, and freeze_support() turns that run into the worker instead of a second app.
    multiprocessing.freeze_support()
    if len(sys.argv) > 2 and sys.argv[1] == "-m":
        module = sys.argv[2]
        sys.argv = [sys.argv[0], *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        sys.exit(0)
    from desktop_app.cli import main

    sys.exit(main())
