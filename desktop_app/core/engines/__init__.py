"""The serving engines Throughline knows: one module each in this package, found by name.

An engine is an `Engine` descriptor its module registers: how discovery recognises it from
the answers of its probes, the /tokenize shapes it speaks, whether it takes `ignore_eos` and
refuses a model it does not serve, how it spells its settings and where it reports them, the
Prometheus series it exports for the figures the app reads, the names of its knobs (the
settings a finding or suggestion names), the names what-if accepts for them, and the request
fields that keep its prompt cache out of a benchmark. Discovery, the settings reader, the
metrics scraper, the diagnosis, the what-if fit and the sweep read the registry; adding an
engine is one module here that calls `register`, plus its test (docs/ARCHITECTURE.md,
"Adding an engine").

The built-in simulator is not an engine of its own: its /version says `simulated` and names
the engine it stands in for (vLLM unless told), whose descriptor it is then read with; it
always speaks vLLM's settings and series (`identify`).

The package is read on first use (`core.registry.ModulesOnce`; `_`-named modules are helpers).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from desktop_app.core.registry import ModulesOnce

if TYPE_CHECKING:
    import httpx

    from desktop_app.core.engines._settings import Reader

# What a finding or a suggestion can name (`Engine.knobs`).
KNOB_ROLES = ("cap", "budget", "kv_memory", "context")
# The figures read from /metrics (`Engine.series`): the first four are `MetricSample` fields;
# the queue-time sum and count are kept in the sample's `raw` only, for the diagnosis; the
# prefix-cache counters (prompt tokens served from the cache, and either every prompt token
# looked up or those computed anew) too, for a cell's cache reuse
# (`servermetrics.prefix_cache`).
SERIES_ROLES = ("running", "waiting", "kv_cache_usage", "preemptions", "queue_time_sum",
                "queue_time_count", "prefix_hits", "prefix_queries", "prefix_computed")
SAMPLE_FIELDS = SERIES_ROLES[:4]
# The /tokenize shapes discovery knows how to call (`Engine.tokenizers`).
TokenizerKind = Literal["vllm", "llamacpp", "llamacpp-python"]
TOKENIZER_KINDS: tuple[TokenizerKind, ...] = ("vllm", "llamacpp", "llamacpp-python")
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Probe:
    """What discovery's probes answered: `answers` maps a probed path to the JSON object of
    its 2xx answer ({} for anything else), `prefixes` the engines' series prefixes its
    /metrics holds, `owners` the models' `owned_by`, `server` the Server header."""

    answers: Mapping[str, dict] = field(default_factory=dict)
    prefixes: frozenset[str] = frozenset()
    owners: frozenset[str] = frozenset()
    server: str = ""

    def json(self, path: str) -> dict:
        return self.answers.get(path) or {}


def _never(probe: Probe) -> bool:
    return False


def _no_version(probe: Probe) -> object:
    return None


@dataclass(frozen=True)
class Engine:
    """One engine. `name` is the code runs record ("vllm"); `label` its makers' spelling
    ("vLLM", the same in every language). Discovery tries `recognise(probe)` in `rank` order
    (lowest first; the first true one is the engine, `version(probe)` its version), GETting
    `probes` for it; with none recognised, `by_tokenizer(probe, kind)` is asked once the
    tokenizer probe has found the /tokenize shape `kind`. `tokenizers`: the shapes to try for
    this engine, most likely first (None: every shape). `metric_prefix` starts each series it
    exports; `series` maps a `SERIES_ROLES` role to its series' names, newest first.
    `spellings` maps its settings' own names to `CANONICAL_KEYS`, and `read_settings(client,
    root, reader)` fills the reader from its endpoints. `knobs` maps a `KNOB_ROLES` role to the
    setting as a user passes it ("--parallel"); `aliases` maps the names what-if accepts for a
    change (`fit.CHANGEABLE`). `unique_prompt_fields` are sent with each request of a sweep
    whose prompts are meant to be unique. `hints`: failure classes with a hint in this
    engine's own terms (`hint_<class>_<name>` in the words). `notes`: discovery notes said
    of every endpoint it serves (codes of `discovery.NOTE_MESSAGES`); `metrics_switch`: how
    to start it with /metrics on, said when it has none."""

    name: str
    label: str
    rank: int = 100
    recognise: Callable[[Probe], bool] = _never
    version: Callable[[Probe], object] = _no_version
    by_tokenizer: Callable[[Probe, str], bool] | None = None
    probes: tuple[str, ...] = ()
    tokenizers: tuple[TokenizerKind, ...] | None = None
    accepts_ignore_eos: bool = False
    refuses_unknown_model: bool = False
    metric_prefix: str = ""
    series: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    spellings: Mapping[str, str] = field(default_factory=dict)
    read_settings: Callable[[httpx.AsyncClient, str, Reader], Awaitable[None]] | None = None
    knobs: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    unique_prompt_fields: Mapping[str, object] = field(default_factory=dict)
    hints: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    metrics_switch: str = ""


_NAME = re.compile(r"[a-z][a-z0-9]*([-_][a-z0-9]+)*")
_REGISTRY: dict[str, Engine] = {}
_load = ModulesOnce(__name__, __path__).load
_generation = 0  # bumped by every change, so tables built from the registry know to rebuild


def register(engine: Engine) -> Engine:
    """Add `engine` (a module's import calls this); a second engine of the same name replaces
    the first, so a module reloaded in a test does not make two."""
    global _generation
    if not _NAME.fullmatch(engine.name):
        raise ValueError(f"an engine's name is a code such as 'vllm' or 'llamacpp-python', "
                         f"not {engine.name!r}")
    bad = (set(engine.knobs) - set(KNOB_ROLES)) | (set(engine.series) - set(SERIES_ROLES))
    if bad:
        raise ValueError(f"engine {engine.name!r}: unknown roles {sorted(bad)}")
    _REGISTRY[engine.name] = engine
    _generation += 1
    return engine


def unregister(name: str) -> None:
    """Remove an engine (a test's toy engine)."""
    global _generation
    if _REGISTRY.pop(name, None) is not None:
        _generation += 1


def generation() -> int:
    """A number that changes whenever an engine is added or removed."""
    _load()
    return _generation


def all_engines() -> tuple[Engine, ...]:
    """Every registered engine, in the order discovery tries them."""
    _load()
    return tuple(sorted(_REGISTRY.values(), key=lambda e: (e.rank, e.name)))


def engine_names() -> tuple[str, ...]:
    return tuple(e.name for e in all_engines())


def get_engine(name: str | None) -> Engine:
    """The engine called `name`; the generic OpenAI-compatible one for a name no module
    registers (an engine since removed, read from an old run)."""
    _load()
    return _REGISTRY.get(name or UNKNOWN) or _REGISTRY[UNKNOWN]  # openai.py registers it


def is_known(name: str | None) -> bool:
    _load()
    return bool(name) and name != UNKNOWN and name in _REGISTRY


def knob(name: str | None, role: str) -> str | None:
    """The setting engine `name` spells `role` (`KNOB_ROLES`) as, or None when it has none."""
    return get_engine(name).knobs.get(role)


def series(name: str | None, role: str) -> str | None:
    """The newest series engine `name` exports for `role`, or None."""
    names = get_engine(name).series.get(role, ())
    return names[0] if names else None


SIMULATED_PREFIX = "simulated "


def run_label(name: str, simulated: bool) -> str:
    """The engine as a run stores it: "vllm", or "simulated vllm" for the built-in simulator
    standing in for vLLM."""
    return (SIMULATED_PREFIX if simulated else "") + name


def label_parts(label: str | None) -> tuple[str, bool]:
    """(engine name, simulated) from a stored run's engine label ("simulated vllm" ->
    ("vllm", True)); "unknown" for an empty one."""
    label = (label or "").strip()
    simulated = label.startswith(SIMULATED_PREFIX.strip())
    name = label.removeprefix(SIMULATED_PREFIX.strip()).strip()
    return name or UNKNOWN, simulated


def identify(probe: Probe) -> tuple[str, object, bool]:
    """(engine name, its version as reported, simulated) from discovery's probes, before the
    tokenizer probe: "unknown" when no engine recognises them."""
    version = probe.json("/version")
    if version.get("simulated") is True:
        named = str(version.get("engine", "vllm"))
        return (named if is_known(named) else "vllm"), version.get("version"), True
    for engine in all_engines():
        if engine.recognise(probe):
            return engine.name, engine.version(probe), False
    return UNKNOWN, None, False


def identify_by_tokenizer(probe: Probe, kind: str) -> tuple[str, object]:
    """(engine name, version) for an endpoint no probe recognised, from the /tokenize shape
    that answered; ("unknown", None) when that says nothing."""
    for engine in all_engines():
        if engine.by_tokenizer is not None and engine.by_tokenizer(probe, kind):
            return engine.name, engine.version(probe)
    return UNKNOWN, None


def probe_paths() -> tuple[str, ...]:
    """Every optional GET discovery makes: the shared ones, then each engine's."""
    paths = ["/version", "/metrics", "/health"]
    for engine in all_engines():
        paths += [p for p in engine.probes if p not in paths]
    return tuple(paths)


def metric_prefixes() -> tuple[str, ...]:
    """Each engine's series prefix ("vllm:", "tgi_"), in the engines' order."""
    return tuple(dict.fromkeys(e.metric_prefix for e in all_engines() if e.metric_prefix))
