"""The server settings behind a run: read from what the engine exposes, or typed by the user.

`read_server_settings` asks the engine's own endpoints (docs/THROUGHPUT.md, "Server settings"):

* vLLM: `GET /version`, the `vllm:*_config_info` gauges of `GET /metrics` (vLLM exports
  `vllm:cache_config_info`; the simulator adds `vllm:scheduler_config_info`) and `max_model_len`
  from `GET /v1/models`;
* SGLang: `GET /get_server_info`; llama.cpp: `GET /props` and `GET /slots`; TGI: `GET /info`.

Everything read is hostile: each answer is bounded (`MAX_BODY_BYTES`, `PROBE_TIMEOUT_S`, JSON
nesting, value types and lengths) and a bad one is skipped with a note code, never raised.
Keys are vLLM's spellings (`CANONICAL_KEYS`); `ENGINE_SPELLINGS` says how each engine spells
them. Anything not exposed is asked of the user (`parse_user_settings`), never guessed;
`merge_settings` puts both together for the stored run.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import httpx

from desktop_app.core.parsing import number_or_text

__all__ = ["CANONICAL_KEYS", "ENGINE_SPELLINGS", "ServerSettings", "config_info_labels",
           "describe_key", "merge_settings", "parse_user_settings", "read_server_settings", "stored_settings",
           "user_settings", "user_settings_from_stored"]

Value = str | int | float | bool

MAX_BODY_BYTES = 1_000_000  # a /metrics of a busy vLLM is ~100 kB
PROBE_TIMEOUT_S = 5.0  # each probe, headers to last byte
MAX_JSON_DEPTH = 32
MAX_TEXT_CHARS = 200  # a string value longer than this is not a setting
MAX_USER_ITEMS = 64
USER_PREFIX = "user:"  # a user-typed value the server contradicted, kept beside the server's

# key -> expected type; the keys a run records, in vLLM's spelling.
_TYPES: dict[str, type] = {
    "engine_version": str,
    "max_num_seqs": int,
    "max_num_batched_tokens": int,
    "gpu_memory_utilization": float,
    "tensor_parallel_size": int,
    "pipeline_parallel_size": int,
    "quantization": str,
    "max_model_len": int,
    "block_size": int,
    "num_gpu_blocks": int,
    "kv_cache_tokens": int,  # KV-cache capacity in tokens (SGLang, TGI; the simulator's profile)
    "kv_cache_dtype": str,
    "enable_prefix_caching": bool,
    "dtype": str,
    "model_path": str,
    "max_concurrent_requests": int,  # TGI's admission limit (beyond it: 429), not a batch size
    "simulator_profile": str,
}
CANONICAL_KEYS = tuple(_TYPES)

# engine -> {engine's own name: canonical key}. vLLM's config-info labels use the canonical
# names except cache_dtype; the others are what each engine's JSON calls them.
ENGINE_SPELLINGS: dict[str, dict[str, str]] = {
    "vllm": {**{k: k for k in CANONICAL_KEYS if k not in ("kv_cache_dtype", "engine_version")},
             "cache_dtype": "kv_cache_dtype", "version": "engine_version"},
    "sglang": {"version": "engine_version", "max_running_requests": "max_num_seqs",
               "chunked_prefill_size": "max_num_batched_tokens",
               "mem_fraction_static": "gpu_memory_utilization", "tp_size": "tensor_parallel_size",
               "pp_size": "pipeline_parallel_size", "quantization": "quantization",
               "context_length": "max_model_len", "page_size": "block_size",
               "max_total_num_tokens": "kv_cache_tokens", "kv_cache_dtype": "kv_cache_dtype",
               "dtype": "dtype", "model_path": "model_path"},
    "llamacpp": {"build_info": "engine_version", "total_slots": "max_num_seqs",
                 "n_ctx": "max_model_len", "model_path": "model_path"},
    "tgi": {"version": "engine_version", "max_batch_size": "max_num_seqs",
            "max_batch_prefill_tokens": "max_num_batched_tokens",
            "max_batch_total_tokens": "kv_cache_tokens", "max_total_tokens": "max_model_len",
            "max_concurrent_requests": "max_concurrent_requests", "model_dtype": "dtype"},
}
_ENGINE_LABELS = {"vllm": "vLLM", "sglang": "SGLang", "llamacpp": "llama.cpp", "tgi": "TGI"}


@dataclass(frozen=True)
class ServerSettings:
    """What the server said about its own settings.

    `values` maps canonical keys (`CANONICAL_KEYS`, vLLM's spelling) to str/int/float/bool;
    `engine_names` maps the same keys to the engine's own spelling (SGLang "max_running_requests"
    for max_num_seqs). `notes` are codes "<what>:<where>" for answers skipped (e.g.
    "http_404:/get_server_info", "too_large:/metrics", "bad_value:max_running_requests").
    """

    values: dict[str, Value] = field(default_factory=dict)
    engine_names: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    engine: str = ""


def describe_key(key: str, engine: str, engine_name: str | None = None) -> str:
    """A key as a report names it: "max_num_seqs (SGLang: max_running_requests)", or the key
    alone when the engine spells it the same way."""
    if engine_name is None:
        engine_name = next((own for own, k in ENGINE_SPELLINGS.get(engine, {}).items()
                            if k == key), None)
    if not engine_name or engine_name == key:
        return key
    return f"{key} ({_ENGINE_LABELS.get(engine, engine)}: {engine_name})"


# --------------------------------------------------------------------------- reading


class _Reader:
    """Collects checked values and note codes; the first value read for a key wins."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.values: dict[str, Value] = {}
        self.names: dict[str, str] = {}
        self.notes: list[str] = []

    def put(self, own_name: str, raw: object, key: str | None = None) -> None:
        key = key or ENGINE_SPELLINGS.get(self.engine, {}).get(own_name)
        if key is None or key in self.values or raw is None:
            return
        if isinstance(raw, str) and raw.strip() in _ABSENT:
            return  # vLLM writes an unset option as "None"
        value = _checked(raw, _TYPES[key])
        if value is None:
            self.notes.append(f"bad_value:{own_name[:40]}")
            return
        self.values[key] = value
        self.names[key] = own_name

    def put_all(self, data: Mapping) -> None:
        for own_name in ENGINE_SPELLINGS.get(self.engine, {}):
            if own_name in data:
                self.put(own_name, data[own_name])

    def result(self) -> ServerSettings:
        ordered = {k: self.values[k] for k in CANONICAL_KEYS if k in self.values}
        return ServerSettings(ordered, {k: self.names[k] for k in ordered}, tuple(self.notes),
                              self.engine)


def _checked(raw: object, kind: type) -> Value | None:
    """`raw` as a value of `kind`, or None when it is not one (wrong type, too long, NaN)."""
    if isinstance(raw, str) and kind is not str:
        raw = _typed(raw)
    if kind is bool:
        return raw if isinstance(raw, bool) else None
    if isinstance(raw, bool):
        return None
    if kind is int:
        if isinstance(raw, float) and raw.is_integer():
            raw = int(raw)
        return raw if isinstance(raw, int) and abs(raw) < 2**53 else None
    if kind is float:
        ok = isinstance(raw, (int, float)) and math.isfinite(raw) and abs(raw) < 1e15
        return float(raw) if ok else None
    if isinstance(raw, (int, float)) and math.isfinite(raw):
        raw = str(raw)  # a version sent as a number
    if isinstance(raw, str) and 0 < len(raw) <= MAX_TEXT_CHARS and raw.isprintable():
        return raw
    return None


_ABSENT = ("", "None", "none", "null")


def _typed(text: str) -> Value | None:
    """A label or user value as int, float, bool or str; None for "None"/empty."""
    text = text.strip()
    if text in _ABSENT:
        return None
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return number_or_text(text)


async def _fetch(client: httpx.AsyncClient, url: str, path: str, notes: list[str]
                 ) -> bytes | None:
    """The body of a 200 answer, at most MAX_BODY_BYTES, within PROBE_TIMEOUT_S; else None."""
    try:
        return await asyncio.wait_for(_fetch_body(client, url, path, notes), PROBE_TIMEOUT_S)
    except asyncio.TimeoutError:
        notes.append(f"timeout:{path}")
    except httpx.HTTPError:
        notes.append(f"unreachable:{path}")
    return None


async def _fetch_body(client: httpx.AsyncClient, url: str, path: str, notes: list[str]
                      ) -> bytes | None:
    async with client.stream("GET", url, timeout=PROBE_TIMEOUT_S) as response:
        if response.status_code != 200:
            notes.append(f"http_{response.status_code}:{path}")
            return None
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                notes.append(f"too_large:{path}")
                return None
            chunks.append(chunk)
    return b"".join(chunks)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    depth = 0
    for match in _BRACKET.finditer(_JSON_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            return True
    return False


def _json(body: bytes | None, path: str, notes: list[str], kind: type = dict):
    """The JSON document of `body` if it is a `kind` nested at most MAX_JSON_DEPTH; else None."""
    if body is None:
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        notes.append(f"not_utf8:{path}")
        return None
    if _too_deep(text):
        notes.append(f"too_deep:{path}")
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        notes.append(f"not_json:{path}")
        return None
    if not isinstance(data, kind):
        notes.append(f"wrong_type:{path}")
        return None
    return data


_INFO_SAMPLE = re.compile(r"^(vllm:[A-Za-z0-9_]*_config_info)\{(.*)\}\s+\S+(?:\s+\S+)?\s*$",
                          re.MULTILINE)
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


def config_info_labels(text: str) -> dict[str, dict[str, str]]:
    """The labels of every `vllm:*_config_info` sample in Prometheus text, by metric name
    (the first sample of each name; a line whose labels do not parse is left out)."""
    found: dict[str, dict[str, str]] = {}
    for match in _INFO_SAMPLE.finditer(text):
        name, body = match.groups()
        if name in found:
            continue
        labels, pos = {}, 0
        while pos < len(body):
            label = _LABEL.match(body, pos)
            if label is None or label.end() == pos:
                labels = None
                break
            labels[label.group(1)] = re.sub(r'\\[\\"n]', lambda m: _UNESCAPE[m.group()],
                                            label.group(2))
            pos = label.end()
        if labels is not None:
            found[name] = labels
    return found


async def _read_vllm(client: httpx.AsyncClient, root: str, reader: _Reader) -> None:
    notes = reader.notes
    version_b, metrics_b, models_b = await asyncio.gather(
        _fetch(client, root + "/version", "/version", notes),
        _fetch(client, root + "/metrics", "/metrics", notes),
        _fetch(client, root + "/v1/models", "/v1/models", notes))
    version = _json(version_b, "/version", notes) or {}
    reader.put("version", version.get("version"))
    if version.get("simulated") is True:
        reader.put("profile", version.get("profile"), key="simulator_profile")
    if metrics_b is not None:
        text = metrics_b.decode("utf-8", errors="replace")
        infos = config_info_labels(text)
        if not infos:
            notes.append("no_config_info:/metrics")
        for labels in infos.values():
            reader.put_all(labels)
    models = _json(models_b, "/v1/models", notes) or {}
    listed = models.get("data")
    if isinstance(listed, list):
        for entry in listed[:100]:
            if isinstance(entry, dict) and "max_model_len" in entry:
                reader.put("max_model_len", entry["max_model_len"])
                break


async def _read_sglang(client: httpx.AsyncClient, root: str, reader: _Reader) -> None:
    info = _json(await _fetch(client, root + "/get_server_info", "/get_server_info",
                              reader.notes), "/get_server_info", reader.notes) or {}
    reader.put_all(info)
    # Newer SGLang reports the scheduler's effective limits per data-parallel rank.
    states = info.get("internal_states")
    if isinstance(states, list) and states and isinstance(states[0], dict):
        reader.put_all(states[0])


async def _read_llamacpp(client: httpx.AsyncClient, root: str, reader: _Reader) -> None:
    notes = reader.notes
    props_b, slots_b = await asyncio.gather(_fetch(client, root + "/props", "/props", notes),
                                            _fetch(client, root + "/slots", "/slots", notes))
    props = _json(props_b, "/props", notes) or {}
    reader.put_all(props)
    defaults = props.get("default_generation_settings")
    if isinstance(defaults, dict):
        reader.put("n_ctx", defaults.get("n_ctx"))
    slots = _json(slots_b, "/slots", notes, kind=list) or []
    if slots and all(isinstance(s, dict) for s in slots):
        reader.put("slots", len(slots), key="max_num_seqs")
        reader.put("n_ctx", slots[0].get("n_ctx"))


async def _read_tgi(client: httpx.AsyncClient, root: str, reader: _Reader) -> None:
    reader.put_all(_json(await _fetch(client, root + "/info", "/info", reader.notes), "/info",
                         reader.notes) or {})


_READERS = {"vllm": _read_vllm, "sglang": _read_sglang, "llamacpp": _read_llamacpp,
            "tgi": _read_tgi}


async def read_server_settings(client: httpx.AsyncClient, root: str, engine: str
                               ) -> ServerSettings:
    """The settings `engine` at `root` (the server root, no /v1) reports about itself.

    Makes one to three GETs concurrently, each bounded by PROBE_TIMEOUT_S seconds and
    MAX_BODY_BYTES; never raises on a bad answer (it is skipped and a note code added). An
    engine without a known source gives empty values and the note "unsupported:<engine>".
    Cancellation propagates.
    """
    reader = _Reader(engine)
    read = _READERS.get(engine)
    if read is None:
        reader.notes.append(f"unsupported:{engine[:40]}")
        return reader.result()
    await read(client, root.rstrip("/"), reader)
    return reader.result()


# --------------------------------------------------------------------------- user settings

_KEY = re.compile(r"[a-z_][a-z0-9_]*")
_SHOWN = 40


def _shown(item: str) -> str:
    return repr(item if len(item) <= _SHOWN else item[:_SHOWN] + "...")


def parse_user_settings(text_or_items: str | Iterable[str]) -> dict[str, Value]:
    """User-typed `key=value` settings: one text (pairs separated by newlines or commas) or a
    list of pairs (one per repeated `--setting`).

    Keys are normalised (`Max-Num-Seqs` -> `max_num_seqs`); values typed: int, float,
    true/false, else text. Raises ValueError naming the bad item and its position (1-based) for
    a pair without "=", an empty key or value, a key that is not an identifier, a value over
    200 characters, a key given twice, or more than 64 pairs.
    """
    if isinstance(text_or_items, str):
        items = [t.strip() for t in re.split(r"[\n,]", text_or_items)]
        items = [t for t in items if t]
    else:
        items = [str(t).strip() for t in text_or_items]
    if len(items) > MAX_USER_ITEMS:
        raise ValueError(f"{len(items)} settings given; at most {MAX_USER_ITEMS}")
    settings: dict[str, Value] = {}
    for position, item in enumerate(items, 1):
        where = f"setting {position} {_shown(item)}"
        key, sep, raw = item.partition("=")
        if not sep:
            raise ValueError(f"{where}: expected KEY=VALUE, e.g. max-num-seqs=2")
        key = key.strip().lower().replace("-", "_")
        raw = raw.strip()
        if not key:
            raise ValueError(f"{where}: the key before '=' is empty")
        if not _KEY.fullmatch(key):
            raise ValueError(f"{where}: the key must be letters, digits, '-' or '_'")
        if not raw:
            raise ValueError(f"{where}: no value after '='")
        if len(raw) > MAX_TEXT_CHARS:
            raise ValueError(f"{where}: the value is {len(raw)} characters; at most "
                             f"{MAX_TEXT_CHARS}")
        if key in settings:
            raise ValueError(f"{where}: {key} is given twice")
        value = _typed(raw)
        settings[key] = raw if value is None else value
    return settings


def user_settings(items: Iterable[str] | None, flag: str = "--setting") -> dict[str, Value]:
    """`parse_user_settings` of repeated `flag` values; InputError naming `flag` and the item."""
    from desktop_app.core.parsing import InputError

    try:
        return parse_user_settings(items or [])
    except ValueError as exc:
        raise InputError(flag, str(exc)) from None


def merge_settings(read: ServerSettings | None, user: Mapping[str, Value]
                   ) -> tuple[dict[str, Value], dict[str, str]]:
    """(server_settings, server_settings_source): what the server reported and what the user
    typed, with "server" or "user" per key.

    A value read from the server wins over a user-typed one for the same key; the user's, when
    it differs, is kept as "user:<key>" (source "user") so the record shows both.
    """
    settings: dict[str, Value] = {}
    source: dict[str, str] = {}
    for key, value in (read.values if read is not None else {}).items():
        settings[key], source[key] = value, "server"
    for key, value in user.items():
        key = str(key)
        if key in settings:
            if value != settings[key]:
                settings[USER_PREFIX + key], source[USER_PREFIX + key] = value, "user"
        else:
            settings[key], source[key] = value, "user"
    return settings, source


def stored_settings(read: ServerSettings | None, user: Mapping[str, Value]) -> dict[str, dict]:
    """The entries a run's stored config gets: {"server_settings": ...,
    "server_settings_source": ...} (`merge_settings`)."""
    settings, source = merge_settings(read, user)
    return {"server_settings": settings, "server_settings_source": source}


def user_settings_from_stored(settings: Mapping[str, Value], source: Mapping[str, str]
                              ) -> dict[str, Value]:
    """The user-typed settings back from a stored (`merge_settings`) record."""
    typed = {}
    for key, value in settings.items():
        if source.get(key) == "user":
            typed[key.removeprefix(USER_PREFIX)] = value
    return typed
