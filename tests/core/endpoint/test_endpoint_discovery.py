"""Discovery: the simulator for real, fakes of other engines, and the errors a user sees."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from desktop_app.core.endpoint.client import make_client, stream_request
from desktop_app.core.endpoint.discovery import (EndpointError, count_chat_tokens,
                                                 count_prompt_tokens, discover,
                                                 validate_base_url)
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread

MODEL = "sim/llama-sim-8b"


@pytest.fixture(scope="module")
def sim():
    with serve_in_thread(load_profile("instant")) as server:
        yield server


@pytest.mark.asyncio
async def test_the_simulator_is_a_simulated_vllm(sim):
    config = EndpointConfig(sim.url + "/v1", model=MODEL)
    info = await discover(config)  # makes and closes a client of its own
    assert info.models[0] == MODEL and info.engine == "vllm" and info.simulated
    assert info.tokenizer == "vllm" and info.has_metrics and info.accepts_ignore_eos
    assert info.engine_version.endswith("-simulated") and 0 < info.latency_s < 5
    assert info.notes == ()


@pytest.mark.asyncio
async def test_server_token_counts_equal_usage(sim):
    messages = [{"role": "system", "content": "Be brief."},
                {"role": "user", "content": "How many orders shipped in 2024, by month?"}]
    prompt = "SELECT count(*) FROM orders WHERE year = 2024"
    async with make_client(EndpointConfig(sim.url), 2) as client:
        for api, extra in (("chat", {"messages": messages}), ("completions", {"prompt": prompt})):
            config = EndpointConfig(sim.url, model=MODEL, api=api)
            info = await discover(config, client)
            counted = await count_prompt_tokens(client, config, info, **extra)
            res = await stream_request(client, config, {"model": MODEL, "max_tokens": 1, **extra})
            assert counted == res.prompt_tokens and counted > 5
        config = EndpointConfig(sim.url, model=MODEL)
        info = await discover(config, client)
        res = await stream_request(client, config, {"model": MODEL, "max_tokens": 1,
                                                    "messages": messages})
        assert await count_chat_tokens(client, config, info, messages) == res.prompt_tokens


# --- fakes of other engines -----------------------------------------------------------------
def fake(routes: dict, server: str = "", seen: list | None = None) -> httpx.AsyncClient:
    """A client whose server answers `routes[(method, path)]` (status, body); else 404."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        status, body = routes.get((request.method, request.url.path), (404, {"detail": "nf"}))
        headers = {"server": server} if server else {}
        if isinstance(body, str):
            return httpx.Response(status, text=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def models(owner: str, *ids: str) -> tuple[int, dict]:
    return 200, {"object": "list", "data": [{"id": i, "object": "model", "owned_by": owner}
                                            for i in ids or ("m",)]}


CONFIG = EndpointConfig("http://fake:8080", model="m")


async def discover_fake(routes: dict, server: str = "", seen: list | None = None):
    async with fake(routes, server, seen) as client:
        return await discover(CONFIG, client)


LLAMACPP_METRICS = ("# HELP llamacpp:requests_processing Number of requests processing.\n"
                    "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 0\n")


@pytest.mark.asyncio
async def test_llamacpp_server():
    seen: list[httpx.Request] = []
    routes = {
        ("GET", "/v1/models"): models("llamacpp", "qwen.gguf"),
        ("GET", "/props"): (200, {"default_generation_settings": {}, "total_slots": 2,
                                  "build_info": "b6000-abc123"}),
        ("GET", "/health"): (200, {"status": "ok"}),
        ("GET", "/metrics"): (200, LLAMACPP_METRICS),
        ("POST", "/tokenize"): (200, {"tokens": [1, 15043, 3186]}),
    }
    info = await discover_fake(routes, "llama.cpp", seen)
    assert (info.engine, info.engine_version, info.tokenizer) == ("llamacpp", "b6000-abc123",
                                                                  "llamacpp")
    assert info.has_metrics and info.accepts_ignore_eos and not info.simulated
    assert any("cache_prompt" in str(n) for n in info.notes)
    assert any("model 'm' is not in" in str(n) for n in info.notes)
    routes[("GET", "/metrics")] = (501, {"error": {"message": "metrics not supported"}})
    async with fake(routes, seen=seen) as client:
        info = await discover(CONFIG, client)
        assert not info.has_metrics and any("--metrics" in str(n) for n in info.notes)
        seen.clear()
        assert await count_prompt_tokens(client, CONFIG, info, prompt="Hello world") == 3
        assert json.loads(seen[0].content) == {"content": "Hello world", "add_special": True}
        chat = [{"role": "user", "content": "hi"}]
        assert await count_prompt_tokens(client, CONFIG, info, messages=chat) is None
        # A chat prompt: the server's own template (/apply-template), then /tokenize of it.
        assert await count_chat_tokens(client, CONFIG, info, chat) is None  # no template route
    routes[("POST", "/apply-template")] = (200, {"prompt": "<|im_start|>user\nhi<|im_end|>\n"})
    async with fake(routes, seen=seen) as client:
        seen.clear()
        tools = [{"type": "function", "function": {"name": "run_sql"}}]
        assert await count_chat_tokens(client, CONFIG, info, chat, tools) == 3
        assert json.loads(seen[0].content) == {"messages": chat, "tools": tools}
        assert json.loads(seen[1].content) == {"content": "<|im_start|>user\nhi<|im_end|>\n",
                                               "add_special": True}


@pytest.mark.asyncio
async def test_llamacpp_python():
    routes = {("GET", "/v1/models"): models("me", "/models/llama.gguf"),
              ("POST", "/extras/tokenize"): (200, {"tokens": [1, 2, 3, 4]})}
    async with fake(routes) as client:
        info = await discover(EndpointConfig("http://fake:8080"), client)
        assert (info.engine, info.tokenizer) == ("llamacpp-python", "llamacpp-python")
        assert not info.accepts_ignore_eos and not info.has_metrics
        assert any("no usage" in str(n) for n in info.notes)
        assert await count_prompt_tokens(client, CONFIG, info, prompt="Hello world") == 4


@pytest.mark.asyncio
async def test_ollama_tgi_and_sglang():
    info = await discover_fake({("GET", "/v1/models"): models("library", "llama3.2:1b"),
                                ("GET", "/api/version"): (200, {"version": "0.5.7"})})
    assert (info.engine, info.engine_version, info.tokenizer) == ("ollama", "0.5.7", None)
    assert not info.accepts_ignore_eos and any("calibrated" in str(n) for n in info.notes)
    info = await discover_fake({
        ("GET", "/v1/models"): models("huggingface", "tgi"),
        ("GET", "/info"): (200, {"model_id": "Qwen/Qwen2.5-7B", "version": "3.0.1"}),
        ("GET", "/metrics"): (200, "# TYPE tgi_queue_size gauge\ntgi_queue_size 0\n"),
    })
    assert (info.engine, info.engine_version, info.has_metrics) == ("tgi", "3.0.1", True)
    info = await discover_fake({
        ("GET", "/v1/models"): models("sglang", "m"),
        ("GET", "/get_server_info"): (200, {"version": "0.4.6"}),
        ("GET", "/metrics"): (200, 'sglang:num_running_reqs{model_name="m"} 0.0\n'),
        ("POST", "/tokenize"): (200, {"count": 2, "tokens": [1, 2], "max_model_len": 4096}),
    })
    assert (info.engine, info.tokenizer, info.has_metrics) == ("sglang", "vllm", True)
    assert info.accepts_ignore_eos and info.engine_version == "0.4.6"


@pytest.mark.asyncio
async def test_an_unknown_server_says_what_was_tried():
    routes = {("GET", "/v1/models"): models("someone"),
              ("GET", "/metrics"): (200, "python_gc_objects_collected_total 1.0\n")}
    info = await discover_fake(routes, server="CustomProxy/1.0")
    assert (info.engine, info.tokenizer, info.has_metrics) == ("unknown", None, False)
    assert not info.accepts_ignore_eos and info.models == ("m",)
    tried = next(str(n) for n in info.notes if "not recognised" in str(n))
    assert "/version" in tried and "/extras/tokenize" in tried and "CustomProxy" in tried
    assert any("/metrics answers" in str(n) for n in info.notes)


# --- errors a user sees before a sweep ------------------------------------------------------
@pytest.mark.parametrize(("status", "body", "expected"), [
    (401, {"error": {"message": "bad key"}}, r"401 Unauthorized from http://fake:8080/v1/models: "
                                             r"check the API key"),
    (403, {"detail": "forbidden"}, "403 Forbidden .*check the API key"),
    (404, {"detail": "Not Found"}, "404 Not Found from .*/v1/models: no OpenAI-compatible API"),
    (500, {"error": {"message": "boom"}}, "500 Internal Server Error from .*: boom"),
    (200, "<html>hello</html>", "did not answer with a model list"),
])
@pytest.mark.asyncio
async def test_fatal_answers_raise_endpoint_errors(status, body, expected):
    with pytest.raises(EndpointError, match=expected) as info:
        await discover_fake({("GET", "/v1/models"): (status, body)})
    assert info.value.url == "http://fake:8080/v1/models"


@pytest.mark.asyncio
async def test_unreachable_and_bad_urls():
    with socket.socket() as s:  # bound, not listening, held: refused, and nobody else's port
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(EndpointError,
                           match=f"cannot connect to http://127.0.0.1:{port}/v1/models"):
            await discover(EndpointConfig(f"http://127.0.0.1:{port}", connect_timeout_s=2))
    with pytest.raises(EndpointError, match="base URL: no scheme"):
        await discover(EndpointConfig("localhost:8000"))


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"), ("   ", "empty"), ("localhost:8000", "no scheme"),
    ("ftp://host/v1", "unsupported scheme 'ftp'"), ("http://", "no host"),
    ("http:///v1", "no host"), ("http://my host:8000", "space"),
    ("http://host:99999", "bad port"), ("http://host:80?x=1", "query"),
])
def test_validate_base_url_rejects(text, message):
    with pytest.raises(ValueError, match=f"^base URL: .*{message}"):
        validate_base_url(text)


def test_validate_base_url_accepts_and_trims():
    assert validate_base_url(" http://127.0.0.1:8000/v1/ ") == "http://127.0.0.1:8000/v1"
    assert validate_base_url("https://api.example.com") == "https://api.example.com"
    assert validate_base_url("http://[::1]:8000") == "http://[::1]:8000"


@pytest.mark.parametrize(("model", "models", "en", "zh"), [
    ("", (), "the endpoint lists no models; name one", "该端点未列出任何模型；请指定一个"),
    ("llama-3-70b", ("qwen-7b", "qwen-14b"),
     "'llama-3-70b' is not served by http://gpu:8000/v1; it serves: qwen-7b, qwen-14b",
     "http://gpu:8000/v1 不提供 'llama-3-70b'；它提供的是：qwen-7b, qwen-14b"),
])
def test_a_model_the_endpoint_cannot_run_is_refused_in_the_readers_language(model, models, en,
                                                                           zh):
    import dataclasses

    from desktop_app.core.endpoint.discovery import choose_model
    from desktop_app.core.endpoint.types import EndpointInfo
    from desktop_app.core.parsing import InputError
    from desktop_app.report.input_words import input_error_text
    from tests.lang_check import english_runs

    info = EndpointInfo(models=models, engine="vllm", engine_version="0.6", tokenizer="vllm",
                        has_metrics=True, simulated=False, accepts_ignore_eos=True,
                        latency_s=0.01)
    config = EndpointConfig("http://user:pw@gpu:8000", model=model)
    with pytest.raises(InputError) as caught:
        choose_model(config, info)
    assert caught.value.field == "model" and "pw" not in str(caught.value)
    assert str(caught.value) == f"model: {en}"
    said = input_error_text(caught.value, "zh")
    assert zh in said and english_runs(said, allowed=models + (model,)) == []
    if models:  # one it serves goes through as it was named
        served = dataclasses.replace(config, model=models[1])
        assert choose_model(served, info) == served
