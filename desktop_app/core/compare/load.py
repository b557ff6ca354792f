"""Stored runs read back as plain, frozen summaries a comparison can set side by side.

`load_run(store, run_id)` returns a :class:`ThroughputRun` or a :class:`SqlRun`. Nothing is
re-measured: a throughput run's cells come from their stored summaries, and its diagnosis is
made again by `throughput.diagnosis.diagnose` from the stored requests and /metrics samples (the
diagnosis itself is not stored with a run). A SQL run's pass counts and effort per tier come from
`sqleval.export.summarize` over the stored questions, so the numbers are the ones the SQL Agent
page and the JSON export show.

Units: seconds, tokens, tokens per second; rates are fractions 0..1.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from desktop_app.core.endpoint.types import MetricSample
from desktop_app.core.metrics import CellSummary, Distribution, RequestTiming
from desktop_app.core.sqleval.export import JudgeSummary, TierStats, summarize
from desktop_app.core.sqleval.runner import ItemResult
from desktop_app.core.sqleval.types import JUDGE_MODES, JudgeFinding, QuestionOutcome, Verdict
from desktop_app.core.store import CellRecord, RunRecord, Store
from desktop_app.core.throughput.diagnosis import diagnose
from desktop_app.core.throughput.types import CellResult, CellSpec, ClientLoad, Finding

__all__ = ["RunInfo", "CellPoint", "ThroughputRun", "StepTokens", "QuestionRow", "SqlRun",
           "load_run", "run_info"]


@dataclass(frozen=True)
class RunInfo:
    """Who and what a run measured, as the cover page lists it (no secrets: the store redacts)."""

    id: int
    kind: str
    name: str
    endpoint: str
    model: str
    engine: str
    status: str
    started_at: str
    ended_at: str
    config: dict = field(hash=False)

    @property
    def simulated(self) -> bool:
        """True for the built-in simulator or a scripted persona: never a real model's score."""
        return self.engine.startswith("simulated") or self.model.startswith("sim/")


@dataclass(frozen=True)
class CellPoint:
    """One closed-loop cell's means: prompt length (tokens), concurrency, output length,
    TTFT (s), prefill and decode tok/s per request, change against concurrency 1 (fraction)."""

    input_tokens: int
    concurrency: int
    output_tokens: int
    requests: int
    ok: int
    ttft_s: float | None
    prefill_tps: float | None
    decode_tps: float | None
    prefill_change: float | None
    decode_change: float | None


@dataclass(frozen=True)
class ThroughputRun:
    """A stored sweep (or an imported one): its cells (closed loop only; open-loop cells have
    no concurrency), the server's queue/KV timeline and the diagnosis made from the stored
    requests. `info.config["imported_from"]` names the tool of an imported run."""

    info: RunInfo
    cells: tuple[CellPoint, ...]
    samples: tuple[MetricSample, ...]
    findings: tuple[Finding, ...]
    diagnosis_error: str | None = None  # why the diagnosis could not be made, if it failed

    def concurrencies(self) -> list[int]:
        return sorted({c.concurrency for c in self.cells})

    def lengths(self) -> list[int]:
        return sorted({c.input_tokens for c in self.cells})

    def cell(self, input_tokens: int, concurrency: int) -> CellPoint | None:
        """The cell at this prompt length and concurrency (the first output length)."""
        return next((c for c in self.cells
                     if c.input_tokens == input_tokens and c.concurrency == concurrency), None)


@dataclass(frozen=True)
class StepTokens:
    """One agent step (one model request): prompt and completion tokens, latency (s)."""

    prompt_tokens: int
    completion_tokens: int
    latency_s: float


@dataclass(frozen=True)
class QuestionRow:
    """One judged question of a SQL run (one epoch), as the Inspector shows it."""

    question_id: str
    tier: str
    epoch: int
    text_en: str
    text_zh: str
    passed: dict[str, bool] = field(hash=False)
    failure_class: str | None = None
    strict_findings: tuple[str, ...] = ()
    explanations: tuple[str, ...] = ()  # sqlglot's findings on the final SQL
    counterfactual: str = ""
    steps: tuple[StepTokens, ...] = ()
    step_count: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    final_sql: str = ""


@dataclass(frozen=True)
class SqlRun:
    """A stored SQL evaluation: judges summarised, pass counts and effort per tier (from
    `sqleval.export.summarize`), and every judged question with its steps."""

    info: RunInfo
    judges: tuple[str, ...]
    tolerance: float | None
    summary: dict[str, JudgeSummary] = field(hash=False)
    tiers: dict[str, TierStats] = field(hash=False)
    questions: tuple[QuestionRow, ...] = ()

    def pass_rate(self, judge: str) -> float | None:
        """passed / total under `judge` (0..1), or None when the judge was not stored."""
        s = self.summary.get(judge)
        return s.passed / s.total if s is not None and s.total else None

    def failure_classes(self) -> list[tuple[str, int]]:
        """Strict failure classes, most frequent first."""
        counts = Counter(q.failure_class for q in self.questions if q.failure_class)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def run_info(record: RunRecord) -> RunInfo:
    """The cover-page facts of a stored run."""
    return RunInfo(record.id, record.kind, record.name or "", record.endpoint_url or "",
                   record.model or "", record.engine or "", record.status,
                   record.started_at or record.created_at, record.ended_at or "",
                   dict(record.config or {}))


def load_run(store: Store, run_id: int) -> ThroughputRun | SqlRun | RunInfo:
    """The stored run `run_id` as a summary; a run of another kind comes back as its RunInfo.

    Raises the store's NotFoundError for an unknown id. Blocking (SQLite): call it in a thread
    from the GUI.
    """
    record = store.get_run(run_id)
    info = run_info(record)
    if record.kind == "throughput":
        return _load_throughput(store, info)
    if record.kind == "sql":
        return _load_sql(store, info)
    return info


# --------------------------------------------------------------------------- throughput


def _dist(d: dict | None, count: int = 0) -> Distribution | None:
    """A stored distribution; imported runs may lack a count or percentiles (None), and a
    distribution without a mean is no distribution."""
    if not d or d.get("mean") is None:
        return None
    mean = d["mean"]
    return Distribution(n=d.get("n") or count or 1, mean=mean,
                        **{k: mean if d.get(k) is None else d[k]
                           for k in ("p50", "p90", "p99", "min", "max")})


def _mean(d: dict | None) -> float | None:
    return None if not d else d.get("mean")


def _cell_result(record: CellRecord, timings: tuple[RequestTiming, ...],
                 samples: tuple[MetricSample, ...]) -> CellResult:
    """A stored cell back as a CellResult for the diagnosis."""
    d = dict(record.summary or {})
    ok = d.get("ok") or 0
    summary = CellSummary(
        count=d.get("count") or 0, ok=ok,
        failures_by_class=d.get("failures_by_class") or {},
        ttft_s=_dist(d.get("ttft_s"), ok), prefill_tps=_dist(d.get("prefill_tps"), ok),
        decode_tps=_dist(d.get("decode_tps"), ok), tpot_s=_dist(d.get("tpot_s"), ok),
        itl_s=_dist(d.get("itl_s"), ok), e2e_s=_dist(d.get("e2e_s"), ok),
        wall_s=d.get("wall_s"), output_tps=d.get("output_tps"),
        effective_prefill_tps=d.get("effective_prefill_tps"),
        effective_decode_tps=d.get("effective_decode_tps"),
        prompt_tokens=d.get("prompt_tokens") or 0,
        completion_tokens=d.get("completion_tokens") or 0)
    load = d.get("client_load")
    status = record.status if record.status in ("completed", "time_budget") else "cancelled"
    spec = CellSpec(record.input_tokens or 0, record.output_tokens or 0, len(timings),
                    concurrency=record.concurrency, request_rate=record.request_rate)
    return CellResult(spec=spec, summary=summary, timings=timings, samples=samples,
                      client_load=ClientLoad(**load) if load else None,
                      prefill_change=d.get("prefill_change"),
                      decode_change=d.get("decode_change"), goodput=d.get("goodput"),
                      token_mismatches=d.get("token_mismatches") or 0, status=status)


def _timing(row: dict, t0: float) -> RequestTiming:
    """A stored request on one clock: `sent_at` is epoch seconds; only differences matter to
    the diagnosis (overlaps within a cell), so the run's first send is time zero."""
    sent = (row.get("sent_at") or t0) - t0
    ttft, e2e = row.get("ttft_s"), row.get("e2e_s")
    return RequestTiming(
        prompt_tokens=row.get("prompt_tokens") or row.get("prompt_tokens_target") or 0,
        completion_tokens=row.get("completion_tokens") or 0, sent_s=sent,
        first_token_s=None if ttft is None else sent + ttft,
        last_token_s=None if e2e is None else sent + e2e, error_class=row.get("error_class"))


def _sample(row: dict) -> MetricSample:
    return MetricSample(t_s=row["t_s"], running=row.get("running"), waiting=row.get("waiting"),
                        kv_cache_usage=row.get("kv_cache_usage"),
                        preemptions=row.get("preemptions"), raw=row.get("raw_json") or {})


def _load_throughput(store: Store, info: RunInfo) -> ThroughputRun:
    records = store.cells(info.id)
    sample_rows = store.metric_samples(info.id)
    samples = tuple(_sample(r) for r in sample_rows)
    samples_by_cell: dict[int | None, list[MetricSample]] = {}
    for row, sample in zip(sample_rows, samples):
        samples_by_cell.setdefault(row.get("cell_id"), []).append(sample)
    requests = [r for r in store.requests(info.id, limit=10_000_000) if not r.get("warmup")]
    t0 = min((r["sent_at"] for r in requests if r.get("sent_at") is not None), default=0.0)
    by_cell: dict[int, list[RequestTiming]] = {}
    for r in requests:
        by_cell.setdefault(r.get("cell_id"), []).append(_timing(r, t0))
    results = [_cell_result(rec, tuple(by_cell.get(rec.id, ())),
                            tuple(samples_by_cell.get(rec.id, ())))
               for rec in records]
    settings = info.config.get("server_settings") if isinstance(info.config, dict) else None
    error = None
    try:
        findings = tuple(diagnose(results, None, server_settings=settings or None))
    except Exception as exc:  # noqa: BLE001 - an odd stored run must not sink the comparison
        findings, error = (), f"{type(exc).__name__}: {exc}"
    base = {(r.input_tokens, r.output_tokens): r.summary or {} for r in records
            if r.concurrency == 1}
    points = []
    for rec in records:
        d = rec.summary or {}
        if rec.concurrency is None or not d:
            continue
        b = base.get((rec.input_tokens, rec.output_tokens), {})
        points.append(CellPoint(
            rec.input_tokens or 0, rec.concurrency, rec.output_tokens or 0, d.get("count") or 0,
            d.get("ok") or 0, _mean(d.get("ttft_s")), _mean(d.get("prefill_tps")),
            _mean(d.get("decode_tps")),
            _change(d, b, "prefill_change", "prefill_tps"),
            _change(d, b, "decode_change", "decode_tps")))
    return ThroughputRun(info, tuple(points), samples, findings, error)


def _change(d: dict, base: dict, stored: str, metric: str) -> float | None:
    """The stored change against concurrency 1, or (imported runs store none) the same
    computed from the two cells' means."""
    if d.get(stored) is not None:
        return d[stored]
    value, ref = _mean(d.get(metric)), _mean(base.get(metric))
    return value / ref - 1.0 if value is not None and ref else None


# --------------------------------------------------------------------------- SQL


def _finding(d: dict) -> JudgeFinding:
    return JudgeFinding(d.get("code", ""), d.get("message", ""))


def _verdicts(stored: dict) -> dict[str, Verdict]:
    out = {}
    for judge, v in (stored.get("verdicts") or {}).items():
        out[judge] = Verdict(judge, bool(v.get("passed")),
                             tuple(_finding(f) for f in v.get("findings") or ()),
                             v.get("tolerance"))
    return out


def _load_sql(store: Store, info: RunInfo) -> SqlRun:
    judges = tuple(info.config.get("judges") or JUDGE_MODES)
    items, questions = [], []
    for row in store.sql_questions(info.id):
        if row.get("status") != "completed":
            continue  # cancelled or never finished: no verdict to count
        stored = row.get("verdicts_json") or {}
        verdicts = _verdicts(stored)
        steps = tuple(StepTokens(s.get("prompt_tokens") or 0, s.get("completion_tokens") or 0,
                                 s.get("latency_s") or 0.0) for s in store.sql_steps(row["id"]))
        tier = row.get("tier") or "hard"
        outcome = QuestionOutcome(
            row["question_id"], tier, row.get("epoch") or 0, (), row.get("stop_reason") or "",
            row.get("final_sql"), None, None, verdicts, row.get("prompt_tokens") or 0,
            row.get("completion_tokens") or 0, row.get("seconds") or 0.0)
        items.append(ItemResult(outcome, stored.get("counterfactual") or "", (),
                                row.get("steps") or len(steps), row["id"]))
        q = stored.get("question") or {}
        strict = verdicts.get("strict")
        questions.append(QuestionRow(
            row["question_id"], tier, row.get("epoch") or 0, q.get("text_en") or "",
            q.get("text_zh") or "", {j: v.passed for j, v in verdicts.items()},
            row.get("failure_class"),
            tuple(f.message for f in strict.findings) if strict else (),
            tuple(f.get("message", "") for f in stored.get("findings") or ()),
            stored.get("counterfactual") or "", steps, row.get("steps") or len(steps),
            row.get("prompt_tokens") or 0, row.get("completion_tokens") or 0,
            row.get("seconds") or 0.0, row.get("final_sql") or ""))
    summary, tiers, _spread = summarize(items, judges)
    return SqlRun(info, judges, info.config.get("tolerance"), summary, tiers, tuple(questions))
