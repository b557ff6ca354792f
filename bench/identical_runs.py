"""How often does the comparison name a winner between two identical servers?

Runs PAIRS pairs of sweeps of the same simulator profile (each sweep on a freshly started
simulator process, one after the other, as a user comparing two "identical" configurations
would) and reports, per compared dimension, the relative difference between the two runs and
whether the verdict named a winner: with the client-bound marks as measured, and with them
cleared (what the noise rule alone would say). The figures go in docs/COMPARE.md.

    .venv/bin/python bench/identical_runs.py [PAIRS] [PROMPT_TOKENS[,PROMPT_TOKENS...]]
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import tempfile
from pathlib import Path

from desktop_app.core.compare import dimension_rows, load_run
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep


async def _sweep(store: Store, url: str, tokens: tuple[int, ...]) -> int:
    config = SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b"), input_tokens=tokens,
                         concurrency=(1, 4), output_tokens=(32,), requests_per_cell=16,
                         warmup=1)
    return (await run_sweep(config, store)).run_id


def _clear(run):
    return dataclasses.replace(run, cells=tuple(dataclasses.replace(c, client_bound=False)
                                                for c in run.cells))


def main() -> None:
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    tokens = tuple(int(t) for t in (sys.argv[2] if len(sys.argv) > 2 else "256").split(","))
    wins = {"measured": 0, "cleared": 0}
    rows_seen = 0
    diffs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "r.db") as store:
        for _ in range(pairs):
            ids = []
            for _side in range(2):
                with start_simulator("fast") as sim:
                    ids.append(asyncio.run(_sweep(store, sim.url, tokens)))
            runs = [load_run(store, i) for i in ids]
            for label, pair in (("measured", runs), ("cleared", [_clear(r) for r in runs])):
                for row in dimension_rows(pair):
                    if row.key == "bottleneck":
                        continue
                    if label == "cleared":
                        rows_seen += 1
                        a, b = (v.value for v in row.values)
                        if a and b and row.key != "prefill_change":
                            diffs.append(abs(a / b - 1))
                    if row.verdict.significant:
                        wins[label] += 1
                        print(f"  {label}: {row.key} {row.params} "
                              f"{[round(v.value, 4) for v in row.values]} "
                              f"diff {row.verdict.diff:+.3f}")
    diffs.sort()
    print(f"{pairs} pairs of identical 'fast' sweeps, prompts of {tokens} tokens, c=1 and 4: "
          f"{rows_seen} compared rows; winners named: {wins['measured']} as measured, "
          f"{wins['cleared']} with client-bound marks cleared")
    if diffs:
        print(f"relative difference between the two runs: median {diffs[len(diffs) // 2]:.3f}, "
              f"90th pct {diffs[int(len(diffs) * 0.9)]:.3f}, max {diffs[-1]:.3f}")


if __name__ == "__main__":
    main()
