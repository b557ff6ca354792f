"""What a user asks a throughput sweep to do, validated before anything is sent."""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.files import LocalFileError, read_bounded
from desktop_app.core.parsing import InputError, Phrase
from desktop_app.core.redact import redact_url
from desktop_app.core.throughput.findmax import FindMax, probe_requests
from desktop_app.core.throughput.lengths import Lengths, parse_lengths
from desktop_app.core.throughput.types import CellSpec
from desktop_app.core.throughput.workload import WorkloadRef


MAX_REQUESTS = 10_000_000  # per cell (and warm-up): more is a typo, not a benchmark
MAX_WORKERS = 256  # load-generating processes (or Ray actors)
# Bounds checked before anything is built (a typo of 1e9 would otherwise build a billion
# tasks or a gigabyte prompt first): far above any real sweep, far below what exhausts memory.
MAX_CONCURRENCY = 100_000  # requests in flight (AIPerf's and vLLM's sweeps stop near 1,000)
MAX_INPUT_TOKENS = 10_000_000  # a prompt (the longest contexts served are about 1-10M)
MAX_OUTPUT_TOKENS = 1_000_000  # max_tokens asked of one reply
MAX_REQUEST_RATE = 1_000_000.0  # requests per second, open loop
MAX_VALUES = 1_000  # values in one list (lengths, loads): the cells multiply them
MAX_TURNS = 100  # turns of one multi-turn session
# A Ray cluster to send from (`throughput.ray_pool`): "auto" (the cluster this machine is part
# of), "local" (start one here), "ray://host:10001" (Ray Client) or "host:6379" (its head).
# No user:password@: the address is stored with the run.
_RAY_ADDRESS = re.compile(
    r"(?:ray://)?(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\]):(\d{1,5})")


def default_requests(concurrency: int) -> int:
    """The sweep's default number of measured requests in a closed-loop cell."""
    return max(4 * concurrency, 8)


@dataclass(frozen=True)
class SweepConfig:
    """A sweep: every input length x load level x output length is one cell.

    Load is either closed loop (`concurrency`: that many requests in flight) or, when
    `request_rates` is given, open loop (Poisson arrivals at each rate, requests per second).
    `requests_per_cell` defaults to max(4 x concurrency, 8) (open loop: 8 x rate, at least 8).
    `warmup` requests are sent once before the first cell, at its shape, and excluded from every
    figure. `cell_time_budget_s` stops sending new requests in a cell after that many seconds
    and cuts those still in flight at that moment (they end `timeout`). `unique_prompts=False` sends identical prompts per length, to
    measure prefix-cache hits. `ttft_target_s`/`tpot_target_s` define goodput: the share of
    requests meeting both. `ignore_eos=None` sends ignore_eos/min_tokens only to engines known
    to accept them.
    """

    endpoint: EndpointConfig
    input_tokens: tuple[int, ...]
    output_tokens: tuple[int, ...] = (128,)
    concurrency: tuple[int, ...] = (1,)
    request_rates: tuple[float, ...] = ()
    requests_per_cell: int | None = None
    warmup: int = 2
    cell_time_budget_s: float | None = None
    unique_prompts: bool = True
    scrape_metrics: bool = True
    metrics_interval_s: float = 0.5
    ttft_target_s: float | None = None
    tpot_target_s: float | None = None
    ignore_eos: bool | None = None
    temperature: float = 0.0
    seed: int = 0
    name: str = ""
    extra_body: dict = field(default_factory=dict)
    notes: str = ""  # the user's note, stored as the run's notes
    # Server settings the user typed (`parse_user_settings`): recorded with the run beside what
    # the server reports (`merge_settings`); never sent anywhere.
    server_settings: dict = field(default_factory=dict)
    # How streams are received: "lean" (`endpoint.lean`, the default; the httpx path is used
    # anyway when a proxy applies to the endpoint) or "httpx" (`endpoint.client`).
    http_client: str = "lean"
    # Load-generating processes a cell's streams are spread over (`throughput.workers`); 1 runs
    # them in this process, on its loop. With `ray`, the number of Ray actors; 0 there means one
    # per CPU of each node, less one per node.
    workers: int = 1
    # A Ray cluster whose actors send the streams (`throughput.ray_pool`), or None: this
    # machine's processes. "auto", "local", "ray://host:10001" or "host:6379".
    ray: str | None = None
    # The length axes as distributions (`throughput.lengths`): when given, they are the axis
    # and `input_tokens`/`output_tokens` become their nominal lengths.
    input_lengths: tuple[Lengths, ...] = ()
    output_lengths: tuple[Lengths, ...] = ()
    # A workload file replayed instead of the length axes (`throughput.workload`): one cell per
    # concurrency in a closed loop, or with `speedup`, one cell on the file's own timestamps
    # sped up that many times. Its records are read when the sweep starts.
    workload: WorkloadRef | None = None
    speedup: float | None = None
    # Search concurrency for the highest load meeting the targets (`throughput.findmax`)
    # instead of sweeping `concurrency`: one length (or workload), probes added as it goes.
    find_max: FindMax | None = None
    # Multi-turn sessions instead of single requests (`CellSpec.turns`): each cell runs
    # `concurrency` conversations at once, each of `turns` turns of `input_tokens` new tokens,
    # `think_s` apart, after a system prompt of `system_tokens` shared by the cell's sessions.
    turns: int | None = None
    think_s: float = 0.0
    system_tokens: int = 0

    def __post_init__(self) -> None:
        for axis, lengths in (("input_tokens", self.input_lengths),
                              ("output_tokens", self.output_lengths)):
            if lengths:
                object.__setattr__(self, axis, tuple(v.value for v in lengths))
        if self.workload is not None:  # its mean lengths name its cells
            object.__setattr__(self, "input_tokens", (self.workload.input_tokens,))
            object.__setattr__(self, "output_tokens", (self.workload.output_tokens,))
            object.__setattr__(self, "input_lengths", ())
            object.__setattr__(self, "output_lengths", ())

    @property
    def input_axis(self) -> tuple[Lengths, ...]:
        return self.input_lengths or tuple(Lengths.fixed(n) for n in self.input_tokens)

    @property
    def output_axis(self) -> tuple[Lengths, ...]:
        return self.output_lengths or tuple(Lengths.fixed(n) for n in self.output_tokens)

    @property
    def open_loop(self) -> bool:
        return bool(self.request_rates)

    def _workload_cells(self, ref: WorkloadRef) -> list[CellSpec]:
        n = self.requests_per_cell or ref.records
        if self.speedup is not None:
            rate = ref.records / ref.duration_s * self.speedup if ref.duration_s else None
            return [CellSpec(ref.input_tokens, ref.output_tokens, n, request_rate=rate,
                             workload=ref.label, speedup=self.speedup)]
        return [CellSpec(ref.input_tokens, ref.output_tokens, n, concurrency=c,
                         workload=ref.label) for c in self.concurrency]

    def cells(self) -> list[CellSpec]:
        """Every cell in the order the sweep runs them: input, then load, then output length
        (a workload: one per concurrency, or one on its schedule; a search for the knee: its
        first probe, the others are added as it goes)."""
        if self.find_max is not None:
            first = dataclasses.replace(self, find_max=None, concurrency=(1,),
                                        request_rates=(), requests_per_cell=probe_requests(
                                            1, self.requests_per_cell))
            return first.cells()[:1]
        if self.workload is not None:
            return self._workload_cells(self.workload)
        specs: list[CellSpec] = []
        for n_in in self.input_axis:
            drawn_in = None if n_in.is_fixed else n_in
            if self.open_loop:
                for rate in self.request_rates:
                    for n_out in self.output_axis:
                        n = self.requests_per_cell or max(8, math.ceil(8 * rate))
                        specs.append(CellSpec(
                            n_in.value, n_out.value, n, request_rate=rate,
                            input_lengths=drawn_in,
                            output_lengths=None if n_out.is_fixed else n_out))
            else:
                for conc in self.concurrency:
                    for n_out in self.output_axis:
                        n = self.requests_per_cell or default_requests(conc)
                        session: dict = {}
                        if self.turns is not None:  # whole sessions: 2 per slot, at least 4
                            sessions = max(1, n // self.turns) if self.requests_per_cell \
                                else max(2 * conc, 4)
                            n = sessions * self.turns
                            session = dict(turns=self.turns, think_s=self.think_s,
                                           system_tokens=self.system_tokens)
                        specs.append(CellSpec(
                            n_in.value, n_out.value, n, concurrency=conc,
                            input_lengths=drawn_in,
                            output_lengths=None if n_out.is_fixed else n_out, **session))
        return specs

    def default_name(self) -> str:
        """The name a run of this sweep gets when none is given: model, lengths and loads."""
        if self.find_max is not None:
            return (f"{self.endpoint.model} {self.input_axis[0].label} tokens find-max "
                    f"{100 * self.find_max.share:g}%")
        if self.workload is not None:
            return f"{self.endpoint.model} {self.cells()[0].input_label}" + (
                "" if self.speedup is not None
                else " c=" + ",".join(str(c) for c in self.concurrency))
        sizes = ",".join(n.label for n in self.input_axis)
        load = (",".join(f"{r:g} req/s" for r in self.request_rates) if self.open_loop
                else "c=" + ",".join(str(c) for c in self.concurrency))
        return f"{self.endpoint.model} {sizes} tokens {load}"

    def to_json(self) -> dict:
        """The config as stored with the run: everything but the API key."""
        data = dataclasses.asdict(self)
        data["endpoint"].pop("api_key", None)
        data["endpoint"]["base_url"] = redact_url(self.endpoint.base_url)
        for axis in ("input_lengths", "output_lengths"):
            data[axis] = [v.to_json() for v in getattr(self, axis)]
        data["workload"] = self.workload.to_json() if self.workload else None
        data["find_max"] = self.find_max.to_json() if self.find_max else None
        return data

    def validate(self) -> None:
        """Raise InputError naming the first bad field."""
        _positive_ints(self.input_tokens, "input tokens", MAX_INPUT_TOKENS)
        _positive_ints(self.output_tokens, "output tokens", MAX_OUTPUT_TOKENS)
        for name, axis, most in (("input tokens", self.input_lengths, MAX_INPUT_TOKENS),
                                 ("output tokens", self.output_lengths, MAX_OUTPUT_TOKENS)):
            for lengths in axis:
                if not 1 <= lengths.low <= lengths.high <= most:
                    raise InputError(name, code="whole_from_to", item=lengths.label, low=1,
                                     high=most)
        if self.open_loop:
            _few(self.request_rates, "request rate")
            for rate in self.request_rates:
                if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not (
                        0 < rate <= MAX_REQUEST_RATE):
                    raise InputError("request rate", code="positive_at_most",
                                     item=f"{rate!r:.40}", high=MAX_REQUEST_RATE)
        else:
            _positive_ints(self.concurrency, "concurrency", MAX_CONCURRENCY)
        if self.requests_per_cell is not None and not 1 <= self.requests_per_cell <= MAX_REQUESTS:
            raise InputError("requests per cell", code="whole_from_to",
                             item=f"{self.requests_per_cell!r:.40}", low=1, high=MAX_REQUESTS)
        if self.warmup > MAX_REQUESTS:
            raise InputError("warm-up requests", code="more_than", item=f"{self.warmup!r:.40}",
                             high=MAX_REQUESTS)
        for name, value in (("connect timeout", self.endpoint.connect_timeout_s),
                            ("first-byte timeout", self.endpoint.first_byte_timeout_s),
                            ("request timeout", self.endpoint.total_timeout_s)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    value > 0 and math.isfinite(value)):
                raise InputError(name, code="positive_seconds", item=f"{value!r:.40}")
        if self.warmup < 0:
            raise InputError("warm-up requests", code="negative", item=str(self.warmup))
        optional: tuple[tuple[str, float | None], ...] = (
            ("time budget per cell", self.cell_time_budget_s),
            ("TTFT target", self.ttft_target_s),
            ("TPOT target", self.tpot_target_s),
            ("metrics interval", self.metrics_interval_s),
        )
        for name, limit in optional:
            if limit is not None and not (limit > 0 and math.isfinite(limit)):
                raise InputError(name, code="positive_seconds", item=f"{limit!r:.40}")
        if not self.endpoint.model:
            raise InputError("model", code="choose_model")
        if self.http_client not in ("lean", "httpx"):
            raise InputError("HTTP client", code="unknown_choice",
                             items=f"{self.http_client!r:.40}", choices="lean, httpx")
        check_ray_address(self.ray)
        if self.turns is not None:
            if isinstance(self.turns, bool) or not isinstance(self.turns, int) or not (
                    1 <= self.turns <= MAX_TURNS):
                raise InputError("turns", code="whole_from_to", item=f"{self.turns!r:.40}",
                                 low=1, high=MAX_TURNS)
            if not (0 <= self.think_s <= 3600 and math.isfinite(self.think_s)):
                raise InputError("think time", code="out_of_range",
                                 item=f"{self.think_s!r:.40}", low=0, high=3600)
            if not 0 <= self.system_tokens <= MAX_INPUT_TOKENS:
                raise InputError("system tokens", code="whole_from_to",
                                 item=f"{self.system_tokens!r:.40}", low=0,
                                 high=MAX_INPUT_TOKENS)
            if (self.endpoint.api != "chat" or self.open_loop or self.workload is not None
                    or self.find_max is not None or self.workers != 1 or self.ray is not None):
                raise InputError("turns", code="sessions_how")
        if self.find_max is not None:
            if self.ttft_target_s is None and self.tpot_target_s is None:
                raise InputError("find max", code="find_max_needs_target")
            if len(self.input_axis) != 1 or len(self.output_axis) != 1 or self.open_loop or (
                    self.speedup is not None):
                raise InputError("find max", code="find_max_one_shape")
            if not 0 < self.find_max.share <= 1:
                raise InputError("SLO share", code="out_of_range",
                                 item=f"{self.find_max.share!r:.40}", low=0, high=1)
            if not 1 <= self.find_max.most <= MAX_CONCURRENCY:
                raise InputError("max concurrency", code="whole_from_to",
                                 item=f"{self.find_max.most!r:.40}", low=1,
                                 high=MAX_CONCURRENCY)
        if self.speedup is not None:
            if isinstance(self.speedup, bool) or not isinstance(self.speedup, (int, float)) or not (
                    0 < self.speedup <= 1000):
                raise InputError("speedup", code="out_of_range", item=f"{self.speedup!r:.40}",
                                 low=0, high=1000)
            if self.workload is None or self.workload.duration_s is None:
                raise InputError("speedup", code="workload_untimed",
                                 path=self.workload.path if self.workload else "-")
            if self.workers != 1 or self.ray is not None:
                raise InputError("workers", code="workload_one_process")
        least = 0 if self.ray is not None else 1  # 0 actors: as many as the cluster's CPUs
        if (isinstance(self.workers, bool) or not isinstance(self.workers, int)
                or not least <= self.workers <= MAX_WORKERS):
            raise InputError("workers", code="whole_from_to", item=f"{self.workers!r:.40}",
                             low=least,
                             high=MAX_WORKERS)
        for key, value in self.server_settings.items():
            if not isinstance(key, str) or not isinstance(value, (str, int, float, bool)):
                raise InputError("server settings", code="setting_type", key_name=repr(key))


def axis_fields(value, field_name: str, axis: str, base: Path | None = None) -> dict:
    """SweepConfig's fields for a length axis as typed (`512,2k`, `N(512,128) U(100,900)`, or
    a sweep file's list of them): `{axis}_tokens` when every value is a fixed count (the config
    is then what it always was), else `{axis}_lengths` too. `axis` is "input" or "output";
    InputError naming `field_name` and the item otherwise."""
    if isinstance(value, list):
        value = ",".join(str(v) for v in value)
    most = MAX_INPUT_TOKENS if axis == "input" else MAX_OUTPUT_TOKENS
    values = parse_lengths(str(value), field_name, max_value=most, base=base)
    if all(v.is_fixed for v in values):
        return {f"{axis}_tokens": tuple(v.value for v in values)}
    return {f"{axis}_tokens": (), f"{axis}_lengths": values}


def check_ray_address(address: str | None, field_name: str = "ray") -> None:
    """Raise InputError naming `field_name` unless `address` is None, "auto", "local", or
    [ray://]host:port (port 1-65535, no credentials, no spaces)."""
    if address is None or address in ("auto", "local"):
        return
    if not isinstance(address, str):
        raise InputError(field_name, code="ray_not_text", item=f"{address!r:.40}")
    match = _RAY_ADDRESS.fullmatch(address)
    if match is None or not 1 <= int(match.group(1)) <= 65535:
        raise InputError(field_name, code="ray_address", item=f"{address!r:.60}")


def _few(values, field_name: str) -> None:
    if len(values) > MAX_VALUES:
        raise InputError(field_name, code="too_many_values", n=len(values), high=MAX_VALUES)


def _positive_ints(values: tuple[int, ...], field_name: str, most: int) -> None:
    if not values:
        raise InputError(field_name, code="empty")
    _few(values, field_name)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
            raise InputError(field_name, code="whole_from_to", item=f"{value!r:.40}", low=1,
                             high=most)


_TOML_KEYS = {
    "base_url", "model", "api", "input_tokens", "output_tokens", "concurrency", "request_rates",
    "requests_per_cell", "warmup", "cell_time_budget_s", "unique_prompts", "scrape_metrics",
    "metrics_interval_s", "ttft_target_s", "tpot_target_s", "ignore_eos", "temperature", "seed",
    "name", "verify_tls", "connect_timeout_s", "first_byte_timeout_s", "total_timeout_s",
    "http_client", "workers", "ray", "workload", "on_schedule", "speedup", "turns", "think_s",
    "system_tokens", "find_max", "slo_share", "max_concurrency",
}


MAX_SWEEP_FILE_BYTES = 1024 * 1024  # a sweep file is a few hundred bytes of settings


def load_sweep_toml(path: Path) -> dict:
    """Read a sweep file (`--config sweep.toml`) into a dict of the keys above.

    Raises InputError naming the file (and line, for syntax errors) or the unknown key. API
    keys are refused in the file: they belong in an environment variable.
    """
    try:
        raw = tomllib.loads(read_bounded(path, MAX_SWEEP_FILE_BYTES, what="a sweep file")
                            .decode("utf-8"))
    except LocalFileError as exc:
        raise InputError(str(path), exc.text, code=f"file_{exc.code}", **exc.values) from None
    except UnicodeDecodeError:
        raise InputError(str(path), code="sweep_not_utf8") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(path), code="toml_syntax", detail=str(exc)) from None
    except RecursionError:  # [[[[...]]]] a thousand deep: tomllib recurses per level
        raise InputError(str(path), code="sweep_too_deep") from None
    for key, value in raw.items():
        if "key" in key.lower() and key not in _TOML_KEYS:
            raise InputError(f"{path}: {key}", code="sweep_api_key")
        if key not in _TOML_KEYS:
            raise InputError(f"{path}: {key}", code="sweep_unknown_key",
                             known=", ".join(sorted(_TOML_KEYS)))
        kind, ok = _TOML_TYPES.get(key, ("", None))
        if ok is not None and not ok(value):
            raise InputError(f"{path}: {key}", code="sweep_key_type", kind=Phrase(kind),
                             value=f"{value!r:.60}")
    return raw


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_list_of(check):
    return lambda v: check(v) or (isinstance(v, list) and bool(v) and all(check(x) for x in v))


# What each key of a sweep file holds, by the code of its words (the values themselves are
# checked with the flags').
_TOML_TYPES = {
    **dict.fromkeys(("base_url", "model", "name", "ray", "workload"),
                    ("kind_text", lambda v: isinstance(v, str))),
    "api": ("kind_api", lambda v: v in ("chat", "completions")),
    "http_client": ("kind_http_client", lambda v: v in ("lean", "httpx")),
    **dict.fromkeys(("input_tokens", "output_tokens", "concurrency"), (
        "kind_whole_list",
        _is_list_of(lambda x: isinstance(x, str) or isinstance(x, int)
                    and not isinstance(x, bool)))),
    "request_rates": ("kind_number_list",
                      _is_list_of(lambda x: _is_number(x) or isinstance(x, str))),
    **dict.fromkeys(("requests_per_cell", "warmup", "seed", "workers", "turns", "system_tokens",
                     "max_concurrency"), (
        "kind_whole", lambda v: isinstance(v, int) and not isinstance(v, bool))),
    **dict.fromkeys(("cell_time_budget_s", "metrics_interval_s", "ttft_target_s",
                     "tpot_target_s", "temperature", "connect_timeout_s", "first_byte_timeout_s",
                     "total_timeout_s", "speedup", "think_s", "slo_share"),
                    ("kind_number", _is_number)),
    **dict.fromkeys(("unique_prompts", "scrape_metrics", "ignore_eos", "verify_tls",
                     "on_schedule", "find_max"), (
        "kind_bool", lambda v: isinstance(v, bool))),
}
