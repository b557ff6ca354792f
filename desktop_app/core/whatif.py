"""What-if sweeps: run a throughput sweep against a simulator profile in virtual time.

`throughline whatif --profile NAME ...` answers "what would this server do at 6 concurrent
32k prompts?" in a fraction of a second, with the same metric definitions the real sweep uses
(`desktop_app.core.metrics`). Every figure it prints is simulated, and says so.

Cells are run in a closed loop (`simulator.virtual.simulate_closed_loop`): `concurrency`
clients each send their next request as soon as the previous one finished. The command's
default is one wave (each client sends one request, all at once): that is how the seed reports
measured, and what the seed-reference profile is calibrated against. `--requests sweep` sends
max(4 x concurrency, 8) requests like the real sweep, which measures a server whose queue stays
full: with max_num_seqs=2 that is much harsher (see docs/SIMULATOR-MODEL.md).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core.metrics import DEFINITIONS, CellSummary, summarize_cell
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.engine import Profile
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.virtual import simulate_closed_loop
from desktop_app.core.tables import CellRow, format_cell_table



@dataclass(frozen=True)
class WhatifCell:
    """One simulated sweep cell: its shape (tokens, clients, requests sent), the metrics, and
    the change of mean prefill and decode tok/s against concurrency 1 at the same input and
    output length, as a fraction (-0.5 = half as fast); None when concurrency 1 was not run."""

    input_tokens: int
    output_tokens: int
    concurrency: int
    requests: int
    summary: CellSummary
    prefill_change: float | None
    decode_change: float | None


def default_requests(concurrency: int) -> int:
    """The sweep's default number of requests for a cell: max(4 x concurrency, 8)."""
    return max(4 * concurrency, 8)


def _change(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return value / base - 1.0


def _mean(summary: CellSummary, name: str) -> float | None:
    dist = getattr(summary, name)
    return None if dist is None else dist.mean


def run_whatif(
    profile: Profile,
    input_tokens: list[int],
    concurrency: list[int],
    output_tokens: list[int],
    requests_per_cell: int | None = None,
    warmup: int = 0,
    *,
    requests_per_client: int | None = None,
) -> list[WhatifCell]:
    """Simulate every input x concurrency x output cell in virtual time (in that nesting order).

    A cell sends `requests_per_cell` requests (default max(4 x concurrency, 8)), or
    `requests_per_client` x concurrency when that is given (1 = one simultaneous wave), plus
    `warmup` requests that are sent first and excluded. Raises ValueError for bad numbers or a
    request the profile cannot hold. Deterministic: same arguments, same figures.
    """
    if requests_per_cell is not None and requests_per_client is not None:
        raise InputError("requests", code="one_value")
    for name, values in (("input tokens", input_tokens), ("concurrency", concurrency),
                         ("output tokens", output_tokens)):
        if not values:
            raise InputError(name, code="give_values")
        bad = next((v for v in values if v < 1), None)
        if bad is not None:
            raise InputError(name, code="whole_at_least_1", item=repr(bad))
    for name, value in (("requests per cell", requests_per_cell),
                        ("requests per client", requests_per_client)):
        if value is not None and value < 1:
            raise InputError(name, code="whole_at_least_1", item=repr(value))
    if warmup < 0:
        raise InputError("warm-up", code="negative", item=repr(warmup))

    cells: list[WhatifCell] = []
    for n_in in input_tokens:
        for conc in concurrency:
            for n_out in output_tokens:
                if requests_per_client is not None:
                    n_req = requests_per_client * conc
                else:
                    n_req = requests_per_cell or default_requests(conc)
                timings = simulate_closed_loop(
                    profile, input_tokens=n_in, output_tokens=n_out,
                    concurrency=conc, requests=n_req, warmup=warmup,
                )
                cells.append(WhatifCell(n_in, n_out, conc, n_req, summarize_cell(timings),
                                        None, None))
    base = {(c.input_tokens, c.output_tokens): c.summary for c in cells if c.concurrency == 1}
    result = []
    for c in cells:
        b = base.get((c.input_tokens, c.output_tokens))
        result.append(dataclasses.replace(
            c,
            prefill_change=None if b is None else _change(_mean(c.summary, "prefill_tps"),
                                                          _mean(b, "prefill_tps")),
            decode_change=None if b is None else _change(_mean(c.summary, "decode_tps"),
                                                         _mean(b, "decode_tps")),
        ))
    return result


def format_table(cells: Sequence[WhatifCell], headers: Sequence[str]) -> str:
    """An aligned text table of the cells: one line each, `headers` (the caller's words, one
    per `tables.COLUMNS`) first."""
    return format_cell_table(
        (CellRow(c.input_tokens, str(c.concurrency), c.output_tokens, c.summary,
                 c.prefill_change) for c in cells), headers)


def _profile_dict(profile: Profile) -> dict:
    # JSON has no infinity: an unlimited value is written as null.
    return {k: (None if isinstance(v, float) and math.isinf(v) else v)
            for k, v in dataclasses.asdict(profile).items()}


def whatif_to_json(profile: Profile, cells: Sequence[WhatifCell]) -> dict:
    """A JSON-ready dict: the profile, the fact that figures are simulated in virtual time,
    the metric definitions, and every cell's metrics."""
    return {
        "profile": profile.name,
        "simulated": True,
        "clock": "virtual",
        "profile_parameters": _profile_dict(profile),
        "definitions": DEFINITIONS,
        "cells": [
            {
                "input_tokens": c.input_tokens,
                "output_tokens": c.output_tokens,
                "concurrency": c.concurrency,
                "requests": c.requests,
                "prefill_change": c.prefill_change,
                "decode_change": c.decode_change,
                "metrics": c.summary.to_dict(),
            }
            for c in cells
        ],
    }


WAVE = "wave"
SWEEP = "sweep"


def requests_plan(requests: int | str) -> tuple[int | None, int | None]:
    """(requests per cell, requests per client) for `requests`: WAVE (each client sends one
    request, all at once), SWEEP (the sweep's default count in a closed loop) or a number of
    requests per cell in a closed loop. Raises InputError naming --requests otherwise."""
    if requests == WAVE:
        return None, 1
    if requests == SWEEP:
        return None, None
    if isinstance(requests, int) and not isinstance(requests, bool):
        return requests, None
    raise InputError("--requests", code="not_requests_plan", item=f"{requests!r:.40}")


def whatif_profile(
    profile_name: str,
    input_tokens: Sequence[int],
    concurrency: Sequence[int],
    output_tokens: Sequence[int],
    requests: int | str,
    *,
    warmup: int = 0,
) -> tuple[Profile, list[WhatifCell], dict]:
    """What `throughline whatif --profile` computes: the profile, its simulated cells and the
    JSON document (`whatif_to_json` plus how requests were sent, `requests` as given). Raises
    ValueError for an unknown profile or bad numbers (InputError, with a code, for the
    latter)."""
    profile = load_profile(profile_name)  # ProfileError is a ValueError, with its code
    per_cell, per_client = requests_plan(requests)
    cells = run_whatif(
        profile, list(input_tokens), list(concurrency), list(output_tokens), per_cell, warmup,
        requests_per_client=per_client,
    )
    document = whatif_to_json(profile, cells)
    document["requests_method"] = requests if requests in (WAVE, SWEEP) else "closed_loop"
    document["requests_per_cell"] = per_cell
    return profile, cells, document
