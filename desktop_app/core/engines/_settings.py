"""Reading a server's settings from its own endpoints, the part every engine shares.

An engine's `read_settings` (its module) fetches its endpoints with `fetch` and `json_of` and
hands what they say to a `Reader`, which keeps each value in the canonical key its spelling
maps to (`CANONICAL_KEYS`, vLLM's spelling), typed and bounded. Everything read is hostile:
each answer is bounded (`MAX_BODY_BYTES`, `PROBE_TIMEOUT_S`, JSON nesting, value types and
lengths) and a bad one is skipped with a note code "<what>:<where>", never raised.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop_app.core.parsing import number_or_text

if TYPE_CHECKING:  # httpx is imported where a read happens: the app's start-up defers it
    import httpx

Value = str | int | float | bool

MAX_BODY_BYTES = 1_000_000  # a /metrics of a busy vLLM is ~100 kB
PROBE_TIMEOUT_S = 5.0  # each probe, headers to last byte
MAX_JSON_DEPTH = 32
MAX_TEXT_CHARS = 200  # a string value longer than this is not a setting

# key -> expected type; the keys a run records, in vLLM's spelling.
TYPES: dict[str, type] = {
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
CANONICAL_KEYS = tuple(TYPES)


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


class Reader:
    """Collects checked values and note codes; the first value read for a key wins.
    `spellings` maps the engine's own names to canonical keys."""

    def __init__(self, engine: str, spellings: Mapping[str, str]) -> None:
        self.engine = engine
        self.spellings = spellings
        self.values: dict[str, Value] = {}
        self.names: dict[str, str] = {}
        self.notes: list[str] = []

    def put(self, own_name: str, raw: object, key: str | None = None) -> None:
        key = key or self.spellings.get(own_name)
        if key is None or key in self.values or raw is None:
            return
        if isinstance(raw, str) and raw.strip() in ABSENT:
            return  # vLLM writes an unset option as "None"
        value = _checked(raw, TYPES[key])
        if value is None:
            self.notes.append(f"bad_value:{own_name[:40]}")
            return
        self.values[key] = value
        self.names[key] = own_name

    def put_all(self, data: Mapping) -> None:
        for own_name in self.spellings:
            if own_name in data:
                self.put(own_name, data[own_name])

    def result(self) -> ServerSettings:
        ordered = {k: self.values[k] for k in CANONICAL_KEYS if k in self.values}
        return ServerSettings(ordered, {k: self.names[k] for k in ordered}, tuple(self.notes),
                              self.engine)


def _checked(raw: object, kind: type) -> Value | None:
    """`raw` as a value of `kind`, or None when it is not one (wrong type, too long, NaN)."""
    if isinstance(raw, str) and kind is not str:
        raw = typed(raw)
    if kind is bool:
        return raw if isinstance(raw, bool) else None
    if isinstance(raw, bool):
        return None
    if kind is int:
        if isinstance(raw, float) and raw.is_integer():
            raw = int(raw)
        return raw if isinstance(raw, int) and abs(raw) < 2**53 else None
    if kind is float:
        if not isinstance(raw, (int, float)):
            return None
        return float(raw) if math.isfinite(raw) and abs(raw) < 1e15 else None
    if isinstance(raw, (int, float)) and math.isfinite(raw):
        raw = str(raw)  # a version sent as a number
    if isinstance(raw, str) and 0 < len(raw) <= MAX_TEXT_CHARS and raw.isprintable():
        return raw
    return None


ABSENT = ("", "None", "none", "null")


def typed(text: str) -> Value | None:
    """A label or user value as int, float, bool or str; None for "None"/empty."""
    text = text.strip()
    if text in ABSENT:
        return None
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return number_or_text(text)


async def fetch(client: httpx.AsyncClient, url: str, path: str, notes: list[str]
                ) -> bytes | None:
    """The body of a 200 answer, at most MAX_BODY_BYTES, within PROBE_TIMEOUT_S; else None."""
    import httpx

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


def json_of(body: bytes | None, path: str, notes: list[str], kind: type = dict) -> Any:
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


async def fetch_json(client: httpx.AsyncClient, root: str, path: str, reader: Reader,
                     kind: type = dict) -> Any:
    """`json_of(fetch(root + path))`, notes into the reader's."""
    return json_of(await fetch(client, root + path, path, reader.notes), path, reader.notes,
                   kind)


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
        labels: dict[str, str] = {}
        pos = 0
        while pos < len(body):
            label = _LABEL.match(body, pos)
            if label is None or label.end() == pos:
                break
            labels[label.group(1)] = re.sub(r'\\[\\"n]', lambda m: _UNESCAPE[m.group()],
                                            label.group(2))
            pos = label.end()
        else:  # every label parsed
            found[name] = labels
    return found
