"""Owns the task of a SQL evaluation (`run_eval`) and the loading of a stored one.

The core reports progress through a plain callback; this turns it into Qt signals. It also turns
what a user typed in the form into an `EvalConfig` (`config_from_form`), so the page only
arranges widgets.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_app.core.compare.strategies import (
    PathEntry,
    PathShare,
    path_split,
    run_split,
)
from desktop_app.core.endpoint.client import EndpointError
from desktop_app.core.endpoint.server_settings import user_settings
from desktop_app.core.parsing import InputError, parse_int_list
from desktop_app.core.runs import run_info
from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set
from desktop_app.core.sqleval.records import SqlRun, eval_from
from desktop_app.core.sqleval.runner import EvalConfig, EvalProgress, EvalResult, run_eval
from desktop_app.core.sqleval.judges import judge_names
from desktop_app.core.store import Store, StoreError
from desktop_app.gui.context import AppContext
from desktop_app.gui.i18n import error_words, report_language, translate
from desktop_app.report.endpoint_words import endpoint_error_text
from desktop_app.report.store_words import store_error_text
from desktop_app.gui.models.questions import QuestionRow
from desktop_app.gui.worker import run_in_worker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FormValues:
    """What the SQL form holds, as typed (numbers are text until `config_from_form`)."""

    questions: str = "sales-25"
    tiers: tuple[str, ...] = ()
    question_ids: str = ""  # comma-separated; empty: all
    model: str = ""  # empty: the endpoint's own (or its first listed) model
    judges: tuple[str, ...] = dataclasses.field(default_factory=judge_names)
    tolerance: str = "1e-6"
    strategies: tuple[str, ...] = ()
    max_steps: str = "20"
    max_tokens: str = ""
    time_limit_s: str = "600"
    concurrency: str = "4"
    epochs: str = "1"
    retries: str = "0"
    language: str = "en"
    name: str = ""  # empty: the evaluation names the run after its model and question set
    notes: str = ""
    server_settings: str = ""  # "max-num-seqs=2, gpu-memory-utilization=0.91" (or one a line)


def _one_int(text: str, field: str, *, optional: bool = False,
             min_value: int = 1) -> int | None:
    if optional and not text.strip():
        return None
    values = parse_int_list(text, field, min_value=min_value)
    if len(values) != 1:
        raise InputError(field, translate("SqlEvalController", "{text}: give one whole number")
                         .format(text=repr(text.strip())))
    return values[0]


def _one_float(text: str, field: str, *, optional: bool = False) -> float | None:
    if optional and not text.strip():
        return None
    try:
        return float(text)
    except ValueError:
        raise InputError(field, translate("SqlEvalController", "{text} is not a number")
                         .format(text=repr(text.strip()))) from None


def parse_question_ids(text: str, known: Collection[str] | None = None,
                       set_name: str = "the set") -> tuple[str, ...]:
    """Question ids typed as "m01, h01" (commas or spaces; duplicates dropped, order kept);
    with `known`, an id not in it raises InputError("question ids") naming it."""
    ids = tuple(dict.fromkeys(i for i in re.split(r"[,\s]+", text.strip()) if i))
    if known is not None:
        unknown = [i for i in ids if i not in known]
        if unknown:
            message = (translate("SqlEvalController", "{ids} is not in {set}")
                       if len(unknown) == 1 else
                       translate("SqlEvalController", "{ids} are not in {set}"))
            raise InputError("question ids", message.format(ids=", ".join(map(repr, unknown)),
                                                            set=set_name))
    return ids


def default_run_name(config: EvalConfig) -> str:
    """The name the evaluation `config` gets when none is typed: its model and question set
    (a set folder by its folder's name)."""
    return f"{config.endpoint.model} {Path(config.questions).name}"


def config_from_form(form: FormValues, context: AppContext, *,
                     known_ids: Collection[str] | None = None) -> EvalConfig:
    """The EvalConfig the form describes, validated; raises InputError naming the field
    (including "endpoint" when no endpoint is active). `known_ids` are the chosen set's
    question ids when they are known (then an unknown id is refused here)."""
    endpoint = context.endpoint
    if endpoint is None:
        raise InputError("endpoint", translate(
            "SqlEvalController", "no endpoint is active: choose one on the Endpoints page"))
    config = endpoint.config
    if form.model.strip():
        config = dataclasses.replace(config, model=form.model.strip())
    elif not config.model and endpoint.info is not None and endpoint.info.models:
        config = dataclasses.replace(config, model=endpoint.info.models[0])
    if not form.tiers:
        raise InputError("tiers", translate("SqlEvalController", "choose at least one tier"))
    question_ids = parse_question_ids(form.question_ids, known_ids, form.questions)
    result = EvalConfig(
        endpoint=config, questions=form.questions, tiers=form.tiers,
        question_ids=question_ids, judges=form.judges,
        tolerance=_one_float(form.tolerance, "tolerance"), strategies=form.strategies,
        max_steps=_one_int(form.max_steps, "max steps"),
        max_tokens=_one_int(form.max_tokens, "max tokens", optional=True),
        time_limit_s=_one_float(form.time_limit_s, "time limit", optional=True),
        concurrency=_one_int(form.concurrency, "concurrency"),
        epochs=_one_int(form.epochs, "epochs"), language=form.language,
        retries=_one_int(form.retries, "retries", optional=True, min_value=0) or 0,
        name=form.name.strip(), notes=form.notes.strip(),
        server_settings=user_settings(form.server_settings, "server settings"))
    result.validate()
    return result


@dataclass(frozen=True)
class StoredSqlRun:
    """A stored SQL run as the page shows it: the run as `sqleval.records` reads it (its pass
    counts are the ones every view shows) and its questions as table rows."""

    run: SqlRun
    rows: tuple[QuestionRow, ...]
    # A layered run: the questions each path answered, with passes, tokens and seconds.
    paths: tuple[PathShare, ...] = ()

    @classmethod
    def from_run(cls, run: SqlRun, paths: tuple[PathShare, ...] = ()) -> StoredSqlRun:
        return cls(run, tuple(QuestionRow.from_stored(q) for q in run.questions), paths)

    @property
    def run_id(self) -> int:
        return self.run.info.id

    @property
    def name(self) -> str:
        return self.run.info.name

    @property
    def status(self) -> str:
        return self.run.info.status

    @property
    def judges(self) -> tuple[str, ...]:
        """The judges the run summarised."""
        return self.run.judges

    @property
    def simulated(self) -> bool:
        """A simulator persona or a simulated endpoint answered."""
        return self.run.info.simulated

    @property
    def model(self) -> str:
        """The model the run asked (a persona's name on the simulator)."""
        return self.run.info.model

    def _chosen(self, key: str) -> tuple[str, ...] | None:
        value = self.run.info.config.get(key)
        return tuple(str(v) for v in value) if isinstance(value, list | tuple) else None

    # What the run's stored config chose (None: not stored); empty tiers / ids mean all.
    @property
    def tiers(self) -> tuple[str, ...] | None:
        return self._chosen("tiers")

    @property
    def stored_judges(self) -> tuple[str, ...] | None:
        return self._chosen("judges")

    @property
    def strategies(self) -> tuple[str, ...] | None:
        return self._chosen("strategies")

    @property
    def question_ids(self) -> tuple[str, ...] | None:
        return self._chosen("question_ids")


class _RecordingStore:
    """The Store run_eval writes to, noting the run id when the run is created: the runner
    reports it only on return, and Stop and double-click need it earlier."""

    def __init__(self, store: Store, on_created) -> None:
        self._store = store
        self._on_created = on_created

    def create_run(self, *args: Any, **kwargs: Any) -> int:
        run_id = self._store.create_run(*args, **kwargs)
        self._on_created(run_id)
        return run_id

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class SqlEvalController(QObject):
    """Runs one SQL evaluation at a time against the context's endpoint and reports it."""

    run_created = Signal(int)  # run_id: the run is stored (rows can be opened from now on)
    progressed = Signal(object)  # EvalProgress
    question_finished = Signal(object)  # QuestionRow
    finished = Signal(object)  # EvalResult of a completed run
    cancelled = Signal(int)  # run_id (-1 when stopped before anything was stored)
    failed = Signal(str, str)  # field ("" unless the input was at fault), message
    loaded = Signal(object)  # StoredSqlRun
    running_changed = Signal(bool)
    set_ids_loaded = Signal(str, object)  # set name or folder, frozenset of its question ids

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.task: asyncio.Task | None = None
        self.load_task: asyncio.Task | None = None
        self.run_id: int | None = None
        self._running = False
        self.ids_task: asyncio.Task | None = None
        self._set_ids: dict[str, frozenset[str]] = {}
        self._asks_columns: dict[str, bool] = {}
        self._benchmarks: dict[str, str] = {}
        self._ids_for = ""

    @property
    def running(self) -> bool:
        """Whether an evaluation is going (False from the moment `running_changed(False)`)."""
        return self._running

    def start(self, config: EvalConfig) -> asyncio.Task | None:
        """Start evaluating `config` (None if one is already running); returns its task."""
        if self.running:
            return None
        self.run_id = None
        self.task = asyncio.ensure_future(self._run(config))
        self._running = True
        self.running_changed.emit(True)
        return self.task

    def stop(self) -> None:
        """Cancel the running evaluation: the run is stored as cancelled."""
        if self.running and self.task is not None:
            self.task.cancel()

    async def _run(self, config: EvalConfig) -> None:
        ctx = self.context
        store: Store | None = None
        try:
            store = await asyncio.to_thread(ctx.open_store)
            info = ctx.endpoint.info if ctx.endpoint else None

            def evaluate(emit):
                # On the worker's loop: the run id (from one of the runner's threads) and the
                # progress go through the same ordered queue to this loop.
                recording = _RecordingStore(store, lambda run_id: emit(("run", run_id)))
                return run_eval(config, recording, lambda p: emit(("progress", p)),
                                sets_dir=ctx.sets_dir, cache_dir=ctx.cache_dir, info=info)

            result: EvalResult = await run_in_worker(evaluate, self._on_runner_events,
                                                     name="throughline-sqleval")
        except asyncio.CancelledError:
            self.cancelled.emit(self.run_id if self.run_id is not None else -1)
            if self.run_id is not None:
                ctx.run_finished.emit(self.run_id, "sql")
            raise
        except InputError as exc:
            self.failed.emit(exc.field, error_words(exc))
        except EndpointError as exc:
            self.failed.emit("", endpoint_error_text(exc, report_language()))
        except StoreError as exc:
            self.failed.emit("", store_error_text(exc, report_language()))
        except Exception as exc:  # noqa: BLE001 - shown to the user, logged with its trace
            log.exception("SQL evaluation failed")
            self.failed.emit("", f"{type(exc).__name__}: {exc}")
            if self.run_id is not None:
                ctx.run_finished.emit(self.run_id, "sql")
        else:
            self.finished.emit(result)
            if result.run_id is not None:
                ctx.run_finished.emit(result.run_id, "sql")
        finally:
            if store is not None:
                await asyncio.shield(asyncio.to_thread(store.close))
            ctx.job_changed.emit("")
            self._running = False
            self.running_changed.emit(False)

    def _on_runner_events(self, batch: list[tuple[str, object]]) -> None:
        for kind, payload in batch:
            if kind == "run":
                self.run_id = payload
                self.run_created.emit(payload)
            else:
                self._on_runner_progress(payload)

    def _on_runner_progress(self, progress: EvalProgress) -> None:
        if progress.latest is not None:
            self.question_finished.emit(QuestionRow.from_item(progress.latest,
                                                             tuple(progress.passed)))
        self.progressed.emit(progress)
        if progress.phase == "running":
            self.context.job_changed.emit(
                self.tr("SQL evaluation: {done}/{total} questions").format(
                    done=progress.done, total=progress.total))

    # ---------------------------------------------------------------- question ids

    def set_ids(self, questions: str) -> frozenset[str] | None:
        """The question ids of set `questions` if already read, else None."""
        return self._set_ids.get(questions)

    def set_asks_columns(self, questions: str) -> bool | None:
        """Whether set `questions` names its output columns (None: not read yet)."""
        return self._asks_columns.get(questions)

    def set_benchmark(self, questions: str) -> str | None:
        """The public benchmark set `questions` was imported from ("" for none; None: not read
        yet)."""
        return self._benchmarks.get(questions)

    def load_set_ids(self, questions: str) -> asyncio.Task | None:
        """Read the ids of set `questions` (a name or folder) and emit `set_ids_loaded`;
        None when they are known already. A set that cannot be read emits nothing (the run
        reports why)."""
        if questions in self._set_ids or not questions:
            return None
        if self.ids_task is not None and not self.ids_task.done():
            if self._ids_for == questions:
                return self.ids_task
            self.ids_task.cancel()
        self._ids_for = questions
        self.ids_task = asyncio.ensure_future(self._load_ids(questions))
        return self.ids_task

    def cancel_reads(self) -> None:
        """Cancel the reading of a stored run or of a set's ids, if one is going."""
        for task in (self.load_task, self.ids_task):
            if task is not None and not task.done():
                task.cancel()

    async def _load_ids(self, questions: str) -> None:
        ctx = self.context
        try:
            qset = await asyncio.to_thread(load_question_set, questions, sets_dir=ctx.sets_dir,
                                           cache_dir=ctx.cache_dir, check_gold=False)
        except (QuestionSetError, OSError) as exc:
            log.info("question set %s not read for its ids: %s", questions, exc)
            return
        ids = frozenset(q.id for q in qset.questions)
        self._set_ids[questions] = ids
        self._asks_columns[questions] = qset.asks_columns
        self._benchmarks[questions] = qset.benchmark
        try:
            self.set_ids_loaded.emit(questions, ids)
        except RuntimeError:  # the page closed while the set was read
            log.debug("set ids of %s read after the controller was deleted", questions)

    # ---------------------------------------------------------------- stored runs

    def load_run(self, run_id: int) -> asyncio.Task | None:
        """Read a stored SQL run and emit `loaded` (or `failed`); None while a run is going."""
        if self.running:
            return None
        if self.load_task is not None and not self.load_task.done():
            self.load_task.cancel()
        self.load_task = asyncio.ensure_future(self._load(run_id))
        return self.load_task

    async def _load(self, run_id: int) -> None:
        try:
            stored = await asyncio.to_thread(_read_run, self.context, run_id)
        except StoreError as exc:
            self.failed.emit("run", store_error_text(exc, report_language()))
            return
        except InputError as exc:
            self.failed.emit("run", error_words(exc))
            return
        self.run_id = run_id
        try:
            self.loaded.emit(stored)
        except RuntimeError:  # the page closed while the run was read
            return


def _read_run(context: AppContext, run_id: int) -> StoredSqlRun:
    """Blocking: a stored SQL run, read through `sqleval.records`."""
    with context.open_store() as store:
        info = run_info(store.get_run(run_id))
        if info.kind != "sql":
            raise InputError("run", translate(
                "SqlEvalController", "run {run} is a {kind} run, not a SQL evaluation").format(
                run=run_id, kind=translate("RunStatus", info.kind)))
        run = eval_from(store, info)
        return StoredSqlRun.from_run(run, run_split(run))


def live_paths(result: EvalResult) -> tuple[PathShare, ...]:
    """A finished layered run's split per path (empty for another run), from its items."""
    return path_split((PathEntry(i.outcome.path, i.outcome.route_reason or "",
                                 {j: v.passed for j, v in i.outcome.verdicts.items()},
                                 i.outcome.prompt_tokens + i.outcome.completion_tokens,
                                 i.outcome.seconds) for i in result.items), result.judges)
