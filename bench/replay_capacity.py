"""Capacity in tasks, measured against modelled (#29): a SQL evaluation recorded once (the
`sim/careful` persona on `--questions` of sales-25, on the quick `fast` profile), its
conversations replayed in real time as `--sessions` concurrent agents against two
configurations of one server (`--profile` as it is, and with max-num-seqs raised to 256), beside
the same replay in the simulator's virtual time and the capacity model of a sweep of each
configuration at the same loads. Prints, per configuration and number of agents, tasks per
hour measured (with its 95 % interval), virtual and modelled, and whether the measured figures
name a winner outside the noise.

    .venv/bin/python bench/replay_capacity.py                                  # seed-reference
    .venv/bin/python bench/replay_capacity.py --profile fast-capped --sessions 1,4
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.compare.capacity import capacity  # noqa: E402
from desktop_app.core.endpoint.discovery import discover  # noqa: E402
from desktop_app.core.endpoint.types import EndpointConfig  # noqa: E402
from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402
from desktop_app.core.simulator.profiles import load_profile  # noqa: E402
from desktop_app.core.simulator.virtual import simulate_agents  # noqa: E402
from desktop_app.core.sqleval.records import load_eval, recorded_tasks  # noqa: E402
from desktop_app.core.stats import differ  # noqa: E402
from desktop_app.core.store import Store  # noqa: E402
from desktop_app.core.throughput.config import SweepConfig  # noqa: E402
from desktop_app.core.throughput.records import load_sweep  # noqa: E402
from desktop_app.core.throughput.replay import paired_ratio, replay, tasks_per_hour  # noqa: E402
from desktop_app.core.throughput.sweep import run_sweep  # noqa: E402


def _profile_file(folder: Path, name: str, uncapped: bool) -> tuple[Path, object]:
    """The profile as a file the simulator reads, with max_num_seqs raised when `uncapped`."""
    base = load_profile(name)
    profile = dataclasses.replace(base, name=f"{name}-uncapped", max_num_seqs=256) \
        if uncapped else base
    lines = []
    for field in dataclasses.fields(profile):
        value = getattr(profile, field.name)
        # TOML spells an infinite float `inf`, as repr does.
        lines.append(f"{field.name} = " + (json.dumps(value) if isinstance(value, str) else
                                           repr(value)))
    path = folder / f"{profile.name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, profile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="seed-reference")
    parser.add_argument("--questions", default="m01,m02,h01,h02")
    parser.add_argument("--sessions", default="4")
    args = parser.parse_args()
    sessions = [int(x) for x in args.sessions.split(",")]
    from desktop_app.cli import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = folder / "r.db"
        os.environ["THROUGHLINE_DB"] = str(db)
        with start_simulator("fast") as sim:
            assert cli(["sqleval", "--base-url", sim.url, "--questions", "sales-25", "--ids",
                        args.questions, "--model", "sim/careful", "--concurrency", "4"]) == 0
        with Store.open(db) as store:
            tasks = recorded_tasks(store, 1)
        steps = [[(s.prompt_tokens, s.completion_tokens) for s in t.steps] for t in tasks]
        gaps = [t.between_steps_s for t in tasks]
        print(f"{platform.node()} ({platform.machine()}, Python {platform.python_version()}): "
              f"{len(tasks)} recorded tasks, {sum(map(len, steps))} steps, "
              f"{sum(p for t in steps for p, _ in t) / sum(map(len, steps)):,.0f} prompt and "
              f"{sum(k for t in steps for _, k in t) / sum(map(len, steps)):,.0f} reply tokens a "
              f"step, replayed against {args.profile} at {args.sessions} agents")
        figures = {}
        for uncapped in (False, True):
            path, profile = _profile_file(folder, args.profile, uncapped)
            with start_simulator(str(path)) as sim, Store.open(db) as store:
                endpoint = EndpointConfig(sim.url, model=profile.model)
                info = asyncio.run(discover(endpoint))
                started = time.perf_counter()
                sweep = asyncio.run(run_sweep(SweepConfig(
                    endpoint, input_tokens=(1024, 2048), output_tokens=(64,),
                    concurrency=tuple(sessions), requests_per_cell=8, warmup=0), store))
                swept = time.perf_counter() - started
                started = time.perf_counter()
                result = asyncio.run(replay(endpoint, info, tasks, sessions, store=store,
                                            sql_run=1, beside_sweep=sweep.run_id))
                replayed = time.perf_counter() - started
                model = capacity(load_sweep(store, sweep.run_id, requests=True),
                                 load_eval(store, 1, steps=True))
            for point in result.points:
                virtual = tasks_per_hour(point.agents, simulate_agents(profile, steps, gaps,
                                                                       point.sessions))
                modelled = model.point(point.sessions)
                m = point.tasks_per_hour
                figures[(profile.name, point.sessions)] = point
                print(f"  {profile.name} (max-num-seqs {profile.max_num_seqs}), "
                      f"{point.sessions} agents: measured {m.value:,.0f} [{m.low:,.0f}-"
                      f"{m.high:,.0f}] tasks/h; virtual time {virtual.value:,.0f}; "
                      f"model {modelled.tasks_per_hour:,.0f}" if modelled and
                      modelled.tasks_per_hour else "model n/a")
            print(f"    (sweep {swept:.0f} s, replay {replayed:.0f} s)")
        for n in sessions:
            pa, pb = figures[(args.profile, n)], figures[(f"{args.profile}-uncapped", n)]
            a, b = pa.tasks_per_hour, pb.tasks_per_hour
            apart = "apart" if differ(a, b) else "overlapping"
            ratio, paired = paired_ratio(pb, pa)
            said = "n/a" if ratio is None else (
                f"{ratio.value:.2f}x [{ratio.low:.2f}-{ratio.high:.2f}] over {paired} tasks")
            ahead = ratio is not None and (ratio.low > 1 or ratio.high < 1) and abs(
                ratio.value - 1) >= 0.10
            verdict = ("uncapped ahead" if ratio.value > 1 else "capped ahead") if ahead \
                else "about even"
            print(f"  at {n} agents: {a.value:,.0f} capped, {b.value:,.0f} uncapped "
                  f"(intervals {apart}); uncapped over capped, task by task: {said}: "
                  f"{verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
