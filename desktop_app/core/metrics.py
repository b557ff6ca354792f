"""Throughput metric definitions shared by the real sweep and the simulator.

Everything here works on `RequestTiming` records: plain times on one monotonic clock (seconds)
and token counts, whatever produced them (an HTTP stream, the virtual-time simulator). The
definitions follow docs/DOMAIN.md and say which tool's meaning they take where tools disagree:

* TTFT = first content token - sent (role-only and empty chunks never count as first).
* prefill tok/s (per request) = prompt_tokens / TTFT. Under concurrency this includes the time
  the request queued: that is what a user waits for, so it is shown as is.
* decode tok/s (per request) = (completion_tokens - 1) / (last - first); tokens come from
  `usage`, not from the number of chunks, because one chunk may carry several tokens.
* TPOT = 1 / decode tok/s (vLLM's meaning: excludes TTFT; GuideLLM's "TPOT" does not).
* ITL = the gaps between successive content chunks (so a chunk of several tokens is one gap).
* effective prefill / decode tok/s of a cell (AIPerf's time-weighted throughput) = the tokens of
  that phase / the measure of the union of the requests' phase intervals.

Failed requests (`error_class` set) are counted by class and kept out of every latency and
throughput figure.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import numpy as np


# The definitions in words, exported with every result so no number can be misread.
DEFINITIONS = {
    "ttft_s": "first chunk carrying any token (content, tool call or reasoning) minus send "
              "time (seconds)",
    "prefill_tps": "prompt_tokens / TTFT per request, queueing included (tok/s)",
    "decode_tps": "(completion_tokens - 1) / (last token - first token) per request (tok/s)",
    "tpot_s": "1 / decode_tps (vLLM's meaning: excludes TTFT; seconds)",
    "itl_s": "gaps between successive content chunks, pooled over requests (seconds)",
    "e2e_s": "last token minus send time (seconds)",
    "output_tps": "completion tokens of completed requests / cell wall time (tok/s)",
    "effective_prefill_tps": "prompt tokens / measure of the union of [sent, first] (tok/s)",
    "effective_decode_tps": "(completion - 1) tokens / measure of the union of [first, last]",
    "prefill_change": "mean prefill_tps / mean prefill_tps at concurrency 1 - 1 (fraction)",
    "decode_change": "mean decode_tps / mean decode_tps at concurrency 1 - 1 (fraction)",
}


@dataclass(frozen=True)
class RequestTiming:
    """What the client saw of one request. Times are seconds on one monotonic clock.

    `completion_tokens` comes from the server's `usage` where it sent one (else the client's
    count). `chunk_times_s` holds the arrival time of every content chunk, in order (may be
    empty when the caller did not keep them). `error_class` is None for a request that
    completed, else a short name of what went wrong ("http_500", "timeout", "cut", ...).
    """

    prompt_tokens: int
    completion_tokens: int
    sent_s: float
    first_token_s: float | None
    last_token_s: float | None
    chunk_times_s: tuple[float, ...] = ()
    error_class: str | None = None

    @property
    def ok(self) -> bool:
        """True when the request completed without error."""
        return self.error_class is None


@dataclass(frozen=True)
class RequestMetrics:
    """Per-request figures (seconds, tokens per second); None where undefined.

    `decode_tps` and `tpot_s` are None with fewer than 2 completion tokens or when the first
    and last token arrived together (nothing to divide by).
    """

    ttft_s: float | None
    prefill_tps: float | None
    decode_tps: float | None
    tpot_s: float | None
    itl_s: tuple[float, ...]
    e2e_s: float | None


def request_metrics(t: RequestTiming) -> RequestMetrics:
    """The per-request figures of one timing record (see the module docstring)."""
    ttft = None if t.first_token_s is None else t.first_token_s - t.sent_s
    prefill = t.prompt_tokens / ttft if ttft is not None and ttft > 0 else None
    decode = None
    if (
        t.completion_tokens >= 2
        and t.first_token_s is not None
        and t.last_token_s is not None
        and t.last_token_s > t.first_token_s
    ):
        decode = (t.completion_tokens - 1) / (t.last_token_s - t.first_token_s)
    chunks = t.chunk_times_s
    itl = tuple(b - a for a, b in zip(chunks, chunks[1:]))
    e2e = None if t.last_token_s is None else t.last_token_s - t.sent_s
    return RequestMetrics(
        ttft_s=ttft,
        prefill_tps=prefill,
        decode_tps=decode,
        tpot_s=None if decode is None else 1.0 / decode,
        itl_s=itl,
        e2e_s=e2e,
    )


@dataclass(frozen=True)
class Distribution:
    """Summary of a sample: count, mean, percentiles (linear interpolation, numpy's default),
    minimum and maximum, in the unit of the values."""

    n: int
    mean: float
    p50: float
    p90: float
    p99: float
    min: float
    max: float


def distribution(values: Iterable[float]) -> Distribution | None:
    """The distribution of `values`, or None when there are none."""
    # An array('d') is read without a copy; anything else is read once, not listed first.
    arr = (np.frombuffer(values, dtype=float) if isinstance(values, array)
           else np.fromiter(values, dtype=float))
    if arr.size == 0:
        return None
    p50, p90, p99 = np.percentile(arr, [50, 90, 99])
    return Distribution(
        n=int(arr.size),
        mean=float(arr.mean()),
        p50=float(p50),
        p90=float(p90),
        p99=float(p99),
        min=float(arr.min()),
        max=float(arr.max()),
    )


def union_length_s(intervals: Iterable[tuple[float, float]]) -> float:
    """Measure (seconds) of the union of closed intervals; empty or reversed ones count 0."""
    spans = sorted((a, b) for a, b in intervals if b > a)
    if not spans:
        return 0.0
    total = 0.0
    cur_start, cur_end = spans[0]
    for start, end in spans[1:]:
        if start > cur_end:
            total += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    return total + (cur_end - cur_start)


@dataclass(frozen=True)
class CellSummary:
    """Everything measured in one sweep cell (one input length x concurrency x output length).

    Counts are requests; distributions are over completed requests only (seconds or tok/s as
    named; `itl_s` pools every gap of every request). `output_tps` = completion tokens of
    completed requests / `wall_s`. `effective_prefill_tps` and `effective_decode_tps` are the
    time-weighted throughputs (tokens / measure of the union of the phase intervals); None
    when no request has such a phase. `prompt_tokens` and `completion_tokens` are the totals
    of the completed requests.
    """

    count: int
    ok: int
    failures_by_class: dict[str, int]
    ttft_s: Distribution | None
    prefill_tps: Distribution | None
    decode_tps: Distribution | None
    tpot_s: Distribution | None
    itl_s: Distribution | None
    e2e_s: Distribution | None
    wall_s: float | None
    output_tps: float | None
    effective_prefill_tps: float | None
    effective_decode_tps: float | None
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict:
        """A JSON-ready dict (distributions as nested dicts, None kept as null)."""
        return asdict(self)


class CellAccumulator:
    """A cell's summary built one request at a time, holding numbers only.

    What `summarize_cell` computes, without keeping every request's timing and metrics alive at
    once: an imported file of 300,000 requests with 31 chunk gaps each held three copies of its
    gaps (the timings, the per-request metrics, the pooled list) before this. `add` returns the
    request's metrics so a caller writing rows computes them once.
    """

    def __init__(self) -> None:
        self.count = self.ok = self.prompt_tokens = self.completion_tokens = 0
        self.prefill_tokens = self.decode_tokens = 0
        self.failures: Counter[str] = Counter()
        self._scalars: dict[str, array] = {name: array("d") for name in _PER_REQUEST_DISTS}
        self._itl = array("d")
        self._prefill: list[tuple[float, float]] = []
        self._decode: list[tuple[float, float]] = []
        self._first_sent: float | None = None
        self._last_token: float | None = None

    def add(self, t: RequestTiming) -> RequestMetrics:
        """Count one request and return its per-request figures."""
        self.count += 1
        self._first_sent = t.sent_s if self._first_sent is None else min(self._first_sent,
                                                                          t.sent_s)
        if t.last_token_s is not None:
            self._last_token = t.last_token_s if self._last_token is None else max(
                self._last_token, t.last_token_s)
        m = request_metrics(t)
        if t.error_class is not None:  # not t.ok
            self.failures[t.error_class] += 1
            return m
        self.ok += 1
        self.completion_tokens += t.completion_tokens
        self.prompt_tokens += t.prompt_tokens
        for name, values in self._scalars.items():
            if (v := getattr(m, name)) is not None:
                values.append(v)
        self._itl.extend(m.itl_s)
        if t.first_token_s is not None:
            self._prefill.append((t.sent_s, t.first_token_s))
            self.prefill_tokens += t.prompt_tokens
            if (t.last_token_s is not None and t.completion_tokens >= 2
                    and t.last_token_s > t.first_token_s):
                self._decode.append((t.first_token_s, t.last_token_s))
                self.decode_tokens += t.completion_tokens - 1
        return m

    def summary(self, wall_s: float | None = None) -> CellSummary:
        """The cell's summary. `wall_s` (seconds) defaults to the span from the first send to
        the last token of any request."""
        if wall_s is None and self._last_token is not None and self._first_sent is not None:
            wall_s = self._last_token - self._first_sent
        prefill_span = union_length_s(self._prefill)
        decode_span = union_length_s(self._decode)
        dists = {name: distribution(values) for name, values in self._scalars.items()}
        return CellSummary(
            count=self.count,
            ok=self.ok,
            failures_by_class=dict(sorted(self.failures.items())),
            itl_s=distribution(self._itl),
            wall_s=wall_s,
            output_tps=self.completion_tokens / wall_s if wall_s and wall_s > 0 else None,
            effective_prefill_tps=self.prefill_tokens / prefill_span if prefill_span > 0
            else None,
            effective_decode_tps=self.decode_tokens / decode_span if decode_span > 0 else None,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            **dists,
        )


_PER_REQUEST_DISTS = ("ttft_s", "prefill_tps", "decode_tps", "tpot_s", "e2e_s")


def summarize_cell(timings: Iterable[RequestTiming], wall_s: float | None = None) -> CellSummary:
    """Summarise a cell's requests. `wall_s` (seconds) defaults to the span from the first
    send to the last token of any request."""
    acc = CellAccumulator()
    for t in timings:
        acc.add(t)
    return acc.summary(wall_s)
