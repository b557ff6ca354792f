"""Simulator profiles: TOML files that describe a simulated server (limits and cost model).

Bundled profiles live in `resources/profiles/`; users add their own in
`<user config dir>/profiles/NAME.toml` (which win over bundled ones of the same name) or pass a
path. A profile file holds the fields of `engine.Profile` at top level, for example::

    description = "vLLM on one mid-range GPU, max-num-seqs=2"
    max_num_seqs = 2
    prefill_tokens_per_s = 900.0

Every error names the file, and the key and line where there is one.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from pathlib import Path
from typing import Any

from desktop_app import paths
from desktop_app.core.parsing import CodedError
from desktop_app.core.simulator.engine import Profile


class ProfileError(CodedError, ValueError):
    """A profile that cannot be found or loaded; the message is fit to show a user."""


_FIELDS = {f.name: f for f in dataclasses.fields(Profile)}
_INT_FIELDS = {name for name, f in _FIELDS.items() if f.type in ("int", int)}
_FLOAT_FIELDS = {name for name, f in _FIELDS.items() if f.type in ("float", float)}
_STR_FIELDS = {name for name, f in _FIELDS.items() if f.type in ("str", str)}
_POSITIVE = {"max_model_len", "max_num_seqs", "max_num_batched_tokens", "kv_cache_tokens"}


def default_search_dirs() -> list[Path]:
    """User profiles first, then the bundled ones."""
    return [paths.user_config_dir() / "profiles", paths.resources_dir() / "profiles"]


def available_profiles(search_dirs: list[Path] | None = None) -> list[str]:
    """Names of every profile found, sorted."""
    names: set[str] = set()
    for folder in search_dirs if search_dirs is not None else default_search_dirs():
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.toml"))
    return sorted(names)


def find_profile(name_or_path: str, search_dirs: list[Path] | None = None) -> Path:
    """The file for a profile name (or the path itself if it names a .toml file)."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".toml" or "/" in name_or_path or "\\" in name_or_path:
        if candidate.is_file():
            return candidate
        raise ProfileError(code="profile_not_found", path=str(candidate))
    dirs = search_dirs if search_dirs is not None else default_search_dirs()
    for folder in dirs:
        path = folder / f"{name_or_path}.toml"
        if path.is_file():
            return path
    known = ", ".join(available_profiles(dirs)) or "none"
    raise ProfileError(code="unknown_profile", name=repr(name_or_path), known=known)


def load_profile(name_or_path: str, search_dirs: list[Path] | None = None) -> Profile:
    """Load a profile by name or path; raises ProfileError naming the file, key and line."""
    path = find_profile(name_or_path, search_dirs)
    return parse_profile(path.read_bytes(), path)


def _line_of(text: str, key: str) -> int | None:
    quoted = f"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')"  # bare or quoted
    match = re.search(rf"^\s*{quoted}\s*=", text, flags=re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def parse_profile(data: bytes, path: Path) -> Profile:
    """Parse the bytes of a profile file (`path` names it in errors and gives the default name)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ProfileError(code="profile_not_utf8", where=f"{path}:{line}", byte=exc.start) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(code="profile_not_toml", where=str(path), detail=str(exc)) from None

    def fail(key: str, *, code: str, **params: Any) -> ProfileError:
        line = _line_of(text, key)
        where = f"{path}:{line}" if line else str(path)
        shown = key if key.isidentifier() else repr(key)  # a quoted key may hold a newline
        return ProfileError(code=code, where=where, key=shown, **params)

    values: dict[str, Any] = {"name": path.stem}
    for key, value in raw.items():
        if key not in _FIELDS:
            raise fail(key, code="profile_unknown_key", known=", ".join(sorted(_FIELDS)))
        if key in _INT_FIELDS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise fail(key, code="profile_not_integer", value=repr(value))
        elif key in _FLOAT_FIELDS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise fail(key, code="profile_not_number", value=repr(value))
            if key == "prefill_ctx_slowdown_tokens" and value == 0:
                value = math.inf  # 0 in a file means "no slowdown"
            if value != value:  # TOML has nan; every comparison with it is False
                raise fail(key, code="profile_not_number", value="nan")
            if value < 0:
                raise fail(key, code="profile_negative", value=repr(value))
            if value == math.inf and key != "prefill_ctx_slowdown_tokens":
                raise fail(key, code="profile_infinite")
            value = float(value)
        elif key in _STR_FIELDS and not isinstance(value, str):
            raise fail(key, code="profile_not_string", value=repr(value))
        if key in _POSITIVE and value <= 0:
            raise fail(key, code="profile_not_positive", value=repr(value))
        values[key] = value
    profile = Profile(**values)
    if profile.max_model_len > profile.kv_cache_tokens:
        # A request as long as the context must fit in the cache alone, or it never runs.
        raise fail(
            "max_model_len" if "max_model_len" in raw else "kv_cache_tokens",
            code="profile_len_over_cache", max_model_len=profile.max_model_len,
            kv_cache_tokens=profile.kv_cache_tokens,
        )
    return profile
