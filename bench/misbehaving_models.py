"""How the SQL agent ends each misbehaving simulator model, over a whole question set.

Runs every model of desktop_app/core/simulator/misbehaving.py on sales-25 (instant profile, an
in-process simulator, a throwaway results file), with and without a token budget, and prints per
model: the stop reasons (as returned and as stored), steps per question, tokens per question
and the longest question's seconds. The figures in docs/RELIABILITY.md come from it.

    .venv/bin/python bench/misbehaving_models.py [--max-tokens 6000]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import tempfile
from pathlib import Path

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator import misbehaving
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=6000,
                        help="the token budget of the second pass (default 6000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serve_in_thread(load_profile("instant")) as sim, \
            Store.open(Path(tmp) / "runs.db") as store:
        for model in misbehaving.MISBEHAVING:
            for budget in (None, args.max_tokens):
                config = EvalConfig(EndpointConfig(sim.url, model=model), max_steps=20,
                                    time_limit_s=60, max_tokens=budget)
                result = asyncio.run(run_eval(config, store, sets_dir=paths.questions_dir(),
                                              cache_dir=Path(tmp) / "db"))
                outcomes = result.outcomes
                stops = collections.Counter(o.stop_reason for o in outcomes)
                stored = collections.Counter(r["stop_reason"]
                                             for r in store.sql_questions(result.run_id))
                steps = collections.Counter(len(o.steps) for o in outcomes)
                tokens = [o.prompt_tokens + o.completion_tokens for o in outcomes]
                print(f"{model:18} max_tokens={str(budget):5} questions={len(outcomes)} "
                      f"stops={dict(stops)} stored={dict(stored)} steps={dict(steps)} "
                      f"tokens={min(tokens)}-{max(tokens)} "
                      f"longest={max(o.seconds for o in outcomes):.2f}s")


if __name__ == "__main__":
    main()
