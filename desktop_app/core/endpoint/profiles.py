"""Saved endpoint profiles: name, base URL, model and the engine a test detected, as JSON.

The file's path is injected (the app uses `paths.user_config_dir() / "endpoints.json"`). A
profile never holds an API key: `EndpointProfile` has no field for one, so whatever config a
profile is made from, its key cannot reach the file (the GUI keeps keys in the system keyring).

A file that cannot be read (not JSON, wrong shape, entries without a name or URL) is never
overwritten blindly: `load_profiles` copies it to `endpoints.json.bad` (or `.bad.1`, ...) first
and reports the problem in one line, and the profiles it could read are still returned.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from desktop_app.core.endpoint.types import EndpointConfig

__all__ = ["EndpointProfile", "ProfilesLoad", "load_profiles", "save_profiles"]

FORMAT_VERSION = 1


@dataclass(frozen=True)
class EndpointProfile:
    """One saved endpoint. `engine` is what the last connection test detected ("" = never
    tested). There is deliberately no API key here."""

    name: str
    base_url: str
    model: str = ""
    engine: str = ""

    @classmethod
    def from_config(cls, name: str, config: EndpointConfig, engine: str = "") -> EndpointProfile:
        """A profile for `config`; its api_key is dropped."""
        return cls(name=name, base_url=config.base_url, model=config.model, engine=engine)

    def to_config(self, api_key: str | None = None) -> EndpointConfig:
        """The EndpointConfig to reach this endpoint with (the key, if any, in memory only)."""
        return EndpointConfig(self.base_url, model=self.model, api_key=api_key or None)

    def with_engine(self, engine: str) -> EndpointProfile:
        return replace(self, engine=engine)

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "base_url": self.base_url, "model": self.model,
                "engine": self.engine}


@dataclass(frozen=True)
class ProfilesLoad:
    """What `load_profiles` read: the profiles, and one line about a problem (None if none)."""

    profiles: tuple[EndpointProfile, ...]
    problem: str | None = None
    backup: Path | None = None  # where the unreadable file was copied


def load_profiles(path: Path) -> ProfilesLoad:
    """Read the profiles in `path`; a missing file is no profiles and no problem.

    Never raises for a bad file: it is copied aside (see the module docstring) and the
    problem described; entries that can be read are kept, duplicates by name dropped.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ProfilesLoad(())
    except (OSError, UnicodeDecodeError) as exc:
        return _bad(path, f"cannot read {path}: {exc}", ())
    try:
        data = json.loads(text)
    except ValueError as exc:
        return _bad(path, f"{path.name} is not valid JSON ({exc})", ())
    entries = data.get("profiles") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return _bad(path, f"{path.name} has no 'profiles' list", ())
    profiles: list[EndpointProfile] = []
    skipped = 0
    for entry in entries:
        profile = _profile(entry)
        if profile is None or any(p.name == profile.name for p in profiles):
            skipped += 1
        else:
            profiles.append(profile)
    if skipped:
        return _bad(path, f"{path.name}: skipped {skipped} unreadable or duplicate "
                    f"entr{'y' if skipped == 1 else 'ies'}", tuple(profiles))
    return ProfilesLoad(tuple(profiles))


def _profile(entry: object) -> EndpointProfile | None:
    if not isinstance(entry, dict):
        return None
    name, url = entry.get("name"), entry.get("base_url")
    if not isinstance(name, str) or not name.strip() or not isinstance(url, str):
        return None
    model, engine = entry.get("model", ""), entry.get("engine", "")
    return EndpointProfile(name.strip(), url, model if isinstance(model, str) else "",
                           engine if isinstance(engine, str) else "")


def _bad(path: Path, problem: str, profiles: tuple[EndpointProfile, ...]) -> ProfilesLoad:
    try:
        backup = _same_backup(path)
        if backup is None:
            backup = _free_backup_path(path)
            shutil.copy2(path, backup)
    except OSError as exc:
        return ProfilesLoad(profiles, f"{problem}; could not keep a copy ({exc})", None)
    return ProfilesLoad(profiles, f"{problem}; the file was kept as {backup.name}", backup)


def _same_backup(path: Path) -> Path | None:
    """An earlier backup with the same bytes (the app was restarted without saving)."""
    content = path.read_bytes()
    for candidate in sorted(path.parent.glob(path.name + ".bad*")):
        if candidate.is_file() and candidate.read_bytes() == content:
            return candidate
    return None


def _free_backup_path(path: Path) -> Path:
    """endpoints.json.bad, or .bad.1, .bad.2, ... so an earlier backup is never overwritten."""
    candidate = path.with_name(path.name + ".bad")
    n = 0
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.bad.{n}")
    return candidate


def save_profiles(path: Path, profiles: list[EndpointProfile] | tuple[EndpointProfile, ...]
                  ) -> None:
    """Write `profiles` to `path` (creating its folder), atomically: a crash mid-write leaves
    the previous file. Raises OSError when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": FORMAT_VERSION, "profiles": [p.to_json() for p in profiles]}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
