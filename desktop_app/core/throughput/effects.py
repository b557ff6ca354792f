"""What the diagnosis's suggestions would do, predicted by the engine model fitted to the sweep.

`diagnose` stays pure and quick; this runs after it, when a sweep's diagnosis is kept (the end
of `throughline throughput`, `throughline whatif --from-run`), because fitting costs seconds.
For each suggestion the model can try (`TRIALS`) it runs the sweep's most loaded cell of every
prompt length on the fitted model (`core.fit`, the What-if's fit: no second model) as fitted
and with the setting changed, in virtual time, and returns per length TTFT p50, decode tok/s
per request and total output tok/s before -> after, a verdict (`VERDICTS`) and, where the
change does not help, why (`REASONS`). "Before" is the cell as measured (the figures its
table shows), "after" the measured figure moved by the model's relative change: the fitted
model's own "before" is off by its fit error (a few per cent to 20 %), and a prediction that
starts from a number the user does not see beside it reads as a contradiction. Codes and
values only: the words are in `report/diagnosis_words.py`.

`annotate` puts the result into each finding's `params["predicted"]` (JSON-ready), so it is
kept with the run's findings (`records.save_diagnosis`) and a reopened run shows the same
numbers; runs kept before have none. A suggestion the model predicts gains nothing at any
length is marked `withdrawn`: its finding keeps its words, the suggestion then says the model
predicts no gain and why. A sweep the model cannot be fitted to keeps its suggestions without
numbers.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from desktop_app.core.fit import (
    Fit,
    FitError,
    MeasuredCell,
    changed,
    concurrency_cap,
    fit_profile,
    predict,
)
from desktop_app.core.metrics import CellSummary, summarize_cell
from desktop_app.core import engines
from desktop_app.core.throughput.types import Finding

# A predicted change counts only beyond 5 % (of TTFT p50, output tok/s or decode tok/s per
# request). Below that the fit's own error decides it: fitted to a sweep of a known profile
# the model reproduces cells within 1-3 % (docs/WHATIF.md), and a real server's median TTFT
# moves by several per cent from one run to the next, so a smaller predicted change is not
# one a user could see, and suggesting a setting for it would be suggesting nothing.
THRESHOLD = 0.05
# Refinement rounds of the fit behind the numbers: 4 gave the same worst errors as 12 on the
# sweeps measured, at a third of the time (report/whatif_section.FIT_ROUNDS, docs/WHATIF.md).
FIT_ROUNDS = 4
# Above this many scheduler steps per simulated sweep, `throughline throughput` skips the
# prediction (the fit simulates the sweep about 100 times): the seed-reference sweep (20 cells,
# one wave, 256 tokens out) is about 25,000 steps and took 8 s of CPU to fit here; this limit
# is about a minute. `throughline whatif --from-run` predicts whatever the size.
MAX_SIM_STEPS = 200_000

# Suggestion code -> the setting the model changes and by what factor.
TRIALS = {"raise_cap": ("max_num_seqs", 2.0), "raise_budget": ("max_num_batched_tokens", 2.0),
          "kv_relief": ("kv_capacity", 1.5)}
# gain: TTFT p50 or total output tok/s better by THRESHOLD or more, nothing worse; tradeoff:
# one of them better, something worse (typically TTFT better, decode per request worse);
# no_gain: neither better, nothing worse; loss: neither better, something worse.
VERDICTS = ("gain", "tradeoff", "no_gain", "loss")
# Why a change does not help at a length: no request waited for a slot (`not_queued`); the KV
# cache holds no more requests of this length (`kv_bound`, `kv_requests`); the running-request
# cap, not the cache, limits (`cap_bound`); each prompt fits one step's budget already
# (`fits_one_step`); prefill's compute is the limit (`prefill_compute_bound`, at `prefill_tps`
# for this length); or decode's (`saturated`: the server computes all the time at this load).
REASONS = ("not_queued", "kv_bound", "cap_bound", "fits_one_step", "prefill_compute_bound",
           "saturated")
# Why `annotate` gave no numbers.
STATUSES = ("predicted", "nothing_to_try", "fit_failed", "too_large")


@dataclass(frozen=True)
class LengthEffect:
    """One prompt length's most loaded cell, as measured and after the change as predicted:
    (before, after) of TTFT p50 (seconds), mean decode tok/s per request and total output
    tok/s; the verdict, and the reason (with the value it quotes) when TTFT did not gain."""

    input_tokens: int
    output_tokens: int
    concurrency: int
    ttft_p50_s: tuple[float | None, float | None]
    decode_tps: tuple[float | None, float | None]
    output_tps: tuple[float | None, float | None]
    verdict: str
    reason: str | None = None
    prefill_tps: float | None = None
    kv_requests: int | None = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self) | {
            "ttft_p50_s": list(self.ttft_p50_s), "decode_tps": list(self.decode_tps),
            "output_tps": list(self.output_tps)}


@dataclass(frozen=True)
class Effect:
    """A suggestion tried on the fitted model: `setting` (vLLM's name, as `core.fit` takes it)
    from `before` to `after` (`factor` times), `knob` as the engine spells it (None: unknown
    engine), per length the effect; `extrapolated_beyond_batch` as `Fit.extrapolated_batch`."""

    suggestion_code: str
    setting: str
    knob: str | None
    before: float
    after: float
    factor: float
    lengths: tuple[LengthEffect, ...]
    extrapolated_beyond_batch: int | None = None
    # The fitted model's running-request cap and per-step budget, which the reasons quote.
    cap: int = 0
    budget: int = 0

    @property
    def withdrawn(self) -> bool:
        """The model predicts no gain at any length: the suggestion is not made."""
        return all(e.verdict in ("no_gain", "loss") for e in self.lengths)

    def to_json(self) -> dict:
        """What `Finding.params["predicted"]` keeps (JSON-ready)."""
        outputs = {e.output_tokens for e in self.lengths}
        return {"suggestion": self.suggestion_code, "setting": self.setting, "knob": self.knob,
                "before": _num(self.before), "after": _num(self.after), "factor": self.factor,
                "withdrawn": self.withdrawn, "threshold": THRESHOLD,
                "extrapolated_beyond_batch": self.extrapolated_beyond_batch,
                "cap": self.cap, "budget": self.budget,
                "several_outputs": len(outputs) > 1,
                "lengths": [e.to_json() for e in self.lengths]}


@dataclass(frozen=True)
class Outcome:
    """`annotate`'s result: the findings (with `params["predicted"]` where a suggestion was
    tried), `status` (one of STATUSES) and, for fit_failed, the core's English reason."""

    findings: tuple[Finding, ...]
    status: str
    detail: str = ""


def _num(x) -> float | int | None:
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    return int(x) if x == int(x) and abs(x) < 1e15 else x


def _figures(s: CellSummary) -> tuple[float | None, float | None, float | None]:
    return (_num(s.ttft_s.p50) if s.ttft_s else None,
            _num(s.decode_tps.mean) if s.decode_tps else None, _num(s.output_tps))


def _from_measured(measured, model_before, model_after) -> tuple:
    """The measured figures moved by the model's relative change of each; a figure the model
    or the measurement lacks stays as the model has it."""
    out = []
    for m, b, a in zip(measured, model_before, model_after):
        out.append(_num(m * a / b) if m is not None and a is not None and b else a)
    return tuple(out)


def classify(before: Sequence[float | None], after: Sequence[float | None],
             threshold: float = THRESHOLD) -> str:
    """The verdict (VERDICTS) of (TTFT p50 s, decode tok/s per request, output tok/s) after a
    change against before: lower TTFT and higher rates are better; a change within
    `threshold` (a fraction) of before counts as none. A gain is TTFT p50 or total output
    tok/s better, what every suggestion tried here is for; decode per request is what they
    may cost, so decode faster alone is no gain (and TTFT worse with it is a loss)."""
    better = worse = False
    for i, (b, a) in enumerate(zip(before, after)):
        if not b or a is None:
            continue
        change = a / b - 1
        if i == 0:
            change = -change  # TTFT: lower is better
        better = better or (change >= threshold and i != 1)
        worse = worse or change <= -threshold
    if better:
        return "tradeoff" if worse else "gain"
    return "loss" if worse else "no_gain"


def _kv_known(fit: Fit) -> bool:
    return any(p.name == "kv_cache_tokens" and p.source != "assumed" for p in fit.params)


def _source(fit: Fit, name: str) -> str | None:
    return next((p.source for p in fit.params if p.name == name), None)


def _reason(setting: str, fit: Fit, cell: MeasuredCell, changes: dict, before) -> tuple:
    """(reason code, prefill tok/s at this length, KV requests of this length) for a change
    that did not bring TTFT down."""
    p = fit.profile
    per_request = cell.input_tokens + cell.output_tokens
    kv_requests = p.kv_cache_tokens // per_request if _kv_known(fit) else None
    prefill_s = p.prefill_cost_s(0, cell.input_tokens)
    prefill_tps = _num(cell.input_tokens / prefill_s) if prefill_s > 0 else None
    if setting == "max_num_seqs":
        if cell.concurrency <= p.max_num_seqs:
            return "not_queued", prefill_tps, kv_requests
        if kv_requests is not None and kv_requests <= p.max_num_seqs:
            # Would the change help with room in the cache? Then the cache is the limit.
            roomy = changed(p, changes | {"kv_capacity": per_request * cell.concurrency * 2})
            if classify(before, _figures(predict(roomy, [cell])[0])) in ("gain", "tradeoff"):
                return "kv_bound", prefill_tps, kv_requests
    if setting == "max_num_batched_tokens" and (
            cell.input_tokens + cell.concurrency <= p.max_num_batched_tokens):
        return "fits_one_step", prefill_tps, kv_requests
    if setting == "kv_capacity" and (kv_requests is None
                                     or kv_requests >= min(cell.concurrency, p.max_num_seqs)):
        return "cap_bound", prefill_tps, kv_requests
    # A budget only changes how prompts are chunked: when that gains nothing, the prompts'
    # own compute is the limit, whatever the decode share. For the others, whichever phase
    # takes longer alone is the one the server is busy with.
    decode_s = cell.output_tokens * p.decode_cost_s(1, per_request)
    reason = ("prefill_compute_bound" if setting == "max_num_batched_tokens"
              or prefill_s >= decode_s else "saturated")
    return reason, prefill_tps, kv_requests


def _trial_changes(code: str, fit: Fit) -> tuple[str, float, float, dict] | None:
    """(setting, before, after, changes for `core.fit.changed`), or None when the model cannot
    try it: a limit the server did not report and the sweep did not show is a guess, and a
    prediction from a guessed budget or cache would be a guess too."""
    setting, factor = TRIALS[code]
    p = fit.profile
    if setting == "max_num_seqs":
        before = p.max_num_seqs
        return setting, before, int(before * factor), {"max_num_seqs": int(before * factor)}
    if setting == "max_num_batched_tokens":
        if _source(fit, "max_num_batched_tokens") == "assumed":
            return None
        before = p.max_num_batched_tokens
        return (setting, before, int(before * factor),
                {"max_num_batched_tokens": int(before * factor)})
    if not _kv_known(fit):
        return None
    before = p.kv_cache_tokens
    return setting, before, int(before * factor), {"kv_capacity_factor": factor}


def _top_cells(cells: Sequence[MeasuredCell]) -> list[MeasuredCell]:
    """The most loaded cell of each (prompt, output) length, in length order."""
    top: dict[tuple[int, int], MeasuredCell] = {}
    for c in cells:
        key = (c.input_tokens, c.output_tokens)
        if key not in top or c.concurrency > top[key].concurrency:
            top[key] = c
    return [top[k] for k in sorted(top)]


# The engine knob (`engines.KNOB_ROLES`) each setting the model can change is.
_KNOB_ROLE = {"max_num_seqs": "cap", "max_num_batched_tokens": "budget",
              "kv_capacity": "kv_memory"}


def predict_effects(fit: Fit, cells: Sequence[MeasuredCell], findings: Sequence[Finding],
                    engine: str = "vllm") -> dict[str, Effect]:
    """The effect of each suggestion in `findings` the model can try (TRIALS), by suggestion
    code, on the most loaded cell of every prompt length of `cells` (the cells `fit` was
    fitted to). `engine` names the knobs (its descriptor's `knobs`; an engine without one: None).
    Blocking, deterministic (virtual time): milliseconds to a second per suggestion."""
    codes = [f.suggestion_code for f in findings if f.suggestion_code in TRIALS]
    if not codes:
        return {}
    top = _top_cells(cells)
    before_runs = [_figures(s) for s in predict(fit.profile, top)]
    measured = [_figures(c.summary or summarize_cell(c.timings)) for c in top]
    out = {}
    for code in dict.fromkeys(codes):
        trial = _trial_changes(code, fit)
        if trial is None:
            continue
        setting, before, after, changes = trial
        after_runs = [_figures(s) for s in predict(changed(fit.profile, changes), top)]
        lengths = []
        for cell, mb, ma, seen in zip(top, before_runs, after_runs, measured):
            # The verdict is the model's (its relative change); the numbers start from what
            # was measured.
            verdict = classify(mb, ma)
            a = _from_measured(seen, mb, ma)
            b = tuple(m if m is not None else x for m, x in zip(seen, mb))
            reason = prefill_tps = kv_requests = None
            if verdict in ("no_gain", "loss"):
                reason, prefill_tps, kv_requests = _reason(setting, fit, cell, changes, mb)
            lengths.append(LengthEffect(
                cell.input_tokens, cell.output_tokens, cell.concurrency, (b[0], a[0]),
                (b[1], a[1]), (b[2], a[2]), verdict, reason, prefill_tps, kv_requests))
        out[code] = Effect(code, setting, engines.knob(engine, _KNOB_ROLE[setting]), before, after,
                           TRIALS[code][1], tuple(lengths), fit.extrapolated_batch(changes),
                           int(fit.profile.max_num_seqs), int(fit.profile.max_num_batched_tokens))
    return out


def with_effects(findings: Sequence[Finding], effects: Mapping[str, Effect]) -> list[Finding]:
    """`findings` with each tried suggestion's effect in `params["predicted"]` (a finding
    without one loses any kept before: the numbers always belong to the latest fit)."""
    out = []
    for f in findings:
        effect = effects.get(f.suggestion_code or "")
        if effect is None and "predicted" not in f.params:
            out.append(f)
            continue
        params = {k: v for k, v in f.params.items() if k != "predicted"}
        if effect is not None and f.params:  # a finding kept as English text stays as it is
            params["predicted"] = effect.to_json()
        out.append(dataclasses.replace(f, params=params))
    return out


def sim_steps(cells: Sequence[MeasuredCell], budget: int) -> int:
    """About how many scheduler steps simulating `cells` once takes (each request's prompt in
    chunks of `budget` tokens, then one step per output token)."""
    return sum(c.requests * (math.ceil(c.input_tokens / max(budget, 1)) + c.output_tokens)
               for c in cells)


def annotate(findings: Sequence[Finding], cells: Sequence[MeasuredCell],
             settings: Mapping | None, engine: str = "vllm", *, fit: Fit | None = None,
             rounds: int = FIT_ROUNDS, max_steps: int | None = MAX_SIM_STEPS,
             on_step: Callable[[int, int], None] | None = None) -> Outcome:
    """`findings` with their suggestions' predicted effects (see the module doc), fitting the
    model to `cells` with the server's `settings` unless `fit` is given. Never raises for a
    sweep the model cannot be fitted to (status "fit_failed", the findings unchanged); skips a
    sweep above `max_steps` simulated steps (status "too_large"; None: no limit). Blocking:
    seconds of CPU (FIT_ROUNDS); not cancellable midway, so run it in a thread or process.
    `on_step(done, total)` hears how far the fit is (`core.fit.fit_profile`)."""
    findings = tuple(findings)
    if not any(f.suggestion_code in TRIALS and f.params for f in findings):
        return Outcome(findings, "nothing_to_try")
    if fit is None:
        budget = settings.get("max_num_batched_tokens") if settings else None
        budget = budget if isinstance(budget, int) and budget > 0 else 8192
        if max_steps is not None and sim_steps(cells, budget) > max_steps:
            return Outcome(findings, "too_large")
        try:
            fit = fit_profile(cells, settings or {}, cap=concurrency_cap(findings),
                              rounds=rounds, on_step=on_step)
        except (FitError, ValueError, ArithmeticError) as exc:
            return Outcome(findings, "fit_failed", str(exc))
    try:
        effects = predict_effects(fit, cells, findings, engine)
    except (ValueError, ArithmeticError) as exc:
        return Outcome(findings, "fit_failed", str(exc))
    return Outcome(tuple(with_effects(findings, effects)), "predicted")


def engine_name(label: str | None) -> str:
    """The engine's short name from a run's engine label ("simulated vllm" -> "vllm")."""
    return engines.label_parts(label)[0]


def annotate_sweep(result, store=None, *, max_steps: int | None = MAX_SIM_STEPS,
                   on_step: Callable[[int, int], None] | None = None) -> Outcome:
    """`annotate` for a sweep just run (`sweep.SweepResult`: its cells, the server settings it
    read and was given, its engine): when predicted, `result.findings` are replaced and, with
    a `store`, kept with its run (`records.save_diagnosis`). Blocking: call it in a thread or
    a worker process. `on_step` as for `annotate`."""
    from desktop_app.core.endpoint.server_settings import stored_settings
    from desktop_app.core.fit import measured_from_results
    from desktop_app.core.throughput.records import save_diagnosis

    if not any(f.suggestion_code in TRIALS for f in result.findings):
        return Outcome(tuple(result.findings), "nothing_to_try")
    settings = stored_settings(result.info.server_settings,
                               result.config.server_settings)["server_settings"]
    outcome = annotate(result.findings, measured_from_results(result.cells), settings,
                       result.info.engine, max_steps=max_steps, on_step=on_step)
    if outcome.status == "predicted":
        result.findings = list(outcome.findings)
        if store is not None and result.run_id is not None:
            save_diagnosis(store, result.run_id, result.findings)
    return outcome
