"""The demo a newcomer runs first: real runs against the built-in simulator, no GPU needed.

Speed: the same small sweep on two simulated servers that differ only in `max_num_seqs`
(profile `fast`, 16 at once, and `fast-capped`, 2 at once), so the comparison shows what a low
cap does and the diagnosis names it. Quality: the SQL evaluation of two scripted personas
(`sim/careful` and `sim/seed-reference`, which forgets ROUND and renames columns) on the
uncapped server, and of `sim/seed-reference` (the seeds' own configuration) on the capped one,
so every sweep shares its server with a SQL run and the comparison plans capacity in tasks for
both configurations. Every run goes into the store given; nothing here writes files.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.effects import annotate_sweep
from desktop_app.core.throughput.sweep import run_sweep

SERVERS = ("fast", "fast-capped")  # uncapped first: the SQL runs use it
PERSONAS = ("sim/careful", "sim/seed-reference")
CAPPED_PERSONA = "sim/seed-reference"  # evaluated on the capped server too
INPUT_TOKENS = (512, 2048)
CONCURRENCY = (1, 2, 4, 8)
OUTPUT_TOKENS = (64,)
SQL_CONCURRENCY = 4
QUESTION_IDS: tuple[str, ...] = ()  # all of sales-25


@dataclass(frozen=True)
class DemoRuns:
    """The stored runs of a demo: sweeps by simulator profile, SQL runs by (profile, persona)."""

    throughput: dict[str, int]
    sql: dict[tuple[str, str], int]

    @property
    def all_ids(self) -> list[int]:
        return [*self.throughput.values(), *self.sql.values()]


async def run_demo(store: Store, *, sets_dir: Path, cache_dir: Path,
                   say: Callable[[str], None] = lambda line: None) -> DemoRuns:
    """Start one simulator per profile in SERVERS, sweep each, evaluate both personas on the
    first and CAPPED_PERSONA on the second, and return the run ids. `sets_dir` and `cache_dir`
    are run_eval's (bundled question sets, databases built from code). `say` gets one line per
    step. Cancelling stops the run in progress (stored as cancelled) and the simulators."""
    sweeps: dict[str, int] = {}
    sql: dict[tuple[str, str], int] = {}
    simulators = [start_simulator(profile) for profile in SERVERS]
    try:
        for profile, sim in zip(SERVERS, simulators, strict=True):
            say(f"Throughput sweep on the simulated '{profile}' server ({sim.url})")
            config = SweepConfig(
                endpoint=EndpointConfig(sim.url, model=load_profile(profile).model),
                input_tokens=INPUT_TOKENS,
                concurrency=CONCURRENCY, output_tokens=OUTPUT_TOKENS,
                name=f"demo: {profile} server")
            swept = await run_sweep(config, store)
            # The suggestions carry their predicted effect, as after `throughline throughput`.
            await asyncio.to_thread(annotate_sweep, swept, store)
            assert swept.run_id is not None  # run with a store: it is stored
            sweeps[profile] = swept.run_id

        jobs = [(SERVERS[0], simulators[0].url, persona) for persona in PERSONAS]
        jobs.append((SERVERS[1], simulators[1].url, CAPPED_PERSONA))
        say(f"SQL evaluation of {' and '.join(PERSONAS)} on the '{SERVERS[0]}' server and of "
            f"{CAPPED_PERSONA} on the '{SERVERS[1]}' server, at the same time")
        configs = [EvalConfig(endpoint=EndpointConfig(url, model=persona),
                              concurrency=SQL_CONCURRENCY, question_ids=QUESTION_IDS,
                              name=f"demo: {persona} on {profile}")
                   for profile, url, persona in jobs]
        results = await asyncio.gather(*(run_eval(c, store, sets_dir=sets_dir, cache_dir=cache_dir)
                                         for c in configs))
        for (profile, _, persona), evaluated in zip(jobs, results, strict=True):
            assert evaluated.run_id is not None  # run with a store: it is stored
            sql[(profile, persona)] = evaluated.run_id
    finally:
        for sim in simulators:
            sim.stop()
    return DemoRuns(sweeps, sql)
