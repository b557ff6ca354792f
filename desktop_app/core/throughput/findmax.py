"""Find the knee (#29): the highest concurrency at which a server still meets the user's
latency targets for a share of requests (GuideLLM's sweep, vLLM's goodput search), in few cells.

A probe is a closed-loop cell. Its goodput is the share of its requests meeting every target
(`--ttft-target`, `--tpot-target`; a failed request never does), with a Wilson interval. The
search doubles the load from 1 until a probe misses the share (its point estimate below it),
then halves the gap between the highest load that met it and the lowest that missed, until the
two are adjacent or within 10 % of each other. The answer is that pair: the knee lies at or above
the one and below the other. Where the share measured at the highest meeting load is within its
interval of the target, the answer says so: a rerun may put the knee a step lower.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.core.stats import wilson
from desktop_app.core.throughput.types import CellResult

MIN_PROBE_REQUESTS = 40  # 40 of 40 is the fewest whose Wilson interval clears 90 %
MAX_PROBES = 24


@dataclass(frozen=True)
class FindMax:
    """What the search looks for: the highest concurrency up to `most` at which at least `share`
    of the requests meet the sweep's targets."""

    share: float = 0.9
    most: int = 1024

    def to_json(self) -> dict[str, Any]:
        return {"share": self.share, "most": self.most}

    @classmethod
    def from_json(cls, data: Any) -> FindMax:
        if not isinstance(data, dict):
            raise ValueError(f"not a search: {data!r:.80}")
        return cls(float(data["share"]), int(data["most"]))


def probe_requests(concurrency: int, asked: int | None) -> int:
    """Requests a probe at `concurrency` sends: the sweep's own number, else enough for its
    share to be told from the target (MIN_PROBE_REQUESTS) and 4 per request in flight."""
    return asked or max(4 * concurrency, MIN_PROBE_REQUESTS)


@dataclass(frozen=True)
class Probe:
    concurrency: int
    good: int
    n: int
    share: float  # good / n
    low: float  # its Wilson interval
    high: float

    def to_json(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "good": self.good, "requests": self.n,
                "share": self.share, "low": self.low, "high": self.high}


def probes(cells: Sequence[CellResult]) -> list[Probe]:
    """The search's probes among `cells` (closed-loop cells with a goodput), by load."""
    out = {}
    for cell in cells:
        c, share, n = cell.spec.concurrency, cell.goodput, len(cell.timings)
        if c is None or share is None or n == 0:
            continue
        good = round(share * n)
        est = wilson(good, n)
        assert est is not None
        out[c] = Probe(c, good, n, good / n, est.low, est.high)
    return [out[c] for c in sorted(out)]


def next_load(tried: Sequence[Probe], search: FindMax) -> int | None:
    """The next probe's concurrency, or None when the knee is found (or bounded by `most`)."""
    if len(tried) >= MAX_PROBES:
        return None
    met = [p.concurrency for p in tried if p.share >= search.share]
    missed = [p.concurrency for p in tried if p.share < search.share]
    low = max((c for c in met if not missed or c < min(missed)), default=0)
    if not missed:
        if low >= search.most:
            return None
        return min(search.most, max(1, 2 * low))
    high = min(missed)
    if high - low <= max(1, math.floor(0.1 * low)):
        return None
    return (low + high) // 2


@dataclass(frozen=True)
class Knee:
    """What the search found: the highest load that met the share (`meets`, 0 when even one
    request at a time did not), the lowest that missed it (None: none did, up to `most`), the
    probe at the knee, and whether its share is within its interval of the target."""

    meets: int
    misses: int | None
    at: Probe | None
    within_noise: bool
    share: float
    probes: tuple[Probe, ...]

    def to_json(self) -> dict[str, Any]:
        return {"meets": self.meets, "misses": self.misses, "share": self.share,
                "within_noise": self.within_noise,
                "at": self.at.to_json() if self.at else None,
                "probes": [p.to_json() for p in self.probes]}


def knee(cells: Sequence[CellResult], search: FindMax) -> Knee | None:
    """The knee the probes among `cells` bound; None without any probe."""
    tried = probes(cells)
    if not tried:
        return None
    missed = [p.concurrency for p in tried if p.share < search.share]
    high = min(missed) if missed else None
    under = [p for p in tried if p.share >= search.share and (high is None or p.concurrency < high)]
    at = max(under, key=lambda p: p.concurrency) if under else None
    noisy = at is not None and at.low < search.share
    return Knee(at.concurrency if at else 0, high, at, noisy, search.share, tuple(tried))
