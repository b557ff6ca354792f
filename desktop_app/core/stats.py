"""The noise of a figure, and when two figures really differ.

Every figure a comparison sets side by side is an :class:`Estimate`: the value, a confidence
interval and the number of observations behind it. The methods, stated once (docs/COMPARE.md and
the PDF appendix quote them):

* **Bootstrap percentile interval** (`bootstrap`): the statistic (mean or median) of
  :data:`BOOTSTRAP_RESAMPLES` resamples drawn with replacement from the cell's requests, the
  2.5th and 97.5th percentiles of those values. The resampling is seeded from the data, so the
  same stored run always gives the same interval. One observation gives no interval (low = high
  = value, ``n`` = 1): it can never be called different from anything.
* **Different** (`differ`): the two intervals do not overlap. This is deliberately conservative
  (two 95 % intervals that just fail to overlap mean a difference at about the 0.6 % level):
  a comparison that hands on a verdict would rather say "about even" than name a winner in the
  noise. A comparison also asks for at least :data:`MIN_EFFECT` (10 %, or 10 percentage points
  for a change) before it names a winner, and :data:`SHARED_MIN_EFFECT` (35 %) for what one
  request experiences in a cell where requests share the server.
* **Exact McNemar test** (`mcnemar_exact`): for two runs judged on the same questions, only the
  discordant questions count: ``b`` that A passed and B failed, ``c`` the other way. Under "no
  difference" each discordant question is a fair coin, so the two-sided p-value is
  ``min(1, 2 * P[Binomial(b + c, 1/2) <= min(b, c)])``. Significant at :data:`ALPHA`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
ALPHA = 0.05
# The smallest difference a comparison calls real even outside both intervals: a run's
# interval sees the noise within that run, not the drift between two runs of one server (a
# busy core, a different moment). bench/identical_runs.py measured identical simulator sweeps
# with non-overlapping intervals 0.3 % apart (decode) and 5.9 % apart (prefill) while another
# process held a core; docs/COMPARE.md.
MIN_EFFECT = 0.10
# The floor for a per-request figure (TTFT, TPOT, decode, prefill and the prefill change) in a
# cell whose requests share the server (concurrency above 1). Measured: eight pairs of sweeps
# of one simulated server (profile fast, 1024-token prompts, 4 concurrent, 32 requests a cell,
# on a 2-core machine) drifted apart by up to 33 % in prefill, 31 % in TTFT and 13 % in decode,
# TPOT and the prefill change, and two pairs in eight named a winner under MIN_EFFECT, while the
# cell's total output moved 0.6 %. How the requests' prefills and decodes interleave settles
# differently in each run and every request of the run shares it, so the intervals over one
# run's requests cannot see it (docs/COMPARE.md, "Why per-request figures under load need more").
SHARED_MIN_EFFECT = 0.35

Statistic = Literal["mean", "median"]


@dataclass(frozen=True)
class Estimate:
    """A figure with its noise: `value` (the statistic of the sample), the `CONFIDENCE`
    interval [`low`, `high`] in the same unit, `n` observations, and the `method` that made the
    interval ("bootstrap-mean", "bootstrap-median", or "none" when there was nothing to resample,
    e.g. a figure an imported file gave without its requests)."""

    value: float
    low: float
    high: float
    n: int
    method: str = "none"

    @property
    def has_interval(self) -> bool:
        """True when the interval came from at least two observations."""
        return self.method != "none" and self.n >= 2

    def to_json(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n,
                "method": self.method}


def point(value: float, n: int = 1) -> Estimate:
    """A figure known without its observations: no interval, so it never differs."""
    return Estimate(value, value, value, n, "none")


def _seed(arr: np.ndarray) -> int:
    # From the data, not a global: the same stored cell must give the same interval every time
    # a view asks (the PDF and the CLI print the same numbers).
    return int.from_bytes(hashlib.blake2b(arr.tobytes(), digest_size=8).digest(), "little")


def bootstrap(values: Sequence[float], statistic: Statistic = "mean",
              resamples: int = BOOTSTRAP_RESAMPLES) -> Estimate | None:
    """The `statistic` of `values` with its bootstrap percentile interval; None when empty.

    Non-finite values are dropped first (a figure the client could not compute). Pure and
    deterministic for a given sample.
    """
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    arr = arr[np.isfinite(arr)]
    if arr.size == 0:
        return None
    stat = np.mean if statistic == "mean" else np.median
    value = float(stat(arr))
    if arr.size == 1:
        return Estimate(value, value, value, 1, "none")
    rng = np.random.default_rng(_seed(arr))
    # Resampled in blocks so 100k-request cells stay within a few MB.
    block = max(1, min(resamples, 4_000_000 // arr.size))
    stats = []
    done = 0
    while done < resamples:
        k = min(block, resamples - done)
        idx = rng.integers(0, arr.size, size=(k, arr.size))
        stats.append(stat(arr[idx], axis=1))
        done += k
    all_stats = np.concatenate(stats)
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(all_stats, [tail, 100 - tail])
    return Estimate(value, float(low), float(high), int(arr.size), f"bootstrap-{statistic}")


def differ(a: Estimate, b: Estimate) -> bool:
    """True when `a` and `b` are really different: both have intervals and they do not overlap."""
    if not (a.has_interval and b.has_interval):
        return False
    return a.high < b.low or b.high < a.low


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for `b` and `c` discordant pairs (see the module doc)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts cannot be negative")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def wilson(passed: int, n: int, confidence: float = CONFIDENCE) -> Estimate | None:
    """`passed` of `n` as a rate (0..1) with its Wilson score interval; None when n = 0."""
    if n <= 0:
        return None
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = passed / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n, "wilson")


def ratio_estimate(num: Sequence[float], den: Sequence[float], scale: float = 1.0,
                   resamples: int = BOOTSTRAP_RESAMPLES) -> Estimate | None:
    """scale x sum(num) / sum(den) with a bootstrap percentile interval over the (num, den)
    pairs (questions, or requests); None when sum(den) is 0. Seeded from the data (the same run
    always gives the same interval). A resample whose denominator sums to 0 counts as infinite."""
    a = np.asarray(num, dtype=float)
    b = np.asarray(den, dtype=float)
    if a.size == 0 or b.sum() <= 0:
        return None
    value = float(scale * a.sum() / b.sum())
    if a.size == 1:
        return Estimate(value, value, value, 1, "none")
    seed = int.from_bytes(hashlib.blake2b(a.tobytes() + b.tobytes(), digest_size=8).digest(),
                          "little")
    idx = np.random.default_rng(seed).integers(0, a.size, size=(resamples, a.size))
    top, bottom = a[idx].sum(axis=1), b[idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        stats = np.where(bottom > 0, scale * top / np.where(bottom > 0, bottom, 1), np.inf)
    tail = (1.0 - CONFIDENCE) / 2 * 100
    with np.errstate(invalid="ignore"):  # interpolating between two infinities gives nan
        low, high = np.nan_to_num(np.percentile(stats, [tail, 100 - tail]), nan=np.inf,
                                  posinf=np.inf)
    return Estimate(value, float(low), float(high), int(a.size), "bootstrap-ratio")
