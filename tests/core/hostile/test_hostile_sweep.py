"""The throughput sweep against a hostile server (tests/core/hostile/server.py), behaviour by
behaviour: each ends within its limit, with a named error class or finding, no traceback, and
(for the behaviours that used to eat memory) a peak RSS below a ceiling, measured with
`resource.getrusage` in a subprocess of its own (drive.py). Small limits keep it quick: a 5 MB
line against a 1 MiB line limit, a 64 MB gzip bomb against 4 MiB, and so on. See
docs/RELIABILITY.md, "Hostile servers".
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.sse import SSEParser, SSELineTooLong
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.diagnosis import diagnose
from desktop_app.core.throughput.sweep import run_sweep
from tests.core.hostile.server import HostileServer

ROOT = Path(__file__).resolve().parents[3]
DRIVE = Path(__file__).with_name("drive.py")
MiB = 1024 * 1024
# Peak RSS may grow this much over the process's RSS after its imports (MiB). Without the
# limits, each memory behaviour below grows it by the body's size or more (64 MB inflated,
# 20 MB of /metrics or error body held twice over, ...).
RSS_GROWTH_CEILING_MIB = 40


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def drive(url: str, spec: dict, timeout: float = 30, script: Path = DRIVE) -> dict:
    """Run drive.py (or another driver `script`) on `url`; its JSON line, after checking
    stderr holds no traceback."""
    proc = subprocess.run([sys.executable, str(script), url, json.dumps(spec)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=_env())
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _grew(out: dict) -> float:
    return out["peak_rss_mib"] - out["base_rss_mib"]


# --- memory behaviours, each in a subprocess ------------------------------------------------------

@pytest.mark.parametrize("behaviour, spec, error", [
    ("gzip_bomb.64", {"limits": {"MAX_STREAM_BYTES": 4 * MiB}}, "DecompressedTooLarge"),
    ("huge_line.5", {"limits": {"MAX_SSE_LINE_BYTES": 1 * MiB}}, "SSELineTooLong"),
    # An endless fast stream stops at the chunk cap (twice max_tokens) before any clock.
    ("endless", {"endpoint": {"total_timeout_s": 2.0}, "sweep": {"concurrency": [2]}},
     "StreamedTooMuch"),
    ("error_huge.20", {}, "HTTP 500"),
])
def test_memory_behaviours_end_bounded_with_a_named_error(server, behaviour, spec, error):
    started = time.perf_counter()
    out = drive(server.url(behaviour), spec)
    assert time.perf_counter() - started < 20
    assert out["error"] is None and out["status"] == "completed"
    assert out["failures"][0] and sum(out["failures"][0].values()) == 2
    assert all(error in m for m in out["messages"]), out["messages"]
    assert "failures" in out["findings"]
    assert _grew(out) < RSS_GROWTH_CEILING_MIB, out


def test_an_error_body_is_read_only_to_its_limit(server):
    out = drive(server.url("error_huge.20"), {})
    msg = out["messages"][0]
    assert len(msg) < 600 and out["failures"][0] == {"http_status": 2}


def test_a_huge_metrics_body_is_capped_and_the_sweep_goes_on(server):
    out = drive(server.url("metrics_huge.20"),
                {"limits": {"MAX_METRICS_BYTES": 1 * MiB}, "sweep": {"metrics_interval_s": 0.1}})
    assert out["error"] is None and out["status"] == "completed"
    assert out["failures"] == [{}] and out["samples"] == 0  # every scrape: MetricsTooLarge
    assert _grew(out) < RSS_GROWTH_CEILING_MIB, out


# --- the rest in this process -------------------------------------------------------------------

def _sweep(url: str, store=None, **kw) -> object:
    endpoint = EndpointConfig(url, model="m", **kw.pop("endpoint", {}))
    config = SweepConfig(endpoint=endpoint, input_tokens=(16,), output_tokens=(8,),
                         concurrency=kw.pop("concurrency", (1,)), requests_per_cell=2,
                         warmup=0, **kw)
    return asyncio.run(run_sweep(config, store))


@pytest.mark.parametrize("behaviour, code", [
    ("usage_negative", "negative_usage"),
    ("usage_huge", "absurd_usage"),
    ("usage_prompt_million", "prompt_usage_beyond_sent"),
    ("usage_100x", "usage_mismatch"),
    ("no_choices", "no_content"),
])
def test_impossible_numbers_are_flagged_in_the_cell_and_the_diagnosis(server, behaviour, code):
    result = _sweep(server.url(behaviour))
    cell = result.cells[0]
    assert cell.implausible == {code: 2}
    finding = next(f for f in result.findings if f.code == "implausible_counts")
    assert finding.evidence["by_code"] == {code: 2} and finding.severity == "problem"
    for t in cell.timings:
        assert 0 <= t.completion_tokens <= limits.MAX_PLAUSIBLE_TOKENS
        assert t.prompt_tokens >= 0
    m = cell.summary
    if code == "prompt_usage_beyond_sent":  # the prompt the client built, not the server's 1e6
        assert all(t.prompt_tokens < 1_000 for t in cell.timings)
        assert m.prefill_tps.max < 1e6
    if code in ("negative_usage", "absurd_usage"):
        # The client's own count stands: the figures are positive and finite.
        assert m.ok == 2 and m.decode_tps is None or m.decode_tps.mean > 0
        assert m.prefill_tps is None or m.prefill_tps.mean > 0
    if code == "no_content":
        assert m.failures_by_class == {"no_content": 2}


def test_lone_surrogates_are_stored_replaced(server, tmp_path):
    from desktop_app.core.store import Store

    store = Store.open(tmp_path / "r.db")
    try:
        result = _sweep(server.url("surrogate"), store)
    finally:
        store.close()
    assert result.status == "completed" and result.cells[0].summary.ok == 2
    rows = sqlite3.connect(tmp_path / "r.db").execute(
        "SELECT response_id, error_class FROM tp_requests").fetchall()
    assert len(rows) == 2 and all("\ufffd" in rid and err is None for rid, err in rows)


@pytest.mark.parametrize("client", ["lean", "httpx"])
def test_a_login_page_is_named_as_a_web_page_not_a_cut_stream(server, client):
    """#25: a 200 text/html answer (a login page in front of the API) was "stream_cut ... the
    server cut it", blaming the server for what the URL is."""
    result = _sweep(server.url("html_login"), http_client=client)
    assert result.cells[0].summary.failures_by_class == {"malformed_stream": 2}
    for r in result.requests:
        assert "answered a web page (text/html), not an event stream" in r.error_message


def test_a_deep_event_is_a_named_malformed_stream(server):
    result = _sweep(server.url("deep_event"))
    assert result.cells[0].summary.failures_by_class == {"malformed_stream": 2}
    assert all("JSONTooDeep" in r.error_message for r in result.requests)


def test_a_deep_model_list_is_one_named_endpoint_error(server):
    from desktop_app.core.endpoint.client import EndpointError

    with pytest.raises(EndpointError, match="JSONTooDeep"):
        _sweep(server.url("deep_models"))


def test_negative_tokenizer_counts_stop_the_prompt_fitter_at_once(server):
    from desktop_app.core.parsing import InputError

    started = time.perf_counter()
    with pytest.raises(InputError, match="impossible token count"):
        _sweep(server.url("tokenize_negative"))
    assert time.perf_counter() - started < 5


def test_infinite_and_nan_metrics_are_ignored(server):
    result = _sweep(server.url("metrics_inf"), metrics_interval_s=0.05)
    assert result.status == "completed"
    assert result.samples and all(s.running is None and s.waiting is None
                                  for s in result.samples)
    # A stored run from before the scraper dropped them: the diagnosis still stands.
    from dataclasses import replace

    from desktop_app.core.endpoint.types import MetricSample

    bad = [MetricSample(t_s=1.0, running=float("inf"), waiting=float("nan"),
                        kv_cache_usage=float("inf"), preemptions=float("nan"))]
    diagnose([replace(result.cells[0], samples=tuple(bad))])


def test_slowloris_is_cut_by_the_request_timeout(server):
    started = time.perf_counter()
    result = _sweep(server.url("slowloris.1"), endpoint={"total_timeout_s": 1.5},
                    concurrency=(2,))
    assert time.perf_counter() - started < 6
    assert result.cells[0].summary.failures_by_class == {"timeout": 2}


def test_the_cell_time_budget_cuts_requests_in_flight(server):
    started = time.perf_counter()
    result = _sweep(server.url("slowloris.1"), concurrency=(2,), cell_time_budget_s=1.5)
    assert time.perf_counter() - started < 6  # the request timeout is the default 3600 s
    cell = result.cells[0]
    assert cell.status == "time_budget"
    assert cell.summary.failures_by_class == {"timeout": 2}
    assert all("time budget" in r.error_message for r in result.requests)


# --- units ----------------------------------------------------------------------------------------

def test_sse_feed_is_linear_and_bounded():
    parser = SSEParser(max_line_bytes=64 * MiB)
    piece = b"x" * 65536
    # This thread's CPU time: the copying is the cost; the wall clock on a loaded machine
    # also counts other processes' turns.
    started = time.thread_time()
    parser.feed(b"data: ")
    for _ in range(24 * 16):  # 24 MiB in 64 KiB reads: 4.2 s when every read copied the line
        parser.feed(piece)
    (event,) = parser.feed(b"\n\n")
    assert len(event) == 24 * MiB and time.thread_time() - started < 1.5
    small = SSEParser(max_line_bytes=1000)
    with pytest.raises(SSELineTooLong):
        for _ in range(20):
            small.feed(b"data: " + b"y" * 100)


def test_json_depth_is_checked_before_parsing():
    with pytest.raises(limits.JSONTooDeep):
        limits.loads_limited("[" * 100_000 + "]" * 100_000)
    # Brackets inside strings are not nesting.
    assert limits.loads_limited(json.dumps({"a": "[\\\"[" * 40}), 8) == {"a": "[\\\"[" * 40}
    assert limits.loads_limited("[" * 8 + "]" * 8, 8) == [[[[[[[[]]]]]]]]
    with pytest.raises(limits.JSONTooDeep):
        limits.loads_limited("[" * 9 + "]" * 9, 8)


def test_the_writer_survives_an_unstorable_row(tmp_path):
    from desktop_app.core.store import Store

    store = Store.open(tmp_path / "r.db")
    run = store.create_run("throughput", name="x", endpoint_url="http://h", model="m",
                           engine="vllm", config={})
    writer = store.writer()
    writer.add_request({"run_id": run, "seq": 0, "completion_tokens": 10**20,
                        "response_id": "a\ud800"})
    writer.add_request({"run_id": run, "seq": 1, "completion_tokens": 5})
    writer.close()
    store.close()
    rows = sqlite3.connect(tmp_path / "r.db").execute(
        "SELECT seq, completion_tokens, error_class, error_message FROM tp_requests "
        "ORDER BY seq").fetchall()
    assert rows[0][:3] == (0, None, "malformed_stream") and "OverflowError" in rows[0][3]
    assert rows[1] == (1, 5, None, None)


# --- the CLI, in a subprocess ------------------------------------------------------------------

def cli(tmp_path: Path, *args: str, env: dict | None = None, timeout: float = 30):
    full = {**_env(), "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"), **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "desktop_app", "--db", str(tmp_path / "r.db"),
                           *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=full)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc


SMALL = ("--input-tokens", "16", "--output-tokens", "8", "--requests", "2", "--warmup", "0")


@pytest.mark.parametrize("flag, value", [
    ("--connect-timeout", "nan"), ("--request-timeout", "inf"), ("--first-byte-timeout", "-1"),
    ("--requests", "1e20"), ("--requests", "100000000000000000000"), ("--time-budget", "nan"),
    # Bounds checked before anything is built or sent: these built a billion tasks or a
    # gigabyte prompt (2.6 GB, MemoryError) or hung.
    ("--concurrency", "1000000000"), ("--input-tokens", "1000000000"),
    ("--output-tokens", "1000000000000"),
])
def test_the_cli_refuses_impossible_numbers_naming_the_flag(tmp_path, flag, value):
    args = [a for a in SMALL]
    if flag in args:
        args[args.index(flag) + 1] = value
    else:
        args += [flag, value]
    proc = cli(tmp_path, "throughput", "--base-url", "http://127.0.0.1:9/v1", *args)
    # One line naming the flag (argparse prints its usage above it for a malformed number).
    assert proc.returncode == 2 and flag in proc.stderr.strip().splitlines()[-1], proc.stderr


# The two tests below time the cell on the run's own clock, not the CLI from its start: its
# imports and discovery took 5-8 s of a 10 s bound on a loaded 2-core machine. Uncut, the
# slowloris requests would last the default request timeout (3600 s); cli()'s 30 s timeout
# bounds the whole process.
def test_the_cli_time_budget_cuts_a_slowloris(server, tmp_path):
    proc = cli(tmp_path, "throughput", "--base-url", server.url("slowloris.1"), *SMALL,
               "--concurrency", "2", "--time-budget", "1.5", "--no-store",
               "--json", str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    cell = data["cells"][0]
    assert cell["status"] == "time_budget" and cell["ended_s"] - cell["started_s"] < 3.0
    assert cell["failures_by_class"] == {"timeout": 2}


def test_the_sweep_files_total_timeout_is_used(server, tmp_path):
    toml = tmp_path / "sweep.toml"
    toml.write_text(f'base_url = "{server.url("slowloris.1")}"\ntotal_timeout_s = 1.5\n'
                    'concurrency = 2\n')
    proc = cli(tmp_path, "throughput", "--config", str(toml), *SMALL, "--no-store",
               "--json", str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    cell = data["cells"][0]
    assert cell["failures_by_class"] == {"timeout": 2}
    assert cell["ended_s"] - cell["started_s"] < 3.0
    assert all("within 1.5 s" in r["error_message"] for r in data["requests"])


def _files_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_credentials_in_the_base_url_are_nowhere(server, tmp_path):
    import base64

    password = "PASSWORD-7c3e91"
    url = server.url("echo_auth", userinfo=f"alice:{password}")
    proc = cli(tmp_path, "throughput", "--base-url", url, *SMALL,
               "--json", str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["cells"][0]["failures_by_class"] == {"http_status": 2}  # the server was asked
    basic = base64.b64encode(f"alice:{password}".encode()).decode()
    for secret in (password, basic):
        assert secret not in proc.stdout + proc.stderr
        assert secret.encode() not in _files_bytes(tmp_path), secret


def test_an_echoed_api_key_never_reaches_the_json(server, tmp_path):
    canary = f"tl-canary-{os.urandom(16).hex()}"
    proc = cli(tmp_path, "throughput", "--base-url", server.url("echo_auth"), *SMALL,
               "--api-key-env", "HOSTILE_KEY", "--json", str(tmp_path / "out.json"),
               env={"HOSTILE_KEY": canary})
    assert proc.returncode == 0, proc.stderr
    assert "[redacted]" in (tmp_path / "out.json").read_text()
    assert canary not in proc.stdout + proc.stderr
    assert canary.encode() not in _files_bytes(tmp_path)
