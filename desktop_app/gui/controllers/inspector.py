"""The Inspector's work: read one stored question (through `sqleval.records`), re-run its gold
and final SQL read-only in the sandbox, and re-judge it at another tolerance; all of it in a
thread, reported as signals. The Inspector page only shows what arrives.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_app.core.compare.strategies import PATHS, LayeredPath
from desktop_app.core.runs import run_info
from desktop_app.core.sqleval.golds import Gold, GoldError, gold_answers, judge_answer
from desktop_app.core.sqleval.judge import counterfactual
from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set
from desktop_app.core.sqleval.records import (
    QuestionElsewhere,
    StoredStep,
    load_eval,
    question_elsewhere,
    stored_question,
    steps_of,
)
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError
from desktop_app.core.sqleval.types import (
    Headline,
    JudgeFinding,
    Question,
    QueryResult,
    Verdict,
)
from desktop_app.core.store import NotFoundError, Store
from desktop_app.gui.context import AppContext
from desktop_app.gui.i18n import status_text, translate
from desktop_app.gui.models.questions import QuestionRow

__all__ = ["InspectorController", "InspectorError", "QuestionDetail", "RejudgeOutcome",
           "pretty_sql", "read_question", "rejudge_question"]


@dataclass(frozen=True)
class QuestionDetail:
    """One stored question of a SQL run, as the Inspector shows it.

    `gold` / `actual` are the gold and final SQL re-run in the sandbox (the database is
    read-only, so they are what was judged); when the set's database is not available, `actual`
    is the stored first rows and the notes say why. `verdicts` are the stored verdicts.
    """

    run_id: int
    row_id: int
    run_name: str
    model: str
    simulated: bool
    question_id: str
    tier: str
    epoch: int
    status: str
    stop_reason: str
    language: str
    question: Question | None
    question_text: str
    gold_sql: str
    final_sql: str | None
    steps: tuple[StoredStep, ...]
    verdicts: dict[str, Verdict]
    counterfactual: Headline  # the line across judges, as values (report/judge_words says it)
    findings: tuple[JudgeFinding, ...]  # sqlglot's explanation of the final SQL
    tolerance: float
    ignore_names: bool
    rejudged: bool
    database: Path | None
    sql_time_limit_s: float
    gold: QueryResult | None
    gold_note: str
    actual: QueryResult | None
    actual_note: str
    # Every question row of the run, in the run's order (as `load_eval` reads them): the
    # Inspector's Previous / Next and question list walk these.
    run_questions: tuple[QuestionRow, ...] = ()
    # A layered run only: the path that answered ("fast" or "loop") and the stored reason.
    path: str | None = None
    route_reason: str = ""
    # The gold SQL laid out as the agent's queries usually are (one clause a line), for reading.
    gold_sql_pretty: str = ""
    # The judges the run summarised, in the judges' order.
    judges: tuple[str, ...] = ()
    # This question in the store's other runs of the same set, newest first (side by side).
    elsewhere: tuple[QuestionElsewhere, ...] = ()
    # The final SQL laid out as `gold_sql_pretty` is (two runs' answers read alike side by side).
    final_sql_pretty: str = ""

    def position(self) -> int:
        """This question's index in `run_questions` (-1 when it is not among them)."""
        return next((i for i, q in enumerate(self.run_questions) if q.row_id == self.row_id),
                    -1)


@dataclass(frozen=True)
class RejudgeOutcome:
    """New verdicts for a question at `tolerance`, computed without the model (not stored)."""

    tolerance: float
    verdicts: dict[str, Verdict]
    counterfactual: Headline
    gold: QueryResult
    actual: QueryResult | None
    actual_note: str


class InspectorError(Exception):
    """A question that cannot be shown or re-judged, with a sentence for the user."""


def _stored_result(data: dict | None) -> QueryResult | None:
    if not data or not data.get("columns"):
        return None
    return QueryResult(tuple(data["columns"]), tuple(tuple(r) for r in data.get("rows") or ()),
                       data.get("total_rows"), bool(data.get("truncated")))


def _golds(sandbox: Sandbox, question: Question) -> tuple[tuple[Gold, ...], str]:
    try:
        return gold_answers(question, sandbox), ""
    except GoldError as exc:
        return (), str(exc)


def _run(sandbox: Sandbox, sql: str | None) -> tuple[QueryResult | None, str]:
    if not sql:
        return None, translate("InspectorPage", "no final SQL")
    try:
        return sandbox.run(sql), ""
    except SandboxError as exc:
        return None, str(exc)


def pretty_sql(sql: str) -> str:
    """`sql` laid out one clause a line, as sqlglot writes SQLite (what the agent's queries
    look like in the steps); `sql` as it is when it cannot be parsed. For reading only: the
    judges run the stored text."""
    if not sql.strip():
        return sql
    try:
        import sqlglot

        out = sqlglot.transpile(sql, read="sqlite", write="sqlite", pretty=True)
    except Exception:  # noqa: BLE001 - any parse failure shows the text as stored
        return sql
    return ";\n\n".join(out) if out else sql


def read_question(db_path: Path, sets_dir: Path, cache_dir: Path, run_id: int,
                  row_id: int) -> QuestionDetail:
    """Read a stored question and its steps and re-run its gold and final SQL (blocking: the
    controller calls it in a thread). Raises InspectorError for an unknown run or row."""
    with Store.open(db_path) as store:
        try:
            info = run_info(store.get_run(run_id))
        except NotFoundError:
            raise InspectorError(translate("InspectorPage", "There is no run {run} in {path}.")
                                 .format(run=run_id, path=db_path)) from None
        if info.kind != "sql":
            raise InspectorError(translate(
                "InspectorPage", "Run {run} is a {kind} run, not a SQL evaluation.").format(
                run=run_id, kind=status_text(info.kind)))
        stored = stored_question(store, run_id, row_id)
        if stored is None:
            raise InspectorError(translate("InspectorPage", "Run {run} has no question row "
                                           "{row}.").format(run=run_id, row=row_id))
        steps = steps_of(store, row_id)
        route = (LayeredPath(stored.path, stored.route_reason) if stored.path in PATHS
                 else None)
        run = load_eval(store, run_id)
        run_questions = tuple(QuestionRow.from_stored(q) for q in run.questions)
        elsewhere = question_elsewhere(store, run_id, stored.question_id, stored.epoch)
    judged_with = stored.judged_with
    config = info.config
    question = judged_with.question if judged_with else None
    database, note = None, ""
    try:
        qset = load_question_set(config.get("set_path") or config.get("questions") or "sales-25",
                                 sets_dir=sets_dir, cache_dir=cache_dir, check_gold=False)
        if question is None:
            question = next((q for q in qset.questions if q.id == stored.question_id), None)
        if question is not None:
            database = qset.databases.get(question.database)
        golds = {q.id: q.gold_sql for q in qset.questions}
        run_questions = tuple(dataclasses.replace(r, gold_sql=golds.get(r.question_id, ""))
                              for r in run_questions)
    except (QuestionSetError, OSError) as exc:
        note = translate("InspectorPage", "the question set cannot be loaded: {error}").format(
            error=exc)
    limit = float(config.get("sql_time_limit_s") or 5.0)
    final_sql = stored.final_sql or None
    gold = actual = None
    gold_note, actual_note = note or translate("InspectorPage", "not available"), ""
    if database is not None and question is not None:
        try:
            with Sandbox(database, time_limit_s=limit) as sandbox:
                golds, gold_note = _golds(sandbox, question)
                gold = golds[0].result if golds else None
                actual, actual_note = _run(sandbox, final_sql)
        except (SandboxError, OSError) as exc:
            gold_note = translate("InspectorPage", "the database cannot be opened: {error}"
                                  ).format(error=exc)
            database = None
    if database is None or question is None:
        actual = _stored_result(stored.result)
        actual_note = translate("InspectorPage", "as stored") if actual is not None else (
            stored.result.get("error") or translate("InspectorPage", "no result"))
    language = config.get("language") or "en"
    return QuestionDetail(
        run_id, row_id, info.name, info.model, info.simulated, stored.question_id, stored.tier,
        stored.epoch, stored.status, stored.stop_reason, language, question,
        question.text(language) if question
        else translate("InspectorPage", "(the question's text was not stored)"),
        question.gold_sql if question else "", final_sql, steps, dict(stored.verdicts),
        stored.counterfactual, stored.findings,
        float((judged_with and judged_with.tolerance) or config.get("tolerance") or 1e-6),
        bool(judged_with and judged_with.ignore_names),
        bool(judged_with and judged_with.rejudged), database,
        limit, gold, gold_note, actual, actual_note, run_questions,
        route.path if route else None, route.reason if route else "",
        pretty_sql(question.gold_sql) if question else "", run.judges, elsewhere,
        pretty_sql(final_sql or ""))


def rejudge_question(detail: QuestionDetail, tolerance: float) -> RejudgeOutcome:
    """Run the gold and final SQL again and judge under every judge at `tolerance`, without
    the model and without writing to the store (blocking: the controller calls it in a
    thread)."""
    if detail.question is None or detail.database is None:
        raise InspectorError(translate("InspectorPage", "Cannot re-judge: the question's "
                                       "database is not available."))
    with Sandbox(detail.database, time_limit_s=detail.sql_time_limit_s) as sandbox:
        golds, gold_error = _golds(sandbox, detail.question)
        actual, error = _run(sandbox, detail.final_sql)
        if not golds:
            raise InspectorError(translate("InspectorPage", "Cannot re-judge: the gold SQL "
                                           "failed: {error}").format(error=gold_error))
        verdicts = judge_answer(detail.question, golds, actual, sandbox=sandbox,
                                final_sql=detail.final_sql,
                                error=error or None,
                                stop_reason=detail.stop_reason or "submitted",
                                tolerance=tolerance, ignore_names=detail.ignore_names)
    return RejudgeOutcome(tolerance, verdicts, counterfactual(verdicts), golds[0].result,
                          actual, error)


class InspectorController(QObject):
    """Owns the task that reads a question or re-judges it (in a thread: SQLite, the sandbox
    and the judge all block), and reports the outcome as signals. Starting one cancels the
    other."""

    loaded = Signal(object)  # QuestionDetail
    load_failed = Signal(str)
    rejudged = Signal(object)  # RejudgeOutcome
    rejudge_failed = Signal(str)

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self.task: asyncio.Task | None = None

    def load(self, run_id: int, row_id: int) -> asyncio.Task:
        """Read question row `row_id` of run `run_id`; emits loaded or load_failed."""
        c = self._context
        return self._start(self.loaded, self.load_failed, read_question, c.db_path,
                           c.sets_dir, c.cache_dir, run_id, row_id)

    def rejudge(self, detail: QuestionDetail, tolerance: float) -> asyncio.Task:
        """Judge `detail` again at `tolerance`; emits rejudged or rejudge_failed."""
        return self._start(self.rejudged, self.rejudge_failed, rejudge_question, detail,
                           tolerance)

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def _start(self, done: Any, failed: Any, work: Callable[..., Any], *args: Any
               ) -> asyncio.Task:
        self.cancel()
        self.task = asyncio.ensure_future(self._in_thread(done, failed, work, *args))
        return self.task

    @staticmethod
    async def _in_thread(done: Any, failed: Any, work: Callable[..., Any], *args: Any) -> None:
        """Run `work(*args)` in a thread, then emit `done(result)` or `failed(message)`."""
        try:
            result = await asyncio.to_thread(work, *args)
        except Exception as exc:  # noqa: BLE001 - shown to the user as is
            failed.emit(str(exc) if isinstance(exc, InspectorError)
                        else f"{type(exc).__name__}: {exc}")
            return
        done.emit(result)
