"""Server settings: read from each engine's own endpoints (hostile answers skipped), typed by
the user, and recorded with every run."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.server_settings import (
    MAX_BODY_BYTES,
    ServerSettings,
    config_info_labels,
    describe_key,
    merge_settings,
    parse_user_settings,
    read_server_settings,
)
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.resume import sweep_config_from_json
from desktop_app.core.throughput.sweep import run_sweep

ROOT = "http://fake:8000"

VLLM_METRICS = """\
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="fp8",calculate_kv_scales="False",\
cpu_offload_gb="0",enable_prefix_caching="True",gpu_memory_utilization="0.92",\
is_attention_free="False",num_cpu_blocks="None",num_gpu_blocks="27189",\
num_gpu_blocks_override="None",sliding_window="None",swap_space="4",\
engine="0",model_name="Qwen/Qwen2.5-7B"} 1.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="Qwen/Qwen2.5-7B"} 0.0
# TYPE vllm:scheduler_config_info gauge
vllm:scheduler_config_info{max_num_seqs="64",max_num_batched_tokens="8192"} 1.0
"""


def client_for(routes: dict) -> httpx.AsyncClient:
    """A client whose server answers GET `routes[path]`: a dict/list (JSON), str or bytes."""

    def handler(request: httpx.Request) -> httpx.Response:
        body = routes.get(request.url.path)
        if body is None:
            return httpx.Response(404, json={"detail": "Not Found"})
        if isinstance(body, bytes):
            return httpx.Response(200, content=body)
        if isinstance(body, str):
            return httpx.Response(200, text=body)
        return httpx.Response(200, json=body)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def read(routes: dict, engine: str) -> ServerSettings:
    async with client_for(routes) as client:
        return await read_server_settings(client, ROOT, engine)


@pytest.mark.asyncio
async def test_vllm_settings_come_from_version_config_info_and_models():
    settings = await read({
        "/version": {"version": "0.9.2"},
        "/metrics": VLLM_METRICS,
        "/v1/models": {"data": [{"id": "Qwen/Qwen2.5-7B", "max_model_len": 32768}]},
    }, "vllm")
    assert settings.values == {
        "engine_version": "0.9.2", "max_num_seqs": 64, "max_num_batched_tokens": 8192,
        "gpu_memory_utilization": 0.92, "max_model_len": 32768, "block_size": 16,
        "num_gpu_blocks": 27189, "kv_cache_dtype": "fp8", "enable_prefix_caching": True}
    assert settings.engine_names["kv_cache_dtype"] == "cache_dtype"
    assert settings.notes == ()
    assert describe_key("kv_cache_dtype", "vllm") == "kv_cache_dtype (vLLM: cache_dtype)"


def test_config_info_labels_parse_escapes_and_skip_broken_lines():
    text = ('vllm:cache_config_info{block_size="16",cache_dtype="a\\"b"} 1.0 1712345678\n'
            'vllm:scheduler_config_info{max_num_seqs="2",broken} 1.0\n'
            'vllm:other_config_info{} 1\n')
    assert config_info_labels(text) == {
        "vllm:cache_config_info": {"block_size": "16", "cache_dtype": 'a"b'},
        "vllm:other_config_info": {}}


@pytest.mark.asyncio
async def test_sglang_llamacpp_and_tgi_keep_their_own_spellings():
    sglang = await read({"/get_server_info": {
        "version": "0.4.6", "max_running_requests": None, "chunked_prefill_size": 8192,
        "mem_fraction_static": 0.88, "tp_size": 2, "quantization": "fp8", "context_length": 8192,
        "internal_states": [{"max_running_requests": 48}]}}, "sglang")
    assert sglang.values == {
        "engine_version": "0.4.6", "max_num_seqs": 48, "max_num_batched_tokens": 8192,
        "gpu_memory_utilization": 0.88, "tensor_parallel_size": 2, "quantization": "fp8",
        "max_model_len": 8192}
    assert sglang.engine_names["max_num_seqs"] == "max_running_requests"
    assert (describe_key("max_num_seqs", "sglang", sglang.engine_names["max_num_seqs"])
            == "max_num_seqs (SGLang: max_running_requests)")

    llama = await read({"/props": {"total_slots": 4, "build_info": "b6000-abc123",
                                   "model_path": "/models/qwen.gguf",
                                   "default_generation_settings": {"n_ctx": 4096}},
                        "/slots": [{"id": 0, "n_ctx": 4096}] * 4}, "llamacpp")
    assert llama.values == {"engine_version": "b6000-abc123", "max_num_seqs": 4,
                            "max_model_len": 4096, "model_path": "/models/qwen.gguf"}
    assert llama.engine_names["max_num_seqs"] == "total_slots"
    # /slots alone (an older /props without total_slots) still gives the slot count.
    slots_only = await read({"/props": {}, "/slots": [{"n_ctx": 2048}] * 2}, "llamacpp")
    assert slots_only.values == {"max_num_seqs": 2, "max_model_len": 2048}

    tgi = await read({"/info": {"version": "3.0.1", "max_concurrent_requests": 128,
                                "max_batch_total_tokens": 160000, "max_total_tokens": 4096,
                                "max_batch_size": None, "model_dtype": "torch.float16"}}, "tgi")
    assert tgi.values == {"engine_version": "3.0.1", "max_model_len": 4096,
                          "kv_cache_tokens": 160000, "dtype": "torch.float16",
                          "max_concurrent_requests": 128}


@pytest.mark.asyncio
async def test_hostile_answers_are_skipped_with_a_note_never_raised():
    deep = "[" * 10_000 + "]" * 10_000
    settings = await read({
        "/get_server_info": json.dumps({  # json.dumps writes NaN, as a careless server does
            "version": {"nested": True}, "max_running_requests": "lots", "tp_size": True,
            "mem_fraction_static": float("nan"), "quantization": "x" * 5000,
            "chunked_prefill_size": 2.0, "context_length": 10**30}),
    }, "sglang")
    assert settings.values == {"max_num_batched_tokens": 2}
    assert {"bad_value:version", "bad_value:max_running_requests", "bad_value:tp_size",
            "bad_value:mem_fraction_static", "bad_value:quantization",
            "bad_value:context_length"} <= set(settings.notes)

    huge = b"vllm:cache_config_info{block_size=\"16\"} 1\n" + b"#" * (MAX_BODY_BYTES + 10)
    settings = await read({"/version": deep, "/metrics": huge, "/v1/models": "not json{"},
                          "vllm")
    assert settings.values == {}
    assert set(settings.notes) == {"too_deep:/version", "too_large:/metrics",
                                   "not_json:/v1/models"}

    settings = await read({"/props": [1, 2], "/slots": {"n_ctx": 1}}, "llamacpp")
    assert settings.values == {} and "wrong_type:/props" in settings.notes
    settings = await read({"/info": b"\xff\xfe"}, "tgi")
    assert settings.values == {} and settings.notes == ("not_utf8:/info",)
    settings = await read({}, "ollama")
    assert settings.values == {} and settings.notes == ("unsupported:ollama",)

    def refuse(request):
        raise httpx.ConnectError("refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as client:
        settings = await read_server_settings(client, ROOT, "tgi")
    assert settings.values == {} and settings.notes == ("unreachable:/info",)


def test_user_settings_are_normalised_and_typed():
    assert parse_user_settings(["Max-Num-Seqs=2", "gpu-memory-utilization = 0.91",
                                "enforce_eager=true", "quantization=awq", "note=None"]) == {
        "max_num_seqs": 2, "gpu_memory_utilization": 0.91, "enforce_eager": True,
        "quantization": "awq", "note": "None"}
    assert parse_user_settings("max-num-seqs=2, tp=4\nkv-cache-dtype=fp8\n") == {
        "max_num_seqs": 2, "tp": 4, "kv_cache_dtype": "fp8"}
    assert parse_user_settings("") == {}


@pytest.mark.parametrize("given, expected", [
    (["max-num-seqs=2", "tp4"], "setting 2 'tp4': expected KEY=VALUE"),
    (["=2"], "setting 1 '=2': the key before '=' is empty"),
    (["a=1", "b=2", "max num=3"], "setting 3 'max num=3': the key must be"),
    (["x=" + "9" * 201], "setting 1 'x=9999"),
    (["k="], "setting 1 'k=': no value"),
    (["k=1", "K=2"], "setting 2 'K=2': k is given twice"),
    ([f"k{i}=1" for i in range(65)], "65 settings given; at most 64"),
])
def test_bad_user_settings_name_the_item_and_its_position(given, expected):
    with pytest.raises(ValueError) as excinfo:
        parse_user_settings(given)
    assert expected in str(excinfo.value)


def test_a_value_read_from_the_server_wins_and_the_users_is_kept_beside_it():
    read = ServerSettings({"max_num_seqs": 2, "block_size": 16}, {}, (), "vllm")
    settings, source = merge_settings(read, {"max_num_seqs": 4, "block_size": 16,
                                             "tensor_parallel_size": 2})
    assert settings == {"max_num_seqs": 2, "block_size": 16, "user:max_num_seqs": 4,
                        "tensor_parallel_size": 2}
    assert source == {"max_num_seqs": "server", "block_size": "server",
                      "user:max_num_seqs": "user", "tensor_parallel_size": "user"}
    assert merge_settings(None, {"a": 1}) == ({"a": 1}, {"a": "user"})


def test_a_bad_setting_flag_exits_2_with_one_line(capsys, tmp_path):
    assert main(["--db", str(tmp_path / "r.db"), "throughput", "--base-url", "http://x:1",
                 "--input-tokens", "64", "--setting", "max-num-seqs"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--setting" in err[0] and "'max-num-seqs'" in err[0], err


@pytest.fixture(scope="module")
def capped_sim():
    with serve_in_thread(load_profile("fast-capped")) as server:
        yield server


@pytest.mark.asyncio
async def test_the_simulator_reports_its_profile_settings_as_vllm_does(capped_sim):
    profile = load_profile("fast-capped")
    info = await discover(EndpointConfig(capped_sim.url + "/v1"))
    values = info.server_settings.values
    assert values["max_num_seqs"] == profile.max_num_seqs == 2
    assert values["simulator_profile"] == "fast-capped"
    assert values["max_num_batched_tokens"] == profile.max_num_batched_tokens
    assert values["gpu_memory_utilization"] == profile.gpu_memory_utilization
    assert values["max_model_len"] == profile.max_model_len
    # Against `fast`, the one setting that differs is the cap, read from the server.
    with serve_in_thread(load_profile("fast")) as fast:
        other = (await discover(EndpointConfig(fast.url))).server_settings.values
    differ = {k for k in values.keys() | other.keys() if values.get(k) != other.get(k)}
    assert differ == {"max_num_seqs", "simulator_profile"}


@pytest.mark.asyncio
async def test_a_stored_sweep_records_the_settings_and_resumes_with_the_users(capped_sim,
                                                                              tmp_path):
    config = SweepConfig(EndpointConfig(capped_sim.url, model="sim/llama-sim-8b"),
                         input_tokens=(32,), output_tokens=(4,), concurrency=(1,),
                         requests_per_cell=2, warmup=0, scrape_metrics=False,
                         notes="after the driver update",
                         server_settings={"max_num_seqs": 8, "tensor_parallel_size": 1})
    with Store.open(tmp_path / "r.db") as store:
        result = await asyncio.wait_for(run_sweep(config, store), 30)
        run = store.get_run(result.run_id)
    assert run.notes == "after the driver update"
    stored = run.config
    assert stored["server_settings"]["max_num_seqs"] == 2
    assert stored["server_settings"]["simulator_profile"] == "fast-capped"
    assert stored["server_settings"]["user:max_num_seqs"] == 8
    assert stored["server_settings_source"]["max_num_seqs"] == "server"
    assert stored["server_settings_source"]["tensor_parallel_size"] == "user"
    json.dumps(stored)  # plain JSON all the way down
    again = sweep_config_from_json(stored, EndpointConfig(capped_sim.url))
    assert again.server_settings == config.server_settings
    assert again.notes == config.notes
