"""The seed-reference profile reproduces the reference deployment's figures (docs/DOMAIN.md).

The reference sweep sent one wave of `concurrency` simultaneous requests per cell, so the
figures are checked on `run_whatif(..., requests_per_client=1)`; the default closed loop
(max(4c, 8) requests) keeps the queue full and is reported in docs/SIMULATOR-MODEL.md.

Tolerance: every figure within +-15 %. A range [low, high] accepts [0.85 low, 1.15 high]; a
single drop is turned into the fraction that remains (-50 % -> 0.5) and that fraction gets the
+-15 % (0.425 .. 0.575), so the test does not get looser or stricter with the size of the drop.
A range of drops ("-30 to -45 %") is a range like the others: the +-15 % goes on the drops as
the seeds write them (-25.5 .. -51.75 %, fraction left 0.4825 .. 0.745). On the remaining
fractions (0.55 .. 0.70) it would reach 0.805, a drop of 19.5 %, a third smaller than the
seeds' smallest, and it let a 25 % drop through.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.whatif import WhatifCell, run_whatif

INPUTS = [2048, 4096, 8192, 16384, 32768]
CONCURRENCY = [1, 2, 4, 6]
OUTPUT = 256
TOL = 0.15


@dataclass(frozen=True)
class Check:
    """One reference figure: what it is, the target as written, the accepted band, the value."""

    figure: str
    target: str
    low: float
    high: float
    got: float

    @property
    def ok(self) -> bool:
        return self.low <= self.got <= self.high

    def line(self) -> str:
        verdict = "ok" if self.ok else "FAIL"
        return (f"{verdict:4}  {self.figure}: target {self.target}, "
                f"accepted {self.low:.4g}..{self.high:.4g}, got {self.got:.4g}")


def _around(value: float) -> tuple[float, float]:
    return value * (1 - TOL), value * (1 + TOL)


def _range(low: float, high: float) -> tuple[float, float]:
    return low * (1 - TOL), high * (1 + TOL)


def _drops(smallest: float, largest: float) -> tuple[float, float]:
    """The fraction left after a drop of `smallest` .. `largest` (0.30, 0.45), each drop +-15 %."""
    low, high = _range(smallest, largest)
    return 1 - high, 1 - low


def reference_checks(cells: list[WhatifCell]) -> list[Check]:
    """Every figure of the reference table, checked against the simulated cells."""
    by = {(c.input_tokens, c.concurrency): c.summary for c in cells}
    change = {(c.input_tokens, c.concurrency): c.prefill_change for c in cells}

    def prefill(n: int, c: int) -> float:
        return by[n, c].prefill_tps.mean

    def decode(n: int, c: int) -> float:
        return by[n, c].decode_tps.mean

    checks = [
        Check("prefill tok/s, 2k, 1 concurrent", "688", *_around(688), prefill(2048, 1)),
        Check("prefill tok/s, 4k, 1 concurrent", "757", *_around(757), prefill(4096, 1)),
        Check("prefill tok/s, 32k, 1 concurrent", "636 (32768/51.5)", *_around(32768 / 51.5),
              prefill(32768, 1)),
        Check("prefill tok/s, 2k, 6 concurrent", "228", *_around(228), prefill(2048, 6)),
        Check("TTFT s, 32k, 1 concurrent", "51.5", *_around(51.5), by[32768, 1].ttft_s.mean),
        Check("TTFT s, 32k, 6 concurrent", "186.4", *_around(186.4), by[32768, 6].ttft_s.mean),
    ]
    for n in INPUTS:
        checks.append(Check(f"prefill tok/s, {n}, 1 concurrent", "629-758", *_range(629, 758),
                            prefill(n, 1)))
        checks.append(Check(f"decode tok/s, {n}, 1 concurrent", "23.8-28.7",
                            *_range(23.8, 28.7), decode(n, 1)))
        for c, target, (low, high) in (
            (2, "-30..-45 %", _drops(0.30, 0.45)),
            (4, "about -50 %", _around(0.50)),
            (6, "about -63 %", _around(0.37)),
        ):
            checks.append(Check(f"prefill remaining vs 1 concurrent, {n}, {c} concurrent",
                                f"{target} (fraction left)", low, high, 1 + change[n, c]))
        for c in (2, 4, 6):
            checks.append(Check(f"decode tok/s, {n}, {c} concurrent", "8-18", *_range(8, 18),
                                decode(n, c)))
    for n in (16384, 32768):
        for c in (4, 6):
            checks.append(Check(f"decode tok/s, {n}, {c} concurrent", "8-11", *_range(8, 11),
                                decode(n, c)))
    ttft = [by[n, 1].ttft_s.mean for n in INPUTS]
    checks.append(Check("TTFT vs prompt length at 1 concurrent, Pearson r", "linear (r ~ 1)",
                        0.99, 1.0, float(np.corrcoef(INPUTS, ttft)[0, 1])))
    return checks


@pytest.fixture(scope="module")
def reference_cells() -> list[WhatifCell]:
    profile = load_profile("seed-reference")
    return run_whatif(profile, INPUTS, CONCURRENCY, [OUTPUT], requests_per_client=1)


def test_seed_reference_reproduces_every_reference_figure(reference_cells):
    checks = reference_checks(reference_cells)
    failed = [c.line() for c in checks if not c.ok]
    assert not failed, "\n".join(failed)


def test_seed_reference_profile_matches_the_reference_server_settings():
    profile = load_profile("seed-reference")
    assert profile.max_num_seqs == 2
    assert profile.gpu_memory_utilization == pytest.approx(0.91)
    assert profile.description


def test_kv_cache_is_near_full_with_two_32k_requests_but_never_preempts(reference_cells):
    profile = load_profile("seed-reference")
    two_long = 2 * (32768 + OUTPUT)
    assert 0.85 <= two_long / profile.kv_cache_tokens <= 1.0
    assert all(c.summary.ok == c.summary.count for c in reference_cells)


def test_ttft_growth_under_concurrency_is_queueing(reference_cells):
    """With 6 clients and 2 slots the mean TTFT is several times the 1-client TTFT, while the
    prefill work itself is the same: the extra is time spent waiting."""
    by = {(c.input_tokens, c.concurrency): c.summary for c in reference_cells}
    alone = by[32768, 1].ttft_s.mean
    crowded = by[32768, 6].ttft_s
    # The first admitted is barely slower: the other running request's 10-token chunks share
    # its steps (10 of 138 tokens a step), nothing more.
    assert alone < crowded.min < 1.1 * alone
    assert crowded.max > 5 * alone  # the last waits for five long prefills
