"""SGLang: its /get_server_info (settings, newer versions per data-parallel rank) and its
`sglang:` series; it speaks vLLM's /tokenize shape."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_app.core.engines import Engine, Probe, register
from desktop_app.core.engines._settings import fetch_json

if TYPE_CHECKING:
    import httpx

    from desktop_app.core.engines._settings import Reader


async def read_settings(client: httpx.AsyncClient, root: str, reader: Reader) -> None:
    info = await fetch_json(client, root, "/get_server_info", reader) or {}
    reader.put_all(info)
    # Newer SGLang reports the scheduler's effective limits per data-parallel rank.
    states = info.get("internal_states")
    if isinstance(states, list) and states and isinstance(states[0], dict):
        reader.put_all(states[0])


def _recognise(probe: Probe) -> bool:
    return "sglang:" in probe.prefixes or bool(probe.json("/get_server_info")) \
        or "sglang" in probe.owners


ENGINE = register(Engine(
    "sglang", "SGLang", rank=30, recognise=_recognise,
    version=lambda probe: probe.json("/get_server_info").get("version"),
    probes=("/get_server_info",), tokenizers=("vllm",), accepts_ignore_eos=True,
    refuses_unknown_model=True, metric_prefix="sglang:",
    series={"running": ("sglang:num_running_reqs",), "waiting": ("sglang:num_queue_reqs",),
            "kv_cache_usage": ("sglang:token_usage",)},
    spellings={"version": "engine_version", "max_running_requests": "max_num_seqs",
               "chunked_prefill_size": "max_num_batched_tokens",
               "mem_fraction_static": "gpu_memory_utilization", "tp_size": "tensor_parallel_size",
               "pp_size": "pipeline_parallel_size", "quantization": "quantization",
               "context_length": "max_model_len", "page_size": "block_size",
               "max_total_num_tokens": "kv_cache_tokens", "kv_cache_dtype": "kv_cache_dtype",
               "dtype": "dtype", "model_path": "model_path"},
    read_settings=read_settings,
    knobs={"cap": "max-running-requests", "budget": "chunked-prefill-size",
           "kv_memory": "mem-fraction-static", "context": "context-length"},
    aliases={"max_running_requests": "max_num_seqs",
             "chunked_prefill_size": "max_num_batched_tokens"},
))
