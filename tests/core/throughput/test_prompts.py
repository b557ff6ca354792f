"""Exact-length prompts: the server's own usage.prompt_tokens matches, and every prompt is unique
from its first tokens (so prefix caching cannot flatter prefill speed)."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.throughput.prompts import (
    Prompt, PromptError, PromptFactory, check_prompt_tokens,
)

MODEL = "sim/llama-sim-8b"


@pytest.fixture(scope="module")
def sim():
    with serve_in_thread(load_profile("instant")) as server:
        yield server


def _info(tokenizer, engine="vllm") -> EndpointInfo:
    return EndpointInfo(models=(MODEL,), engine=engine, engine_version=None, tokenizer=tokenizer,
                        has_metrics=True, simulated=True, accepts_ignore_eos=True, latency_s=0.0)


def _config(url: str, api: str) -> EndpointConfig:
    return EndpointConfig(base_url=url, model=MODEL, api=api)


async def _served_prompt_tokens(client: httpx.AsyncClient, config: EndpointConfig,
                                prompt: Prompt) -> int:
    """What the server counts when the prompt is actually sent (a 1-token completion)."""
    path = "chat/completions" if config.api == "chat" else "completions"
    body = {"model": MODEL, "max_tokens": 1, **prompt.request_fields()}
    response = await client.post(f"{config.v1_url}/{path}", json=body)
    assert response.status_code == 200, response.text
    return response.json()["usage"]["prompt_tokens"]


async def _first_tokens(client: httpx.AsyncClient, url: str, prompt: Prompt, n: int = 8) -> tuple:
    response = await client.post(f"{url}/tokenize", json={"model": MODEL, "prompt": prompt.content})
    return tuple(response.json()["tokens"][:n])


@pytest.mark.asyncio
@pytest.mark.parametrize("api", ["completions", "chat"])
async def test_server_counts_exactly_the_target(sim, api):
    config = _config(sim.url, api)
    async with httpx.AsyncClient(timeout=30) as client:
        factory = PromptFactory(client, config, _info("vllm"), seed=11)
        for target in (1000, 2000, 4000, 32000):
            prompt = await factory.prompt(target, index=3)
            assert (prompt.target_tokens, prompt.expected_tokens) == (target, target)
            assert prompt.method == "tokenizer"
            assert (prompt.messages is not None) == (api == "chat")
            assert await _served_prompt_tokens(client, config, prompt) == target
        assert factory.salt_stable is True
        assert factory.calibration_requests == 0


@pytest.mark.asyncio
async def test_prompts_differ_in_their_first_tokens_across_indices_and_runs(sim):
    config = _config(sim.url, "completions")
    async with httpx.AsyncClient(timeout=30) as client:
        run_a = PromptFactory(client, config, _info("vllm"), seed=1)
        run_b = PromptFactory(client, config, _info("vllm"), seed=2)
        indices = [*range(40), 1023, 1024, 32 ** 2, 32 ** 3 + 5, 99_999]
        heads = {}
        for factory, run in ((run_a, "a"), (run_b, "b")):
            for index in indices:
                prompt = await factory.prompt(2000, index)
                heads[(run, index)] = await _first_tokens(client, sim.url, prompt)
                assert prompt.expected_tokens == 2000
        assert len(set(heads.values())) == len(heads)  # all distinct within 8 tokens
        # The same index in a fresh run with a random seed differs too.
        fresh = PromptFactory(client, config, _info("vllm"))
        assert await _first_tokens(client, sim.url, await fresh.prompt(2000, 0)) != heads[("a", 0)]


@pytest.mark.asyncio
@pytest.mark.parametrize("api", ["completions", "chat"])
async def test_identical_prompts_per_length_when_not_unique(sim, api):
    config = _config(sim.url, api)
    async with httpx.AsyncClient(timeout=30) as client:
        factory = PromptFactory(client, config, _info("vllm"), unique=False, seed=5)
        first, *others = [await factory.prompt(1000, i) for i in range(5)]
        assert all(p == first for p in others)
        assert await _served_prompt_tokens(client, config, first) == 1000
        # Other lengths are other text, not a shared prefix a cache could reuse.
        longer = await factory.prompt(2000, 0)
        assert longer.content[:200] != first.content[:200]


@pytest.mark.asyncio
async def test_filler_is_plain_words_without_special_tokens(sim):
    async with httpx.AsyncClient(timeout=30) as client:
        factory = PromptFactory(client, _config(sim.url, "completions"), _info("vllm"), seed=3)
        text = (await factory.prompt(4000, 0)).content
    assert re.fullmatch(r"[a-z :.,I]+", text)
    assert "<|" not in text
    words = text.split()
    # No long run of words repeats: every 12-word window is new.
    windows = [" ".join(words[i:i + 12]) for i in range(len(words) - 12)]
    assert len(set(windows)) == len(windows)


@pytest.mark.asyncio
async def test_concurrent_callers_build_a_length_once(sim):
    async with httpx.AsyncClient(timeout=30) as client:
        single = PromptFactory(client, _config(sim.url, "chat"), _info("vllm"), seed=9)
        await single.prompt(2000, 0)
        crowd = PromptFactory(client, _config(sim.url, "chat"), _info("vllm"), seed=9)
        prompts = await asyncio.gather(*(crowd.prompt(2000, i) for i in range(30)))
    assert crowd.tokenize_calls == single.tokenize_calls
    assert len({p.content for p in prompts}) == 30


@pytest.mark.asyncio
@pytest.mark.parametrize("api", ["completions", "chat"])
async def test_calibrated_without_tokenizer_lands_within_one_percent(sim, api):
    config = _config(sim.url, api)
    targets = (1000, 4000, 16000)
    async with httpx.AsyncClient(timeout=30) as client:
        await client.delete(f"{sim.url}/sim/trace")
        factory = PromptFactory(client, config, _info(None), seed=21)
        prompts = [await factory.prompt(t, 0) for t in targets]
        again = await factory.prompt(4000, 1)  # cached: no more calibration
        trace = (await client.get(f"{sim.url}/sim/trace")).json()["records"]
        assert len(trace) == factory.calibration_requests
        assert factory.calibration_requests <= 3 + 2 * len(targets)
        assert factory.tokenize_calls == 0
        for target, prompt in zip(targets, prompts):
            assert prompt.method == "calibrated"
            served = await _served_prompt_tokens(client, config, prompt)
            assert abs(served - target) <= 0.01 * target
            assert served == prompt.expected_tokens
        assert again.expected_tokens == prompts[1].expected_tokens
        assert again.content != prompts[1].content


# --- a llama.cpp-shaped server, faked: tokenize {"content"} -> {"tokens"} -------------------------

CHAT_TEMPLATE_TOKENS = 13  # what the fake's chat template adds
BOS = 1


TWO_TOKEN_WORDS = frozenset({"the", "and", "water", "answer", "number", "market", "simple",
                             "window", "quiet", "kernel"})


def _fake_tokens(text: str, costly: frozenset[str] = frozenset()) -> list[int]:
    """A deterministic stand-in tokenizer: some common words cost 2 tokens (so the word-level
    search cannot always land exactly), punctuation 1, a word in `costly` 3 (to make some salts
    longer than others), everything else 1."""
    out = []
    for piece in re.findall(r"\s?[A-Za-z]+|\s?[^\sA-Za-z]|\s+", text):
        word = piece.strip()
        cost = 3 if word in costly else (2 if word in TWO_TOKEN_WORDS else 1)
        out.extend([len(word)] * cost)
    return out


def _fake_llamacpp(kind: str, costly: frozenset[str] = frozenset(), fail: bool = False):
    calls = {"tokenize": 0, "completion": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        path = request.url.path
        if path in ("/tokenize", "/extras/tokenize"):
            assert path == ("/tokenize" if kind == "llamacpp" else "/extras/tokenize")
            calls["tokenize"] += 1
            if fail:
                return httpx.Response(500, text="tokenizer exploded")
            text = body["content"] if kind == "llamacpp" else body["input"]
            return httpx.Response(200, json={"tokens": _fake_tokens(text, costly)})
        calls["completion"] += 1
        assert body["max_tokens"] == 1 and body["stream"] is False
        if path == "/v1/chat/completions":
            used = len(_fake_tokens(body["messages"][0]["content"], costly)) + CHAT_TEMPLATE_TOKENS
        else:
            used = len(_fake_tokens(body["prompt"], costly)) + BOS
        return httpx.Response(200, json={"choices": [{"text": "x"}],
                                         "usage": {"prompt_tokens": used, "completion_tokens": 1}})

    return httpx.MockTransport(handler), calls


def _fake_usage(prompt: Prompt, costly: frozenset[str] = frozenset()) -> int:
    overhead = CHAT_TEMPLATE_TOKENS if prompt.messages is not None else BOS
    return len(_fake_tokens(prompt.content, costly)) + overhead


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["llamacpp", "llamacpp-python"])
@pytest.mark.parametrize("api", ["chat", "completions"])
async def test_llamacpp_counts_content_and_calibrates_the_template_once(kind, api):
    transport, calls = _fake_llamacpp(kind)
    config = EndpointConfig(base_url="http://fake:8080/v1", model="m", api=api)
    async with httpx.AsyncClient(transport=transport) as client:
        factory = PromptFactory(client, config, _info(kind, engine=kind), seed=4)
        for target in (1000, 3000, 3001):
            prompt = await factory.prompt(target, 17)
            assert _fake_usage(prompt) == prompt.expected_tokens == target
        assert factory.salt_stable is True
    assert calls["completion"] == 1  # the template/BOS overhead, measured once


@pytest.mark.asyncio
async def test_salts_of_unequal_cost_fall_back_to_counting_every_prompt():
    costly = frozenset({"tiger"})  # a salt word this tokenizer splits in three
    transport, calls = _fake_llamacpp("llamacpp", costly)
    config = EndpointConfig(base_url="http://fake:8080", model="m", api="completions")
    async with httpx.AsyncClient(transport=transport) as client:
        factory = PromptFactory(client, config, _info("llamacpp", engine="llamacpp"), seed=4)
        prompts = [await factory.prompt(1000, i) for i in range(40)]
    assert factory.salt_stable is False
    assert all(_fake_usage(p, costly) == p.expected_tokens == 1000 for p in prompts)


@pytest.mark.asyncio
async def test_errors_name_the_length(sim):
    transport, _ = _fake_llamacpp("llamacpp", fail=True)
    config = EndpointConfig(base_url="http://fake:8080", model="m", api="chat")
    async with httpx.AsyncClient(transport=transport) as client:
        factory = PromptFactory(client, config, _info("llamacpp", engine="llamacpp"))
        with pytest.raises(PromptError, match=r"2000 tokens.*HTTP 500"):
            await factory.prompt(2000, 0)
    async with httpx.AsyncClient(timeout=30) as client:
        factory = PromptFactory(client, _config(sim.url, "chat"), _info("vllm"))
        with pytest.raises(PromptError, match=r"10 tokens is too short.*chat template"):
            await factory.prompt(10, 0)
        with pytest.raises(PromptError, match=r"200000 tokens does not fit.*131072"):
            await factory.prompt(200_000, 0)
        assert (await factory.prompt(100, 0)).expected_tokens == 100  # the factory still works


def test_check_prompt_tokens_allows_two_percent():
    assert check_prompt_tokens(1000, None)
    assert check_prompt_tokens(1000, 1020) and check_prompt_tokens(1000, 980)
    assert not check_prompt_tokens(1000, 1021) and not check_prompt_tokens(1000, 979)
