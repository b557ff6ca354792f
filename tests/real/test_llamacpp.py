"""What a user notices when Throughline benchmarks a real llama.cpp server (2 slots).

Run by `make test-real` (tests/real/run.sh starts the server); skipped without
THROUGHLINE_REAL_URL. The server is llama.cpp's own `llama-server` with a random-weight model
whose tokenizer counts one token per byte of plain text, started with `-np 2` and a context of
4096 tokens per slot.
"""

import asyncio
import json
import time

import httpx
import pytest

from desktop_app.core.endpoint.client import make_client, stream_request
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.prompts import PromptFactory
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.report.diagnosis_words import finding_text

SLOT_CONTEXT = 4096  # start-real-server.sh: CTX tokens per slot


def _config(url: str, api: str = "chat") -> EndpointConfig:
    model = httpx.get(f"{url}/v1/models", timeout=10).json()["data"][0]["id"]
    return EndpointConfig(url, model=model, api=api, first_byte_timeout_s=120,
                          total_timeout_s=300)


@pytest.mark.asyncio
async def test_discovery_recognises_llamacpp_with_its_tokenizer_and_metrics(real_url):
    info = await asyncio.wait_for(discover(_config(real_url)), 60)
    assert info.engine == "llamacpp"
    assert info.tokenizer == "llamacpp"
    assert info.has_metrics
    assert not info.simulated
    assert info.models
    # Its settings are read from /props, not typed: 2 slots (NP=2), and the context.
    settings = info.server_settings
    assert settings is not None, "no settings read"
    assert settings.values.get("max_num_seqs") == 2, settings
    assert settings.engine_names.get("max_num_seqs") == "total_slots"
    assert settings.values.get("max_model_len"), settings


@pytest.mark.asyncio
async def test_a_streamed_chat_times_the_first_token_not_the_role_chunk(real_url):
    config = _config(real_url)
    body = {"model": config.model, "max_tokens": 16, "ignore_eos": True, "cache_prompt": False,
            "messages": [{"role": "user", "content": f"Say something {time.time_ns()}"}]}
    # What the server sends: a role-only first chunk, then content.
    async with httpx.AsyncClient(timeout=120) as raw:
        async with raw.stream("POST", f"{real_url}/v1/chat/completions",
                              json={**body, "stream": True}) as response:
            events = [json.loads(line[6:]) async for line in response.aiter_lines()
                      if line.startswith("data: {")]
    first = events[0]["choices"][0]["delta"]
    assert first.get("role") == "assistant" and not first.get("content")
    # What the client makes of it: the role chunk is not a token and not the TTFT stamp.
    async with make_client(config, 1) as client:
        res = await asyncio.wait_for(stream_request(client, config, body), 120)
    assert res.error_class is None, res.error_message
    assert res.tokens_source == "usage" and res.completion_tokens == 16
    assert len(res.chunk_times_ns) == 16  # one token per content chunk; the role chunk excluded
    assert res.first_token_ns == res.chunk_times_ns[0]
    assert res.sent_ns < res.first_byte_ns <= res.first_token_ns <= res.last_token_ns
    assert res.prompt_tokens and res.prompt_tokens > 0
    assert res.finish_reason == "length" and res.text


@pytest.mark.asyncio
@pytest.mark.parametrize("api", ["chat", "completions"])
async def test_prompts_have_exactly_the_asked_number_of_tokens(real_url, api):
    config = _config(real_url, api)
    async with make_client(config, 2) as client:
        info = await discover(config, client)
        prompts = PromptFactory(client, config, info, seed=7)
        await asyncio.wait_for(prompts.prepare([256, 1024]), 120)
        for target in (256, 1024):
            for index in range(2):  # two different salts
                prompt = await prompts.prompt(target, index)
                body = {"model": config.model, "max_tokens": 1, "cache_prompt": False,
                        **prompt.request_fields()}
                res = await asyncio.wait_for(stream_request(client, config, body), 120)
                assert res.error_class is None, res.error_message
                assert res.prompt_tokens == target, (api, target, index, res.prompt_tokens)


@pytest.mark.asyncio
async def test_a_small_sweep_completes_and_names_the_cap_of_two_slots(real_url):
    # 8 requests on 4 clients: requests wait through three of the four rounds on 2 slots (with
    # 4, only the first round queued, and a busy CI machine's late scrapes missed all of it).
    config = SweepConfig(endpoint=_config(real_url), input_tokens=(256,), concurrency=(1, 4),
                         output_tokens=(16,), requests_per_cell=8, warmup=1,
                         metrics_interval_s=0.1)
    result = await asyncio.wait_for(run_sweep(config), 300)
    assert result.status == "completed"
    assert [c.status for c in result.cells] == ["completed", "completed"]
    for cell in result.cells:
        assert cell.summary.failures_by_class == {}, cell.summary.failures_by_class
    assert len(result.requests) == 16
    assert all(r.error is None and r.completion_tokens == 16 for r in result.requests)
    assert {r.prompt_tokens for r in result.requests} == {256}
    assert result.samples  # /metrics was scraped while the cells ran
    cap = next((f for f in result.findings if f.code == "concurrency_cap"), None)
    # What the scrapes saw, for the next failure to be read from CI's log.
    seen = [(c.spec.concurrency, [(s.running, s.waiting) for s in c.samples],
             c.client_load) for c in result.cells]
    assert cap is not None, ([f.code for f in result.findings], seen)
    assert cap.evidence["cap"] == 2
    assert "at most 2 requests at once" in finding_text(cap, "en")
    assert "llamacpp:requests_processing" in finding_text(cap, "en")


@pytest.mark.asyncio
async def test_a_prompt_over_the_context_is_a_classified_failure(real_url):
    config = _config(real_url)
    too_long = "a" * (SLOT_CONTEXT + 500)  # one token per byte with this model's tokenizer
    body = {"model": config.model, "max_tokens": 8, "cache_prompt": False,
            "messages": [{"role": "user", "content": too_long}]}
    async with make_client(config, 1) as client:
        res = await asyncio.wait_for(stream_request(client, config, body), 120)
        # The server still serves the next request normally.
        ok = await asyncio.wait_for(stream_request(client, config, {
            "model": config.model, "max_tokens": 4, "cache_prompt": False,
            "messages": [{"role": "user", "content": "hi"}]}), 120)
    assert res.error_class == "http_status"
    assert res.status_code == 400
    assert "400" in res.error_message and "context" in res.error_message  # the server's words
    assert res.first_token_ns is None
    assert ok.error_class is None, ok.error_message


def test_four_slots_give_no_cap_at_four_and_a_cap_of_four_above(start_server, tmp_path):
    """#26: a plateau is a cap only at the server's own limit. llama.cpp with 4 slots swept at
    1, 2 and 4 concurrent queues nothing; at 8 it names the cap of 4, as strong evidence."""
    import subprocess as sp
    import sys as _sys

    from desktop_app.core.compare import load_run
    from desktop_app.core.store import Store

    url = start_server(NP="4")
    db = tmp_path / "np4.db"
    for conc in ("1,2,4", "1,4,8"):
        done = sp.run([_sys.executable, "-m", "desktop_app", "--db", str(db), "throughput",
                       "--base-url", f"{url}/v1", "--input-tokens", "256", "--output-tokens",
                       "32", "--concurrency", conc, "--requests", "8"],
                      capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
    with Store.open(db) as store:
        low, high = load_run(store, 1), load_run(store, 2)
    assert not [f for f in low.findings if f.code == "concurrency_cap"], low.findings
    cap = next(f for f in high.findings if f.code == "concurrency_cap")
    assert (cap.severity, cap.evidence["cap"], cap.params["strength"]) == ("problem", 4, "strong")


@pytest.mark.asyncio
async def test_two_sessions_of_three_turns_report_the_servers_prefix_cache_reuse(real_url):
    """#29: each turn's history is the previous turn's prompt and reply; llama.cpp reuses it
    from its slot's cache and says so in each reply's usage
    (usage.prompt_tokens_details.cached_tokens), so turns 2 and 3 report most of their prompt
    cached, and turn 1 (two sessions sent at once, nothing cached yet) next to none. Its own
    counters say the same over the cell (/metrics' llamacpp:prompt_tokens_cached_total; its
    /slots shows a request's reuse only while it runs: the figures reset when the slot is
    released)."""
    # 256 new tokens a turn: this server's chat template alone counts 66.
    config = SweepConfig(endpoint=_config(real_url), input_tokens=(256,), output_tokens=(8,),
                         concurrency=(2,), requests_per_cell=6, warmup=1, turns=3,
                         system_tokens=256, metrics_interval_s=0.2)
    result = await asyncio.wait_for(run_sweep(config), 300)
    (cell,) = result.cells
    assert cell.summary.ok == 6, cell.summary.failures_by_class
    first, second, third = cell.turn_figures
    assert [t["n"] for t in cell.turn_figures] == [2, 2, 2]
    assert second["prompt_tokens_mean"] > first["prompt_tokens_mean"] + 8  # + reply + turn
    assert all(t["cached_share"] is not None for t in cell.turn_figures), cell.turn_figures
    # The history (system prompt, turn 1 and its reply) is most of turn 2's prompt.
    assert second["cached_share"] > 0.5 and third["cached_share"] > 0.5, cell.turn_figures
    assert first["cached_share"] < second["cached_share"], cell.turn_figures
    reuse = cell.prefix_cache
    assert reuse is not None and reuse["source"] == "llamacpp:prompt_tokens_cached_total"
    said = sum(t["cached_share"] * t["prompt_tokens_mean"] * t["n"] for t in cell.turn_figures)
    prompts = sum(t["prompt_tokens_mean"] * t["n"] for t in cell.turn_figures)
    assert reuse["share"] == pytest.approx(said / prompts, abs=0.1), (reuse, said / prompts)
