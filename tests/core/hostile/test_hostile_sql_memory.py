"""The SQL agent loop against the hostile server, each behaviour in a subprocess of its own
(drive_sql.py) whose peak RSS may grow at most `SQL_RSS_CEILING_MIB` over its RSS after imports:
huge tool arguments, a body that never ends, a 1 GB gzip inflation, an endless line. Each ends
with a named stop or error, no traceback. See docs/RELIABILITY.md, "Hostile servers"."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.core.hostile.server import HostileServer
from tests.core.hostile.test_hostile_sweep import drive

DRIVE_SQL = Path(__file__).with_name("drive_sql.py")
# A non-streamed reply is bounded by MAX_BODY_BYTES (16 MiB, after decoding); the loop holds a
# reply a few times over (bytes, text, parsed JSON, the step's record): four bodies' worth.
SQL_RSS_CEILING_MIB = 64


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


def drive_sql(url: str, spec: dict, timeout: float = 60) -> dict:
    return drive(url, spec, timeout, script=DRIVE_SQL)


@pytest.mark.parametrize("behaviour, spec, stop, words", [
    # 4 MB of tool arguments a step, with and without a context the server reports: refused
    # (agent.MAX_TOOL_ARGUMENT_CHARS), never run nor resent.
    ("sql_huge_args.4", {"context_tokens": 100_000}, "bad_arguments", "invalid tool arguments"),
    ("sql_huge_args.20", {}, "endpoint_error", "ResponseTooLarge"),
    ("sql_huge_args.4", {}, "bad_arguments", "invalid tool arguments"),
    ("endless", {"time_limit_s": 2}, "endpoint_error", "StreamedTooMuch"),
    ("gzip_members.1024", {}, "endpoint_error", "passed 64 MiB (after decoding)"),
    ("huge_line.50", {"time_limit_s": 5}, "endpoint_error", "SSELineTooLong"),
])
def test_the_sql_loop_stays_below_a_memory_ceiling(server, behaviour, spec, stop, words):
    started = time.perf_counter()
    out = drive_sql(server.url(behaviour), spec)
    assert time.perf_counter() - started < 30
    assert out["stop"] == stop and words in out["last_error"], out
    assert out["peak_rss_mib"] - out["base_rss_mib"] < SQL_RSS_CEILING_MIB, out
