"""A toy engine written as a module of its own, as a user adding an engine would: `toyserve`
answers `/toy/info` with its version and settings, exports `toy:` series, calls its limit on
requests at once `--slots`, and caches prompts unless a request sends `toy_cache: false`."""

from contextlib import contextmanager
from pathlib import Path

from desktop_app.core.engines import unregister
from tests.module_file import module_from_file

MODULE = '''
from desktop_app.core.engines import Engine, register
from desktop_app.core.engines._settings import fetch_json


async def read_settings(client, root, reader):
    reader.put_all(await fetch_json(client, root, "/toy/info", reader) or {})


ENGINE = register(Engine(
    "toyserve", "ToyServe", rank=35, probes=("/toy/info",),
    recognise=lambda probe: probe.json("/toy/info").get("server") == "toyserve",
    version=lambda probe: probe.json("/toy/info").get("version"),
    tokenizers=(), accepts_ignore_eos=True, refuses_unknown_model=True, metric_prefix="toy:",
    series={"running": ("toy:active_slots",), "waiting": ("toy:queued",),
            "kv_cache_usage": ("toy:cache_fill",)},
    spellings={"version": "engine_version", "slots": "max_num_seqs", "ctx": "max_model_len"},
    read_settings=read_settings,
    knobs={"cap": "--slots", "budget": "--step-tokens", "kv_memory": "--cache-mb",
           "context": "--ctx"},
    aliases={"slots": "max_num_seqs", "step_tokens": "max_num_batched_tokens"},
    unique_prompt_fields={"toy_cache": False},
))
'''


@contextmanager
def toy_engine(folder: Path):
    """The module written into `folder`, imported (its import registers the engine), and the
    engine removed afterwards."""
    try:
        with module_from_file(folder, "toyserve_engine", MODULE) as module:
            yield module.ENGINE
    finally:
        unregister("toyserve")
