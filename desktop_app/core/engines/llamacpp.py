"""llama.cpp's own server (llama-server): /props and /slots, its `llamacpp:` series (with
--metrics), /tokenize with `content`, and a prompt cache on by default."""

from __future__ import annotations

from typing import TYPE_CHECKING

import asyncio

from desktop_app.core.engines import Engine, Probe, register
from desktop_app.core.engines._settings import fetch, json_of

if TYPE_CHECKING:
    import httpx

    from desktop_app.core.engines._settings import Reader


async def read_settings(client: httpx.AsyncClient, root: str, reader: Reader) -> None:
    notes = reader.notes
    props_b, slots_b = await asyncio.gather(fetch(client, root + "/props", "/props", notes),
                                            fetch(client, root + "/slots", "/slots", notes))
    props = json_of(props_b, "/props", notes) or {}
    reader.put_all(props)
    defaults = props.get("default_generation_settings")
    if isinstance(defaults, dict):
        reader.put("n_ctx", defaults.get("n_ctx"))
    slots = json_of(slots_b, "/slots", notes, kind=list) or []
    if slots and all(isinstance(s, dict) for s in slots):
        reader.put("slots", len(slots), key="max_num_seqs")
        reader.put("n_ctx", slots[0].get("n_ctx"))


def _recognise(probe: Probe) -> bool:
    props = probe.json("/props")
    return ("llamacpp:" in probe.prefixes or "llamacpp" in probe.owners
            or "llama.cpp" in probe.server.lower()
            or "default_generation_settings" in props or "total_slots" in props)


ENGINE = register(Engine(
    "llamacpp", "llama.cpp", rank=40, recognise=_recognise,
    by_tokenizer=lambda probe, kind: kind == "llamacpp",
    version=lambda probe: probe.json("/props").get("build_info"),
    probes=("/props",), tokenizers=("llamacpp",), accepts_ignore_eos=True,
    metric_prefix="llamacpp:",
    series={"running": ("llamacpp:requests_processing",),
            "waiting": ("llamacpp:requests_deferred",),
            # Its /slots says a request's reuse only while it runs (the figures reset when the
            # slot is released); these counters keep it.
            "prefix_hits": ("llamacpp:prompt_tokens_cached_total",),
            "prefix_computed": ("llamacpp:prompt_tokens_total",)},
    spellings={"build_info": "engine_version", "total_slots": "max_num_seqs",
               "n_ctx": "max_model_len", "model_path": "model_path"},
    read_settings=read_settings,
    knobs={"cap": "--parallel", "budget": "--ubatch-size", "context": "--ctx-size"},
    aliases={"parallel": "max_num_seqs", "np": "max_num_seqs",
             "ubatch_size": "max_num_batched_tokens"},
    # It caches prompts by default: a sweep's unique prompts must not hit that cache.
    unique_prompt_fields={"cache_prompt": False}, metrics_switch="llama-server --metrics",
))
