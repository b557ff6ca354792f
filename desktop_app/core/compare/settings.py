"""What differs between the runs compared: the first thing a reader of a comparison needs.

`settings_differ(infos)` sets the runs' identities and recorded server settings side by side
and keeps only what is not the same in every run. Settings are named as the engine spells them
(vLLM's names where the engine has an equivalent, see `core.endpoint.server_settings`); a
setting one run recorded and another did not counts as differing (None for the run without
it: "not recorded", never guessed). Between SQL runs the evaluation's own choices count too
(`SQL_FIELDS`: the strategy, tool mode, judges, tolerance, step budget, language, epochs), as
the runs' configurations stored them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_app.core.compare.strategies import strategy_of
from desktop_app.core.runs import RunInfo

__all__ = ["IDENTITY_FIELDS", "settings_differ"]

# The fixed identity of what was measured, before the server settings. "endpoint" is the
# run's target_key: a simulator's profile (its port is random per start), else the URL.
IDENTITY_FIELDS = ("model", "engine", "endpoint")
# An SQL run's choices that change its figures, by the name the views show and the stored
# config key. "strategy" is `strategies.strategy_of`'s kind plus any extra strategies.
SQL_FIELDS = (("strategy", None), ("tool_mode", "tool_mode"), ("judges", "judges"),
              ("tolerance", "tolerance"), ("max_steps", "max_steps"),
              ("language", "language"), ("epochs", "epochs"))
# Recorded settings the identity fields already say (target_key carries the profile).
_SKIPPED = frozenset({"simulator_profile"})


def _identity(info: RunInfo, name: str) -> Any:
    if name == "endpoint":
        return info.target_key
    return getattr(info, name) or None


def settings_differ(infos: Sequence[RunInfo]) -> dict[str, dict[int, Any]]:
    """{setting: {run id: value}} for the identity fields (model, engine, endpoint) and the
    recorded server settings whose values are not the same in every run; a run that did not
    record a setting has None. Identity fields first, then settings in alphabetical order.
    Empty for fewer than two runs. Pure."""
    if len(infos) < 2:
        return {}
    out: dict[str, dict[int, Any]] = {}
    for name in IDENTITY_FIELDS:
        values = {i.id: _identity(i, name) for i in infos}
        if _differs(list(values.values())):
            out[name] = values
    sql = [i for i in infos if i.kind == "sql"]
    if len(sql) >= 2:
        for name, key in SQL_FIELDS:
            values = {i.id: _sql_value(i, key) for i in sql}
            if _differs(list(values.values())):
                out[name] = values
    settings = {i.id: i.settings for i in infos}
    keys = sorted({k for s in settings.values() for k in s} - _SKIPPED)
    for key in keys:
        values = {run_id: s.get(key) for run_id, s in settings.items()}
        if _differs(list(values.values())):
            out[key] = values
    return out


def _sql_value(info: RunInfo, key: str | None) -> Any:
    if key is None:
        kind, extras = strategy_of(info)
        return "+".join((kind, *extras))
    value = info.config.get(key) if isinstance(info.config, dict) else None
    return ",".join(map(str, value)) if isinstance(value, list | tuple) else value


def _differs(values: list[Any]) -> bool:
    # By equality, not hashing: a setting may be a list or a dict.
    return any(v != values[0] for v in values[1:])
