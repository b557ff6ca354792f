"""The server settings behind a run: read from what the engine exposes, or typed by the user.

`read_server_settings` asks the engine's own endpoints (docs/THROUGHPUT.md, "Server settings"):

each engine's module in core/engines says where it reports them and how it spells them (vLLM:
`GET /version`, the config-info gauges of `/metrics`, `/v1/models`; SGLang: `/get_server_info`;
llama.cpp: `/props` and `/slots`; TGI: `/info`), and `core/engines/_settings.py` reads them.

Everything read is hostile: each answer is bounded (`MAX_BODY_BYTES`, `PROBE_TIMEOUT_S`, JSON
nesting, value types and lengths) and a bad one is skipped with a note code, never raised.
Keys are vLLM's spellings (`CANONICAL_KEYS`); each engine's `spellings` says how it spells
them. Anything not exposed is asked of the user (`parse_user_settings`), never guessed;
`merge_settings` puts both together for the stored run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import httpx

from desktop_app.core import engines
from desktop_app.core.engines._settings import (  # noqa: F401 (this module's API since before)
    CANONICAL_KEYS, MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_TEXT_CHARS, PROBE_TIMEOUT_S, Reader,
    ServerSettings, Value, config_info_labels, typed as _typed)

__all__ = ["CANONICAL_KEYS", "ServerSettings", "config_info_labels",
           "describe_key", "merge_settings", "parse_user_settings", "read_server_settings", "stored_settings",
           "user_settings", "user_settings_from_stored"]

MAX_USER_ITEMS = 64
USER_PREFIX = "user:"  # a user-typed value the server contradicted, kept beside the server's


def describe_key(key: str, engine: str, engine_name: str | None = None) -> str:
    """A key as a report names it: "max_num_seqs (SGLang: max_running_requests)", or the key
    alone when the engine spells it the same way."""
    if engine_name is None:
        engine_name = next((own for own, k in engines.get_engine(engine).spellings.items()
                            if k == key), None)
    if not engine_name or engine_name == key:
        return key
    label = engines.get_engine(engine).label if engines.is_known(engine) else engine
    return f"{key} ({label}: {engine_name})"


async def read_server_settings(client: httpx.AsyncClient, root: str, engine: str
                               ) -> ServerSettings:
    """The settings `engine` at `root` (the server root, no /v1) reports about itself, read
    by its descriptor's `read_settings` (core/engines).

    Makes one to three GETs concurrently, each bounded by PROBE_TIMEOUT_S seconds and
    MAX_BODY_BYTES; never raises on a bad answer (it is skipped and a note code added). An
    engine without a known source gives empty values and the note "unsupported:<engine>".
    Cancellation propagates.
    """
    descriptor = engines.get_engine(engine)
    reader = Reader(engine, descriptor.spellings)
    if not engines.is_known(engine) or descriptor.read_settings is None:
        reader.notes.append(f"unsupported:{engine[:40]}")
        return reader.result()
    await descriptor.read_settings(client, root.rstrip("/"), reader)
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
    true/false, else text. Raises InputError (a ValueError, field "server settings", with a
    code) naming the bad item and its position (1-based) for
    a pair without "=", an empty key or value, a key that is not an identifier, a value over
    200 characters, a key given twice, or more than 64 pairs.
    """
    if isinstance(text_or_items, str):
        items = [t.strip() for t in re.split(r"[\n,]", text_or_items)]
        items = [t for t in items if t]
    else:
        items = [str(t).strip() for t in text_or_items]
    from desktop_app.core.parsing import InputError

    field = "server settings"
    if len(items) > MAX_USER_ITEMS:
        raise InputError(field, code="settings_too_many", n=len(items), high=MAX_USER_ITEMS)
    settings: dict[str, Value] = {}
    for position, item in enumerate(items, 1):
        where: dict[str, Any] = {"position": position, "item": _shown(item)}
        key, sep, raw = item.partition("=")
        if not sep:
            raise InputError(field, code="setting_no_equals", **where)
        key = key.strip().lower().replace("-", "_")
        raw = raw.strip()
        if not key:
            raise InputError(field, code="setting_empty_key", **where)
        if not _KEY.fullmatch(key):
            raise InputError(field, code="setting_bad_key", **where)
        if not raw:
            raise InputError(field, code="setting_no_value", **where)
        if len(raw) > MAX_TEXT_CHARS:
            raise InputError(field, code="setting_too_long", size=len(raw), high=MAX_TEXT_CHARS,
                             **where)
        if key in settings:
            raise InputError(field, code="setting_twice", key_name=key, **where)
        value = _typed(raw)
        settings[key] = raw if value is None else value
    return settings


def user_settings(items: Iterable[str] | None, flag: str = "--setting") -> dict[str, Value]:
    """`parse_user_settings` of repeated `flag` values; InputError naming `flag` and the item."""
    from desktop_app.core.parsing import InputError

    try:
        return parse_user_settings(items or [])
    except InputError as exc:  # said under `flag`, its code kept
        raise InputError(flag, exc.message, code=exc.code, **exc.params) from None


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
