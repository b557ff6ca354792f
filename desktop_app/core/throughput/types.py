"""Records of a throughput sweep that the runner, the diagnosis, the store and the GUI share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from desktop_app.core.endpoint.types import MetricSample
from desktop_app.core.metrics import CellSummary, RequestTiming
from desktop_app.core.runs import load_label
from desktop_app.core.throughput.lengths import Lengths


Severity = Literal["info", "warning", "problem"]
CellStatus = Literal["completed", "cancelled", "time_budget", "failed"]


@dataclass(frozen=True)
class CellSpec:
    """The shape of one cell. Closed loop: `concurrency` requests in flight, `requests` in all.
    Open loop: Poisson arrivals at `request_rate` per second (`concurrency` is None)."""

    input_tokens: int
    output_tokens: int
    requests: int
    concurrency: int | None = None
    request_rate: float | None = None
    # A distribution each request draws its length from (`throughput.lengths`); None: every
    # request of the cell asks for `input_tokens`/`output_tokens` exactly.
    input_lengths: Lengths | None = None
    output_lengths: Lengths | None = None
    # A workload file the cell replays (`throughput.workload`, its label "sharegpt:x.json"):
    # its records are the requests; `input_tokens`/`output_tokens` are their mean lengths.
    workload: str | None = None
    # The cell replays the workload on its own timestamps, sped up this many times (then
    # `request_rate` is the trace's mean rate at that speed); None: closed or Poisson loop.
    speedup: float | None = None
    # Multi-turn sessions (`turns` >= 1): `requests / turns` conversations, `concurrency` of them
    # at once, each sending turn k+1 `think_s` seconds after turn k's reply, with that reply in
    # its history, after a system prompt of `system_tokens` shared by the cell's sessions.
    turns: int | None = None
    think_s: float = 0.0
    system_tokens: int = 0

    @property
    def input_label(self) -> str:
        """"512", the distribution as written ("N(512,128)"), or the workload replayed
        ("sharegpt:x.json", "mooncake:trace.jsonl x2" on its schedule sped up twice)."""
        if self.workload is not None:
            return self.workload + (f" x{self.speedup:g}" if self.speedup is not None else "")
        base = self.input_lengths.label if self.input_lengths else str(self.input_tokens)
        if self.turns is not None:  # "3×256+1024 /1s": turns × new tokens + shared, think time
            base = f"{self.turns}×{base}"
            if self.system_tokens:
                base += f"+{self.system_tokens}"
            if self.think_s:
                base += f" /{self.think_s:g}s"
        return base

    @property
    def output_label(self) -> str:
        return self.output_lengths.label if self.output_lengths else str(self.output_tokens)

    @property
    def shape(self) -> tuple[int, int, str, str]:
        """What makes two cells the same workload at a load: their lengths, and how they were
        drawn ("" for fixed): a cell of N(512,128) is never set beside one of 512 exactly."""
        drawn = (self.input_label if self.workload is not None or self.input_lengths
                 or self.turns is not None else "")
        return (self.input_tokens, self.output_tokens, drawn,
                self.output_lengths.label if self.output_lengths else "")

    def workload_json(self) -> dict | None:
        """What the cell's requests are made of, as stored with it: the distributions, the
        workload replayed (None: fixed lengths)."""
        if (self.input_lengths is None and self.output_lengths is None and self.workload is None
                and self.turns is None):
            return None
        out = {"input": self.input_lengths.to_json() if self.input_lengths else None,
               "output": self.output_lengths.to_json() if self.output_lengths else None,
               "workload": self.workload, "speedup": self.speedup}
        if self.turns is not None:
            out.update(turns=self.turns, think_s=self.think_s, system_tokens=self.system_tokens)
        return out

    @property
    def load_label(self) -> str:
        """"c=4", "2 req/s", or "load unknown" (`desktop_app.core.runs.load_label`)."""
        return load_label(self.concurrency, self.request_rate)

    @property
    def label(self) -> str:
        return f"{self.input_label} in / {self.output_label} out / {self.load_label}"


@dataclass(frozen=True)
class ClientLoad:
    """How busy the benchmarking client itself was during a cell.

    `loop_lag_*` is how late a 10 ms asyncio timer fired (milliseconds): a starved event loop
    stamps tokens late and inflates latencies. `cpu_percent` is this process's CPU time over the
    cell's wall time (100 = one core fully used).
    """

    loop_lag_p50_ms: float
    loop_lag_p99_ms: float
    loop_lag_max_ms: float
    cpu_percent: float
    samples: int


@dataclass(frozen=True)
class CellResult:
    """Everything measured in one cell. Times are seconds since the run started.

    `timings` excludes warm-up requests. `prefill_change`/`decode_change` compare mean prefill
    and decode tok/s with the concurrency-1 cell of the same input and output length (a
    fraction: -0.5 = half as fast; None without such a cell). `goodput` is the share of requests
    meeting the user's TTFT and TPOT targets (None without targets). `token_mismatches` counts
    requests whose server-reported prompt tokens differ from the target by more than 2 %.
    `implausible` counts requests whose numbers were impossible, by code (the diagnosis's
    `implausible_counts` finding names them).
    """

    spec: CellSpec
    summary: CellSummary
    timings: tuple[RequestTiming, ...]
    samples: tuple[MetricSample, ...] = ()
    client_load: ClientLoad | None = None
    prefill_change: float | None = None
    decode_change: float | None = None
    goodput: float | None = None
    token_mismatches: int = 0
    started_s: float = 0.0
    ended_s: float = 0.0
    status: CellStatus = "completed"
    # Requests whose numbers could not be true, by plausibility code (negative_usage,
    # absurd_usage, usage_mismatch, no_content: `endpoint.client.PLAUSIBILITY_FLAGS`).
    implausible: dict[str, int] = field(default_factory=dict)
    # Requests sent again after the server closed a kept-alive connection under them with
    # nothing answered (each counted once; its figures are from the new connection's send).
    resent: int = 0
    # A cell sent on a workload's schedule: how late its sends started, in seconds after their
    # time (`mean`, `p50`, `p99`, `max`, `n`); None for every other cell.
    send_lateness: dict[str, float] | None = None
    # A cell of multi-turn sessions: per turn (1, 2, ...), `n` requests, `ttft_p50_s`,
    # `ttft_mean_s`, `prompt_tokens_mean` and `cached_share` (usage's cached prompt tokens over
    # its prompt tokens, where the server reports them; else None). None for other cells.
    turn_figures: tuple[dict, ...] | None = None
    # The prompt tokens the server served from its prefix cache during the cell, by its own
    # /metrics counters (`servermetrics.prefix_cache`: hits, queries, share, source); None
    # where it has none (the simulator) or they were not scraped.
    prefix_cache: dict | None = None


@dataclass(frozen=True)
class RequestRecord:
    """One measured request as the JSON export and the run browser list it (seconds, tokens)."""

    cell: int
    index: int
    response_id: str | None
    prompt_tokens_target: int
    prompt_tokens: int | None
    completion_tokens: int
    tokens_source: str
    ttft_s: float | None
    e2e_s: float | None
    error: str | None
    error_message: str | None = None
    status_code: int | None = None
    finish_reason: str | None = None
    flags: tuple[str, ...] = ()  # plausibility codes (StreamResult.flags)
    # Time to the first answer token (content or a tool call; reasoning excluded), seconds from
    # the send, and the chunks that carried reasoning only. `ttft_s` counts any token, reasoning
    # included: the two differ only for a reasoning model. Stored since schema v3; None / 0 for
    # requests stored before it.
    ttft_answer_s: float | None = None
    reasoning_chunks: int = 0


@dataclass(frozen=True)
class Finding:
    """One diagnosis finding: a code and the values its words quote, with the numbers behind it.

    `code` is a stable identifier (e.g. "concurrency_cap"); `severity` says how much it matters;
    `params` holds every value the finding's sentence quotes (numbers, cells, metric names,
    engine knobs, sub-part codes; JSON-ready), rendered in English or Chinese by
    `desktop_app.report.diagnosis_words`; `evidence` holds the figures behind it (JSON-ready);
    `suggestion_code` names what to change, with its cost (its values are in `params`), or None.
    `message` and `suggestion` are the English text kept with runs diagnosed before findings had
    codes and values (#12): shown as they are when `params` is empty, "" and None otherwise.
    """

    code: str
    severity: Severity
    message: str = ""
    evidence: dict = field(default_factory=dict)
    suggestion: str | None = None
    params: dict = field(default_factory=dict)
    suggestion_code: str | None = None
