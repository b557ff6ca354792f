"""What a user asks a SQL evaluation to do (`EvalConfig`), validated before anything is sent.

Its own module so that the results (`results.py`), the runner and the records can all name it
without importing one another.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.redact import redact_url
from desktop_app.core.sqleval.agent import MAX_RETRIES
from desktop_app.core.sqleval.judges import default_judges, judge_names
from desktop_app.core.sqleval.strategies import parse_layered_route
from desktop_app.core.sqleval.types import STRATEGIES, TIERS, QuestionSet

__all__ = ["EvalConfig"]


@dataclass(frozen=True)
class EvalConfig:
    """What a user asks an evaluation to do, validated before anything is sent.

    `questions` is a bundled set's name or a set folder's path. Empty `tiers` / `question_ids`
    mean all. `judges` are the judges summarised (all three are always computed and stored);
    `ignore_names` makes the full judge ignore column names. Left None, both follow the set
    (`for_set`): every judge of Throughline's own with names compared, except on a set whose
    questions do not name their columns (`asks_columns = false`), where only full, names
    ignored, means anything; on a set imported from a benchmark, its official rule beside them
    (`judges.default_judges`).
    `tolerance` is the numeric tolerance of the tolerant and full judges. Budgets per question:
    `max_steps` model calls, `max_tokens` prompt + completion tokens summed over the steps (None:
    no limit), `time_limit_s` seconds of wall time (None: no limit); `sql_time_limit_s` bounds
    each query in the sandbox. `concurrency` questions run at once; every question runs
    `epochs` times. `tool_mode` is "native" or "text"; `language` "en" or "zh". `retries` is
    how many times a model call that failed transiently (no answer, 408, 429, 5xx) is tried
    again, after an exponential backoff that waits at least the server's Retry-After; 0 (the
    default) keeps every endpoint fault visible where it happened. `layered_route` (used with
    the layered strategy): "validate" (the tool loop only when the fast answer fails the
    harness's checks), "tier:hard,medium" (those tiers go straight to the loop) or
    "always-loop".
    """

    endpoint: EndpointConfig
    questions: str = "sales-25"
    tiers: tuple[str, ...] = ()
    question_ids: tuple[str, ...] = ()
    judges: tuple[str, ...] | None = None
    tolerance: float = 1e-6
    ignore_names: bool | None = None
    strategies: tuple[str, ...] = ()
    max_steps: int = 20
    max_tokens: int | None = None
    time_limit_s: float | None = 600.0
    sql_time_limit_s: float = 5.0
    concurrency: int = 1
    epochs: int = 1
    language: str = "en"
    tool_mode: str = "native"
    temperature: float = 0.0
    name: str = ""
    retries: int = 0
    layered_route: str = "validate"
    notes: str = ""  # the user's note, stored as the run's notes
    # Server settings the user typed (`parse_user_settings`), recorded with the run beside what
    # the server reports (`merge_settings`).
    server_settings: dict = field(default_factory=dict)

    def validate(self) -> None:
        """Raise InputError naming the first bad field."""
        if not str(self.questions).strip():
            raise InputError("questions", code="name_a_set")
        for name, values, known in (("tiers", self.tiers, TIERS),
                                    ("judges", self.judges or (), judge_names()),
                                    ("strategies", self.strategies, STRATEGIES)):
            bad = [v for v in values if v not in known]
            if bad:
                raise InputError(name, code="unknown_choice", items=", ".join(map(repr, bad)),
                                 choices=", ".join(known))
        if self.judges is not None and not self.judges:
            raise InputError("judges", code="at_least_one_judge")
        if not (self.tolerance >= 0 and math.isfinite(self.tolerance)):
            raise InputError("tolerance", code="not_negative_number", item=repr(self.tolerance))
        for name, value in (("max steps", self.max_steps), ("concurrency", self.concurrency),
                            ("epochs", self.epochs), ("max tokens", self.max_tokens)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise InputError(name, code="whole_at_least_1", item=repr(value))
        if (isinstance(self.retries, bool) or not isinstance(self.retries, int)
                or not 0 <= self.retries <= MAX_RETRIES):
            raise InputError("retries", code="whole_from_to", item=repr(self.retries), low=0,
                             high=MAX_RETRIES)
        for name, seconds in (("time limit", self.time_limit_s),
                              ("SQL time limit", self.sql_time_limit_s)):
            if seconds is not None and not (seconds > 0 and math.isfinite(seconds)):
                raise InputError(name, code="positive_seconds", item=repr(seconds))
        if self.language not in ("en", "zh"):
            raise InputError("language", code="unknown_choice", items=repr(self.language),
                             choices="en, zh")
        if self.tool_mode not in ("native", "text"):
            raise InputError("tool mode", code="unknown_choice", items=repr(self.tool_mode),
                             choices="native, text")
        parse_layered_route(self.layered_route)

    def for_set(self, qset: QuestionSet) -> EvalConfig:
        """The config with the judges and `ignore_names` left to the set filled in."""
        names = qset.asks_columns
        judges = self.judges if self.judges is not None else default_judges(
            names, qset.benchmark)
        ignore = self.ignore_names if self.ignore_names is not None else not names
        return dataclasses.replace(self, judges=tuple(judges), ignore_names=bool(ignore))

    def to_json(self) -> dict:
        """The config as stored with the run: everything but the API key."""
        data = dataclasses.asdict(self)
        data["endpoint"].pop("api_key", None)
        data["endpoint"]["base_url"] = redact_url(self.endpoint.base_url)
        return data
