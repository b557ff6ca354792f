"""Building the command line's parser imports no heavy module: every command and the app's
start pay for it (an import of the store and httpx here once doubled the app's start-up)."""

import subprocess
import sys


def test_building_the_parser_imports_neither_the_store_nor_httpx_nor_numpy():
    code = ("import sys; from desktop_app.cli import build_parser; build_parser(); "
            "heavy = [m for m in ('httpx', 'numpy', 'sqlite_utils', 'sqlglot', 'PySide6') "
            "if m in sys.modules]; print(','.join(heavy))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == ""
