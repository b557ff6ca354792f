"""The SQL evaluation run: load a question set, run the agent on every question, judge, store.

`run_eval` is the one entry point the CLI and the GUI share. It reports progress through a plain
callback, hands every agent step to the store's writer as soon as the step is done, judges each
final answer under all three judges (the requested ones make the summary; all three make the
counterfactual line), and on cancellation marks the questions in flight and the run `cancelled`
and re-raises. `rejudge` judges a stored run again from its stored final SQL, without a model.

What is stored per question (`sql_questions`), documented in docs/SQL-EVAL.md:
`verdicts_json` = {"verdicts": {judge: {passed, findings: [{code, params, cells}], tolerance}},
"counterfactual": {failing, passing, reason}, "findings": [sqlglot findings], "tolerance", "ignore_names",
"judged_at", "rejudged", "question": {the question's metadata, so a re-judge does not depend
on the set file}, and with the layered strategy "layered": {"path": "fast"|"loop", "reason"}};
`result_json` = {columns, rows (first 20), total_rows, truncated, error}.
Per step (`sql_steps`): `request_json` = {"messages": count sent, "new": the messages added since
the previous step}, `reply_json` = the assistant message, `tool_args_json` / `tool_result_json`
= one entry per tool call.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from desktop_app.core import engines
from desktop_app.core.endpoint.client import make_client
from desktop_app.core.endpoint.discovery import choose_model, count_chat_tokens, discover
from desktop_app.core.endpoint.server_settings import stored_settings
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo
from desktop_app.core.parsing import InputError
from desktop_app.core.runs import default_name, is_simulated
from desktop_app.core.sqleval.agent import run_layered, run_question
from desktop_app.core.sqleval.explain import explain_sql
from desktop_app.core.sqleval.config import EvalConfig
from desktop_app.core.sqleval.export import (
    failure_class,
    question_from_snapshot,
    result_json,
    step_row,
    verdicts_json,
)
from desktop_app.core.sqleval.golds import Gold, GoldError, gold_answers, judge_answer
from desktop_app.core.sqleval.judge import counterfactual
from desktop_app.core.sqleval.judges import default_judges, judge_names
from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set
# The run's types live in config and results (one home); named here too for its callers.
from desktop_app.core.sqleval.records import question_rows
from desktop_app.core.sqleval.results import (
    EpochSpread,
    EvalResult,
    ItemResult,
    JudgeSummary,
    TierStats,
    passed,
    summarize,
)
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError
from desktop_app.core.sqleval.types import (
    AgentStep,
    Headline,
    JudgeFinding,
    Question,
    QuestionOutcome,
    QueryResult,
    QuestionSet,
    SkippedQuestion,
    Verdict,
)
from desktop_app.core.store import NotFoundError, RunWriter, Store, utc_now_iso

__all__ = ["EvalConfig", "EvalProgress", "EvalResult", "EpochSpread", "ItemResult",
           "JudgeSummary", "TierStats", "rejudge", "run_eval", "summarize"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvalProgress:
    """Where an evaluation is. `phase`: loading, discovering, gold, running, done.

    `done`/`total` count question runs (questions x epochs); `passed` counts passes so far per
    requested judge; `latest` is the item that just finished; `step` the step that just finished
    (its question is `question_id`). `elapsed_s` is seconds since the start.
    """

    phase: str
    done: int = 0
    total: int = 0
    question_id: str | None = None
    epoch: int = 0
    step: AgentStep | None = None
    latest: ItemResult | None = None
    passed: dict[str, int] = field(default_factory=dict)
    elapsed_s: float = 0.0


ProgressCallback = Callable[[EvalProgress], None]


# --------------------------------------------------------------------------- shared pieces


def _load_set(name_or_path: str, sets_dir: Path, cache_dir: Path, *, check_gold: bool
              ) -> QuestionSet:
    try:
        return load_question_set(str(name_or_path), sets_dir=sets_dir, cache_dir=cache_dir,
                                 check_gold=check_gold)
    except QuestionSetError as exc:
        if exc.code:  # one problem with a code: the reader's language can say it
            raise InputError("questions", code=exc.code, **exc.params) from None
        raise InputError("questions", str(exc)) from None


class _Sandboxes:
    """One read-only Sandbox per database of the set, opened at first use, closed together."""

    def __init__(self, qset: QuestionSet, sql_time_limit_s: float) -> None:
        self.qset = qset
        self.limit = sql_time_limit_s
        self.stack = ExitStack()
        self.open: dict[str, Sandbox] = {}
        self.gold: dict[str, tuple[Gold, ...] | str] = {}  # question id -> golds or error

    def get(self, key: str) -> Sandbox:
        if key not in self.open:
            path = self.qset.databases.get(key)
            if path is None:
                raise InputError("questions", code="set_no_database", set=self.qset.name,
                                 key_name=repr(key))
            try:
                self.open[key] = self.stack.enter_context(Sandbox(path, time_limit_s=self.limit))
            except (SandboxError, OSError) as exc:
                raise InputError("questions", code="cannot_open_db", path=path,
                                 detail=str(exc)) from None
        return self.open[key]

    def gold_result(self, q: Question) -> tuple[Gold, ...] | str:
        """The question's accepted answers (read once per question), or why they cannot be."""
        if q.id not in self.gold:
            try:
                self.gold[q.id] = gold_answers(q, self.get(q.database))
            except GoldError as exc:
                self.gold[q.id] = str(exc)
        return self.gold[q.id]

    def close(self) -> None:
        self.stack.close()


def _run_sql(sandbox: Sandbox, sql: str | None) -> tuple[QueryResult | None, str | None]:
    if not sql:
        return None, None
    try:
        return sandbox.run(sql), None
    except SandboxError as exc:
        return None, str(exc)


def _judge(question: Question, golds: tuple[Gold, ...], final_sql: str | None,
           result: QueryResult | None, error: str | None, stop_reason: str, tolerance: float,
           ignore_names: bool, sandbox: Sandbox, judges: tuple[str, ...] = ()
           ) -> tuple[dict[str, Verdict], Headline, tuple[JudgeFinding, ...]]:
    """The verdicts of Throughline's own judges (all of them, stored whichever the run
    summarises) and of the other `judges` the run summarises (a benchmark's rule), the
    counterfactual line, and sqlglot's explanation (blocking)."""
    modes = tuple(dict.fromkeys((*default_judges(True), *judges)))
    verdicts = judge_answer(question, golds, result, sandbox=sandbox, modes=modes,
                            final_sql=final_sql, error=error, stop_reason=stop_reason,
                            tolerance=tolerance, ignore_names=ignore_names)
    findings: tuple[JudgeFinding, ...] = ()
    if final_sql:
        try:
            findings = tuple(explain_sql(final_sql, question))
        except Exception:  # an explanation is a bonus: a parser bug must not lose the verdicts
            log.exception("explaining the SQL of %s", question.id)
    return verdicts, counterfactual(verdicts), findings


# --------------------------------------------------------------------------- the run


class _Run:
    """The state of one evaluation while it runs."""

    def __init__(self, config: EvalConfig, qset: QuestionSet, boxes: _Sandboxes,
                 result: EvalResult, on_progress: ProgressCallback | None, total: int) -> None:
        self.config = config
        self.qset = qset
        self.boxes = boxes
        self.result = result
        self.on_progress = on_progress or (lambda _p: None)
        self.writer: RunWriter | None = None
        self.t0 = time.monotonic()
        self.total = total
        self.done = 0
        # run_eval fitted the config to its set (EvalConfig.for_set): both are filled in.
        assert config.judges is not None and config.ignore_names is not None
        self.judges: tuple[str, ...] = config.judges
        self.ignore_names: bool = config.ignore_names
        self.passed = {j: 0 for j in config.judges}

    def progress(self, phase: str, **kw) -> None:
        self.on_progress(EvalProgress(phase, done=self.done, total=self.total,
                                      passed=dict(self.passed),
                                      elapsed_s=time.monotonic() - self.t0, **kw))


async def run_eval(config: EvalConfig, store: Store | None = None,
                   on_progress: ProgressCallback | None = None, *, sets_dir: Path,
                   cache_dir: Path, client: httpx.AsyncClient | None = None,
                   info: EndpointInfo | None = None) -> EvalResult:
    """Run the evaluation `config` describes and return every question's outcome and summary.

    `sets_dir` holds the bundled sets (`paths.questions_dir()`), `cache_dir` the databases built
    from code. `client` (tests: an httpx.MockTransport) and `info` (a discovery already made)
    are optional. Raises InputError (bad config or question set; no question selected) or
    EndpointError (discovery failed) before anything is stored. Cancelling the task marks the
    questions in flight and the run `cancelled` in the store and re-raises CancelledError.
    """
    config.validate()
    on_progress = on_progress or (lambda _p: None)
    on_progress(EvalProgress("loading"))
    qset = await asyncio.to_thread(_load_set, config.questions, sets_dir, cache_dir,
                                   check_gold=True)
    config = config.for_set(qset)
    questions = [q for q in qset.questions
                 if (not config.tiers or q.tier in config.tiers)
                 and (not config.question_ids or q.id in config.question_ids)]
    skipped = {s.id: s for s in qset.skipped}
    unusable = [f"{i} was skipped ({skipped[i].source}: {skipped[i].reason})"
                for i in config.question_ids if i in skipped]
    missing = [i for i in config.question_ids
               if i not in {q.id for q in qset.questions} and i not in skipped]
    if missing or unusable:
        raise InputError("question ids", "; ".join(
            unusable + ([f"not in {qset.name}: {', '.join(missing)}"] if missing else [])))
    if not questions:
        raise InputError("tiers", code="no_question_matches", set=qset.name)
    async with _client(config, client) as http:
        on_progress(EvalProgress("discovering"))
        if info is None:
            info = await discover(config.endpoint, http)
        config = dataclasses.replace(config, endpoint=choose_model(config.endpoint, info))
        simulated = info.simulated or is_simulated(None, config.endpoint.model)
        result = EvalResult(None, qset.name, config.endpoint.model, config.judges or (),
                            config.tolerance, skipped=list(qset.skipped), config=config,
                            info=info, simulated=simulated)
        boxes = _Sandboxes(qset, config.sql_time_limit_s)
        try:
            run = _Run(config, qset, boxes, result, on_progress, len(questions) * config.epochs)
            run.progress("gold")
            questions = await asyncio.to_thread(_gold_results, boxes, questions, result)
            run.total = len(questions) * config.epochs
            if store is not None:
                identity: dict[str, Any] = dict(
                    endpoint_url=config.endpoint.base_url, model=config.endpoint.model,
                    engine=engines.run_label(info.engine, info.simulated),
                    config={**config.to_json(), "set_name": qset.name,
                            "set_path": str(qset.path),
                            **stored_settings(info.server_settings, config.server_settings)})
                name = config.name or await asyncio.to_thread(
                    default_name, store, "sql", f"{config.endpoint.model} {qset.name}",
                    **identity)
                result.run_id = await asyncio.to_thread(
                    store.create_run, "sql", name=name, notes=config.notes or None, **identity)
                run.writer = store.writer()
            await _execute(run, http, questions, store)
        finally:
            await asyncio.to_thread(boxes.close)
    return result.finalize()


def _client(config: EvalConfig, client: httpx.AsyncClient | None):
    if client is not None:
        from contextlib import nullcontext
        return nullcontext(client)
    return make_client(config.endpoint, config.concurrency)


def _gold_results(boxes: _Sandboxes, questions: list[Question], result: EvalResult
                  ) -> list[Question]:
    """Run every gold query once; a failing one moves its question to `result.skipped`."""
    kept = []
    for q in questions:
        gold = boxes.gold_result(q)
        if isinstance(gold, str):
            result.skipped.append(SkippedQuestion(q.id, q.source, gold))
        else:
            kept.append(q)
    return kept


async def _execute(run: _Run, http: httpx.AsyncClient, questions: list[Question],
                   store: Store | None) -> None:
    status, error = "completed", None
    try:
        semaphore = asyncio.Semaphore(run.config.concurrency)

        async def one(q: Question, epoch: int) -> None:
            async with semaphore:
                item = await _run_one(run, http, q, epoch)
            run.result.items.append(item)
            run.done += 1
            for j in run.passed:
                run.passed[j] += passed(item, j)
            run.progress("running", question_id=q.id, epoch=epoch, latest=item)

        run.progress("running")
        for epoch in range(run.config.epochs):
            async with asyncio.TaskGroup() as group:
                for q in questions:
                    group.create_task(one(q, epoch))
    except asyncio.CancelledError:
        status = run.result.status = "cancelled"
        raise
    except Exception as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        run.result.status = "failed"
        raise
    finally:
        if run.writer is not None:
            await asyncio.to_thread(run.writer.close)
        if store is not None and run.result.run_id is not None:
            await asyncio.to_thread(store.finish_run, run.result.run_id, status, error)
        run.progress("done")


def _prompt_counter(http: httpx.AsyncClient, endpoint: EndpointConfig,
                    info: EndpointInfo | None):
    """The server's tokenizer for the agent's prompts (None: it has none the agent can use)."""
    if info is None or info.tokenizer not in ("vllm", "llamacpp"):
        return None

    async def count(messages: list, tools: list | None) -> int | None:
        return await count_chat_tokens(http, endpoint, info, messages, tools)
    return count


def context_tokens(info: EndpointInfo | None, config: EvalConfig) -> int | None:
    """The model's context in tokens, as the server reports it (vLLM's max_model_len in
    /v1/models, llama.cpp's n_ctx, SGLang's context_length, TGI's max_total_tokens), else as
    the user typed it (`max_model_len`); None when neither says or the value is implausible."""
    from desktop_app.core.endpoint import limits

    settings = getattr(info, "server_settings", None)
    candidates = [getattr(settings, "values", {}).get("max_model_len"),
                  (config.server_settings or {}).get("max_model_len")]
    for value in candidates:
        if (isinstance(value, int) and not isinstance(value, bool)
                and 0 < value <= limits.MAX_PLAUSIBLE_TOKENS):
            return value
    return None


async def _run_one(run: _Run, http: httpx.AsyncClient, q: Question, epoch: int) -> ItemResult:
    config, writer, run_id = run.config, run.writer, run.result.run_id
    sandbox = run.boxes.get(q.database)
    row_id = None
    if writer is not None and run_id is not None:
        row_id = await asyncio.to_thread(writer.add_sql_question, {
            "run_id": run_id, "question_id": q.id, "epoch": epoch, "tier": q.tier,
            "status": "running", "started_at": utc_now_iso()})
    steps: list[AgentStep] = []

    def on_step(step: AgentStep) -> None:
        steps.append(step)
        if writer is not None and run_id is not None and row_id is not None:
            writer.add_sql_step(step_row(run_id, row_id, step))
        run.progress("running", question_id=q.id, epoch=epoch, step=step)

    t0 = time.monotonic()
    route = None
    try:
        common = dict(
            strategies=config.strategies, max_steps=config.max_steps,
            max_tokens=config.max_tokens, time_limit_s=config.time_limit_s,
            language=config.language, tool_mode=config.tool_mode, on_step=on_step,
            glossary=run.qset.glossary, database_note=run.qset.database_note(q.database),
            temperature=config.temperature, retries=config.retries,
            context_tokens=context_tokens(run.result.info, config),
            count_prompt=_prompt_counter(http, config.endpoint, run.result.info))
        if "layered" in config.strategies:
            # The route sees the question and the sandbox only: the gold is read below, to judge.
            _, stop, final_sql, route = await run_layered(
                http, config.endpoint, q, sandbox, route=config.layered_route, **common)
        else:
            _, stop, final_sql = await run_question(http, config.endpoint, q, sandbox, **common)
    except asyncio.CancelledError:
        if writer is not None and row_id is not None:
            writer.update_sql_question(row_id, {
                "status": "cancelled", "stop_reason": "cancelled", "steps": len(steps),
                "prompt_tokens": sum(s.prompt_tokens for s in steps),
                "completion_tokens": sum(s.completion_tokens for s in steps),
                "seconds": time.monotonic() - t0, "ended_at": utc_now_iso()})
        raise
    seconds = time.monotonic() - t0
    gold = run.boxes.gold_result(q)
    assert not isinstance(gold, str)  # _gold_results kept the questions whose gold ran
    result, error = await asyncio.to_thread(_run_sql, sandbox, final_sql)
    verdicts, line, findings = await asyncio.to_thread(
        _judge, q, gold, final_sql, result, error, stop, config.tolerance, run.ignore_names,
        sandbox, run.judges)
    outcome = QuestionOutcome(
        q.id, q.tier, epoch, tuple(steps), stop, final_sql, result, error, verdicts,
        sum(s.prompt_tokens for s in steps), sum(s.completion_tokens for s in steps), seconds,
        run.result.simulated, route.path if route else None, route.reason if route else None)
    item = ItemResult(outcome, line, findings, len(steps), row_id)
    if writer is not None and row_id is not None:
        writer.update_sql_question(row_id, {
            "status": "completed", "stop_reason": stop,
            "failure_class": failure_class(verdicts, run.judges),
            "verdicts_json": verdicts_json(item, q, config.tolerance, run.ignore_names, False),
            "steps": len(steps), "prompt_tokens": outcome.prompt_tokens,
            "completion_tokens": outcome.completion_tokens, "seconds": seconds,
            "final_sql": final_sql, "result_json": result_json(result, error),
            "ended_at": utc_now_iso()})
    return item


# --------------------------------------------------------------------------- re-judging


async def rejudge(store: Store, run_id: int, *, modes: tuple[str, ...] | None = None,
                  tolerance: float = 1e-6, ignore_names: bool = False, sets_dir: Path,
                  cache_dir: Path, sql_time_limit_s: float = 5.0) -> EvalResult:
    """Judge a stored SQL run again from its stored final SQL, without calling any model.

    Each completed question's final SQL (and its gold SQL, from the question metadata stored
    with it) is run again in the sandbox and judged under all three judges at `tolerance`; the
    new verdicts replace the stored ones (`rejudged: true`). `modes` are the judges summarised
    (None: the set's defaults, `judges.default_judges`).
    The run's databases come from its question set (re-built from code if needed). Raises
    InputError for an unknown run, a run that is not a SQL run, or a set that cannot be loaded.
    """
    bad = [m for m in modes or () if m not in judge_names()]
    if bad or modes == ():
        raise InputError("judges", code="choose_from", choices=", ".join(judge_names()))
    if not (tolerance >= 0 and math.isfinite(tolerance)):
        raise InputError("tolerance", code="not_negative_number", item=repr(tolerance))
    try:
        record = await asyncio.to_thread(store.get_run, run_id)
    except NotFoundError:
        raise InputError("run", code="no_run", run=run_id, path=store.path) from None
    if record.kind != "sql":
        raise InputError("run", code="not_sql_run", run=run_id, kind=record.kind)
    stored = record.config or {}
    where = stored.get("set_path") or stored.get("questions") or "sales-25"
    qset = await asyncio.to_thread(_load_set, where, sets_dir, cache_dir, check_gold=False)
    modes = default_judges(qset.asks_columns, qset.benchmark) if modes is None else modes

    rows = await asyncio.to_thread(question_rows, store, run_id)
    by_id = {q.id: q for q in qset.questions}
    result = EvalResult(run_id, qset.name, record.model or "", tuple(modes), tolerance,
                        status=record.status, rejudged=True,
                        simulated=is_simulated(record.engine, record.model))
    boxes = _Sandboxes(qset, sql_time_limit_s)
    try:
        for row in rows:
            if row.get("status") != "completed":
                continue
            verdicts_stored = row.get("verdicts_json") or {}
            q = question_from_snapshot(verdicts_stored.get("question")) or by_id.get(
                row["question_id"])
            if q is None:
                result.skipped.append(SkippedQuestion(row["question_id"], "",
                                                      "no stored metadata and not in the set"))
                continue
            item = await asyncio.to_thread(_rejudge_row, store, boxes, q, row, tolerance,
                                           ignore_names, result.simulated, modes)
            if isinstance(item, SkippedQuestion):
                result.skipped.append(item)
            else:
                result.items.append(item)
    finally:
        await asyncio.to_thread(boxes.close)
    return result.finalize()


def _rejudge_row(store: Store, boxes: _Sandboxes, q: Question, row: dict, tolerance: float,
                 ignore_names: bool, simulated: bool,
                 judges: tuple[str, ...]) -> ItemResult | SkippedQuestion:
    gold = boxes.gold_result(q)
    if isinstance(gold, str):
        return SkippedQuestion(q.id, q.source, gold)
    final_sql = row.get("final_sql")
    stop = row.get("stop_reason") or "submitted"
    sandbox = boxes.get(q.database)
    result, error = _run_sql(sandbox, final_sql)
    verdicts, line, findings = _judge(q, gold, final_sql, result, error, stop, tolerance,
                                      ignore_names, sandbox, judges)
    layered = (row.get("verdicts_json") or {}).get("layered") or {}
    outcome = QuestionOutcome(
        q.id, q.tier, row.get("epoch") or 0, (), stop, final_sql, result, error, verdicts,
        row.get("prompt_tokens") or 0, row.get("completion_tokens") or 0,
        row.get("seconds") or 0.0, simulated, layered.get("path"), layered.get("reason"))
    item = ItemResult(outcome, line, findings, row.get("steps") or 0, row["id"])
    store.update_sql_question(
        row["id"], verdicts_json=verdicts_json(item, q, tolerance, ignore_names, True),
        failure_class=failure_class(verdicts, judges), result_json=result_json(result, error))
    return item
