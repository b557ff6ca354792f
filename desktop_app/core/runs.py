"""What every view says about a run, decided once: who it is, what it ran on, its load, its
pass rate.

A view (Runs page, SQL Agent page, Inspector, PDF, exports, ``throughline runs``, ``compare``)
never formats these itself; when two views can disagree, they will.

* :class:`RunInfo`: the run's identity as stored (name, note, endpoint, model, engine, status,
  configuration, server settings), with :attr:`RunInfo.simulated` and
  :attr:`RunInfo.target_key` (what pairs a sweep with a SQL run of the same server).
* :func:`load_label`: "c=4", "2 req/s", or "load unknown".
* :func:`name_facts` / :func:`distinct_name`: a default name that carries what sets a run
  apart from the stored runs that would get the same name (profile, endpoint, a setting the
  server reported, the SQL strategy, tool mode and judges).
* :class:`PassCount` / :func:`pass_count`: questions a judge passed out of the questions judged,
  with the questions a stopped run never finished counted apart (never as failures).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.redact import redact_url
from desktop_app.core.engines import label_parts
from desktop_app.core.store.tables import RunRecord

__all__ = ["RunInfo", "run_info", "is_simulated", "load_label", "PassCount", "pass_count",
           "name_facts", "distinct_name"]


def is_simulated(engine: str | None, model: str | None) -> bool:
    """True for the built-in simulator or a scripted persona (``sim/...``): never a real
    model's figure. The one test every view uses."""
    return label_parts(engine)[1] or (model or "").startswith("sim/")


def load_label(concurrency: int | None, request_rate: float | None) -> str:
    """A cell's load as a key: "c=4" (closed loop), "2 req/s" (open loop), or "load unknown"
    (an imported result that does not say, e.g. AIPerf's JSONL without its summary). It keys
    chart series and English logs; what a reader sees is `report.words_common.load_text`, in
    their language."""
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


# At most this many facts go into a name: a name is a label, the comparison's "what differs"
# lists everything.
MAX_NAME_FACTS = 3
# The SQL settings a name may carry, in the order a reader tells runs apart by them.
_SQL_NAME_FIELDS = (("strategies", "strategy"), ("tool_mode", "tools"), ("judges", "judges"),
                    ("language", "lang"), ("max_steps", "steps"), ("epochs", "epochs"))


def _short(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "+".join(str(v) for v in value) or "-"
    return str(value)[:40]


def _host(url: str) -> str:
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0].rsplit("@", 1)[-1]  # never a user:password (already redacted)


def name_facts(info: RunInfo) -> dict[str, str]:
    """What can tell `info` apart from a run of the same model, lengths and loads, as short
    language-neutral tokens ("fast-capped", "10.0.0.5:8000", "max_num_seqs=2",
    "strategy=layered"), in the order a name would carry them."""
    facts = {"target": info.simulator_profile or _host(info.endpoint)}
    for key, value in sorted(info.settings.items()):
        if key != "simulator_profile" and value is not None:
            facts[key] = f"{key}={_short(value)}"
    config = info.config if isinstance(info.config, dict) else {}
    if info.kind == "sql":
        for key, label in _SQL_NAME_FIELDS:
            if config.get(key) not in (None, [], ()):
                facts[key] = f"{label}={_short(config[key])}"
    else:
        for key, label in (("http_client", "client"), ("workers", "workers")):
            if config.get(key) not in (None, 0, 1, ""):
                facts[key] = f"{label}={_short(config[key])}"
    return facts


def distinct_name(base: str, info: RunInfo, others: Iterable[RunInfo]) -> str:
    """`base`, or `base` followed by "(...)" with the facts (`name_facts`) in which `info`
    differs from a stored run named `base` (with or without such a suffix) of the same kind:
    two sweeps of `fast` and `fast-capped` become "... c=1,4" and "... c=1,4 (fast-capped)".
    Runs that differ in nothing keep `base` (their ids tell them apart)."""
    mine = name_facts(info)
    differing: list[str] = []
    for other in others:
        if other.kind != info.kind or not (other.name == base
                                           or other.name.startswith(base + " (")):
            continue
        theirs = name_facts(other)
        differing += [k for k, v in mine.items() if theirs.get(k) != v and k not in differing]
    if not differing:
        return base
    order = [k for k in mine if k in differing][:MAX_NAME_FACTS]
    return f"{base} ({', '.join(mine[k] for k in order)})"


def default_name(store, kind: str, base: str, *, endpoint_url: str | None, model: str,
                 engine: str, config: Mapping[str, Any]) -> str:
    """`distinct_name` for a run about to be created in `store` (the runs stored of the same
    kind and model are the others)."""
    info = RunInfo(0, kind, base, redact_url(endpoint_url) if endpoint_url else "",
                   model or "", engine or "", "running",
                   "", "", dict(config))
    others = [run_info(r) for r in store.list_runs(kind=kind, model=model or None)]
    return distinct_name(base, info, others)


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
