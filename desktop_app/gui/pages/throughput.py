"""The Throughput page: the sweep form, live charts, the cell table and the diagnosis.

Open it alone against a built-in simulator: `python -m desktop_app.gui.pages.throughput`
(`--run` starts a small sweep, `--screenshot out.png` saves the page and quits).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections import defaultdict

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.endpoint.types import MetricSample
from desktop_app.core.throughput.config import MAX_WORKERS
from desktop_app.core.throughput.diagnosis import unreliable_cells
from desktop_app.core.throughput.records import ThroughputRun
from desktop_app.core.throughput.sweep import SweepProgress, SweepResult
from desktop_app.core.throughput.types import CellResult
from desktop_app.core.throughput.findmax import FindMax
from desktop_app.core.throughput.workload import Workload, summarize
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.controllers.throughput import (
    SweepForm,
    cached_workload,
    default_output,
    read_workload,
    ThroughputController,
    WhatifController,
    build_config,
    default_run_name,
    form_errors,
    form_from_config,
    stored_cells,
    stored_progress,
)
from desktop_app.gui.i18n import error_words, report_language, status_text, translate
from desktop_app.gui.models.cells import CellTableModel
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.widgets.column_fit import ColumnFitter
from desktop_app.gui.widgets.diagnosis import DiagnosisView
from desktop_app.gui.widgets.fields import ERROR_STYLE, add_checked_field, form_scroll
from desktop_app.gui.widgets.live_chart import LiveChart
from desktop_app.gui.widgets.whatif_panel import WhatifPanel
from desktop_app.report.diagnosis_words import cell_text
from desktop_app.report.input_words import input_error_text

KEY_FORM = "throughput/form"
KEY_SPLITTER = "throughput/splitter"
KEY_CELL_HEADER = "throughput/cell_header"
declare(KEY_FORM, KEY_SPLITTER, KEY_CELL_HEADER)

# Translated where shown (translate("ThroughputPage", ...)).
NO_ENDPOINT_HINT = QT_TRANSLATE_NOOP("ThroughputPage",
                                     "No endpoint: choose an endpoint on the Endpoints page.")
_PHASES = {"discovering": QT_TRANSLATE_NOOP("ThroughputPage",
                                            "Asking the endpoint what it serves..."),
           "prompts": QT_TRANSLATE_NOOP("ThroughputPage", "Preparing prompts of each length..."),
           "warm-up": QT_TRANSLATE_NOOP("ThroughputPage", "Warming up..."),
           "diagnosing": QT_TRANSLATE_NOOP("ThroughputPage", "Diagnosing...")}
_ERROR_STYLE = ERROR_STYLE
# A cell stopped midway (or cut by the time budget): how many of its requests finished.
FINISHED_NOTE = QT_TRANSLATE_NOOP("ThroughputPage", "{done}/{planned} finished")


class SweepCellModel(CellTableModel):
    """The cell table; a cell that did not complete says how many of its requests finished."""

    def _notes(self, row: int) -> str:
        notes = super()._notes(row)
        cell = self.cell(row)
        if cell.status == "completed":
            return notes
        finished = translate("ThroughputPage", FINISHED_NOTE).format(
            done=cell.summary.count, planned=cell.spec.requests)
        return finished + (translate("CellTableModel", ", ") + notes if notes else "")


def _cell_words(spec) -> str:
    """A cell's shape as the diagnosis says it ("512 in / 64 out / c=4"), in the UI's language."""
    return cell_text({"input_tokens": spec.input_tokens, "output_tokens": spec.output_tokens,
                      "concurrency": spec.concurrency, "request_rate": spec.request_rate},
                     report_language())


_BARS = " ▁▂▃▄▅▆▇█"


def _bars(counts: list[int]) -> str:
    """A histogram as a line of block characters, tallest bin full."""
    top = max(counts, default=0) or 1
    return "".join(_BARS[round(n / top * (len(_BARS) - 1))] for n in counts)


def workload_preview_text(workload: Workload, output_text: str) -> str:
    """What a workload holds, as its preview says it: records, the lengths' histograms (a
    text's estimated), what was left out, its duration and prefix reuse."""
    s = summarize(workload, default_output(output_text))
    lines = [translate("ThroughputPage", "{label}: {n} records").format(
        label=workload.label, n=f"{s.records:,}")]
    for axis, values, name in (("input", s.input_tokens, translate("ThroughputPage", "prompts")),
                               ("output", s.output_tokens,
                                translate("ThroughputPage", "outputs"))):
        bins = s.histogram(axis)
        lines.append(translate("ThroughputPage", "{name} {bars} {low}-{high} tokens, mean "
                                                 "{mean}").format(
            name=name, bars=_bars([n for _, _, n in bins]), low=f"{min(values):,}",
            high=f"{max(values):,}", mean=f"{sum(values) / len(values):,.0f}"))
    if workload.format == "sharegpt":
        lines.append(translate("ThroughputPage", "replies at 4 characters a token here; the "
                                                 "sweep counts them with the server's "
                                                 "tokenizer when it has one"))
    if s.duration_s is not None:
        lines.append(translate("ThroughputPage", "spans {seconds} s of timestamps").format(
            seconds=f"{s.duration_s:,.1f}"))
    if s.shared_prefix_share is not None:
        lines.append(translate("ThroughputPage", "{share} % of prompt blocks repeat an earlier "
                                                 "record's").format(
            share=f"{100 * s.shared_prefix_share:.0f}"))
    if workload.skipped_total:
        from desktop_app.core.parsing import CodedError

        first = workload.skipped[0].phrase()
        lines.append(translate("ThroughputPage", "{n} left out (the first: {first})").format(
            n=f"{workload.skipped_total:,}",
            first=error_words(CodedError(code=first.code, **first.params))))
    return "\n".join(lines)


def _knee_line(cells, search) -> str:
    """What a search for the highest load found, on a line of its own; "" for another sweep."""
    if search is None:
        return ""
    from desktop_app.report.findmax_words import knee_text

    return "\n" + knee_text(cells, search, report_language())


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


class ThroughputPage(QWidget):
    """A sweep's form, progress, live prefill/decode/TTFT/server charts, cell table, diagnosis."""

    def __init__(self, context: AppContext, settings: Settings | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.settings = settings or Settings()
        self.controller = ThroughputController(context, self)
        self.model = SweepCellModel(self)
        self._samples: list[MetricSample] = []
        self._planned_lengths: tuple[int, ...] = ()  # the x axis of a sweep being run

        form = self._build_form()
        right = self._build_results()
        layout = QHBoxLayout(self)
        layout.addWidget(form)
        layout.addWidget(right, 1)

        self._restore_form()
        self.settings.track(KEY_SPLITTER, self.splitter)
        self.columns = ColumnFitter(self.table, restored=self.settings.track(
            KEY_CELL_HEADER, self.table.horizontalHeader()))
        self.columns.fit()
        for edit in self._edits.values():
            edit.textChanged.connect(self._on_form_changed)
        self.run_name.textChanged.connect(self._on_form_changed)
        self.warmup.valueChanged.connect(self._on_form_changed)
        self.workers.valueChanged.connect(self._on_form_changed)
        self.start_button.clicked.connect(self._on_start_clicked)
        self.stop_button.clicked.connect(self.controller.stop)
        self.controller.running_changed.connect(self._on_controller_running_changed)
        self.controller.progress_changed.connect(self._on_controller_progress_changed)
        self.controller.cell_finished.connect(self._on_controller_cell_finished)
        self.controller.samples_received.connect(self._on_controller_samples_received)
        self.controller.sweep_finished.connect(self.show_result)
        self.controller.sweep_cancelled.connect(self._on_controller_sweep_cancelled)
        self.controller.sweep_failed.connect(self._on_controller_sweep_failed)
        self.controller.run_loaded.connect(self.show_stored)
        self.controller.load_failed.connect(self._on_controller_sweep_failed)
        for chart in self.charts:
            chart.point_clicked.connect(self._on_chart_point_clicked)
        context.endpoint_changed.connect(self._on_context_endpoint_changed)
        self._on_context_endpoint_changed(context.endpoint)

    # ---- building

    def _build_form(self) -> QWidget:
        box = QGroupBox(self.tr("Sweep"))
        layout = QFormLayout(box)
        layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self._edits: dict[str, QLineEdit] = {}
        self._errors: dict[str, QLabel] = {}
        for field, label, tip in (
            ("input tokens", self.tr("Prompt lengths (tokens)"),
             self.tr("e.g. 512, 2k, 8k (k = 1024)")),
            ("concurrency", self.tr("Concurrency (requests in flight)"),
             self.tr("e.g. 1, 2, 4, 8")),
            ("output tokens", self.tr("Output tokens"), self.tr("e.g. 64 or 64, 256")),
            ("requests per cell", self.tr("Requests per cell"),
             self.tr("empty: max(4 x concurrency, 8)")),
            ("time budget per cell", self.tr("Time budget per cell (s)"),
             self.tr("empty: no limit")),
        ):
            edit = QLineEdit()
            edit.setPlaceholderText(tip)
            edit.setToolTip(tip)
            self._add_checked_field(layout, field, label, edit)
        self._build_workload(layout)
        self.input_tokens = self._edits["input tokens"]
        self.concurrency = self._edits["concurrency"]
        self.output_tokens = self._edits["output tokens"]
        self.requests_per_cell = self._edits["requests per cell"]
        self.time_budget = self._edits["time budget per cell"]
        self.warmup = QSpinBox()
        self.warmup.setRange(0, 1000)
        self.warmup.setToolTip(self.tr("sent once before the first cell and left out of every "
                                       "figure"))
        self.api = QComboBox()
        self.api.addItems(["chat", "completions"])
        self.workers = QSpinBox()
        self.workers.setRange(1, MAX_WORKERS)
        self.workers.setToolTip(self.tr(
            "Processes that send the requests and read the streams, each with a CPU core of its "
            "own. 1 suits most sweeps. More helps at high concurrency or fast token rates, when "
            "one process falls behind and stamps tokens late (the Diagnosis says the client "
            "was busy); more than the machine has cores does not."))
        self.unique_prompts = QCheckBox(self.tr("Unique prompts (bust the prefix cache)"))
        self.scrape_metrics = QCheckBox(self.tr("Scrape the server's /metrics"))
        grid = QGridLayout()
        grid.addWidget(QLabel(self.tr("Warm-up requests")), 0, 0)
        grid.addWidget(self.warmup, 0, 1)
        grid.addWidget(QLabel(self.tr("API")), 1, 0)
        grid.addWidget(self.api, 1, 1)
        workers_label = QLabel(self.tr("Load-generating processes"))
        workers_label.setToolTip(self.workers.toolTip())
        grid.addWidget(workers_label, 2, 0)
        grid.addWidget(self.workers, 2, 1)
        layout.addRow(grid)
        layout.addRow(self.unique_prompts)
        layout.addRow(self.scrape_metrics)
        self.form_error = QLabel()
        self.form_error.setStyleSheet(_ERROR_STYLE)
        self.form_error.setWordWrap(True)
        self.form_error.hide()
        self.endpoint_label = QLabel()
        self.endpoint_label.setWordWrap(True)
        self.start_button = QPushButton(self.tr("Start"))
        self.start_button.setDefault(True)
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(0, 0, 4, 0)
        column.addWidget(box)
        column.addWidget(self._build_modes_box())
        column.addWidget(self._build_run_box())
        column.addStretch(1)
        footer = QVBoxLayout()
        footer.addWidget(self.form_error)
        footer.addWidget(self.endpoint_label)
        footer.addLayout(buttons)
        return form_scroll(inner, width=300, framed=False, footer=footer)

    def _build_workload(self, layout: QFormLayout) -> None:
        """The Workload field: a file replayed instead of the prompt lengths, its preview, and
        whether it is sent on its own schedule."""
        self.workload = QLineEdit()
        tip = self.tr("ShareGPT JSON, a JSONL of prompt or messages, or a Mooncake trace; "
                      "empty: the prompt lengths above")
        self.workload.setPlaceholderText(self.tr("optional: a file of requests to replay"))
        self.workload.setToolTip(tip)
        self.workload_browse = QPushButton(self.tr("File..."))
        self.workload_browse.clicked.connect(self._on_workload_browse_clicked)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.workload, 1)
        row.addWidget(self.workload_browse)
        holder = QWidget()
        holder.setLayout(row)
        self._errors["workload"] = add_checked_field(layout, self.tr("Workload"), holder)
        self._edits["workload"] = self.workload
        self.workload_preview = QLabel()
        self.workload_preview.setWordWrap(True)
        self.workload_preview.setStyleSheet("color: #444;")
        self.workload_preview.hide()
        layout.addRow(self.workload_preview)
        self.on_schedule = QCheckBox(self.tr("Send on its timestamps (one cell)"))
        self.on_schedule.setToolTip(self.tr(
            "Each record is sent at its own time from the first, and the cell says how late "
            "each send was; otherwise one cell per concurrency, in a closed loop."))
        layout.addRow(self.on_schedule)
        self.speedup = QLineEdit()
        self.speedup.setPlaceholderText(self.tr("empty: 1 (as recorded)"))
        self.speedup.setToolTip(self.tr("Replay the timestamps this many times faster"))
        self.speedup.setEnabled(False)
        self.on_schedule.toggled.connect(self.speedup.setEnabled)
        self._edits["speed-up"] = self.speedup
        self._errors["speed-up"] = add_checked_field(layout, self.tr("Speed-up (x)"),
                                                     self.speedup)
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(300)
        self._preview_timer.timeout.connect(self._read_workload)
        self.workload.textChanged.connect(self._on_workload_edited)
        self.on_schedule.toggled.connect(self._on_form_changed)
        self._preview_task: asyncio.Task | None = None

    def _on_workload_edited(self, _text: str) -> None:
        self._preview_timer.start()  # read once the typing pauses

    def _on_workload_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Workload file"), "",
            self.tr("Workload files (*.json *.jsonl);;All files (*)"))
        if path:
            self.workload.setText(path)

    def _read_workload(self) -> None:
        """Read the workload file off the GUI thread; the form and the preview follow."""
        path = self.workload.text().strip()
        self.input_tokens.setEnabled(not path)
        if not path:
            self.workload_preview.hide()
            self._on_form_changed()
            return
        if cached_workload(path) is not None:
            self._show_workload(path)
            return

        async def read() -> None:
            await asyncio.to_thread(read_workload, path)
            if self.workload.text().strip() == path:
                self._show_workload(path)

        self._preview_task = asyncio.ensure_future(read())

    def _show_workload(self, path: str) -> None:
        read = cached_workload(path)
        self.workload_preview.setVisible(isinstance(read, Workload))
        if isinstance(read, Workload):
            label = self.workload_preview
            label.setText(workload_preview_text(read, self.output_tokens.text()))
            # A wrapped label shown late keeps the height it had hidden: give it its own.
            label.setMinimumHeight(label.heightForWidth(max(label.width(), self.workload.width())))
        self._on_form_changed()

    def _build_modes_box(self) -> QGroupBox:
        """Multi-turn sessions, goodput's targets and the search for the highest load."""
        box = QGroupBox(self.tr("Sessions and targets"))
        layout = QFormLayout(box)
        layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        for field, label, tip in (
            ("turns", self.tr("Turns per session"),
             self.tr("empty: single requests; N: conversations of N turns, each reply in "
                     "the next turn's history (chat API)")),
            ("think time", self.tr("Think time between turns (s)"), self.tr("empty: 0")),
            ("system tokens", self.tr("Shared system prompt (tokens)"),
             self.tr("empty: none; one system prompt for a cell's sessions")),
            ("TTFT target", self.tr("TTFT target (s)"),
             self.tr("empty: none; requests meeting every target count as goodput")),
            ("TPOT target", self.tr("TPOT target (s)"), self.tr("empty: none")),
        ):
            edit = QLineEdit()
            edit.setPlaceholderText(tip)
            edit.setToolTip(tip)
            self._add_checked_field(layout, field, label, edit)
        self.turns = self._edits["turns"]
        self.think_time = self._edits["think time"]
        self.system_tokens = self._edits["system tokens"]
        self.ttft_target = self._edits["TTFT target"]
        self.tpot_target = self._edits["TPOT target"]
        self.find_max = QCheckBox(self.tr("Find the highest load meeting the targets"))
        self.find_max.setToolTip(self.tr(
            "Instead of the concurrency list: probes from 1, doubling until the targets are "
            "missed, then halving the gap; says where the knee lies and how sure that is."))
        layout.addRow(self.find_max)
        self.slo_share = QLineEdit()
        self.slo_share.setPlaceholderText(self.tr("empty: 0.9 (90 % of requests)"))
        self.slo_share.setEnabled(False)
        self.find_max.toggled.connect(self.slo_share.setEnabled)
        self.find_max.toggled.connect(self._on_form_changed)
        self._add_checked_field(layout, "SLO share", self.tr("Share of requests"), self.slo_share)
        return box

    def _build_run_box(self) -> QGroupBox:
        """Name, note and server settings: what tells this run apart from the others."""
        box = QGroupBox(self.tr("Run"))
        layout = QFormLayout(box)
        layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self.run_name = QLineEdit()
        self.run_name.setToolTip(self.tr("How the Runs page, comparisons and reports name this "
                                         "run; empty: the name shown in grey"))
        layout.addRow(self.tr("Name"), self.run_name)
        self.run_notes = QPlainTextEdit()
        self.run_notes.setTabChangesFocus(True)
        self.run_notes.setPlaceholderText(self.tr("What is special about this run (optional)"))
        margins = self.run_notes.contentsMargins()
        self.run_notes.setFixedHeight(
            3 * self.run_notes.fontMetrics().lineSpacing() + margins.top() + margins.bottom()
            + 2 * int(self.run_notes.document().documentMargin()) + 6)  # 3 lines, no scroll bar
        layout.addRow(self.tr("Note"), self.run_notes)
        self.server_settings = QLineEdit()
        self.server_settings.setPlaceholderText(
            self.tr("e.g. max-num-seqs=2, gpu-memory-utilization=0.91"))
        self.server_settings.setToolTip(self.tr(
            "key=value pairs, separated by commas. Settings the server reports are read "
            "automatically; type here only those it does not report."))
        self._add_checked_field(layout, "server settings", self.tr("Server settings"),
                                self.server_settings)
        return box

    def _add_checked_field(self, layout: QFormLayout, field: str, label: str,
                           edit: QLineEdit) -> None:
        """A form row: the field, and under it the error that names what is wrong with it."""
        self._edits[field], self._errors[field] = edit, add_checked_field(layout, label, edit)

    def _build_results(self) -> QWidget:
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status_label = QLabel(self.tr("Set up a sweep and press Start."))
        self.status_label.setWordWrap(True)
        prompt_length = self.tr("prompt length (tokens)")
        self.prefill_chart = LiveChart(self.tr("Prefill tok/s per request (queueing included)"),
                                       prompt_length, "tok/s", log_x=True)
        self.decode_chart = LiveChart(self.tr("Decode tok/s per request"), prompt_length,
                                      "tok/s", log_x=True)
        self.ttft_chart = LiveChart("TTFT p50", prompt_length, "TTFT", y_units="s",
                                    log_x=True)
        self.server_chart = LiveChart(self.tr("Server: running, waiting, KV cache"),
                                      self.tr("time since start (s)"),
                                      self.tr("requests / KV %"), symbols=False)
        self.charts = (self.prefill_chart, self.decode_chart, self.ttft_chart)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        for i, chart in enumerate((*self.charts, self.server_chart)):
            chart.setMinimumSize(200, 150)
            grid.addWidget(chart, i // 2, i % 2)
        charts = QWidget()
        charts.setLayout(grid)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.findings = DiagnosisView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.table, self.tr("Cells"))
        self.tabs.addTab(self.findings, self.tr("Diagnosis"))
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(charts)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([420, 260])
        self.splitter = splitter
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.progress, 1)
        top.addWidget(self.status_label, 3)
        column.addLayout(top)
        # Beside the results, the engine model fitted to them (fitted when first shown).
        self.whatif_controller = WhatifController(self.context, self)
        self.whatif = WhatifPanel(self.whatif_controller)
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        self.views.addTab(splitter, self.tr("Results"))
        self.views.addTab(self.whatif, self.tr("What if"))
        column.addWidget(self.views, 1)
        return right

    # ---- the form

    def form(self) -> SweepForm:
        """The form's values as typed."""
        return SweepForm(
            input_tokens=self.input_tokens.text(), concurrency=self.concurrency.text(),
            output_tokens=self.output_tokens.text(),
            requests_per_cell=self.requests_per_cell.text(), warmup=self.warmup.value(),
            api=self.api.currentText(), unique_prompts=self.unique_prompts.isChecked(),
            time_budget_s=self.time_budget.text(), scrape_metrics=self.scrape_metrics.isChecked(),
            name=self.run_name.text(), notes=self.run_notes.toPlainText(),
            server_settings=self.server_settings.text(), workers=self.workers.value(),
            workload=self.workload.text(), on_schedule=self.on_schedule.isChecked(),
            speedup=self.speedup.text(), turns=self.turns.text(),
            think_s=self.think_time.text(), system_tokens=self.system_tokens.text(),
            ttft_target_s=self.ttft_target.text(), tpot_target_s=self.tpot_target.text(),
            find_max=self.find_max.isChecked(), slo_share=self.slo_share.text())

    def _restore_form(self) -> None:
        form = SweepForm()
        try:
            saved = json.loads(self.settings.text_value(KEY_FORM, "{}"))
            form = dataclasses.replace(form, **{k: v for k, v in saved.items()
                                                if k in SweepForm.__dataclass_fields__})
        except (ValueError, TypeError):
            pass  # an unreadable saved form: start from the defaults
        self.set_form(form)

    def set_form(self, form: SweepForm) -> None:
        """Fill the form with `form`'s values (a saved form, or a reopened run's sweep)."""
        self.input_tokens.setText(form.input_tokens)
        self.concurrency.setText(form.concurrency)
        self.output_tokens.setText(form.output_tokens)
        self.requests_per_cell.setText(form.requests_per_cell)
        self.time_budget.setText(form.time_budget_s)
        self.warmup.setValue(int(form.warmup))
        self.api.setCurrentText(form.api)
        self.unique_prompts.setChecked(bool(form.unique_prompts))
        self.scrape_metrics.setChecked(bool(form.scrape_metrics))
        self.run_name.setText(str(form.name))
        self.run_notes.setPlainText(str(form.notes))
        self.server_settings.setText(str(form.server_settings))
        self.workload.setText(str(form.workload))
        self.on_schedule.setChecked(bool(form.on_schedule))
        self.speedup.setText(str(form.speedup))
        for edit, text in ((self.turns, form.turns), (self.think_time, form.think_s),
                           (self.system_tokens, form.system_tokens),
                           (self.ttft_target, form.ttft_target_s),
                           (self.tpot_target, form.tpot_target_s),
                           (self.slo_share, form.slo_share)):
            edit.setText(str(text))
        self.find_max.setChecked(bool(form.find_max))
        # The settings file is hostile: anything but a whole number is the default (the spin
        # box clamps a number to its range).
        workers = form.workers if isinstance(form.workers, int) else 1
        self.workers.setValue(min(max(workers, 1), MAX_WORKERS))
        self._on_form_changed()

    def _on_form_changed(self, *_args) -> None:
        errors = form_errors(self.form())
        if "find max" in errors:  # the search as a whole: said under its share
            errors["SLO share"] = errors.pop("find max")
        for field, label in self._errors.items():
            label.setText(errors.pop(field, ""))
            label.setVisible(bool(label.text()))
        self.form_error.setText("\n".join(errors.values()))
        self.form_error.setVisible(bool(errors))
        self._update_default_name()
        self._update_buttons()

    def _update_default_name(self) -> None:
        name = default_run_name(self.form(), self.context.endpoint)
        self.run_name.setPlaceholderText(
            name or self.tr("default: the model, prompt lengths and load"))

    def _form_ok(self) -> bool:
        return not self.form_error.text() and not any(e.text() for e in self._errors.values())

    def _update_buttons(self, running: bool | None = None) -> None:
        running = self.controller.running if running is None else running
        self.start_button.setEnabled(not running and self._form_ok()
                                     and self.context.endpoint is not None)
        self.stop_button.setEnabled(running)

    def _on_context_endpoint_changed(self, endpoint: ActiveEndpoint | None) -> None:
        self.endpoint_label.setText(
            self.tr("Endpoint: {endpoint}").format(endpoint=endpoint.label) if endpoint
            else translate("ThroughputPage", NO_ENDPOINT_HINT))
        self.endpoint_label.setStyleSheet("" if endpoint else "color: #8a5a00;")
        self._update_default_name()
        self._update_buttons()

    # ---- running

    def _on_start_clicked(self) -> None:
        if self.context.endpoint is None or self.controller.running:
            return
        try:
            config = build_config(self.form(), self.context.endpoint)
        except ValueError as exc:
            self.form_error.setText(input_error_text(exc, report_language()))
            self.form_error.show()
            self._update_buttons()
            return
        self.save_state()
        self._clear()
        self.whatif.set_run(None)
        # Every length the sweep will measure labels the x axis from the start, so the charts
        # keep their layout while cells arrive.
        self._planned_lengths = tuple(config.input_tokens)
        for chart in self.charts:
            chart.set_x_ticks(sorted(self._planned_lengths))
        # The curves and legend entries of the loads the charts will show are made from now,
        # one at a time, not all when the first cell ends (as the next cell's requests start).
        loads = list(dict.fromkeys(spec.load_label for spec in config.cells()
                                   if spec.output_tokens == config.output_tokens[0]))
        for chart in self.charts:
            chart.plan_series(loads)
        if config.scrape_metrics:
            # Every engine whose /metrics is read (throughput.servermetrics) reports running
            # and waiting requests: named from the start; KV cache once the server reports it.
            info = self.context.endpoint.info
            reported = ("running", "waiting") if getattr(info, "has_metrics", False) else ()
            for key, name, _ in self._sample_series():
                self.server_chart.plan_series([key], {key: name}, listed=key in reported)
        self.status_label.setText(self.tr("Starting..."))
        self.controller.start(config)
        self._on_controller_running_changed(True)  # before the task's first step says so

    def _clear(self) -> None:
        self._planned_lengths = ()
        self.model.set_cells([])
        self._samples = []
        for chart in (*self.charts, self.server_chart):
            chart.clear()
        self.findings.clear()
        self.status_label.setStyleSheet("")

    def _on_controller_running_changed(self, running: bool) -> None:
        for edit in (*self._edits.values(), self.run_name, self.run_notes):
            edit.setReadOnly(running)
        self._update_buttons(running)  # the task is still finishing when it says it stopped

    def _on_controller_progress_changed(self, p: SweepProgress) -> None:
        if p.phase == "predicting":
            # The bar starts again for the fit: seconds of CPU after every request is in.
            self.progress.setRange(0, max(p.total, 1))
            self.progress.setValue(p.done)
            self.status_label.setText(self.tr(
                "Predicting what each suggestion would change: fitting the engine model to "
                "the sweep ({percent} %)...").format(
                    percent=round(100 * p.done / max(p.total, 1))))
            return
        self.progress.setRange(0, max(p.run_total, 1))
        self.progress.setValue(p.run_done)
        if p.phase != "running" or p.cell is None:
            self.status_label.setText(translate("ThroughputPage", _PHASES.get(p.phase, p.phase)))
            return
        eta = "" if p.eta_s is None else self.tr("  -  ETA {clock}").format(clock=_clock(p.eta_s))
        self.status_label.setText(
            self.tr("Cell {index}/{cells}: {cell}  -  {done}/{total} requests").format(
                index=p.cell_index + 1, cells=p.cells_total, cell=_cell_words(p.cell), done=p.done,
                total=p.total) + eta)

    def _on_controller_cell_finished(self, cell: CellResult) -> None:
        self.model.add_cell(cell)
        self._plot_cells(self.model.cells())
        # Sizing the columns asks every cell of the table its size: a turn of its own, not on
        # top of the new row (as the sweep starts the next cell's requests).
        QTimer.singleShot(0, self.columns, self.columns.fit)

    def _on_controller_samples_received(self, samples: list) -> None:
        self._samples.extend(samples)
        self._plot_samples(self._samples)

    def _on_controller_sweep_cancelled(self) -> None:
        self.status_label.setText(self.tr("Stopped: the run is stored as cancelled."))
        self._drop_unmeasured_series()

    def _drop_unmeasured_series(self) -> None:
        """The legend names only what was measured: loads planned but never reached go."""
        for chart in (*self.charts, self.server_chart):
            chart.drop_empty_series()

    def _on_controller_sweep_failed(self, message: str) -> None:
        self._drop_unmeasured_series()
        self.status_label.setText(self.tr("Failed: {message}").format(message=message))
        self.status_label.setStyleSheet(_ERROR_STYLE)

    # ---- showing results

    def show_result(self, result: SweepResult) -> None:
        """Show a finished sweep: its cells, charts, server timeline and diagnosis."""
        self._show_cells(result.cells, result.samples, keep_charts=True)
        self.findings.set_findings(result.findings)
        self.whatif.set_run(result.run_id)
        run = (self.tr("Run {run}").format(run=result.run_id) if result.run_id is not None
               else self.tr("The sweep"))
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.status_label.setStyleSheet("")
        self.status_label.setText(
            self.tr("{run} {status}: {cells} cells, {findings} findings.").format(
                run=run, status=status_text(result.status), cells=len(result.cells),
                findings=len(result.findings)) + _knee_line(result.cells,
                                                            result.config.find_max))

    def save_state(self) -> None:
        """Remember the form as typed (the window calls this as it closes; Start does too)."""
        self.settings.set_value(KEY_FORM, json.dumps(dataclasses.asdict(self.form())))

    def load_run(self, run_id: int) -> None:
        """Read stored run `run_id` and show it (as show_stored) when it arrives."""
        self.controller.load_run(run_id)

    def resume_run(self, run_id: int) -> bool:
        """Finish interrupted run `run_id` on the active endpoint, shown live like a new sweep
        (the cells it already had appear with the result); False when that cannot start."""
        if self.context.endpoint is None or self.controller.running:
            self.status_label.setText(
                self.tr("Choose an endpoint first (the run's server, running again).")
                if self.context.endpoint is None else
                self.tr("A sweep is running: stop it before resuming another."))
            return False
        self._clear()
        self.whatif.set_run(None)
        self.status_label.setText(self.tr("Resuming run #{run}...").format(run=run_id))
        self.controller.resume(run_id)
        self._on_controller_running_changed(True)
        return True

    def show_stored(self, stored: ThroughputRun) -> None:
        """Show a sweep read back from the store (`throughput.records.load_sweep`): its cells,
        charts and timeline, and its diagnosis as kept when the sweep ended; a run without one
        (older, imported) shows the diagnosis rebuilt from its stored requests, and says so."""
        info = stored.info
        # The form beside the charts says the sweep they show (it kept whatever was typed):
        # Start then runs that sweep again.
        reopened = form_from_config(info.config, self.form())
        if reopened is not None:
            self.set_form(reopened)
        self._show_cells(stored_cells(stored), list(stored.samples), stored.unreliable())
        done, planned = stored_progress(stored)
        self.progress.setRange(0, planned)
        self.progress.setValue(done)
        self.whatif.set_run(info.id, stored)
        note = ""
        if not stored.diagnosis_kept:
            note = (self.tr("The diagnosis could not be rebuilt from the stored run: {error}")
                    .format(error=stored.diagnosis_error) if stored.diagnosis_error else
                    self.tr("This run's diagnosis was not kept when it ended (an older or "
                            "imported run): it is rebuilt here from the stored requests."))
        self.findings.set_findings(
            None if stored.diagnosis_error and not stored.diagnosis_kept else stored.findings,
            note)
        self.status_label.setStyleSheet("")
        search = (info.config or {}).get("find_max") if isinstance(info.config, dict) else None
        try:
            found = FindMax.from_json(search) if search is not None else None
        except (ValueError, TypeError, KeyError):
            found = None  # a stored search edited by hand: the cells alone
        self.status_label.setText(self.tr("Run {run}: {name} ({status}, {cells} cells)").format(
            run=info.id, name=info.name, status=status_text(info.status),
            cells=len(stored.cells)) + _knee_line(stored_cells(stored), found))

    def _show_cells(self, cells: list[CellResult], samples: list[MetricSample],
                    unreliable: set[int] | None = None, keep_charts: bool = False) -> None:
        """Show `cells` and `samples`. With `keep_charts` (the end of the sweep shown live) the
        charts keep their curves and only get the final points, unless a curve would be left
        over: removing and re-creating every curve and legend entry is the costliest repaint
        the page does, and at the sweep's end it came on top of the table and the findings
        (bench/gui_stall.py, the "diagnosing" phase)."""
        first = cells[0].spec.output_tokens if cells else None
        loads = {c.spec.load_label for c in cells if c.spec.output_tokens == first}
        if keep_charts and all(set(chart.series_keys()) <= loads for chart in self.charts):
            self.findings.clear()
            self.status_label.setStyleSheet("")
        else:
            self._clear()
        self.model.set_cells(cells, unreliable_cells(cells) if unreliable is None
                             else unreliable)
        self.columns.fit()
        self._plot_cells(cells)
        self._samples = list(samples)
        self._plot_samples(self._samples)

    def _plot_cells(self, cells: list[CellResult]) -> None:
        by_load: dict[str, list[tuple[int, CellResult]]] = defaultdict(list)
        for row, cell in enumerate(cells):
            if cell.spec.output_tokens != cells[0].spec.output_tokens:
                continue  # one output length per chart: the first one swept
            by_load[cell.spec.load_label].append((row, cell))
        lengths = sorted({c.spec.input_tokens for c in cells} | set(self._planned_lengths))
        for chart in self.charts:
            chart.set_x_ticks(lengths)
        for load, points in by_load.items():
            points.sort(key=lambda p: p[1].spec.input_tokens)
            for chart, value in (
                (self.prefill_chart, lambda s: s.prefill_tps and s.prefill_tps.mean),
                (self.decode_chart, lambda s: s.decode_tps and s.decode_tps.mean),
                (self.ttft_chart, lambda s: s.ttft_s and s.ttft_s.p50),
            ):
                shown = [(row, c) for row, c in points if value(c.summary) is not None]
                chart.set_series(load, [c.spec.input_tokens for _, c in shown],
                                 [value(c.summary) for _, c in shown],
                                 data=[row for row, _ in shown])

    def _sample_series(self) -> tuple:
        """(key, legend name, value of a sample) of each server chart series."""
        return (("running", self.tr("running"), lambda s: s.running),
                ("waiting", self.tr("waiting"), lambda s: s.waiting),
                ("KV cache %", self.tr("KV cache %"),
                 lambda s: None if s.kv_cache_usage is None else 100 * s.kv_cache_usage))

    def _plot_samples(self, samples: list[MetricSample]) -> None:
        for key, name, value in self._sample_series():
            shown = [s for s in samples if value(s) is not None]
            if shown:
                self.server_chart.set_series(key, [s.t_s for s in shown],
                                             [value(s) for s in shown], name=name)

    def _on_chart_point_clicked(self, row: object) -> None:
        if isinstance(row, int) and 0 <= row < self.model.rowCount():
            self.table.selectRow(row)
            self.views.setCurrentIndex(0)
            self.tabs.setCurrentWidget(self.table)


def main(argv: list[str] | None = None) -> int:
    """Open the page alone against a built-in simulator (and, with --run, sweep it)."""
    import argparse
    import asyncio
    import sys
    import tempfile
    from pathlib import Path

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_app.gui.event_loop import EventLoop

    from desktop_app.core.endpoint.discovery import discover
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.launcher import start_simulator

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="fast", help="simulator profile (default fast)")
    parser.add_argument("--db", type=Path, help="results store (default: a temporary file)")
    parser.add_argument("--run", action="store_true", help="start the sweep in the form")
    parser.add_argument("--screenshot", type=Path, help="save the page as PNG and quit")
    args = parser.parse_args(argv)
    with start_simulator(args.profile) as sim, tempfile.TemporaryDirectory() as tmp:
        info = asyncio.run(discover(EndpointConfig(sim.url)))
        app = QApplication.instance() or QApplication(sys.argv)
        loop = EventLoop(app)
        asyncio.set_event_loop(loop)
        context = AppContext(args.db or Path(tmp) / "results.db")
        context.set_endpoint(ActiveEndpoint(EndpointConfig(sim.url, model=info.models[0]), info,
                                            f"built-in simulator ({args.profile}) at {sim.url}"))
        page = ThroughputPage(context)
        page.setWindowTitle("Throughline: Throughput")
        page.resize(1100, 720)
        page.show()

        def finish() -> None:
            if args.screenshot:
                QTimer.singleShot(300, lambda: (page.grab().save(str(args.screenshot)), app.quit()))

        if args.run:
            page.controller.running_changed.connect(lambda running: running or finish())
            page.start_button.click()
        else:
            finish()
        with loop:
            app.aboutToQuit.connect(page.controller.stop)
            loop.run_until_complete(_until_quit(app))
    return 0


async def _until_quit(app) -> None:
    import asyncio

    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    await closed.wait()


if __name__ == "__main__":
    raise SystemExit(main())
