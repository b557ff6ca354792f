"""vLLM: its /version, its `vllm:` series (the config-info gauges carry its settings) and
its OpenAI server's /tokenize."""

from __future__ import annotations

from typing import TYPE_CHECKING

import asyncio

from desktop_app.core.engines import Engine, Probe, register
from desktop_app.core.engines._settings import CANONICAL_KEYS, config_info_labels, fetch, json_of

if TYPE_CHECKING:
    import httpx

    from desktop_app.core.engines._settings import Reader

# vLLM's config-info labels use the canonical names except cache_dtype.
SPELLINGS = {**{k: k for k in CANONICAL_KEYS if k not in ("kv_cache_dtype", "engine_version")},
             "cache_dtype": "kv_cache_dtype", "version": "engine_version"}


async def read_settings(client: httpx.AsyncClient, root: str, reader: Reader) -> None:
    """`/version`, the `vllm:*_config_info` gauges of `/metrics` (vLLM exports
    `vllm:cache_config_info`; the simulator adds `vllm:scheduler_config_info`) and
    `max_model_len` from `/v1/models`."""
    notes = reader.notes
    version_b, metrics_b, models_b = await asyncio.gather(
        fetch(client, root + "/version", "/version", notes),
        fetch(client, root + "/metrics", "/metrics", notes),
        fetch(client, root + "/v1/models", "/v1/models", notes))
    version = json_of(version_b, "/version", notes) or {}
    reader.put("version", version.get("version"))
    if version.get("simulated") is True:
        reader.put("profile", version.get("profile"), key="simulator_profile")
    if metrics_b is not None:
        infos = config_info_labels(metrics_b.decode("utf-8", errors="replace"))
        if not infos:
            notes.append("no_config_info:/metrics")
        for labels in infos.values():
            reader.put_all(labels)
    models = json_of(models_b, "/v1/models", notes) or {}
    listed = models.get("data")
    if isinstance(listed, list):
        for entry in listed[:100]:
            if isinstance(entry, dict) and "max_model_len" in entry:
                reader.put("max_model_len", entry["max_model_len"])
                break


def _recognise(probe: Probe) -> bool:
    return "vllm:" in probe.prefixes or "vllm" in probe.owners


def _by_tokenizer(probe: Probe, kind: str) -> bool:
    # vLLM's /tokenize shape with a /version: SGLang has the shape but no /version.
    return kind == "vllm" and "version" in probe.json("/version")


ENGINE = register(Engine(
    "vllm", "vLLM", rank=50, recognise=_recognise, by_tokenizer=_by_tokenizer,
    version=lambda probe: probe.json("/version").get("version"),
    tokenizers=("vllm",), accepts_ignore_eos=True, refuses_unknown_model=True,
    metric_prefix="vllm:",
    series={"running": ("vllm:num_requests_running",),
            "waiting": ("vllm:num_requests_waiting",),
            "kv_cache_usage": ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
            "preemptions": ("vllm:num_preemptions_total", "vllm:num_preemptions"),
            "queue_time_sum": ("vllm:request_queue_time_seconds_sum",),
            "queue_time_count": ("vllm:request_queue_time_seconds_count",),
            # V1's prefix-cache counters, in tokens (V0's gauge, gpu_prefix_cache_hit_rate, is
            # a running rate over its lifetime and not read).
            "prefix_hits": ("vllm:prefix_cache_hits_total",),
            "prefix_queries": ("vllm:prefix_cache_queries_total",)},
    spellings=SPELLINGS, read_settings=read_settings,
    knobs={"cap": "max-num-seqs", "budget": "max-num-batched-tokens",
           "kv_memory": "gpu-memory-utilization", "context": "max-model-len"},
))
