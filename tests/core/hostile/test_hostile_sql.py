"""The SQL agent loop (and `throughline sqleval` / `throughline sql`) against the hostile server
(tests/core/hostile/server.py), behaviour by behaviour: each question ends within its limit,
with a named stop reason or step error and no traceback; plus the reasoning-model figures of the
sweep. See docs/RELIABILITY.md, "Hostile servers".
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.client import make_client
from desktop_app.core.endpoint.discovery import count_chat_tokens, discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.redact import redact_text
from desktop_app.core.sqleval.agent import MAX_TOOL_NAME_CHARS, run_question
from desktop_app.core.sqleval.sandbox import Sandbox
from desktop_app.core.sqleval.types import Question
from tests.core.hostile.server import HostileServer
from tests.core.hostile.test_hostile_sweep import _env, _sweep

ROOT = Path(__file__).resolve().parents[3]
QUESTION = Question(
    id="q1", tier="easy", text_en="How many sales? Columns: n.", text_zh="销售有多少笔？列：n。",
    gold_sql="SELECT count(*) AS n FROM sales", database="main", required_columns=("n",))


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile_sql") / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE sales (region TEXT, amount REAL)")
        conn.executemany("INSERT INTO sales VALUES (?, ?)", [("north", 1.0), ("south", 2.0)])
    conn.close()
    return path


def ask(server, db, behaviour: str, *, sql_time_limit_s: float = 1.0, **kw):
    """run_question on `behaviour`: (steps, stop, final_sql, wall seconds, requests' bodies)."""
    config = EndpointConfig(server.url(behaviour), model="m")

    async def go():
        async with make_client(config, 1) as client:
            with Sandbox(db, time_limit_s=sql_time_limit_s) as box:
                return await run_question(client, config, QUESTION, box, **kw)

    started = time.perf_counter()
    steps, stop, final_sql = asyncio.run(go())
    return steps, stop, final_sql, time.perf_counter() - started


def errors(steps) -> str:
    return " | ".join(s.error or "" for s in steps)


# --- time limits on what is in flight -------------------------------------------------------------

def test_sixty_slow_run_sql_calls_in_one_reply_end_at_the_time_limit(server, db):
    """Each query is bounded by the time left and the deadline is checked between the calls:
    before, 60 calls of 1 s each made a 10 s limit take 60.5 s."""
    steps, stop, _, wall = ask(server, db, "sql_slow_calls.60", time_limit_s=2.0)
    assert stop == "time_budget"
    assert wall < 3.5, wall
    assert "time budget of 2 s ran out after" in steps[-1].error
    assert len(steps[-1].tool_calls) < 60


def test_a_reply_dribbled_byte_by_byte_is_cut_at_the_time_limit(server, db):
    steps, stop, _, wall = ask(server, db, "slowloris.1", time_limit_s=1.5)
    assert stop == "time_budget" and wall < 3.0, wall
    assert "no reply within the time budget of 1.5 s" in steps[-1].error


def test_a_megabyte_tool_name_is_cut_and_ends_unknown_tool_quickly(server, db):
    steps, stop, _, wall = ask(server, db, "sql_huge_name.1", time_limit_s=20)
    assert stop == "unknown_tool" and wall < 5, wall
    for step in steps:
        assert all(len(r.name) < MAX_TOOL_NAME_CHARS + 40 for r in step.tool_calls)
        assert step.error is None or len(step.error) < 5000


def test_redact_text_is_linear_on_a_megabyte():
    # This thread's CPU time, not the wall clock: the work is what is linear or not, and on
    # a loaded 2-core machine the wall clock also counted other processes' turns (1.14 s
    # once, for 0.13 s of work). Quadratic, a megabyte takes far more than a second of CPU.
    for text in ("a" * 1_000_000, "a" * 1_000_000 + "://x", "x://" * 250_000,
                 "see http://u:pw@h/v1 " + "b" * 1_000_000):
        started = time.thread_time()
        out = redact_text(text)
        assert time.thread_time() - started < 1.0
        assert "u:pw@" not in out


# --- the server's context and the token budget ----------------------------------------------------

def test_replies_fit_the_servers_context(server, db):
    """The server answers 400 (as vLLM does) to prompt + max_tokens beyond its context of 4096:
    no step meets it. Before, every reply asked 4096 and step 2 failed."""
    steps, stop, _, _ = ask(server, db, "sql_greedy.4096", context_tokens=4096, max_steps=8)
    assert stop == "step_budget", errors(steps)
    assert "maximum context length" not in errors(steps)
    assert all(s.prompt_tokens + s.completion_tokens <= 4096 for s in steps)


def test_a_full_context_stops_the_question_with_a_named_step(server, db):
    steps, stop, _, _ = ask(server, db, "sql_greedy.1500", context_tokens=1500, max_steps=20)
    assert stop == "token_budget"
    assert "context full" in steps[-1].error
    assert "maximum context length" not in errors(steps)


def test_max_tokens_bounds_the_question_prompt_included(server, db):
    """Every reply uses all the max_tokens it is given: the question still stays within 1500
    (before: 2,507)."""
    steps, stop, _, _ = ask(server, db, "sql_greedy", max_tokens=1500)
    assert stop == "token_budget"
    assert 0 < sum(s.prompt_tokens + s.completion_tokens for s in steps) <= 1500


def test_cli_reads_the_context_from_the_server(server, tmp_path):
    proc = cli(tmp_path, "sqleval", "--base-url", server.url("sql_greedy.4096"), "--ids", "t01",
               "--max-steps", "5", "--json", str(tmp_path / "o.json"))
    assert proc.returncode == 0, proc.stderr
    item = json.loads((tmp_path / "o.json").read_text())["items"][0]
    assert item["stop_reason"] == "step_budget"  # no step met the server's 400


# --- impossible numbers and shapes ----------------------------------------------------------------

@pytest.mark.parametrize("behaviour, words", [
    ("sql_usage_negative", "impossible usage from the server"),
    ("sql_usage_huge", "impossible usage from the server"),
    # null and NaN counted 0 over 18 steps and --max-tokens stopped binding: estimated alike.
    ("sql_usage_null", "no usage from the server (prompt_tokens None"),
    ("sql_usage_nan", "no usage from the server (prompt_tokens nan"),
])
def test_impossible_usage_is_replaced_and_cannot_bypass_max_tokens(server, db, behaviour, words):
    steps, stop, _, _ = ask(server, db, behaviour, max_tokens=5000, max_steps=50)
    assert stop == "token_budget"
    for s in steps:
        assert 0 < s.prompt_tokens <= limits.MAX_PLAUSIBLE_TOKENS
        assert 0 <= s.completion_tokens <= limits.MAX_PLAUSIBLE_TOKENS
        assert words in s.error
    assert sum(s.prompt_tokens + s.completion_tokens for s in steps) <= 5000


def test_content_as_a_list_of_parts_is_read_as_text(server, db):
    steps, stop, final_sql, _ = ask(server, db, "sql_parts", tool_mode="text")
    assert (stop, final_sql) == ("submitted", "SELECT 1")


@pytest.mark.parametrize("behaviour, words", [
    ("sql_content_number", "message.content is int"),
    ("sql_tool_calls_7", "tool_calls is int"),
])
def test_a_malformed_reply_is_a_named_step_error(server, db, behaviour, words):
    steps, stop, _, _ = ask(server, db, behaviour)
    assert stop == "endpoint_error"
    assert steps[-1].error.startswith("malformed reply") and words in steps[-1].error


def test_nudged_once_only_when_the_nudge_is_sent(server, db):
    steps, stop, _, _ = ask(server, db, "sql_text", max_steps=1)
    assert stop == "step_budget"
    assert "nudged once" not in steps[0].error and "not nudged" in steps[0].error
    steps, stop, _, _ = ask(server, db, "sql_text", max_steps=3)
    assert stop == "no_answer" and "nudged once" in steps[0].error


# --- the CLI, in a subprocess ---------------------------------------------------------------------

def cli(tmp_path: Path, *args, timeout: float = 30):
    full = {**_env(), "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "desktop_app", "--db", str(tmp_path / "r.db"),
                           *args], cwd=ROOT, capture_output=True, timeout=timeout, env=full)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    proc.stderr = stderr
    return proc


def test_cli_time_limit_holds_against_slow_tool_calls(server, tmp_path):
    # The 60 calls would take 60 s; cli()'s 30 s timeout bounds the whole process. The wall
    # clock is not checked from the start: the CLI's imports alone took 2-8 s on a loaded
    # 2-core machine (a run took 11.9 s in all for a 2.0 s question). What the limit promises
    # is checked on the question's own clock, and that nothing (a thread still running a
    # query) holds the exit once the results are written.
    proc = cli(tmp_path, "sqleval", "--base-url", server.url("sql_slow_calls.60"), "--ids", "t01",
               "--time-limit", "2", "--sql-time-limit", "1", "--json", str(tmp_path / "o.json"))
    exited = time.time()
    assert proc.returncode == 0, proc.stderr
    assert exited - (tmp_path / "o.json").stat().st_mtime < 3.0
    item = json.loads((tmp_path / "o.json").read_text())["items"][0]
    assert item["stop_reason"] == "time_budget" and item["seconds"] < 3.5


def test_sql_with_a_non_utf8_byte_is_one_line_exit_2(tmp_path, db):
    proc = cli(tmp_path, "sql", "--db", str(db), b"SELECT '\xff'")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "not valid UTF-8 (byte 0xff" in lines[0], proc.stderr


# --- reasoning models in the sweep ----------------------------------------------------------------

@pytest.mark.parametrize("behaviour", ["reasoning", "reasoning_alt"])
def test_reasoning_is_timed_apart_from_the_answer(server, behaviour):
    from desktop_app.core.throughput.export import sweep_to_json

    result = _sweep(server.url(behaviour + ".5"))
    assert result.cells[0].summary.ok == 2
    for r in result.requests:
        assert r.reasoning_chunks == 5
        # 5 reasoning chunks 20 ms apart come before the first answer token.
        assert r.ttft_s is not None and r.ttft_answer_s is not None
        assert r.ttft_answer_s - r.ttft_s > 0.05
    data = sweep_to_json(result)
    cell = data["cells"][0]
    assert cell["reasoning_chunks"] == 10 and cell["ttft_answer_s"]["p50"] > cell["ttft_s"]["p50"]
    assert "reasoning" in data["definitions"]["ttft_s"]
    assert "reasoning excluded" in data["definitions"]["ttft_answer_s"]
    assert data["requests"][0]["ttft_answer_s"] > data["requests"][0]["ttft_s"]


def test_without_reasoning_the_answer_time_is_the_ttft(server):
    result = _sweep(server.url("ok"))
    for r in result.requests:
        assert r.reasoning_chunks == 0 and r.ttft_answer_s == pytest.approx(r.ttft_s, abs=1e-6)


# --- bodies past their limits, in the loop --------------------------------------------------------

@pytest.mark.parametrize("behaviour, time_limit_s, stop, words", [
    ("gzip_bomb.80", 10, "endpoint_error", "DecompressedTooLarge: the streamed answer"),
    ("error_huge.20", 10, "endpoint_error", "500 Internal Server Error from"),
    ("huge_line.5", 1.0, "endpoint_error", "SSELineTooLong: an SSE line passed 4 MiB"),
])
def test_oversized_bodies_end_the_question_with_a_named_error(server, db, behaviour,
                                                              time_limit_s, stop, words):
    """The agent streams: an 80 MB gzip bomb passes MAX_STREAM_BYTES (64 MiB) as it inflates; a
    20 MB error body is read to MAX_ERROR_BODY_BYTES only; a 5 MB line without an end passes
    MAX_SSE_LINE_BYTES before the time limit."""
    steps, got, _, wall = ask(server, db, behaviour, time_limit_s=time_limit_s)
    assert got == stop and wall < time_limit_s + 2, (got, wall)
    assert words in steps[-1].error and "ResponseTooLarge: ResponseTooLarge" not in steps[-1].error
    assert len(steps[-1].error) < 1000


def test_a_reply_cut_by_the_time_budget_keeps_what_it_streamed(server, db):
    """#24: a reply still streaming when the question's time runs out is cut there, and its step
    keeps the text and the tokens streamed so far and the prompt's tokens (estimated: the
    server sends usage only at the end), marked as cut; it used to keep 0 and 0 and nothing."""
    steps, stop, _, wall = ask(server, db, "endless_slow.0.05", time_limit_s=1.0)
    assert stop == "time_budget" and wall < 2.5, wall
    cut = steps[-1]
    assert cut.reply["cut"] is True and cut.reply["content"]
    assert 5 <= cut.completion_tokens <= 25, cut.completion_tokens  # a chunk each 50 ms
    assert cut.prompt_tokens > 100
    assert "no reply within the time budget of 1 s" in cut.error
    assert f"kept what streamed: {cut.completion_tokens:,} tokens" in cut.error
    assert "(estimated)" in cut.error


def _ask_counted(server, db, behaviour: str, **kw):
    """run_question as the runner calls it: the server's tokenizer counts a prompt usage left out."""
    config = EndpointConfig(server.url(behaviour), model="m")
    sent: list = []

    async def go():
        async with make_client(config, 1) as client:
            info = await discover(config, client)

            async def count(messages, tools):
                sent.append([dict(m) for m in messages])
                return await count_chat_tokens(client, config, info, messages, tools)
            with Sandbox(db, time_limit_s=1.0) as box:
                return await run_question(client, config, QUESTION, box, count_prompt=count, **kw)

    steps, stop, _ = asyncio.run(go())
    return steps, stop, sent


def test_a_cut_reply_counts_its_prompt_by_the_servers_tokenizer(server, db):
    """#24: "its prompt tokens (as sent; tokenized where the server can)": the high estimate
    (one token per ~3 characters) was kept though the server could count them."""
    steps, stop, sent = _ask_counted(server, db, "endless_slow.0.05", time_limit_s=1.0)
    cut = steps[-1]
    assert stop == "time_budget" and cut.reply["cut"] is True
    words = " ".join(str(m.get("content", "")) for m in sent[-1])
    assert cut.prompt_tokens == len(words.split()) + 3  # what this server's /tokenize says
    assert "(the server's tokenizer)" in cut.error and "(estimated)" not in cut.error


@pytest.mark.parametrize("answer", [-5, 0, True, 10**12, "12", None, "slow"])
def test_a_tokenizer_that_answers_nonsense_or_late_leaves_the_estimate(monkeypatch, answer):
    from desktop_app.core.sqleval import agent

    monkeypatch.setattr(agent, "COUNT_TIMEOUT_S", 0.05)

    async def count(messages, tools):
        if answer == "slow":
            await asyncio.sleep(10)
        return answer
    assert asyncio.run(agent._server_count(count, [], None)) is None
    assert asyncio.run(agent._server_count(None, [], None)) is None
