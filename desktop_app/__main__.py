"""`python -m desktop_app`: the same as the `throughline` command."""

import sys

from desktop_app.cli import main

if __name__ == "__main__":
    sys.exit(main())
