"""Speed and quality together: cost per correct answer and capacity planned in tasks.

One SQL task costs several model requests and thousands of tokens, so "how many users can this
serve" must be answered in tasks, not requests. When a comparison holds a throughput run and a
SQL run of the same endpoint and model (`pair_runs`), `capacity(tp, sql)` combines them:

Cost per correct answer, per judge and per tier (from the SQL run alone):
    tokens per pass  = (prompt + completion tokens of every question) / questions passed
    seconds per pass = (wall seconds of every question, as the SQL run measured them) / passed

Capacity in tasks, at each concurrency c the sweep measured (the model):
    for each agent step s of each question (its stored prompt tokens p_s, completion tokens k_s):
        L_s        = the measured prompt length nearest to p_s (at concurrency c)
        time(s, c) = p_s / prefill_tps(c, L_s) + max(k_s - 1, 0) / decode_tps(c, L_s)
    time per task(c) = mean over questions of the sum of time(s, c) over its steps
    tasks per hour(c) = c * 3600 / time per task(c)       (c agents, one task each at a time)
    correct per hour(c, judge) = tasks per hour(c) * pass rate(judge)

prefill_tps and decode_tps are the sweep's per-request means at that cell, so p / prefill_tps
is the measured TTFT scaled to p tokens, queueing at concurrency c included, and the first token
comes with it (hence k - 1 decode tokens). What the model leaves out, so its figures are upper
bounds on what a real agent loop gets: the time tools take between steps (SQL in the sandbox),
and the sweep's output lengths differing from the agent's. Prefix caching is not credited (the
sweep sends unique prompts), which pushes the other way for an agent whose each step re-sends the
conversation so far. Steps whose prompt lies outside the measured lengths use the nearest one;
`extrapolated_share` says how many prompt tokens that concerns.

Measured beside modelled: when the same server has a stored replay (`throughput.replay`: a SQL
run's conversations sent again as N concurrent agents, tools' time kept), `capacity(tp, sql,
measured=replay)` sets its tasks per hour (same definition, A x 3,600 / mean task time, with a
bootstrap interval over the tasks) beside the model's at each number of agents, and the
"usable per hour" criterion is decided on the measured figures, on their noise, when every
configuration has one (`measured_correct_per_hour`: tasks per hour times the strict pass rate,
its interval from both intervals' ends).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from statistics import fmean
from typing import Literal, cast

from desktop_app.core.compare.load import SqlRun, StoredCell, ThroughputRun
from desktop_app.core.sqleval.types import TIERS
from desktop_app.core.stats import MIN_EFFECT, Estimate, differ, wilson
from desktop_app.core.throughput.replay import StoredReplay

__all__ = ["CapacityPoint", "Cost", "Capacity", "CriterionVerdict", "pair_runs", "capacity",
           "capacity_verdicts", "cost_per_correct"]


@dataclass(frozen=True)
class CapacityPoint:
    """The model at one concurrency: seconds per task, tasks per hour, correct answers per hour
    per judge; `reason` says why the figures are missing (None when present), in English, and
    `reason_code` the same as a code for other languages ("no_steps", "no_prefill",
    "no_decode", "no_time", "not_swept")."""

    concurrency: int
    seconds_per_task: float | None
    tasks_per_hour: float | None
    correct_per_hour: dict[str, float] = field(default_factory=dict, hash=False)
    extrapolated_share: float = 0.0
    reason: str | None = None
    reason_code: str | None = None
    measured: Estimate | None = None  # tasks per hour a stored replay measured at this load


@dataclass(frozen=True)
class Cost:
    """Cost per correct answer under one judge (one tier, or "all"): tokens and seconds per
    question passed; None when nothing passed (an infinite cost is not a number to print)."""

    judge: str
    tier: str
    passed: int
    questions: int
    tokens_per_pass: float | None
    seconds_per_pass: float | None


@dataclass(frozen=True)
class Capacity:
    """One configuration: a throughput run and a SQL run of the same endpoint and model."""

    throughput_id: int
    sql_id: int
    label: str
    steps_per_question: float
    prompt_tokens_per_step: float
    completion_tokens_per_step: float
    pass_rates: dict[str, float] = field(hash=False)
    points: tuple[CapacityPoint, ...] = ()
    costs: tuple[Cost, ...] = ()
    replay_id: int | None = None  # the stored replay whose figures are `measured`
    replayed_sql: int | None = None  # the SQL run whose conversations it replayed
    strict_passed: tuple[int, int] | None = None  # (passed, judged) under the strict judge

    def point(self, concurrency: int) -> CapacityPoint | None:
        return next((p for p in self.points if p.concurrency == concurrency), None)

    def measured_correct_per_hour(self, point: CapacityPoint) -> Estimate | None:
        """Strict-correct answers per hour measured at `point`: the replay's tasks per hour
        times the strict pass rate, the interval from both intervals' ends (Wilson's)."""
        rate = wilson(*self.strict_passed) if self.strict_passed else None
        if point.measured is None or rate is None:
            return None
        m = point.measured
        return Estimate(m.value * rate.value, m.low * rate.low, m.high * rate.high, m.n,
                        "bootstrap-ratio x wilson")


Criterion = Literal["users_dont_wait", "answers_usable", "usable_per_hour"]


@dataclass(frozen=True)
class CriterionVerdict:
    """Which configuration wins for one success criterion: "users_dont_wait" (lowest seconds per
    task at the lowest measured concurrency), "answers_usable" (highest strict pass rate) or
    "usable_per_hour" (most strict-correct answers per hour at the best concurrency)."""

    criterion: Criterion
    winner: int | None  # index into the capacities; None when none has the figure or they are even
    figures: tuple[float | None, ...]  # one per configuration, in the criterion's unit
    text: str
    # "measured": decided on stored replays' figures and their intervals (`estimates`, at
    # `sessions` agents per configuration); "model": on the capacity model's.
    source: Literal["model", "measured"] = "model"
    estimates: tuple[Estimate | None, ...] = ()
    sessions: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class CompareNote:
    """What a comparison left out and why, as a code and its values (words: report/strings
    `note_<code>`): `kind_left_out` (run, kind), `sql_without_sweep` and `sweep_without_sql`
    (run, model, target)."""

    code: str
    params: dict = field(default_factory=dict, hash=False)


def _who(run) -> dict:
    return {"run": run.info.id, "model": run.info.model, "target": run.info.target_key}


def pair_runs(runs: list) -> tuple[list[tuple[ThroughputRun, SqlRun]], list[CompareNote]]:
    """(throughput, SQL) pairs of the same server and model (on the built-in simulator, any
    persona of the simulated server that was swept), and a `CompareNote` for each SQL run
    that has no such partner while throughput runs are present, and for each throughput run
    left without a SQL partner while SQL runs are present. The server is `RunInfo.target_key`:
    a simulator's profile (its port is random per start), else the endpoint URL."""
    tps = [r for r in runs if isinstance(r, ThroughputRun)]
    pairs, notes = [], []
    for sql in (r for r in runs if isinstance(r, SqlRun)):
        # A sweep of the very model wins; the simulator's persona rule only fills in when
        # there is none (else every persona would pair with every sweep of the server).
        mates = ([tp for tp in tps if _same_model(tp, sql)]
                 or [tp for tp in tps if _same_target(tp, sql)])
        pairs += [(tp, sql) for tp in mates]
        if tps and not mates:
            notes.append(CompareNote("sql_without_sweep", _who(sql)))
    paired = {id(tp) for tp, _ in pairs}
    if any(isinstance(r, SqlRun) for r in runs):
        # Said, not silently dropped: a sweep left out of capacity in tasks.
        notes += [CompareNote("sweep_without_sql", _who(tp)) for tp in tps
                  if id(tp) not in paired]
    return pairs, notes


def _same_model(tp: ThroughputRun, sql: SqlRun) -> bool:
    return (tp.info.target_key == sql.info.target_key
            and bool(tp.info.model) and tp.info.model == sql.info.model)


def _same_target(tp: ThroughputRun, sql: SqlRun) -> bool:
    # The built-in simulator serves its SQL personas (sim/careful, ...) from the one engine
    # that served the sweep, at the sweep's speed: the model name picks a script, not weights.
    return (tp.info.target_key == sql.info.target_key
            and tp.info.engine.startswith("simulated") and sql.info.model.startswith("sim/"))


def cost_per_correct(sql: SqlRun) -> tuple[Cost, ...]:
    """Tokens and seconds per question passed, per judge, overall ("all") and per tier."""
    out = []
    for judge in sql.judges:
        for tier in ("all", *TIERS):
            qs = [q for q in sql.questions if tier == "all" or q.tier == tier]
            if not qs:
                continue
            ok = sum(q.passed.get(judge, False) for q in qs)
            tokens = sum(q.prompt_tokens + q.completion_tokens for q in qs)
            seconds = sum(q.seconds for q in qs)
            out.append(Cost(judge, tier, ok, len(qs), tokens / ok if ok else None,
                            seconds / ok if ok else None))
    return tuple(out)


def _nearest(lengths: list[int], p: int) -> int:
    return min(lengths, key=lambda n: (abs(n - p), n))


def _point(tp: ThroughputRun, sql: SqlRun, conc: int) -> CapacityPoint:
    cells: dict[int, StoredCell] = {}
    for c in tp.closed_loop_cells:  # the first output length of each prompt length
        if c.concurrency == conc:
            cells.setdefault(c.input_tokens, c)
    prefill = {n: r for n, c in cells.items() if (r := c.prefill_tps)}
    decode = {n: r for n, c in cells.items() if (r := c.decode_tps)}
    pre, dec = sorted(prefill), sorted(decode)
    questions = [q for q in sql.questions if q.steps]
    if not questions:
        return CapacityPoint(conc, None, None, reason="the SQL run stored no steps",
                             reason_code="no_steps")
    if not pre:
        return CapacityPoint(conc, None, None, reason="prefill not measured at this concurrency",
                             reason_code="no_prefill")
    needs_decode = any(s.completion_tokens > 1 for q in questions for s in q.steps)
    if needs_decode and not dec:
        return CapacityPoint(conc, None, None, reason="decode not measured at this concurrency "
                             "(every token arrived at once)", reason_code="no_decode")
    lo, hi = pre[0], pre[-1]
    outside = total = 0
    times = []
    for q in questions:
        t = 0.0
        for s in q.steps:
            t += s.prompt_tokens / prefill[_nearest(pre, s.prompt_tokens)]
            if s.completion_tokens > 1:
                t += (s.completion_tokens - 1) / decode[_nearest(dec, s.prompt_tokens)]
            total += s.prompt_tokens
            if not lo <= s.prompt_tokens <= hi:
                outside += s.prompt_tokens
        times.append(t)
    per_task = fmean(times)
    if per_task <= 0:
        return CapacityPoint(conc, None, None, reason="no time per task (empty steps)",
                             reason_code="no_time")
    per_hour = conc * 3600.0 / per_task
    correct = {j: per_hour * r for j, r in _pass_rates(sql).items()}
    return CapacityPoint(conc, per_task, per_hour, correct, outside / total if total else 0.0)


def _pass_rates(sql: SqlRun) -> dict[str, float]:
    return {j: r for j in sql.judges if (r := sql.pass_rate(j)) is not None}


def capacity(tp: ThroughputRun, sql: SqlRun, measured: StoredReplay | None = None) -> Capacity:
    """The capacity model (module doc) for one throughput run and one SQL run, with a stored
    replay's figures beside it at each number of agents it ran (a load the sweep did not
    measure gets a point of its own, reason "not_swept"). Pure."""
    steps = [s for q in sql.questions for s in q.steps]
    n_q = len(sql.questions)
    points = [_point(tp, sql, c) for c in tp.concurrencies()]
    if measured is not None:
        swept = {p.concurrency for p in points}
        points += [CapacityPoint(r.sessions, None, None, reason="the sweep did not measure "
                                 "this concurrency", reason_code="not_swept")
                   for r in measured.points if r.sessions not in swept]
        points = sorted((dataclasses.replace(p, measured=r.tasks_per_hour)
                         if (r := measured.point(p.concurrency)) is not None else p
                         for p in points), key=lambda p: p.concurrency)
    strict = sql.pass_count("strict")
    return Capacity(
        tp.info.id, sql.info.id, f"#{tp.info.id} + #{sql.info.id}",
        steps_per_question=fmean(q.step_count for q in sql.questions) if n_q else 0.0,
        prompt_tokens_per_step=fmean(s.prompt_tokens for s in steps) if steps else 0.0,
        completion_tokens_per_step=fmean(s.completion_tokens for s in steps) if steps else 0.0,
        pass_rates=_pass_rates(sql),
        points=tuple(points),
        costs=cost_per_correct(sql),
        replay_id=None if measured is None else measured.info.id,
        replayed_sql=None if measured is None else measured.sql_run,
        strict_passed=(strict.passed, strict.judged) if strict.judged else None)


def _pick(caps: list[Capacity], figures: list[float | None], higher: bool) -> int | None:
    """The configuration ahead on a modelled figure: only when it is at least MIN_EFFECT
    better than every other (the model has no interval, so anything closer, a tie above all,
    is even and bolds nothing)."""
    have = sorted(((i, f) for i, f in enumerate(figures) if f is not None),
                  key=lambda iv: iv[1], reverse=higher)
    if not have:
        return None
    if len(have) == 1:
        return have[0][0]
    (w, best), (_, second) = have[0], have[1]
    if best == second:
        return None
    gap = (best / second - 1 if higher else 1 - best / second) if second else float("inf")
    return w if gap >= MIN_EFFECT else None


def capacity_verdicts(caps: list[Capacity]) -> list[CriterionVerdict]:
    """Which configuration wins for each success criterion, with the figures, in English."""
    out = []
    wait = []
    for c in caps:
        firsts = [p for p in c.points if p.seconds_per_task is not None]
        wait.append(min(firsts, key=lambda p: p.concurrency).seconds_per_task if firsts else None)
    strict = [c.pass_rates.get("strict") for c in caps]
    hourly = [max((p.correct_per_hour.get("strict", 0.0) for p in c.points
                   if p.tasks_per_hour is not None), default=None) for c in caps]
    for criterion, figures, higher, say in (
        ("users_dont_wait", wait, False,
         lambda f: f"{f:.2f} s per task" if f >= 1 else f"{f * 1000:.0f} ms per task"),
        ("answers_usable", strict, True, lambda f: f"{f * 100:.0f} % strict pass rate"),
        ("usable_per_hour", hourly, True, lambda f: f"{f:,.0f} strict-correct answers/hour"),
    ):
        source = "model"
        estimates: tuple[Estimate | None, ...] = ()
        at: tuple[int | None, ...] = ()
        if criterion == "usable_per_hour" and (best := _measured_best(caps)) is not None:
            source, (estimates, at) = "measured", best
            figures = [None if m is None else m.value for m in estimates]
        if source == "measured":
            say = lambda f: f"{f:,.0f} strict-correct answers/hour measured by replay"  # noqa: E731
        w = _pick(caps, figures, higher)
        if w is not None and source == "measured" and len(caps) > 1:
            # Measured figures have noise: a winner only outside every other's interval.
            won = estimates[w]
            w = w if won is not None and all(m is not None and differ(won, m)
                                             for i, m in enumerate(estimates) if i != w) else None
        if w is None and sum(f is not None for f in figures) > 1:
            text = "about even: " + "; ".join(f"{caps[i].label} {say(f)}"
                                             for i, f in enumerate(figures) if f is not None)
        elif w is None:
            text = "n/a: no configuration has this figure"
        elif sum(f is not None for f in figures) == 1:
            text = f"only {caps[w].label} has this figure: {say(figures[w])}"
        else:
            rest = "; ".join(f"{caps[i].label} {say(f)}" for i, f in enumerate(figures)
                             if f is not None and i != w)
            text = f"{caps[w].label} wins with {say(figures[w])} (vs {rest})"
        out.append(CriterionVerdict(cast(Criterion, criterion), w, tuple(figures), text,
                                    cast(Literal["model", "measured"], source), estimates, at))
    return out


def _measured_best(caps: list[Capacity]
                   ) -> tuple[tuple[Estimate | None, ...], tuple[int | None, ...]] | None:
    """Per configuration, its most strict-correct answers per hour measured by replay, over
    the numbers of agents every configuration replayed; None unless each has some and they all
    replayed the same SQL run's conversations (other tasks are other work: the model decides)."""
    if len({c.replayed_sql for c in caps}) != 1:
        return None
    common = None
    for c in caps:
        have = {p.concurrency for p in c.points if c.measured_correct_per_hour(p) is not None}
        common = have if common is None else common & have
    if not common:
        return None
    estimates: list[Estimate | None] = []
    sessions: list[int | None] = []
    for c in caps:
        options = [(e, p.concurrency) for p in c.points if p.concurrency in common
                   and (e := c.measured_correct_per_hour(p)) is not None]
        e, n = max(options, key=lambda en: en[0].value)
        estimates.append(e)
        sessions.append(n)
    return tuple(estimates), tuple(sessions)
