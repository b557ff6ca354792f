"""Hugging Face TGI: its /info (settings) and `tgi_` series; no /tokenize shape the prompt
builder uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_app.core.engines import Engine, Probe, register
from desktop_app.core.engines._settings import fetch_json

if TYPE_CHECKING:
    import httpx

    from desktop_app.core.engines._settings import Reader


async def read_settings(client: httpx.AsyncClient, root: str, reader: Reader) -> None:
    reader.put_all(await fetch_json(client, root, "/info", reader) or {})


def _recognise(probe: Probe) -> bool:
    return "tgi_" in probe.prefixes or "model_id" in probe.json("/info")


ENGINE = register(Engine(
    "tgi", "TGI", rank=10, recognise=_recognise,
    version=lambda probe: probe.json("/info").get("version"),
    probes=("/info",), tokenizers=(), refuses_unknown_model=True, metric_prefix="tgi_",
    series={"running": ("tgi_batch_current_size",), "waiting": ("tgi_queue_size",)},
    spellings={"version": "engine_version", "max_batch_size": "max_num_seqs",
               "max_batch_prefill_tokens": "max_num_batched_tokens",
               "max_batch_total_tokens": "kv_cache_tokens", "max_total_tokens": "max_model_len",
               "max_concurrent_requests": "max_concurrent_requests", "model_dtype": "dtype"},
    read_settings=read_settings,
    # max-batch-size is how many requests it runs at once; max-batch-total-tokens is the
    # batch's token budget, the KV cache's role (a token count cannot be "raised to 4").
    knobs={"cap": "max-batch-size", "budget": "max-batch-prefill-tokens",
           "kv_memory": "max-batch-total-tokens", "context": "max-total-tokens"},
    # Its max-concurrent-requests refuses what is beyond it rather than queueing it, which
    # the what-if model does not do, so it is not taken.
    aliases={"max_batch_size": "max_num_seqs",
             "max_batch_prefill_tokens": "max_num_batched_tokens",
             "max_batch_total_tokens": "kv_capacity"},
))
