"""What every view says about a run, decided once: who it is, what it ran on, its load, its
pass rate.

A view (Runs page, SQL Agent page, Inspector, PDF, exports, ``throughline runs``, ``compare``)
never formats these itself; when two views can disagree, they will.

* :class:`RunInfo`: the run's identity as stored (name, note, endpoint, model, engine, status,
  configuration, server settings), with :attr:`RunInfo.simulated` and
  :attr:`RunInfo.target_key` (what pairs a sweep with a SQL run of the same server).
* :func:`load_label`: "c=4", "2 req/s", or "load unknown".
* :class:`PassCount` / :func:`pass_count`: questions a judge passed out of the questions judged,
  with the questions a stopped run never finished counted apart (never as failures).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.store.tables import RunRecord

__all__ = ["RunInfo", "run_info", "is_simulated", "load_label", "PassCount", "pass_count"]


def is_simulated(engine: str | None, model: str | None) -> bool:
    """True for the built-in simulator or a scripted persona (``sim/...``): never a real
    model's figure. The one test every view uses."""
    return (engine or "").startswith("simulated") or (model or "").startswith("sim/")


def load_label(concurrency: int | None, request_rate: float | None) -> str:
    """A cell's load as every view writes it: "c=4" (closed loop), "2 req/s" (open loop), or
    "load unknown" (an imported result that does not say, e.g. AIPerf's JSONL without its
    summary)."""
    if concurrency is not None:
        return f"c={concurrency}"
    if request_rate is not None:
        return f"{request_rate:g} req/s"
    return "load unknown"


@dataclass(frozen=True)
class RunInfo:
    """A stored run's identity (no secrets: the store redacts). Times are ISO-8601 UTC text.

    `settings` are the server settings recorded with the run, keyed as the engine spells them
    (vLLM's names where the engine has an equivalent); `settings_source` says per key whether
    it was read from the server ("server") or typed by the user ("user")."""

    id: int
    kind: str
    name: str
    endpoint: str
    model: str
    engine: str
    status: str
    started_at: str
    ended_at: str
    config: dict = field(hash=False)
    notes: str = ""
    error: str = ""
    app_version: str = ""

    @property
    def simulated(self) -> bool:
        return is_simulated(self.engine, self.model)

    @property
    def settings(self) -> dict[str, Any]:
        s = self.config.get("server_settings") if isinstance(self.config, dict) else None
        return dict(s) if isinstance(s, Mapping) else {}

    @property
    def settings_source(self) -> dict[str, str]:
        s = self.config.get("server_settings_source") if isinstance(self.config, dict) else None
        return {str(k): str(v) for k, v in s.items()} if isinstance(s, Mapping) else {}

    @property
    def simulator_profile(self) -> str | None:
        """The simulator profile that served the run, when it was the built-in simulator."""
        if not self.simulated:
            return None
        profile = self.settings.get("simulator_profile")
        return str(profile) if profile else None

    @property
    def target_key(self) -> str:
        """What identifies the server measured: the simulator's profile (its port is random per
        start), else the endpoint URL without a trailing slash."""
        profile = self.simulator_profile
        return f"simulator:{profile}" if profile else self.endpoint.rstrip("/")

    @property
    def label(self) -> str:
        """How legends, verdicts and tables name the run: '#12' plus its name when it has one."""
        return f"#{self.id}" + (f" {self.name}" if self.name else "")


def run_info(record: RunRecord) -> RunInfo:
    """The identity of a stored run."""
    return RunInfo(record.id, record.kind, record.name or "", record.endpoint_url or "",
                   record.model or "", record.engine or "", record.status,
                   record.started_at or record.created_at, record.ended_at or "",
                   dict(record.config or {}), record.notes or "", record.error or "",
                   record.app_version or "")


@dataclass(frozen=True)
class PassCount:
    """`passed` of `judged` questions (epochs pooled) under one judge; `unfinished` questions a
    stopped run started but never judged, shown beside the rate and never counted in it."""

    passed: int
    judged: int
    unfinished: int = 0

    @property
    def rate(self) -> float | None:
        """passed / judged (0..1), or None when nothing was judged."""
        return self.passed / self.judged if self.judged else None

    @property
    def text(self) -> str:
        """"6/6" as every view shows the count (the rate and the unfinished count beside it are
        the view's words)."""
        return f"{self.passed}/{self.judged}"


def pass_count(outcomes: Iterable[bool | None]) -> PassCount:
    """Count per-question outcomes: True passed, False failed, None not judged (unfinished)."""
    passed = judged = unfinished = 0
    for o in outcomes:
        if o is None:
            unfinished += 1
        else:
            judged += 1
            passed += bool(o)
    return PassCount(passed, judged, unfinished)
