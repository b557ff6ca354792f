"""The one way a stored SQL evaluation is read back: `load_eval(store, run_id)`.

This module alone knows how a question row is stored (``sql_questions`` with its
``verdicts_json``, see runner.py) and turns it into typed values; the SQL Agent page, the
Inspector, the Runs page, the comparison, the PDF, the exports, re-judging and the CLI read
through it, so every view of one run shows the same counts.

What counts: a question is *judged* when it finished (status completed) and has a verdict for
the judge; a question a stopped run started but never finished is *unfinished*, shown apart and
never counted as a failure (:func:`desktop_app.core.runs.pass_count`).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from desktop_app.core.endpoint.limits import loads_limited
from desktop_app.core.parsing import dict_at, list_at
from desktop_app.core.runs import PassCount, RunInfo, pass_count, run_info
from desktop_app.core.sqleval.export import question_from_snapshot
from desktop_app.core.sqleval.judge import counterfactual
from desktop_app.core.sqleval.judges import default_judges, get_judge, judge_names
from desktop_app.core.sqleval.results import (
    EpochSpread,
    ItemResult,
    JudgeSummary,
    TierStats,
    explained,
    summarize,
)
from desktop_app.core.sqleval.types import (
    Headline,
    JudgeFinding,
    Question,
    QuestionOutcome,
    Tier,
    Verdict,
)
from desktop_app.core.store import Store

__all__ = ["JudgedWith", "QuestionElsewhere", "SqlRun", "StepTokens", "StoredQuestion", "StoredStep",
           "StoredToolCall", "eval_from", "headline_from_stored", "load_eval",
           "question_elsewhere", "question_from_row", "question_rows", "step_from_row", "step_rows", "steps_of",
           "stored_question", "verdicts_from_stored"]


@dataclass(frozen=True)
class StepTokens:
    """One agent step (one model request): prompt and completion tokens, latency (s)."""

    prompt_tokens: int
    completion_tokens: int
    latency_s: float


@dataclass(frozen=True)
class StoredToolCall:
    """One tool call as stored: its name, arguments (raw JSON text), what the model saw back
    (possibly truncated, as the model saw it) and the tool's error."""

    name: str
    arguments: str
    result: str
    truncated: bool = False
    error: str | None = None

    @property
    def sql(self) -> str | None:
        """The `sql` argument of run_sql / submit_answer, when the arguments hold one."""
        try:
            args = loads_limited(self.arguments) if self.arguments else {}
        except (TypeError, ValueError):
            return None
        sql = args.get("sql") if isinstance(args, dict) else None
        return sql if isinstance(sql, str) else None


@dataclass(frozen=True)
class StoredStep:
    """One model call of the agent: the assistant's text, its tool calls, harness messages sent
    before it (nudges, validate-retry feedback), tokens, latency (seconds) and the step's
    error."""

    index: int
    text: str
    calls: tuple[StoredToolCall, ...]
    harness_notes: tuple[str, ...]
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    error: str | None


@dataclass(frozen=True)
class JudgedWith:
    """What a question was judged with: the question as it stood (None if not stored), the
    numeric tolerance, whether column names were ignored, and whether it was re-judged."""

    question: Question | None
    tolerance: float | None
    ignore_names: bool
    rejudged: bool


@dataclass(frozen=True)
class StoredQuestion:
    """One question of a SQL run in one epoch, as stored. `verdicts` is empty for a question
    that never finished; `findings` are sqlglot's explanations of the final SQL;
    `counterfactual` is the line across judges as values (`report/judge_words.headline_text`
    says it); `steps` is filled only when the loader was asked for them (the step count is
    always there)."""

    row_id: int
    question_id: str
    tier: str
    epoch: int
    status: str
    stop_reason: str
    text_en: str
    text_zh: str
    verdicts: dict[str, Verdict] = field(hash=False)
    failure_class: str | None = None
    findings: tuple[JudgeFinding, ...] = ()
    counterfactual: Headline = Headline()
    steps: tuple[StepTokens, ...] = ()
    step_count: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    final_sql: str = ""
    result: dict = field(default_factory=dict, hash=False)
    started_at: str | None = None
    ended_at: str | None = None
    judged_with: JudgedWith | None = field(default=None, hash=False, compare=False)
    # With the layered strategy: the path that answered ("fast" or "loop") and why, as stored.
    path: str | None = None
    route_reason: str = ""

    @property
    def judged(self) -> bool:
        return self.status == "completed" and bool(self.verdicts)

    def outcome(self, judge: str) -> bool | None:
        """True/False under `judge`, None when not judged (unfinished, or that judge not run)."""
        v = self.verdicts.get(judge) if self.status == "completed" else None
        return None if v is None else v.passed

    @property
    def passed(self) -> dict[str, bool]:
        return {j: v.passed for j, v in self.verdicts.items()} if self.judged else {}

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def item(self) -> ItemResult:
        """The question as the runner's ItemResult (for summaries and the JSON shapes)."""
        outcome = QuestionOutcome(
            # A stored tier is the writer's own (one of TIERS); it is kept as it reads.
            self.question_id, cast(Tier, self.tier), self.epoch, (), self.stop_reason,
            self.final_sql or None,
            None, self.result.get("error") if self.result else None, dict(self.verdicts),
            self.prompt_tokens, self.completion_tokens, self.seconds)
        return ItemResult(outcome, self.counterfactual, self.findings, self.step_count,
                          self.row_id)


@dataclass(frozen=True)
class SqlRun:
    """A stored SQL evaluation: every question row (judged or not), and the summaries of the
    judged ones (`summary` per judge, `tiers` effort, `spread` across epochs when several).
    `tolerance` is the tolerant and full judges' numeric tolerance."""

    info: RunInfo
    judges: tuple[str, ...]
    tolerance: float | None
    questions: tuple[StoredQuestion, ...]
    summary: dict[str, JudgeSummary] = field(hash=False)
    tiers: dict[str, TierStats] = field(hash=False)
    spread: dict[str, EpochSpread] = field(default_factory=dict, hash=False)

    @property
    def judged(self) -> tuple[StoredQuestion, ...]:
        return tuple(q for q in self.questions if q.judged)

    def pass_count(self, judge: str, tier: str | None = None) -> PassCount:
        """Passed / judged under `judge` (optionally in one tier), unfinished counted apart."""
        qs = [q for q in self.questions if tier is None or q.tier == tier]
        return pass_count(q.outcome(judge) for q in qs)

    def pass_rate(self, judge: str) -> float | None:
        """passed / judged under `judge` (0..1), or None when nothing was judged by it."""
        return self.pass_count(judge).rate

    def failure_classes(self) -> list[tuple[str, int]]:
        """Strict failure classes of the judged questions, most frequent first."""
        counts = Counter(q.failure_class for q in self.judged if q.failure_class)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def explained(self) -> dict[str, int]:
        """Per explanation code (`missing_round`, ...), the judged answers it was found in."""
        return dict(explained(self.judged))

    def outcomes(self, judge: str) -> dict[tuple[str, int], bool]:
        """(question id, epoch) -> passed, for the questions judged by `judge`: what a paired
        comparison of two runs on the same questions matches up."""
        return {(q.question_id, q.epoch): o for q in self.questions
                if (o := q.outcome(judge)) is not None}

    def items(self) -> list[ItemResult]:
        return [q.item() for q in self.judged]


# --------------------------------------------------------------------------- decoding


def _finding(d: Any) -> JudgeFinding | None:
    """A stored finding: {code, params, cells} since findings carry values; earlier verdicts
    hold {code, message, cells}, whose English message is kept as `stored_text`."""
    if not isinstance(d, dict):
        return None
    cells = []
    for c in d.get("cells") or ():
        if isinstance(c, list | tuple) and len(c) == 4:
            cells.append((c[0], str(c[1]), str(c[2]), str(c[3])))
    params = d.get("params")
    if isinstance(params, dict):
        return JudgeFinding(str(d.get("code") or ""), dict(params), tuple(cells))
    return JudgeFinding(str(d.get("code") or ""), {}, tuple(cells), str(d.get("message") or ""))


def headline_from_stored(stored: Any, verdicts: dict[str, Verdict]) -> Headline:
    """A stored counterfactual: {failing, passing, reason} since headlines are values; an
    earlier verdict's English line is kept as `stored_text`, with the judges read from
    `verdicts` (so the outcome can still be said in any language)."""
    if isinstance(stored, dict):
        failing, passing = (tuple(j for j in stored.get(key) or () if isinstance(j, str))
                            for key in ("failing", "passing"))
        return Headline(failing, passing, _finding(stored.get("reason")))
    return dataclasses.replace(counterfactual(verdicts), stored_text=str(stored or ""))


def _findings(items: Any) -> tuple[JudgeFinding, ...]:
    if not isinstance(items, list):
        return ()
    return tuple(f for f in map(_finding, items) if f is not None)


def verdicts_from_stored(stored: dict | None) -> dict[str, Verdict]:
    """The verdicts of a stored ``verdicts_json`` (judge -> Verdict)."""
    out = {}
    raw = (stored or {}).get("verdicts") if isinstance(stored, dict) else None
    for judge, v in (raw or {}).items():
        if isinstance(v, dict):
            out[judge] = Verdict(judge, bool(v.get("passed")), _findings(v.get("findings")),
                                 v.get("tolerance"))
    return out


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def step_from_row(row: dict) -> StoredStep:
    """A stored `sql_steps` row (shape in `sqleval.export.step_row`) as a StoredStep."""
    reply = dict_at(row, "reply_json")
    args = list_at(row, "tool_args_json")
    results = row.get("tool_result_json")
    results = [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []
    by_id = {r.get("id"): r for r in results}
    calls = []
    for i, arg in enumerate(a for a in args if isinstance(a, dict)):
        res = by_id.get(arg.get("id")) or (results[i] if i < len(results) else {})
        calls.append(StoredToolCall(str(arg.get("name") or "?"), _text(arg.get("arguments")),
                                    _text(res.get("result")), bool(res.get("truncated")),
                                    res.get("error")))
    request = dict_at(row, "request_json")
    new = list_at(request, "new")
    notes = tuple(_text(m.get("content")) for m in new
                  if isinstance(m, dict) and m.get("role") == "user"
                  and (row.get("step_index") or 0) > 0)
    return StoredStep(int(row.get("step_index") or 0), _text(reply.get("content")), tuple(calls),
                      notes, int(row.get("prompt_tokens") or 0),
                      int(row.get("completion_tokens") or 0), float(row.get("latency_s") or 0.0),
                      row.get("error"))


def steps_of(store: Store, question_row_id: int) -> tuple[StoredStep, ...]:
    """One stored question's agent steps, typed, in order."""
    return tuple(step_from_row(s) for s in step_rows(store, question_row_id))


def question_from_row(row: dict, steps: Iterable[dict] = ()) -> StoredQuestion:
    """A ``Store.sql_questions`` row (and optionally its ``Store.sql_steps``) as a
    StoredQuestion."""
    stored = row.get("verdicts_json") or {}
    stored = stored if isinstance(stored, dict) else {}
    q = dict_at(stored, "question")
    step_tokens = tuple(StepTokens(s.get("prompt_tokens") or 0, s.get("completion_tokens") or 0,
                                   s.get("latency_s") or 0.0) for s in steps)
    result = row.get("result_json")
    verdicts = verdicts_from_stored(stored)
    layered = dict_at(stored, "layered")
    return StoredQuestion(
        row_id=row["id"], question_id=str(row["question_id"]), tier=row.get("tier") or "hard",
        epoch=row.get("epoch") or 0, status=row.get("status") or "",
        stop_reason=row.get("stop_reason") or "", text_en=str(q.get("text_en") or ""),
        text_zh=str(q.get("text_zh") or ""), verdicts=verdicts,
        failure_class=row.get("failure_class"), findings=_findings(stored.get("findings")),
        counterfactual=headline_from_stored(stored.get("counterfactual"), verdicts),
        steps=step_tokens,
        step_count=row.get("steps") or len(step_tokens),
        prompt_tokens=row.get("prompt_tokens") or 0,
        completion_tokens=row.get("completion_tokens") or 0, seconds=row.get("seconds") or 0.0,
        final_sql=row.get("final_sql") or "", result=result if isinstance(result, dict) else {},
        started_at=row.get("started_at"), ended_at=row.get("ended_at"),
        judged_with=JudgedWith(question_from_snapshot(q) if q else None,
                               stored.get("tolerance"), bool(stored.get("ignore_names")),
                               bool(stored.get("rejudged"))) if stored else None,
        path=str(layered["path"]) if layered.get("path") else None,
        route_reason=str(layered.get("reason") or ""))


def question_rows(store: Store, run_id: int) -> list[dict[str, Any]]:
    """A SQL run's question rows exactly as stored (``*_json`` decoded): for the exports, which
    copy the stored shape (docs/EXPORTS.md). Everything else reads `load_eval`."""
    return store.sql_questions(run_id)


def step_rows(store: Store, question_row_id: int) -> list[dict[str, Any]]:
    """One question's agent steps exactly as stored (``*_json`` decoded), in order: for the
    exports; views read `steps_of`."""
    return store.sql_steps(question_row_id)


@dataclass(frozen=True)
class RecordedStep:
    """One model call of a stored agent loop as it can be sent again: the messages added before
    it (the previous reply, tool results, the harness's notes; the whole start at step 0), the
    tokens its reply had, its latency (s) and the prompt tokens the server counted for it (0 when
    it reported none)."""

    new_messages: tuple[dict, ...]
    completion_tokens: int
    latency_s: float
    prompt_tokens: int = 0


@dataclass(frozen=True)
class RecordedTask:
    """One question of a stored SQL evaluation as a conversation to replay as load: its steps,
    and the seconds the whole question took (model calls, tools and the harness)."""

    question_id: str
    epoch: int
    steps: tuple[RecordedStep, ...]
    seconds: float

    @property
    def between_steps_s(self) -> float:
        """What the loop spent outside model calls, spread over the gaps between its steps:
        tools (SQL in the sandbox) and the harness, as this question measured them."""
        if len(self.steps) < 2:
            return 0.0
        model = sum(s.latency_s for s in self.steps)
        return max(0.0, self.seconds - model) / (len(self.steps) - 1)


def recorded_tasks(store: Store, run_id: int) -> tuple[RecordedTask, ...]:
    """Every question of SQL run `run_id` that made at least one model call, as a conversation
    to replay (`throughput.replay`), in the run's order. A step whose stored messages are not
    a list of objects with a role (a file edited by hand) ends its conversation there."""
    tasks = []
    for row in question_rows(store, run_id):
        steps = []
        for step in step_rows(store, row["id"]):
            new = list_at(dict_at(step, "request_json"), "new")
            if not new or not all(isinstance(m, dict) and isinstance(m.get("role"), str)
                                  for m in new):
                break
            steps.append(RecordedStep(tuple(new), max(1, int(step.get("completion_tokens") or 1)),
                                      max(0.0, float(step.get("latency_s") or 0.0)),
                                      max(0, int(step.get("prompt_tokens") or 0))))
        if steps:
            seconds = row.get("seconds")
            tasks.append(RecordedTask(str(row["question_id"]), int(row.get("epoch") or 0),
                                      tuple(steps), float(seconds) if isinstance(
                                          seconds, (int, float)) and seconds > 0 else 0.0))
    return tuple(tasks)


def stored_question(store: Store, run_id: int, row_id: int) -> StoredQuestion | None:
    """One stored question of a run by its row id, typed (None if the run has no such row)."""
    row = next((r for r in question_rows(store, run_id) if r["id"] == row_id), None)
    return None if row is None else question_from_row(row)


@dataclass(frozen=True)
class QuestionElsewhere:
    """One question as another SQL run of the same question set answered it: the run, its row
    of that question (the same epoch where the run has it, else its first), and its verdicts
    (judge -> passed; empty when it never finished)."""

    run: RunInfo
    row_id: int
    epoch: int
    status: str
    passed: dict[str, bool] = field(hash=False)


def set_name_of(info: RunInfo) -> str:
    """The question set a SQL run asked (its name as the run stored it)."""
    config = info.config if isinstance(info.config, dict) else {}
    return str(config.get("set_name") or config.get("questions") or "sales-25")


def question_elsewhere(store: Store, run_id: int, question_id: str, epoch: int = 0
                       ) -> tuple[QuestionElsewhere, ...]:
    """Question `question_id` in the store's other SQL runs of the question set run `run_id`
    asked, newest run first: what the Inspector sets beside it. A run of another set that
    happens to use the same id is not the same question and is left out."""
    here = set_name_of(run_info(store.get_run(run_id)))
    by_run: dict[int, list[dict[str, Any]]] = {}
    for row in store.sql_questions(None, question_id=question_id):
        if row["run_id"] != run_id:
            by_run.setdefault(int(row["run_id"]), []).append(row)
    out = []
    for other in sorted(by_run, reverse=True):
        info = run_info(store.get_run(other))
        if info.kind != "sql" or set_name_of(info) != here:
            continue
        rows = by_run[other]
        row = next((r for r in rows if r["epoch"] == epoch), None) or min(
            rows, key=lambda r: r["epoch"])
        question = question_from_row(row)
        out.append(QuestionElsewhere(info, question.row_id, question.epoch, question.status,
                                     question.passed))
    return tuple(out)


def load_eval(store: Store, run_id: int, *, steps: bool = False) -> SqlRun:
    """The stored SQL run `run_id`, typed. `steps=True` also reads every question's steps
    (the Inspector and the PDF's effort figures need them; the Runs page does not).

    Raises NotFoundError for an unknown id, ValueError for a run of another kind. Blocking
    (SQLite): call it in a thread from the GUI.
    """
    record = store.get_run(run_id)
    if record.kind != "sql":
        raise ValueError(f"run {run_id} is a {record.kind} run, not a SQL evaluation")
    return eval_from(store, run_info(record), steps=steps)


def compared_judges(runs: Iterable[SqlRun]) -> tuple[str, ...]:
    """The judges whose pass rates the views of these runs show (the comparison, the export's
    summary), in the judges' order: Throughline's own wherever a verdict of theirs is stored,
    and a benchmark's official rule (spider2, bird, test-suite: computed for every answer) only
    where a run summarised it."""
    runs = list(runs)
    chosen = {j for r in runs for j in r.judges}

    def shown(name: str) -> bool:
        spec = get_judge(name)
        own = spec is None or spec.benchmark is None
        return (own or name in chosen) and any(r.pass_count(name).judged for r in runs)

    return tuple(j for j in judge_names() if shown(j))


def eval_from(store: Store, info: RunInfo, *, steps: bool = False) -> SqlRun:
    """`load_eval` for a run whose identity is already read."""
    questions = tuple(
        question_from_row(row, step_rows(store, row["id"]) if steps else ())
        for row in question_rows(store, info.id))
    configured = info.config.get("judges") if isinstance(info.config, dict) else None
    judges = tuple(configured or default_judges(True))
    judged_items = [q.item() for q in questions if q.judged]
    summary, tiers, spread = summarize(judged_items, judges)
    tolerance = info.config.get("tolerance") if isinstance(info.config, dict) else None
    return SqlRun(info, judges, tolerance, questions, summary, tiers, spread)
