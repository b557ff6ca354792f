"""Fit the engine model (`simulator.engine.Profile`) to a measured sweep, and predict changes.

`fit_profile(cells, settings)` turns what a sweep measured into a simulator profile:

1. Limits from what the server said (`settings`: max_num_seqs, max_num_batched_tokens, KV
   capacity as `kv_cache_tokens` or `num_gpu_blocks` x `block_size`), else from the sweep (the
   diagnosis's concurrency cap; the largest concurrency run; a cache larger than anything the
   sweep held). Each parameter says where it came from (`FitParam.source`).
2. First guesses by least squares: median TTFT of the 1-concurrent cells against the prompt
   length, TTFT = a + n/R + n^2/(2 S R) (the model's prefill cost with its context slowdown),
   and mean TPOT against the batch, TPOT = d0 + d1 b + d2 b ctx, over the cells whose
   concurrency is within the cap.
3. Refinement: every cell of the sweep is simulated in virtual time (`virtual.
   simulate_closed_loop`, the same number of requests) and the parameters are scaled, one at
   a time, while the sum of squared log errors of median TTFT and mean TPOT falls.

The step overhead is folded into the decode base (they cannot be told apart from the client's
side). The goodness of fit is the per-cell relative error of median TTFT, mean prefill tok/s
and mean decode tok/s. `predict(profile, cells, changes)` runs the same cells with settings
changed (`parse_changes`: vLLM's names, SGLang's and llama.cpp's aliases, `kv_capacity=x1.5`).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from desktop_app.core.metrics import CellSummary, RequestTiming, summarize_cell
from desktop_app.core.parsing import CodedError
from desktop_app.core.simulator.engine import Profile
from desktop_app.core.simulator.virtual import simulate_closed_loop

# Settings `predict` can change, as vLLM spells them, with other engines' names for them.
CHANGEABLE = ("max_num_seqs", "max_num_batched_tokens", "kv_capacity")
# `kv_capacity=x1.5` is a factor of the fitted capacity; `parse_changes` files it under this key.
KV_FACTOR = "kv_capacity_factor"


def aliases() -> dict[str, str]:
    """Other names for the CHANGEABLE settings, `-` or `_` alike: the canonical capacity key
    and each engine's own names (its descriptor's `aliases`, core/engines)."""
    from desktop_app.core import engines

    names = {"kv_cache_tokens": "kv_capacity"}
    for engine in engines.all_engines():
        names.update(engine.aliases)
    return names
_MAX_REFINE_ROUNDS = 12
_UNBOUNDED_KV = 10_000_000


# Why a parameter came from the sweep or was assumed (`FitParam.code`), rendered in words by the
# GUI and the report: the cap the diagnosis saw requests queue behind; no queue seen (the cap is
# at least the largest concurrency run); vLLM's default token budget; a KV capacity the sweep
# never reached (`held_tokens` the most it held); a context slowdown needing three prompt lengths.
NOTE_CODES = ("queue_cap", "no_queue", "vllm_default", "kv_never_reached", "needs_lengths")


class FitError(CodedError, ValueError):
    """A sweep the model cannot be fitted to; the text says what is missing."""


@dataclass(frozen=True)
class MeasuredCell:
    """What a fit needs of one measured cell: its shape and its completed requests' timings."""

    input_tokens: int
    output_tokens: int
    concurrency: int
    requests: int
    timings: tuple[RequestTiming, ...]
    # The cell's figures as measured and shown in its table (None: summarise `timings`), so a
    # prediction can start from the numbers the user sees beside it.
    summary: CellSummary | None = field(default=None, compare=False)


@dataclass(frozen=True)
class FitParam:
    """One fitted parameter: its value and where it came from ("server" settings, "fit",
    "sweep" limits, or "assumed" when the sweep cannot identify it; `note` says why)."""

    name: str
    value: float
    source: str
    note: str = ""
    # The note as a code for the views' words (`NOTE_CODES`), and the token count it quotes.
    code: str = ""
    held_tokens: int | None = None


@dataclass(frozen=True)
class CellError:
    """Relative error (predicted / measured - 1) of one cell's figures under the fit."""

    input_tokens: int
    concurrency: int
    ttft: float | None
    prefill: float | None
    decode: float | None


@dataclass(frozen=True)
class Fit:
    """A fitted profile, its parameters with their sources, and its per-cell errors."""

    profile: Profile
    params: tuple[FitParam, ...]
    errors: tuple[CellError, ...]
    # The most requests the sweep saw running at once (its cap, or its largest concurrency),
    # and its largest concurrency: the decode cost of a larger batch is the fitted line carried
    # past what was measured.
    measured_batch: int = 0
    max_concurrency: int = 0

    def extrapolated_batch(self, changes: Mapping[str, float]) -> int | None:
        """`measured_batch` when `changes` let the sweep's cells run more requests at once than
        it ever saw (a prediction resting on extrapolation, to be said beside it), else None."""
        seqs = changes.get("max_num_seqs")
        if seqs is None or not self.measured_batch:
            return None
        return self.measured_batch if min(seqs, self.max_concurrency) > self.measured_batch else None

    def worst(self, figure: str) -> float | None:
        """The relative error of `figure` (ttft, prefill, decode) farthest from zero, with its
        sign: a cell the fit predicts 19 % low reads -19 %, as in the per-cell table."""
        values = [v for e in self.errors if (v := getattr(e, figure)) is not None]
        return max(values, key=abs) if values else None


def _median_ttft(timings) -> float | None:
    values = [t.first_token_s - t.sent_s for t in timings
              if t.ok and t.first_token_s is not None]
    return statistics.median(values) if values else None


def _mean_tpot(timings) -> float | None:
    values = [(t.last_token_s - t.first_token_s) / (t.completion_tokens - 1) for t in timings
              if t.ok and t.first_token_s is not None and t.last_token_s is not None
              and t.completion_tokens > 1]
    return statistics.fmean(values) if values else None


def _setting(settings: Mapping, key: str) -> int | None:
    value = settings.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if value > 0 and math.isfinite(value) else None


def _limits(cells: Sequence[MeasuredCell], settings: Mapping, cap: int | None
            ) -> tuple[list[FitParam], int, int, int]:
    params = []
    seqs = _setting(settings, "max_num_seqs")
    if seqs is not None:
        params.append(FitParam("max_num_seqs", seqs, "server"))
    elif cap is not None:
        seqs = cap
        params.append(FitParam("max_num_seqs", seqs, "sweep",
                               "the diagnosis saw requests queue behind this many",
                               "queue_cap"))
    else:
        seqs = max(c.concurrency for c in cells)
        params.append(FitParam("max_num_seqs", seqs, "assumed",
                               "no queue was seen: at least the largest concurrency run; a "
                               "sweep at higher concurrency would identify it", "no_queue"))
    budget = _setting(settings, "max_num_batched_tokens")
    if budget is not None:
        params.append(FitParam("max_num_batched_tokens", budget, "server"))
    else:
        budget = 8192
        params.append(FitParam("max_num_batched_tokens", budget, "assumed",
                               "not reported by the server: vLLM's default", "vllm_default"))
    kv = _setting(settings, "kv_cache_tokens")
    blocks, block_size = _setting(settings, "num_gpu_blocks"), _setting(settings, "block_size")
    if kv is None and blocks and block_size:
        kv = blocks * block_size
    if kv is not None:
        params.append(FitParam("kv_cache_tokens", kv, "server"))
    else:
        kv = _UNBOUNDED_KV
        held = max(min(c.concurrency, seqs) * (c.input_tokens + c.output_tokens) for c in cells)
        params.append(FitParam("kv_cache_tokens", kv, "assumed",
                               f"not reported and never reached: the sweep held at most "
                               f"{held:,} tokens at once; longer prompts at higher concurrency "
                               "would identify it", "kv_never_reached", held))
    return params, seqs, budget, kv


def _first_guess(cells: Sequence[MeasuredCell], seqs: int) -> dict[str, Any]:
    single = [(c.input_tokens, t) for c in cells
              if c.concurrency == 1 and (t := _median_ttft(c.timings)) is not None]
    if not single:
        raise FitError(code="fit_no_single")
    lengths = sorted({n for n, _ in single})
    x = np.array([n for n, _ in single], float)
    y = np.array([t for _, t in single], float)
    guess = {"prefill_ctx_slowdown_tokens": math.inf}
    if len(lengths) >= 3:
        a, b, c = np.linalg.lstsq(np.stack([np.ones_like(x), x, x * x], 1), y, rcond=None)[0]
        if b > 0 and c > 0:
            guess["prefill_ctx_slowdown_tokens"] = b / (2 * c)
    else:
        a, b = (np.linalg.lstsq(np.stack([np.ones_like(x), x], 1), y, rcond=None)[0]
                if len(lengths) == 2 else (0.0, y[0] / x[0]))
    if not b > 0:
        b = float(min(y / x))
    guess["prefill_tokens_per_s"] = 1.0 / b
    guess["preprocess_s"] = max(float(a), 0.0)
    # Decode alone (concurrency 1: no other request's prefill interleaves): TPOT = d0 + d2 ctx.
    alone = [(c.input_tokens + c.output_tokens / 2, t) for c in cells
             if c.concurrency == 1 and (t := _mean_tpot(c.timings)) is not None]
    if not alone:
        raise FitError(code="fit_no_decode")
    if len({ctx for ctx, _ in alone}) > 1:
        xs = np.array([[1.0, ctx] for ctx, _ in alone])
        d0, d2 = np.linalg.lstsq(xs, np.array([t for _, t in alone]), rcond=None)[0]
    else:
        d0, d2 = alone[0][1], 0.0
    d0 = max(float(d0), min(t for _, t in alone) * 0.5)
    # The batch term starts small; the refinement, which simulates the interleaved prefills
    # of the loaded cells, sets it.
    guess["decode_per_seq_s"] = d0 * 0.1
    guess["decode_base_s"] = d0 * 0.9
    guess["decode_per_ctx_token_s"] = max(float(d2), 0.0)
    return guess


def _simulate(profile: Profile, cell: MeasuredCell) -> list[RequestTiming]:
    return simulate_closed_loop(profile, input_tokens=cell.input_tokens,
                                output_tokens=cell.output_tokens,
                                concurrency=cell.concurrency, requests=max(cell.requests, 1))


def _loss(profile: Profile, cells: Sequence[MeasuredCell], measured) -> float:
    total = 0.0
    for cell, (ttft, tpot) in zip(cells, measured):
        sim = _simulate(profile, cell)
        for got, want in ((_median_ttft(sim), ttft), (_mean_tpot(sim), tpot)):
            if got and want:
                total += math.log(got / want) ** 2
    return total


_TUNED = ("prefill_tokens_per_s", "preprocess_s", "decode_base_s", "decode_per_seq_s",
          "decode_per_ctx_token_s")


def fit_steps(rounds: int = _MAX_REFINE_ROUNDS) -> int:
    """How many steps `fit_profile(..., rounds=rounds, on_step=...)` counts to."""
    return max(rounds, 0) * len(_TUNED)


def fit_profile(cells: Sequence[MeasuredCell], settings: Mapping | None = None, *,
                cap: int | None = None, name: str = "fitted", model: str = "",
                rounds: int = _MAX_REFINE_ROUNDS,
                on_step: Callable[[int, int], None] | None = None) -> Fit:
    """The engine model fitted to `cells` (see the module doc). `cap` is the concurrency cap
    the diagnosis found, used when the server did not say its max_num_seqs; `rounds` bounds
    the refinement (fewer: faster, a coarser fit). `on_step(done, total)` hears after each
    parameter tried, total being `fit_steps(rounds)` (a fit that stops improving jumps to the
    end): seconds of CPU a window can show as progress. Raises FitError when the sweep cannot
    identify prefill or decode."""
    cells = [c for c in cells if c.concurrency and c.timings]
    if not cells:
        raise FitError(code="fit_no_cells")
    params, seqs, budget, kv = _limits(cells, settings or {}, cap)
    guess = _first_guess(cells, seqs)
    profile = Profile(
        name=name, description="fitted to a measured sweep", model=model or "sim/fitted",
        max_model_len=max(c.input_tokens + c.output_tokens for c in cells) * 2,
        max_num_seqs=seqs, max_num_batched_tokens=budget, kv_cache_tokens=kv, **guess)
    measured = [(_median_ttft(c.timings), _mean_tpot(c.timings)) for c in cells]
    best = _loss(profile, cells, measured)
    tuned = _TUNED
    total = fit_steps(rounds)
    for r in range(rounds):
        improved = False
        for k, key in enumerate(tuned):
            if on_step is not None:
                on_step(r * len(tuned) + k, total)
            for factor in (1.5, 0.67, 1.15, 0.87, 1.04, 0.96):
                value = getattr(profile, key) * factor
                if key != "prefill_tokens_per_s" and getattr(profile, key) == 0:
                    continue
                trial = dataclasses.replace(profile, **{key: value})
                loss = _loss(trial, cells, measured)
                if loss < best * 0.999:
                    profile, best, improved = trial, loss, True
                    break
        if not improved:
            break
    if on_step is not None:
        on_step(total, total)
    fitted = [FitParam(k, getattr(profile, k), "fit") for k in (
        "prefill_tokens_per_s", "preprocess_s", "decode_base_s", "decode_per_seq_s")]
    fitted.append(FitParam(
        "prefill_ctx_slowdown_tokens", profile.prefill_ctx_slowdown_tokens,
        "fit" if math.isfinite(profile.prefill_ctx_slowdown_tokens) else "assumed",
        "" if math.isfinite(profile.prefill_ctx_slowdown_tokens) else
        "needs three prompt lengths or more at concurrency 1",
        "" if math.isfinite(profile.prefill_ctx_slowdown_tokens) else "needs_lengths"))
    fitted.append(FitParam("decode_per_ctx_token_s", profile.decode_per_ctx_token_s, "fit"))
    top = max(c.concurrency for c in cells)
    return Fit(profile, tuple(params + fitted), tuple(_errors(profile, cells)), min(seqs, top), top)


def _mean(summary: CellSummary, name: str) -> float | None:
    dist = getattr(summary, name)
    return None if dist is None else dist.mean


def _rel(got, want) -> float | None:
    return None if not got or not want else got / want - 1.0


def _errors(profile: Profile, cells: Sequence[MeasuredCell]) -> list[CellError]:
    out = []
    for cell in cells:
        sim, real = summarize_cell(_simulate(profile, cell)), summarize_cell(list(cell.timings))
        out.append(CellError(
            cell.input_tokens, cell.concurrency,
            _rel(sim.ttft_s and sim.ttft_s.p50, real.ttft_s and real.ttft_s.p50),
            _rel(_mean(sim, "prefill_tps"), _mean(real, "prefill_tps")),
            _rel(_mean(sim, "decode_tps"), _mean(real, "decode_tps"))))
    return out


def parse_changes(items: Sequence[str]) -> dict[str, float]:
    """{"max_num_seqs": 4, "kv_capacity": 200000} from KEY=VALUE items (`kv_capacity=x1.5`
    gives {KV_FACTOR: 1.5}); InputError (a ValueError) naming the item ("--set 'x=1'")
    otherwise, its code saying what is wrong."""
    from desktop_app.core.parsing import InputError

    changes: dict[str, float] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().lstrip("-")
        names = aliases()
        key = names.get(key, names.get(key.replace("-", "_"), key.replace("-", "_")))
        if not sep or key not in CHANGEABLE:
            raise InputError(f"--set {item!r}", code="set_key", keys=", ".join(CHANGEABLE))
        text = value.strip()
        factor = text[:1] in ("x", "*")
        try:
            number = float(text[1:] if factor else text)
        except ValueError:
            raise InputError(f"--set {item!r}", code="set_not_number", text=repr(text)) from None
        if not number > 0 or not math.isfinite(number):
            raise InputError(f"--set {item!r}", code="set_not_positive")
        if key != "kv_capacity" and (factor or number != int(number)):
            raise InputError(f"--set {item!r}", code="set_whole", setting=key)
        if factor:
            changes[KV_FACTOR] = number
        else:
            changes[key] = int(number)
    return changes


def changed(profile: Profile, changes: Mapping[str, float]) -> Profile:
    """`profile` with `changes` (as `parse_changes` gives them) applied."""
    updates: dict[str, Any] = {}
    if "max_num_seqs" in changes:
        updates["max_num_seqs"] = int(changes["max_num_seqs"])
    if "max_num_batched_tokens" in changes:
        updates["max_num_batched_tokens"] = int(changes["max_num_batched_tokens"])
    if "kv_capacity" in changes:
        updates["kv_cache_tokens"] = int(changes["kv_capacity"])
    if KV_FACTOR in changes:
        updates["kv_cache_tokens"] = int(profile.kv_cache_tokens * changes[KV_FACTOR])
    return dataclasses.replace(profile, **updates)


def predict(profile: Profile, cells: Sequence[MeasuredCell]) -> list[CellSummary]:
    """Every cell run against `profile` in virtual time, the same requests as measured."""
    return [summarize_cell(_simulate(profile, c)) for c in cells]


# --------------------------------------------------------------------------- a stored sweep
#
# What the What-if panel and the report need of a stored sweep (`throughput.records.
# ThroughputRun`, read by duck typing so this module stays below the records).


def measured_cells(run) -> list[MeasuredCell]:
    """The closed-loop cells of stored sweep `run` with their completed requests, as a fit
    reads them (`requests`: the requests the cell recorded)."""
    return measured_from_results(cell.result for cell in run.cells)


def measured_from_results(results) -> list[MeasuredCell]:
    """`measured_cells` of a sweep's `CellResult`s (a sweep just run, before it is read back)."""
    cells = []
    for result in results:
        spec = result.spec
        ok = tuple(t for t in result.timings if t.ok)
        if spec.concurrency and ok:
            cells.append(MeasuredCell(spec.input_tokens, spec.output_tokens, spec.concurrency,
                                      len(result.timings) or spec.requests, ok,
                                      getattr(result, "summary", None)))
    return cells


def concurrency_cap(findings) -> int | None:
    """The cap the diagnosis saw requests queue behind (its `concurrency_cap` finding), or None."""
    for finding in findings:
        # A possible cap (below the server's known limit, or too little evidence) is not fitted.
        if finding.code == "concurrency_cap" and finding.severity == "problem":
            cap = (finding.evidence or {}).get("cap")
            return int(cap) if isinstance(cap, int) and cap > 0 else None
    return None


def fit_run(run, *, rounds: int = _MAX_REFINE_ROUNDS) -> tuple[Fit, list[MeasuredCell]]:
    """The engine model fitted to stored sweep `run` (its server settings, the diagnosis's
    cap), and the cells it was fitted to. Raises FitError as `fit_profile` does. Takes about
    0.3 s per cell of 8 requests of 32 tokens on this machine's cores (docs/WHATIF.md)."""
    cells = measured_cells(run)
    fit = fit_profile(cells, run.info.settings, cap=concurrency_cap(run.findings),
                      name=f"fitted-run-{run.info.id}", model=run.info.model or "",
                      rounds=rounds)
    return fit, cells


async def fit_job(cells: Sequence[MeasuredCell], settings: Mapping, cap: int | None,
                  name: str, model: str, emit) -> Fit:
    """`fit_profile` as a job for a worker process (`gui.worker.run_in_process`): it emits
    nothing; cancelling takes effect when the fit ends (it does not stop midway)."""
    return fit_profile(cells, settings, cap=cap, name=name, model=model)


def suggested_changes(fit: Fit, findings) -> dict[str, float]:
    """The change the diagnosis's suggestion stands for, as `parse_changes` gives it:
    max_num_seqs doubled when it found requests queueing behind a concurrency cap; {} when it
    suggests nothing the model can try."""
    if concurrency_cap(findings) is None:
        return {}
    return {"max_num_seqs": 2 * fit.profile.max_num_seqs}


@dataclass(frozen=True)
class CellWhatif:
    """One cell measured, as the fitted model runs it (`before`) and with the settings changed
    (`after`); every summary from the same number of requests, in virtual time."""

    input_tokens: int
    output_tokens: int
    concurrency: int
    measured: CellSummary
    before: CellSummary
    after: CellSummary


def whatif_cells(fit: Fit, cells: Sequence[MeasuredCell],
                 changes: Mapping[str, float]) -> list[CellWhatif]:
    """Every cell of `cells` measured, predicted by `fit` as fitted, and predicted with
    `changes` (as `parse_changes` gives them; {}: after = before). Blocking (milliseconds
    per cell); deterministic."""
    before = predict(fit.profile, cells)
    after = predict(changed(fit.profile, changes), cells) if changes else before
    return [CellWhatif(c.input_tokens, c.output_tokens, c.concurrency,
                       summarize_cell(list(c.timings)), b, a)
            for c, b, a in zip(cells, before, after)]
