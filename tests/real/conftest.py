"""Tests against a real serving engine (llama.cpp's server), opt in: `make test-real`.

Every test here is skipped unless THROUGHLINE_REAL_URL names a running server, so the normal
`make test` never needs one. `tests/real/run.sh` starts llama.cpp's server with 2 slots
(`../shared/real-engine/start-real-server.sh`), points THROUGHLINE_REAL_URL at it, runs these
tests and always stops the server.
"""

import itertools
import os
import subprocess
from pathlib import Path

import pytest

START = Path(__file__).resolve().parents[3] / "shared" / "real-engine" / "start-real-server.sh"

REAL_URL = os.environ.get("THROUGHLINE_REAL_URL", "").strip()
# A real instruct model (SmolLM2-135M-Instruct on llama.cpp, `SIZE=smollm2`, its own chat
# template): what needs real model behaviour (the SQL agent); the random-weight server above
# stays for what needs exact token counts and fixed output lengths.
REAL_MODEL_URL = os.environ.get("THROUGHLINE_REAL_MODEL_URL", "").strip()
SKIP_REASON = ("needs a real llama.cpp server: set THROUGHLINE_REAL_URL (`make test-real` starts "
               "one and sets it)")


def pytest_collection_modifyitems(config, items):
    if REAL_URL:
        return
    here = os.path.dirname(os.path.abspath(__file__))
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        if str(item.fspath).startswith(here + os.sep):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def real_url():
    return REAL_URL.rstrip("/")


@pytest.fixture(scope="session")
def real_model_url():
    """The real instruct model's server root (no /v1), e.g. http://127.0.0.1:18091."""
    if not REAL_MODEL_URL:
        pytest.skip("needs SmolLM2 on llama.cpp: set THROUGHLINE_REAL_MODEL_URL (`make test-real` "
                    "starts one and sets it)")
    return REAL_MODEL_URL.rstrip("/")


@pytest.fixture
def start_server(real_url):
    """Start more llama.cpp servers for one test, `start_server(NP=4)` -> its root URL.

    They take the ports after the two `run.sh` holds (PORT and PORT+1): PORT+2, PORT+3, ...,
    and every one is stopped when the test ends.
    """
    base = int(real_url.rsplit(":", 1)[1]) + 2
    ports = itertools.count(base)
    pids: list[int] = []

    def start(**env: str) -> str:
        port = next(ports)
        out = subprocess.run(["bash", str(START), str(port)], capture_output=True, text=True,
                             env=dict(os.environ, **env), timeout=1800)
        assert out.returncode == 0, out.stderr[-2000:]
        pids.append(int(out.stdout.strip().splitlines()[-1]))
        return f"http://127.0.0.1:{port}"

    yield start
    for pid in pids:
        subprocess.run(["kill", str(pid)], check=False)
