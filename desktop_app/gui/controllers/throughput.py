"""Runs throughput sweeps for the Throughput page and reads stored ones back.

The form's text goes through the core's parsers here (`form_errors`, `build_config`), so the
page only shows what they say. `ThroughputController` owns the task running the sweep and turns
its progress into signals. The sweep runs in a process of its own (`gui.worker.run_in_process`,
`core.throughput.jobs`) storing into the app's results file, so its HTTP client shares no GIL
with the UI; the /metrics timeline is read back from that file as it grows.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import math
import os
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from desktop_app.core.endpoint.server_settings import user_settings
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.fit import (
    Fit,
    MeasuredCell,
    concurrency_cap,
    fit_job,
    measured_cells,
    suggested_changes,
    whatif_cells,
)
from desktop_app.core.metrics import RequestTiming, summarize_cell
from desktop_app.core.parsing import InputError, parse_float_list, parse_int_list
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig, axis_fields, default_requests
from desktop_app.core.throughput.findmax import FindMax
from desktop_app.core.throughput.jobs import resume_job, sweep_job
from desktop_app.core.throughput.records import (
    ThroughputRun,
    load_sweep,
    samples,
)
from desktop_app.core.throughput.sweep import SweepProgress
from desktop_app.core.throughput.types import CellResult, CellSpec
from desktop_app.core.throughput.workload import Workload, load_workload
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.i18n import error_words, report_language, translate
from desktop_app.gui.worker import run_in_process
from desktop_app.report.errors import error_text
from desktop_app.report.input_words import input_error_text

SAMPLE_POLL_S = 0.5  # how often the server's /metrics timeline is read back while a sweep runs


@dataclass(frozen=True)
class SweepForm:
    """The throughput form as typed: lists as text ("512, 2k"), empty text for "default"."""

    input_tokens: str = "512, 1k, 2k"
    concurrency: str = "1, 2, 4, 8"
    output_tokens: str = "64"
    requests_per_cell: str = ""  # empty: max(4 x concurrency, 8)
    warmup: int = 2
    api: str = "chat"
    unique_prompts: bool = True
    time_budget_s: str = ""  # empty: no limit
    scrape_metrics: bool = True
    name: str = ""  # empty: the sweep names the run after its model, lengths and load
    notes: str = ""
    server_settings: str = ""  # "max-num-seqs=2, gpu-memory-utilization=0.91" (or one a line)
    workers: int = 1  # load-generating processes (SweepConfig.workers)
    workload: str = ""  # a workload file replayed instead of the prompt lengths; empty: none
    on_schedule: bool = False  # replay it on its timestamps (one cell) instead of per load
    speedup: str = ""  # on its schedule, this many times faster; empty: 1
    turns: str = ""  # multi-turn sessions of this many turns; empty: single requests
    think_s: str = ""  # seconds between a reply and the next turn; empty: 0
    system_tokens: str = ""  # a system prompt the cell's sessions share; empty: none
    ttft_target_s: str = ""  # goodput's targets; empty: none
    tpot_target_s: str = ""
    find_max: bool = False  # search concurrency for the highest load meeting the targets
    slo_share: str = ""  # the share of requests that must meet them; empty: 0.9


# Workload files read for the form, by path: (size, mtime) when read, and what reading gave.
# The form is checked on every keystroke; a file is read once (off the GUI thread, by
# `read_workload`), and again only when it changes.
_WORKLOADS: dict[str, tuple[tuple[int, int] | None, Workload | InputError]] = {}
_KEPT_WORKLOADS = 4


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def read_workload(path: str) -> Workload | InputError:
    """The workload file at `path` read (or why it cannot be), kept for the form."""
    stamp = _stamp(path)
    try:
        got: Workload | InputError = load_workload(path, "workload")
    except InputError as exc:
        got = exc
    _WORKLOADS.pop(path, None)
    _WORKLOADS[path] = (stamp, got)  # a missing file too: until it appears
    while len(_WORKLOADS) > _KEPT_WORKLOADS:  # the oldest read goes (a big file's records)
        del _WORKLOADS[next(iter(_WORKLOADS))]
    return got


def cached_workload(path: str) -> Workload | InputError | None:
    """What reading `path` gave, if it was read and has not changed since; None otherwise."""
    kept = _WORKLOADS.get(path)
    if kept is None or kept[0] != _stamp(path):
        return None
    return kept[1]


def _list_text(values) -> str | None:
    if not isinstance(values, list) or not values or len(values) > 64:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        return None
    return ", ".join(str(v) for v in values)


def form_from_config(config, current: SweepForm) -> SweepForm | None:
    """The form of a stored sweep's configuration (`SweepConfig.to_dict`, as the run keeps
    it), over `current` for what the run does not say; None for a run that records no closed-
    loop sweep (an imported file, an open-loop run): the form is then left as it is. The
    stored values are checked: a hostile store gives no value the form would not take."""
    if not isinstance(config, dict):
        return None
    lengths = _list_text(config.get("input_tokens"))
    loads = _list_text(config.get("concurrency"))
    outputs = _list_text(config.get("output_tokens"))
    if lengths is None or loads is None or outputs is None or config.get("request_rates"):
        return None
    changes: dict = {"input_tokens": lengths, "concurrency": loads, "output_tokens": outputs}
    requests = config.get("requests_per_cell")
    changes["requests_per_cell"] = (str(requests) if isinstance(requests, int)
                                    and not isinstance(requests, bool) and requests > 0 else "")
    budget = config.get("cell_time_budget_s")
    changes["time_budget_s"] = (f"{budget:g}" if isinstance(budget, (int, float))
                                and not isinstance(budget, bool) and 0 < budget < 1e9 else "")
    for key, kind in (("warmup", int), ("unique_prompts", bool), ("scrape_metrics", bool),
                      ("workers", int)):
        value = config.get(key)
        if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
            changes[key] = value
    if config.get("api") in ("chat", "completions"):
        changes["api"] = config["api"]
    for key in ("name", "notes"):
        changes[key] = str(config.get(key) or "")[:2000]
    # The settings the user typed (those read from the server are read again at Start).
    settings = config.get("server_settings")
    source = config.get("server_settings_source")
    typed = []
    if isinstance(settings, dict) and isinstance(source, dict):
        typed = [f"{k}={v}" for k, v in settings.items() if source.get(k) == "user"
                 and isinstance(k, str) and isinstance(v, (str, int, float))
                 and not isinstance(v, bool) and not any(c in f"{k}{v}" for c in ",=\n")]
    changes["server_settings"] = ", ".join(typed)[:2000]
    workload = config.get("workload")
    path = workload.get("path") if isinstance(workload, dict) else None
    changes["workload"] = path[:4096] if isinstance(path, str) and "\n" not in path else ""
    speedup = config.get("speedup")
    changes["on_schedule"] = bool(changes["workload"]) and isinstance(speedup, (int, float)) \
        and not isinstance(speedup, bool) and 0 < speedup <= 1000
    changes["speedup"] = f"{speedup:g}" if changes["on_schedule"] else ""
    return dataclasses.replace(current, **changes)


def default_output(text: str) -> int:
    """The output length a workload record that names none gets: the form's first one."""
    try:
        return parse_int_list(text, "output tokens")[0]
    except InputError:
        return 128


def _single(values: list, field: str) -> object:
    if len(values) != 1:
        raise InputError(field, code="one_value")
    return values[0]


def _parse_fields(form: SweepForm) -> tuple[dict, dict[str, str]]:
    """Each field parsed on its own: (values by SweepConfig name, error by field name)."""
    values: dict = {}
    errors: dict[str, str] = {}
    parsers = {
        # A length axis gives its fields (`axis_fields`: counts, or distributions as well).
        "input_tokens": lambda t: axis_fields(t, "input tokens", "input"),
        "concurrency": lambda t: tuple(parse_int_list(t, "concurrency")),
        "output_tokens": lambda t: axis_fields(t, "output tokens", "output"),
        "requests_per_cell": lambda t: (
            _single(parse_int_list(t, "requests per cell"), "requests per cell")
            if t.strip() else None),
        "cell_time_budget_s": lambda t: (
            _single(parse_float_list(t, "time budget per cell"), "time budget per cell")
            if t.strip() else None),
        "server_settings": lambda t: user_settings(t, "server settings"),
    }
    texts = {"input_tokens": form.input_tokens, "concurrency": form.concurrency,
             "output_tokens": form.output_tokens, "requests_per_cell": form.requests_per_cell,
             "cell_time_budget_s": form.time_budget_s, "server_settings": form.server_settings}
    if form.workload.strip():
        del parsers["input_tokens"]  # the file's records are the prompts
        values["input_tokens"] = ()
        path = form.workload.strip()
        read = cached_workload(path)
        if read is None:
            errors["workload"] = translate("SweepForm", "reading the file...")
        elif isinstance(read, InputError):
            errors["workload"] = input_error_text(read, report_language())
        else:
            values["workload"] = read.ref(default_output(form.output_tokens))
            if form.on_schedule and not read.timed:
                errors["workload"] = input_error_text(InputError(
                    "workload", code="workload_untimed", path=read.name), report_language())
        if form.on_schedule:
            try:
                values["speedup"] = (_single(parse_float_list(form.speedup, "speed-up"),
                                             "speed-up") if form.speedup.strip() else 1.0)
            except InputError as exc:
                errors[exc.field] = input_error_text(exc, report_language())
    optional_float = {"think_s": ("think time", form.think_s),
                      "ttft_target_s": ("TTFT target", form.ttft_target_s),
                      "tpot_target_s": ("TPOT target", form.tpot_target_s)}
    for key, (name, text) in optional_float.items():
        if text.strip():
            try:
                values[key] = _single(parse_float_list(text, name), name)
            except InputError as exc:
                errors[exc.field] = input_error_text(exc, report_language())
    if form.turns.strip():
        try:
            values["turns"] = _single(parse_int_list(form.turns, "turns"), "turns")
            if form.system_tokens.strip():
                values["system_tokens"] = _single(parse_int_list(
                    form.system_tokens, "system tokens", min_value=0), "system tokens")
        except InputError as exc:
            errors[exc.field] = input_error_text(exc, report_language())
    if form.find_max:
        try:
            share = (_single(parse_float_list(form.slo_share, "SLO share"), "SLO share")
                     if form.slo_share.strip() else 0.9)
            values["find_max"] = FindMax(float(str(share)))
        except InputError as exc:
            errors[exc.field] = input_error_text(exc, report_language())
    for name, parse in parsers.items():
        try:
            value = parse(texts[name])
            if name in ("input_tokens", "output_tokens"):  # an axis: its fields (axis_fields)
                values.update(value)
            else:
                values[name] = value
        except InputError as exc:
            errors[exc.field] = input_error_text(exc, report_language())
    return values, errors


def form_errors(form: SweepForm) -> dict[str, str]:
    """Every bad field of `form`, by field name ("concurrency", ...), with a message naming it."""
    values, errors = _parse_fields(form)
    if not errors:
        try:
            placeholder = EndpointConfig("http://placeholder", model="placeholder")
            _config(form, values, placeholder).validate()
        except InputError as exc:
            errors[exc.field] = input_error_text(exc, report_language())
    return errors


def _config(form: SweepForm, values: dict, endpoint: EndpointConfig) -> SweepConfig:
    return SweepConfig(
        endpoint=dataclasses.replace(endpoint, api=form.api), warmup=form.warmup,
        unique_prompts=form.unique_prompts, scrape_metrics=form.scrape_metrics,
        name=form.name.strip(), notes=form.notes.strip(), workers=form.workers, **values)


def build_config(form: SweepForm, endpoint: ActiveEndpoint) -> SweepConfig:
    """The sweep `form` describes against `endpoint`; raises InputError naming the first bad
    field. Without a model chosen, the endpoint's first listed model is used."""
    values, errors = _parse_fields(form)
    if errors:
        field, message = next(iter(errors.items()))
        raise InputError(field, message.split(": ", 1)[-1])
    config = endpoint.config
    if not config.model and endpoint.info is not None and endpoint.info.models:
        config = dataclasses.replace(config, model=endpoint.info.models[0])
    sweep = _config(form, values, config)
    sweep.validate()
    return sweep


def default_run_name(form: SweepForm, endpoint: ActiveEndpoint | None) -> str | None:
    """The name the sweep `form` describes gets when none is typed (the sweep's own rule),
    or None while the form is incomplete or there is no endpoint."""
    if endpoint is None:
        return None
    try:
        config = build_config(form, endpoint)
    except ValueError:
        return None
    return config.default_name()


def planned_requests(config: dict, spec: CellSpec) -> int:
    """How many requests the sweep stored with `config` (its JSON) meant to send in `spec`'s
    cell: its requests per cell, else the sweep's default for the load."""
    per_cell = config.get("requests_per_cell") if isinstance(config, dict) else None
    if isinstance(per_cell, int) and not isinstance(per_cell, bool) and per_cell > 0:
        return per_cell
    if spec.concurrency:
        return default_requests(spec.concurrency)
    if spec.request_rate:
        return max(8, math.ceil(8 * spec.request_rate))
    return spec.requests


def stored_cells(stored: ThroughputRun) -> list[CellResult]:
    """The cells of a stored sweep as the page shows them: a cell stopped midway (no summary
    stored) is summarized from the requests it did finish, and every cell's `spec.requests`
    is what it meant to send, so "12/32 finished" can be said."""
    out = []
    for cell in stored.results():
        result = cell
        if not cell.summary.count and cell.timings:
            result = dataclasses.replace(result, summary=summarize_cell(cell.timings))
        planned = planned_requests(stored.info.config, cell.spec)
        if cell.status != "completed" and planned != cell.spec.requests:
            result = dataclasses.replace(
                result, spec=dataclasses.replace(cell.spec, requests=planned))
        out.append(result)
    return out


def stored_progress(stored: ThroughputRun) -> tuple[int, int]:
    """(requests finished, requests planned) of a stored sweep, for its progress bar: a
    completed run is whole (every cell did what it meant to), a stopped one says how far it
    got."""
    if stored.info.status == "completed":
        return 1, 1
    cells = stored_cells(stored)
    planned = sum(c.spec.requests if c.status != "completed" else c.summary.count
                  for c in cells)
    return sum(c.summary.count for c in cells), max(planned, 1)


def read_stored_sweep(store: Store, run_id: int) -> ThroughputRun:
    """Blocking read of a stored sweep (call it in a thread): `throughput.records.load_sweep`,
    the one reader every view of a sweep uses, with its kept (or rebuilt) diagnosis."""
    return load_sweep(store, run_id)


class ThroughputController(QObject):
    """Runs one sweep at a time against the context's endpoint and reports it as signals."""

    running_changed = Signal(bool)
    progress_changed = Signal(object)  # SweepProgress
    cell_finished = Signal(object)  # CellResult as the sweep measured it (no change vs c=1 yet)
    samples_received = Signal(list)  # new MetricSamples of the running sweep, in time order
    sweep_finished = Signal(object)  # SweepResult
    sweep_cancelled = Signal()
    sweep_failed = Signal(str)
    run_loaded = Signal(object)  # ThroughputRun (throughput.records)
    load_failed = Signal(str)

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self.task: asyncio.Task | None = None
        self.load_task: asyncio.Task | None = None
        self.run_id: int | None = None
        self._cell: tuple[int, CellSpec] | None = None
        self._timings: list[RequestTiming] = []

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self, config: SweepConfig) -> asyncio.Task:
        """Run the sweep `config` in a task (one at a time); returns it."""
        if self.running:
            raise RuntimeError("a sweep is already running")
        self.task = asyncio.ensure_future(self._run(
            functools.partial(sweep_job, config, self._context.db_path, self._info()),
            children=config.workers > 1))
        return self.task

    def resume(self, run_id: int) -> asyncio.Task:
        """Finish interrupted sweep `run_id` into the same run, on the active endpoint (which
        must serve the run's engine and model); reports like `start`."""
        if self.running:
            raise RuntimeError("a sweep is already running")
        endpoint = self._context.endpoint.config if self._context.endpoint else None
        # The run's own worker count is read in the job's process; allowing children costs a
        # run on one worker nothing, and without it a run of several would stream in-process.
        self.task = asyncio.ensure_future(self._run(
            functools.partial(resume_job, run_id, endpoint, self._context.db_path,
                              self._info()), run_id, children=True))
        return self.task

    def _info(self):
        return self._context.endpoint.info if self._context.endpoint else None

    def stop(self) -> None:
        """Cancel the running sweep: requests in flight stop, the run is stored as cancelled."""
        if self.running:
            self.task.cancel()

    def load_run(self, run_id: int) -> asyncio.Task:
        """Read stored run `run_id` in a thread; emits run_loaded or load_failed."""
        if self.load_task is not None and not self.load_task.done():
            self.load_task.cancel()
        self.load_task = asyncio.ensure_future(self._load(run_id))
        return self.load_task

    async def _load(self, run_id: int) -> None:
        def read() -> ThroughputRun:
            with self._context.open_store() as store:
                return read_stored_sweep(store, run_id)

        try:
            stored = await asyncio.to_thread(read)
        except Exception as exc:  # noqa: BLE001 - shown to the user as is
            self.load_failed.emit(error_words(exc))
            return
        self.run_loaded.emit(stored)

    async def _run(self, job, run_id: int | None = None, children: bool = False) -> None:
        """Run `job(emit)` (a sweep_job or resume_job partial) in a worker process: it stores
        into the same results file, which this process reads its /metrics samples back from;
        `run_id` is the run it continues, if any; `children` lets it start its own worker
        processes (a sweep with workers > 1; `run_in_process` sees that none outlives it)."""
        self.run_id = run_id
        self._cell, self._timings = None, []
        self.running_changed.emit(True)
        self._context.job_changed.emit(self.tr("Throughput sweep starting"))
        store: Store | None = None
        poller: asyncio.Task | None = None
        try:
            store = await asyncio.to_thread(self._context.open_store)
            poller = asyncio.ensure_future(self._poll_samples(store))
            result = await run_in_process(job, self._on_sweep_events, name="throughline-sweep",
                                          children=children)
        except asyncio.CancelledError:
            self._finish_cell("cancelled")
            self.sweep_cancelled.emit()
            raise
        except Exception as exc:  # noqa: BLE001 - any failure is shown to the user as is
            self.sweep_failed.emit(str(exc))
        else:
            self.run_id = result.run_id
            self.sweep_finished.emit(result)
        finally:
            if poller is not None:
                poller.cancel()
                await asyncio.gather(poller, return_exceptions=True)
            if store is not None:
                await asyncio.to_thread(store.close)
            if self.run_id is not None:
                self._context.run_finished.emit(self.run_id, "throughput")
            self._context.job_changed.emit("")
            self.running_changed.emit(False)

    def _on_sweep_events(self, batch: list[SweepProgress]) -> None:
        """A batch of the sweep's progress, queued by the worker since the last poll: every
        event counts for the cells and timings, only phase changes and the newest reach the page
        (it shows one progress bar, not a history)."""
        for i, progress in enumerate(batch):
            last = i == len(batch) - 1
            phase_changed = i > 0 and progress.phase != batch[i - 1].phase
            self._on_sweep_progress(progress, emit=last or phase_changed)

    def _on_sweep_progress(self, progress: SweepProgress, emit: bool = True) -> None:
        if progress.run_id is not None:
            self.run_id = progress.run_id
        if progress.finished is not None:
            # The sweep's own figures for the cell (client load included): nothing to redo here.
            self._cell, self._timings = None, []
            self.cell_finished.emit(progress.finished)
        elif progress.phase == "running" and progress.cell is not None:
            if self._cell is None or self._cell[0] != progress.cell_index:
                self._finish_cell()
                self._cell = (progress.cell_index, progress.cell)
                self._context.job_changed.emit(
                    self.tr("Throughput: cell {index}/{total}").format(
                        index=progress.cell_index + 1, total=progress.cells_total))
            if progress.latest is not None:
                self._timings.append(progress.latest)
        elif progress.phase == "diagnosing":
            self._finish_cell()
        if emit:
            self.progress_changed.emit(progress)

    def _finish_cell(self, status: str = "completed") -> None:
        """The cell in progress as far as it got (`status` cancelled when the sweep was
        stopped in it: its `spec.requests` says what it meant to send)."""
        if self._cell is None:
            return
        spec = self._cell[1]
        timings, self._cell, self._timings = tuple(self._timings), None, []
        self.cell_finished.emit(CellResult(spec=spec, summary=summarize_cell(timings),
                                           timings=timings, status=status))

    async def _poll_samples(self, store: Store) -> None:
        """Read the running sweep's /metrics samples back from the store as the writer commits
        them (the sweep reports samples only to the store)."""
        seen = 0
        while True:
            await asyncio.sleep(SAMPLE_POLL_S)
            if self.run_id is None:
                continue  # the sweep's progress names its run once it is stored
            stored = await asyncio.to_thread(samples, store, self.run_id)
            if len(stored) > seen:
                self.samples_received.emit(stored[seen:])
                seen = len(stored)



@dataclass(frozen=True)
class FittedRun:
    """A stored sweep with the engine model fitted to it (`core.fit`): its id and name, the
    fit, the cells it was fitted to, and the change its diagnosis suggests ({} for none)."""

    run_id: int
    name: str
    fit: Fit
    cells: tuple[MeasuredCell, ...]
    suggested: dict


class WhatifController(QObject):
    """Fits the engine model to a stored sweep and predicts it with settings changed.

    The fit (seconds: every cell simulated many times) runs in a process of its own, like the
    sweep, so the window never waits on it; a prediction (milliseconds per cell) runs in a
    thread. Starting either again cancels the one of its kind still running."""

    busy_changed = Signal(bool)
    fitted = Signal(object)  # FittedRun
    predicted = Signal(object)  # list[CellWhatif]
    failed = Signal(str)

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self.fit_task: asyncio.Task | None = None
        self.predict_task: asyncio.Task | None = None
        self.current: FittedRun | None = None

    @property
    def busy(self) -> bool:
        return any(t is not None and not t.done() for t in (self.fit_task, self.predict_task))

    def fit_run(self, run_id: int, stored: ThroughputRun | None = None) -> asyncio.Task:
        """Fit the model to run `run_id` (`stored` when the page has it read already, else
        read here in a thread); emits fitted, then predicted (the settings as fitted), or
        failed with the reason in the core's words."""
        for task in (self.fit_task, self.predict_task):
            if task is not None and not task.done():
                task.cancel()
        self.current = None
        self.fit_task = asyncio.ensure_future(self._fit(run_id, stored))
        return self.fit_task

    def predict(self, changes: dict) -> asyncio.Task | None:
        """Predict the fitted sweep with `changes` (as `core.fit.parse_changes` gives them);
        emits predicted. None before a fit."""
        if self.current is None:
            return None
        if self.predict_task is not None and not self.predict_task.done():
            self.predict_task.cancel()
        self.predict_task = asyncio.ensure_future(self._predict(self.current, dict(changes)))
        return self.predict_task

    async def _fit(self, run_id: int, stored: ThroughputRun | None) -> None:
        self.busy_changed.emit(True)
        try:
            if stored is None:
                def read() -> ThroughputRun:
                    with self._context.open_store() as store:
                        return read_stored_sweep(store, run_id)

                stored = await asyncio.to_thread(read)
            cells = measured_cells(stored)
            fit = await run_in_process(functools.partial(
                fit_job, cells, stored.info.settings, concurrency_cap(stored.findings),
                f"fitted-run-{run_id}", stored.info.model or ""), lambda _events: None,
                name="throughline-fit")
            self.current = FittedRun(run_id, stored.info.name, fit, tuple(cells),
                                     suggested_changes(fit, stored.findings))
            self.fitted.emit(self.current)
            self.predicted.emit(await asyncio.to_thread(whatif_cells, fit, cells, {}))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the reason is shown to the user as is
            self.failed.emit(error_text(exc, report_language()))
        finally:
            self.busy_changed.emit(self.busy_after(asyncio.current_task()))

    async def _predict(self, fitted: FittedRun, changes: dict) -> None:
        self.busy_changed.emit(True)
        try:
            cells = await asyncio.to_thread(whatif_cells, fitted.fit, fitted.cells, changes)
            if fitted is self.current:
                self.predicted.emit(cells)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the reason is shown to the user as is
            self.failed.emit(error_words(exc))
        finally:
            self.busy_changed.emit(self.busy_after(asyncio.current_task()))

    def busy_after(self, ending: asyncio.Task | None) -> bool:
        """Whether work other than `ending` (the task finishing now) is still running."""
        return any(t is not None and t is not ending and not t.done()
                   for t in (self.fit_task, self.predict_task))
