"""`compare(store, run_ids)`: every piece of a comparison, checked and computed at once."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from desktop_app.core.compare.capacity import (
    Capacity,
    CompareNote,
    CriterionVerdict,
    capacity,
    capacity_verdicts,
    pair_runs,
)
from desktop_app.core.compare.dimensions import DimensionRow, dimension_rows, replay_rows
from desktop_app.core.compare.load import RunInfo, SqlRun, ThroughputRun, load_run
from desktop_app.core.compare.scenarios import Scenario, TradeOff, scenarios, trade_off
from desktop_app.core.compare.settings import settings_differ
from desktop_app.core.store import NotFoundError, Store
from desktop_app.core.throughput.replay import StoredReplay, stored_replays

__all__ = ["CompareError", "Comparison", "compare"]


# The English of each CompareError code (`report.strings` "compare_error_<code>" has both
# languages).
COMPARE_ERRORS = {"too_few": "a comparison needs at least two different runs, got {n}",
                  "no_run": "no run {ids} in {path}"}


class CompareError(ValueError):
    """The runs asked for cannot be compared (unknown ids, fewer than two); one line, its
    `code` and `params` for the reader's language."""

    def __init__(self, code: str, **params) -> None:
        super().__init__(COMPARE_ERRORS[code].format(**params))
        self.code, self.params = code, params


@dataclass(frozen=True)
class Comparison:
    """Runs in the order asked, their dimension rows, and the capacity configurations.

    `notes` (`CompareNote`: codes and values) say what was skipped and why: runs of a kind no section reads, SQL runs
    without a throughput partner of the same endpoint and model. `settings_differ` is what is
    not the same in every run ({setting: {run id: value}}, see `compare.settings`).
    `scenarios` and `trade_off` are the verdicts per scenario (`compare.scenarios`)."""

    runs: tuple[ThroughputRun | SqlRun, ...]
    rows: tuple[DimensionRow, ...]
    capacities: tuple[Capacity, ...] = ()
    verdicts: tuple[CriterionVerdict, ...] = ()
    notes: tuple[CompareNote, ...] = field(default=())
    settings_differ: dict[str, dict[int, object]] = field(default_factory=dict, hash=False)
    scenarios: tuple[Scenario, ...] = ()
    trade_off: TradeOff | None = None

    @property
    def throughput(self) -> list[ThroughputRun]:
        return [r for r in self.runs if isinstance(r, ThroughputRun)]

    @property
    def sql(self) -> list[SqlRun]:
        return [r for r in self.runs if isinstance(r, SqlRun)]


def compare(store: Store, run_ids: list[int]) -> Comparison:
    """Load `run_ids` (two or more, distinct) and compute the comparison.

    Raises CompareError naming every unknown id, or when fewer than two distinct runs are
    given. Runs of a kind this comparison does not read are left out with a note. Blocking.
    """
    ids = list(dict.fromkeys(run_ids))
    if len(ids) < 2:
        raise CompareError("too_few", n=len(ids))
    loaded, missing = [], []
    for run_id in ids:
        try:
            loaded.append(load_run(store, run_id))
        except NotFoundError:
            missing.append(run_id)
    if missing:
        raise CompareError("no_run", ids=", ".join(map(str, missing)), path=store.path)
    chosen = {r.id for r in loaded if isinstance(r, RunInfo) and r.kind == "replay"}
    notes = [CompareNote("kind_left_out", {"run": r.id, "kind": r.kind})
             for r in loaded if isinstance(r, RunInfo) and r.kind != "replay"]
    runs = [r for r in loaded if not isinstance(r, RunInfo)]
    pairs, pair_notes = pair_runs(runs)
    sweeps = [r for r in runs if isinstance(r, ThroughputRun)]
    measured = measured_replays(store, sweeps, chosen)
    used = {m.info.id for m in measured if m is not None}
    # A replay asked for is read beside its server's sweep; one no sweep here measured is said.
    notes += [CompareNote("replay_unused", {"run": i}) for i in sorted(chosen - used)]
    of_sweep = {tp.info.id: m for tp, m in zip(sweeps, measured)}
    caps = [capacity(tp, sql, of_sweep[tp.info.id]) for tp, sql in pairs]
    rows = dimension_rows(runs) + replay_rows(runs, measured)
    found = scenarios(rows)
    return Comparison(tuple(runs), tuple(rows), tuple(caps),
                      tuple(_pass_rate_decides(capacity_verdicts(caps), caps, runs, rows))
                      if caps else (), tuple(notes + pair_notes),
                      settings_differ([r.info for r in runs]), tuple(found),
                      trade_off(rows, found))


def _same_server(replay: RunInfo, sweep: RunInfo) -> bool:
    """A replay measured the sweep's server: the same target and model, and the settings the
    server reported (a restart with another max-num-seqs on one URL is another server)."""
    def read(info: RunInfo) -> dict:
        source = info.settings_source
        return {k: v for k, v in info.settings.items() if source.get(k, "server") == "server"}

    return (replay.target_key == sweep.target_key and replay.model == sweep.model
            and read(replay) == read(sweep))


def measured_replays(store: Store, sweeps: list[ThroughputRun], chosen: AbstractSet[int] = frozenset()
                     ) -> list[StoredReplay | None]:
    """Per sweep, the stored replay that measured its server (`throughput.replay`): one set
    beside that very sweep (`--beside-sweep`), else one of the same server (`_same_server`).
    Where several qualify, one among the runs asked for (`chosen`) wins, then the
    conversations most of the sweeps' replays share (every configuration measured on the same
    tasks), then the newest."""
    if not sweeps:
        return []
    every = stored_replays(store)
    options = [[r for r in every if r.beside_sweep == tp.info.id]
               or [r for r in every if _same_server(r.info, tp.info)] for tp in sweeps]
    shared = Counter(sql for found in options for sql in {r.sql_run for r in found})
    return [max(found, key=lambda r: (r.info.id in chosen, shared[r.sql_run], r.info.id))
            if found else None for found in options]


def _pass_rate_decides(verdicts: list[CriterionVerdict], caps: list[Capacity], runs: list,
                       rows: list[DimensionRow]) -> list[CriterionVerdict]:
    """"Answers usable as they are" is the strict pass rate: the configuration ahead is the
    one whose SQL run the strict pass-rate row names the winner on its test (McNemar or
    Wilson), never the higher of two rates inside the noise."""
    strict = next((r.verdict for r in rows if r.key == "pass_rate"
                   and r.params.get("judge") == "strict"), None)
    won = runs[strict.winner].info.id if strict and strict.significant and (
        strict.winner is not None) else None
    out = []
    for v in verdicts:
        if v.criterion == "answers_usable":
            w = next((i for i, c in enumerate(caps) if c.sql_id == won), None)
            v = dataclasses.replace(v, winner=w if w == v.winner else None)
        out.append(v)
    return out
