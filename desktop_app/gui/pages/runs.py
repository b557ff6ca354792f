"""The Runs page: every stored run, filtered; reopen, delete, compare, browse a run's requests.

`python -m desktop_app.gui.pages.runs [--db PATH | --demo]` opens the page alone: on the user's
store, or (with --demo, or when that store is empty) on a temporary store filled by two tiny
sweeps and two 3-question SQL evaluations against the built-in instant simulator.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDate, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QFileDialog,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.compare import Comparison
from desktop_app.core.runs import RunInfo
from desktop_app.core.store import RUN_STATUSES, Store
from desktop_app.core.throughput.records import requests_by_id
from desktop_app.core.throughput.resume import RESUMABLE
from desktop_app.gui.context import AppContext
from desktop_app.gui.controllers.runs import RequestsView, RunFilters, RunsController
from desktop_app.gui.i18n import status_text
from desktop_app.gui.models.requests import RequestsTableModel
from desktop_app.gui.models.runs import RunsTableModel
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.widgets.column_fit import ColumnFitter
from desktop_app.gui.widgets.comparison import ComparisonView
from desktop_app.gui.widgets.fields import FlowLayout, labelled
from desktop_app.gui.widgets.open_result import OpenResultBar
from desktop_app.gui.i18n import report_language
from desktop_app.gui.widgets.summary import SummaryView

log = logging.getLogger(__name__)

KEY_FILTERS = "runs/filters"  # "kind|status" as last chosen
KEY_SPLITTER = "runs/splitter"
KEY_RUNS_HEADER = "runs/runs_header"
KEY_REQUESTS_HEADER = "runs/requests_header"
declare(KEY_FILTERS, KEY_SPLITTER, KEY_RUNS_HEADER, KEY_REQUESTS_HEADER)

ALL = "All"  # what the filters' first choice means; shown translated
COMPARABLE_KINDS = ("throughput", "sql", "replay")


class RequestBrowser(QWidget):
    """One throughput run's requests, 100,000 or more, in a lazily read table."""

    errors_only_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("")
        self.errors_only = QCheckBox(self.tr("Failed requests only"))
        self.errors_only.toggled.connect(self.errors_only_toggled)
        self.model = RequestsTableModel(self)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        rows = self.view.verticalHeader()
        # Fixed heights: Qt then never asks the model about rows out of view.
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(22)
        header = self.view.horizontalHeader()
        header.setDefaultSectionSize(92)
        header.resizeSection(0, 170)
        header.setStretchLastSection(True)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.errors_only)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)

    def show_requests(self, view: RequestsView, store: Store | None) -> None:
        fetch = (None if store is None
                 else lambda ids: requests_by_id(store, ids))  # read lazily, a page at a time
        self.model.set_requests(view.ids, fetch, view.cells)
        text = (self.tr("{run}: {count} failed requests (warm-ups included), in sweep order")
                if view.errors_only else
                self.tr("{run}: {count} requests (warm-ups included), in sweep order"))
        self.title.setText(text.format(run=view.run.label, count=f"{len(view.ids):,}"))


class RunsPage(QWidget):
    """Every stored run: filter, reopen in its page, delete, compare, browse requests."""

    def __init__(self, context: AppContext, settings: Settings | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page_runs")
        self.context = context
        self._settings = settings
        self.controller = RunsController(context, self)
        self._select_after_refresh: list[int] = []
        self.model = RunsTableModel(self)

        heading = QLabel(self.tr("Runs"))
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        heading.setFont(font)

        self.kind_combo = self._combo((ALL, *COMPARABLE_KINDS))
        self.status_combo = self._combo((ALL, *RUN_STATUSES))
        self.endpoint_combo = self._combo((ALL,), width=18)
        self.model_combo = self._combo((ALL,), width=14)
        self.dates_check = QCheckBox(self.tr("Dates"))
        today = QDate.currentDate()
        self.since_edit = QDateEdit(today.addDays(-30))
        self.until_edit = QDateEdit(today)
        for edit in (self.since_edit, self.until_edit):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setEnabled(False)
            edit.dateChanged.connect(self._on_filters_changed)
        self.dates_check.toggled.connect(self._on_dates_toggled)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.clicked.connect(self.refresh)

        filters = FlowLayout()
        for label, widget in ((self.tr("Kind"), self.kind_combo),
                              (self.tr("Status"), self.status_combo),
                              (self.tr("Endpoint"), self.endpoint_combo),
                              (self.tr("Model"), self.model_combo)):
            filters.addWidget(labelled(QLabel(label), widget))
        filters.addWidget(labelled(self.dates_check, self.since_edit, QLabel(self.tr("to")),
                                   self.until_edit))

        self.open_button = QPushButton(self.tr("Open"))
        self.open_button.setToolTip(self.tr("Show the run in its page (or double-click it)"))
        self.requests_button = QPushButton(self.tr("Requests"))
        self.requests_button.setToolTip(self.tr("Browse every request of the selected "
                                                "throughput run"))
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setToolTip(self.tr(
            "Select two or more runs; a sweep and a SQL run of one endpoint also give the "
            "capacity in tasks"))
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.resume_button = QPushButton(self.tr("Resume"))
        self.resume_button.setToolTip(self.tr(
            "Finish an interrupted or stopped sweep into the same run, on the active endpoint"))
        self.export_button = QToolButton()
        self.export_button.setText(self.tr("Export"))
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        export_menu = QMenu(self.export_button)
        self.export_pdf_action = export_menu.addAction(self.tr("Comparison PDF…"))
        self.export_csv_action = export_menu.addAction(self.tr("CSV files…"))
        self.export_json_action = export_menu.addAction(self.tr("JSON…"))
        self.export_button.setMenu(export_menu)
        self.export_pdf_action.triggered.connect(self._on_export_pdf_triggered)
        self.export_csv_action.triggered.connect(self._on_export_csv_triggered)
        self.export_json_action.triggered.connect(self._on_export_json_triggered)
        self._replaying = False
        self._replayed_points: list[str] = []
        self._said_after_refresh = ""
        self.replay_button = QPushButton(self.tr("Replay as load…"))
        self.replay_button.setToolTip(self.tr(
            "Send the selected SQL run's recorded conversations again as concurrent agents "
            "against the active endpoint: capacity in tasks per hour, measured, stored as a "
            "run that a comparison sets beside the capacity model"))
        self.replay_button.clicked.connect(self._on_replay_clicked)
        self.import_button = QPushButton(self.tr("Import…"))
        self.import_button.setToolTip(self.tr(
            "Results of vllm bench serve, AIPerf or GuideLLM, as runs to compare"))
        self.resume_button.clicked.connect(self._on_resume_clicked)
        self.import_button.clicked.connect(self._on_import_clicked)
        self.status_label = QLabel("")
        # A replay's figures can run long: they wrap instead of widening the window.
        self.status_label.setWordWrap(True)
        self.written_bar = OpenResultBar()  # after an export: open the file or its folder
        self.open_button.clicked.connect(self._on_open_clicked)
        self.requests_button.clicked.connect(self._on_requests_clicked)
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.delete_button.clicked.connect(self._on_delete_clicked)
        actions = QHBoxLayout()
        for button in (self.open_button, self.requests_button, self.compare_button,
                       self.resume_button, self.replay_button, self.export_button,
                       self.import_button, self.delete_button):
            actions.addWidget(button)
        actions.addSpacing(12)
        actions.addWidget(self.status_label, 1)
        actions.addWidget(self.written_bar)
        actions.addWidget(self.refresh_button)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)

        self.hint = QLabel(self.tr("Select a throughput run to browse its requests; select two "
                                   "or more runs and press Compare to see them side by side (a "
                                   "sweep with a SQL run of its endpoint adds the capacity in "
                                   "tasks)."))
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.requests = RequestBrowser()
        self.requests.errors_only_toggled.connect(self._on_requests_errors_only_toggled)
        self.comparison = ComparisonView(settings=settings)
        self.summary = SummaryView()
        self.detail = QStackedWidget()
        for widget in (self.hint, self.requests, self.comparison, self.summary):
            self.detail.addWidget(widget)

        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([200, 520])  # a comparison needs the room more than the list

        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(filters)
        layout.addLayout(actions)
        layout.addWidget(self.splitter, 1)

        self.controller.runs_loaded.connect(self._on_controller_runs_loaded)
        self.controller.comparison_loaded.connect(self._on_controller_comparison_loaded)
        self.controller.requests_loaded.connect(self._on_controller_requests_loaded)
        self.controller.runs_deleted.connect(self._on_controller_runs_deleted)
        self.controller.summary_loaded.connect(self._on_controller_summary_loaded)
        self.controller.exported.connect(self._on_controller_exported)
        self.controller.imported.connect(self._on_controller_imported)
        self.controller.failed.connect(self._on_controller_failed)
        self.controller.replay_point.connect(self._on_controller_replay_point)
        self.controller.replayed.connect(self._on_controller_replayed)
        context.endpoint_changed.connect(self._on_context_endpoint_changed)
        context.run_finished.connect(self._on_context_run_finished)
        context.compare_requested.connect(self._on_context_compare_requested)
        for combo in (self.kind_combo, self.status_combo, self.endpoint_combo, self.model_combo):
            combo.currentIndexChanged.connect(self._on_filters_changed)
        self._restore()
        self.columns = ColumnFitter(self.table, max_width=260, restored=self._track(
            KEY_RUNS_HEADER, self.table.horizontalHeader()))
        self._track(KEY_REQUESTS_HEADER, self.requests.view.horizontalHeader())
        self._track(KEY_SPLITTER, self.splitter)
        self._update_buttons()

    # ---- public

    def refresh(self) -> asyncio.Task:
        """Reread the runs matching the filters (the selection is kept where it can be)."""
        return self.controller.refresh(self.filters())

    def filters(self) -> RunFilters:
        def pick(combo: QComboBox) -> str | None:
            return None if combo.currentIndex() <= 0 else str(combo.currentData())

        since = until = None
        if self.dates_check.isChecked():
            since = datetime.combine(self.since_edit.date().toPython(), time())
            until = datetime.combine(self.until_edit.date().toPython(), time()) + timedelta(1)
        return RunFilters(pick(self.kind_combo), pick(self.status_combo),
                          pick(self.endpoint_combo), pick(self.model_combo), since, until)

    def selected_runs(self) -> list[RunInfo]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.run_at(r) for r in rows]

    def select_runs(self, run_ids: list[int]) -> None:
        """Select these runs in the table (those not listed are ignored)."""
        selection = self.table.selectionModel()
        selection.clearSelection()
        for run_id in run_ids:
            row = self.model.row_of(run_id)
            if row is not None:
                selection.select(self.model.index(row, 0),
                                 selection.SelectionFlag.Select | selection.SelectionFlag.Rows)

    def shutdown(self) -> None:
        """Stop the page's jobs and close its store; remembers the filters."""
        self._save()
        if self._settings is not None:
            self._settings.save_tracked()  # when the page was opened alone, without a window
        self.requests.model.clear()
        self.controller.shutdown()

    # ---- handlers

    def _on_dates_toggled(self, checked: bool) -> None:
        self.since_edit.setEnabled(checked)
        self.until_edit.setEnabled(checked)
        self._on_filters_changed()

    def _on_filters_changed(self, *_: Any) -> None:
        self.refresh()

    def _on_context_run_finished(self, run_id: int, kind: str) -> None:
        self.refresh()

    def _on_controller_runs_loaded(self, runs: list[RunInfo], endpoints: list[str],
                                   models: list[str]) -> None:
        selected = [r.id for r in self.selected_runs()]
        self._set_choices(self.endpoint_combo, endpoints)
        self._set_choices(self.model_combo, models)
        self.model.set_runs(runs)
        self.columns.fit()  # names and URLs can be long (260 px at most): tooltips have the rest
        if self._select_after_refresh:
            selected, self._select_after_refresh = self._select_after_refresh, []
        self.select_runs(selected)
        # What a replay measured stays said through the refresh that lists its run.
        said, self._said_after_refresh = self._said_after_refresh, ""
        self.status_label.setText(said or self.tr("{count} run(s)").format(count=len(runs)))
        self._update_buttons()

    def _on_selection_changed(self, *_: Any) -> None:
        self._update_buttons()
        runs = self.selected_runs()
        if len(runs) == 1 and runs[0].kind == "throughput":
            self.controller.load_requests(runs[0], self.requests.errors_only.isChecked())
        elif self.detail.currentWidget() is self.requests:
            self.detail.setCurrentWidget(self.hint)

    def _on_table_double_clicked(self, index) -> None:
        run = self.model.run_at(index.row())
        self.context.open_run_requested.emit(run.id, run.kind)

    def _on_open_clicked(self) -> None:
        runs = self.selected_runs()
        if len(runs) == 1 and runs[0].kind == "replay" and self.controller.store is not None:
            # A replay has no page of its own: its figures fit the status line.
            from desktop_app.core.throughput.replay import stored_replay

            found = stored_replay(self.controller.store, runs[0].id)
            self.status_label.setText(self.tr("Replay #{run} of run #{sql}: {points}").format(
                run=runs[0].id, sql=found.sql_run if found else "?", points="; ".join(
                    self._point_text(p) for p in (found.points if found else ()))))
        elif len(runs) == 1:
            self.context.open_run_requested.emit(runs[0].id, runs[0].kind)

    def _on_requests_clicked(self) -> None:
        runs = self.selected_runs()
        if len(runs) == 1 and runs[0].kind == "throughput":
            self.controller.load_requests(runs[0], self.requests.errors_only.isChecked())

    def _on_requests_errors_only_toggled(self, checked: bool) -> None:
        self._on_requests_clicked()

    def _on_compare_clicked(self) -> None:
        # The page shows comparisons asked for anywhere, its own included, through the context.
        self.context.compare_requested.emit([r.id for r in self.selected_runs()])

    def _on_context_compare_requested(self, run_ids: list[int]) -> None:
        if len(run_ids) >= 2:
            self.status_label.setText(self.tr("Reading {count} runs to compare…").format(
                count=len(run_ids)))
            self.controller.compare(run_ids)

    def _on_controller_comparison_loaded(self, comparison: Comparison) -> None:
        self.comparison.show_comparison(comparison, report_language())
        self.detail.setCurrentWidget(self.comparison)
        self.status_label.setText(self.tr("{count} run(s)").format(count=self.model.rowCount()))

    def _on_controller_requests_loaded(self, view: RequestsView) -> None:
        runs = self.selected_runs()
        if len(runs) != 1 or runs[0].id != view.run.id:
            return  # the selection moved on while the ids were read
        self.requests.show_requests(view, self.controller.store)
        self.detail.setCurrentWidget(self.requests)

    def _on_delete_clicked(self) -> None:
        runs = self.selected_runs()
        if not runs:
            return
        names = "\n".join(f"  {r.label}" for r in runs[:8])
        more = (self.tr("\n  … and {count} more").format(count=len(runs) - 8)
                if len(runs) > 8 else "")
        answer = QMessageBox.question(
            self, self.tr("Delete runs"),
            self.tr("Delete {count} run(s) and every request, cell and answer stored with "
                    "them?").format(count=len(runs))
            + f"\n\n{names}{more}\n\n" + self.tr("This cannot be undone."),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.delete_button.setEnabled(False)
        self.status_label.setText(self.tr("Deleting {count} run(s)…").format(count=len(runs)))
        self.controller.delete([r.id for r in runs])

    def _on_controller_summary_loaded(self, comparison) -> None:
        self.summary.show_summary(comparison)
        self.detail.setCurrentWidget(self.summary)
        self.status_label.setText(self.tr("{count} run(s)").format(count=self.model.rowCount()))

    def _on_resume_clicked(self) -> None:
        runs = self.selected_runs()
        if len(runs) == 1 and runs[0].kind == "throughput" and runs[0].status in RESUMABLE:
            self.context.resume_requested.emit(runs[0].id)

    def _on_replay_clicked(self) -> None:
        from desktop_app.core.parsing import InputError, parse_int_list
        from desktop_app.core.throughput.replay import MAX_AGENTS
        from desktop_app.gui.i18n import error_words

        runs = self.selected_runs()
        endpoint = self.context.endpoint
        if len(runs) != 1 or runs[0].kind != "sql" or endpoint is None:
            return
        text, ok = QInputDialog.getText(
            self, self.tr("Replay as load"),
            self.tr("Concurrent agents, e.g. 1,4,8 (each number in turn; every recorded "
                    "question of run #{run} once per number), against {endpoint}:").format(
                run=runs[0].id, endpoint=endpoint.label), text="1,4")
        if not ok:
            return
        try:
            sessions = parse_int_list(text, "agents", max_value=MAX_AGENTS)
        except InputError as exc:
            self.status_label.setText(error_words(exc))
            return
        self._replayed_points = []
        self._replaying = True
        self.status_label.setText(self.tr("Replaying run #{run} at {agents} agent(s)…").format(
            run=runs[0].id, agents=", ".join(map(str, sessions))))
        self.replay_button.setEnabled(False)
        self.controller.replay(runs[0].id, sessions, endpoint)

    def _point_text(self, point) -> str:
        tph = point.tasks_per_hour
        figure = (self.tr("{value} tasks/h [{low}-{high}]").format(
            value=f"{tph.value:,.0f}", low=f"{tph.low:,.0f}", high=f"{tph.high:,.0f}")
            if tph is not None else self.tr("no task finished"))
        return self.tr("{n} agent(s): {figure}").format(n=point.sessions, figure=figure)

    def _on_controller_replay_point(self, point) -> None:
        self._replayed_points.append(self._point_text(point))
        self.status_label.setText("; ".join(self._replayed_points))

    def _on_controller_replayed(self, result) -> None:
        self._said_after_refresh = self.tr("Replay stored as run #{run}: {points}").format(
            run=result.run_id, points="; ".join(self._replayed_points))
        self.status_label.setText(self._said_after_refresh)
        self._select_after_refresh = [result.run_id]
        self._replaying = False
        self._update_buttons()

    def _on_context_endpoint_changed(self, _endpoint) -> None:
        self._update_buttons()

    def _on_export_pdf_triggered(self) -> None:
        runs = self.selected_runs()
        if len(runs) < 2:
            return
        name = "comparison-" + "-".join(str(r.id) for r in runs[:6]) + ".pdf"
        path = self.choose_path("pdf", name)
        if path:
            self._export([r.id for r in runs], "pdf", Path(path))

    def _on_export_csv_triggered(self) -> None:
        self._export_folder("csv")

    def _on_export_json_triggered(self) -> None:
        self._export_folder("json")

    def _export_folder(self, fmt: str) -> None:
        runs = self.selected_runs()
        folder = self.choose_path("folder", "") if runs else None
        if folder:
            self._export([r.id for r in runs], fmt, Path(folder))

    def _export(self, run_ids: list[int], fmt: str, destination: Path) -> None:
        self.status_label.setText(self.tr("Writing {what}…").format(what=fmt.upper()))
        self.written_bar.hide()
        self.export_button.setEnabled(False)
        self.controller.export(run_ids, fmt, destination, report_language())

    def _on_controller_exported(self, paths: list[Path]) -> None:
        self._update_buttons()
        where = paths[0] if len(paths) == 1 else paths[0].parent.parent if paths else ""
        wrote = (self.tr("Wrote 1 file to {where}") if len(paths) == 1 else
                 self.tr("Wrote {count} files to {where}"))
        self.status_label.setText(wrote.format(count=len(paths), where=where))
        self.written_bar.show_paths(paths)

    def _on_import_clicked(self) -> None:
        path = self.choose_path("import", "")
        if path:
            self.status_label.setText(self.tr("Importing {file}…").format(file=Path(path).name))
            self.controller.import_files([Path(path)])

    def _on_controller_imported(self, run_ids: list[int]) -> None:
        self.status_label.setText(self.tr("Imported as run(s) {ids}").format(
            ids=", ".join(f"#{i}" for i in run_ids)))
        self._select_after_refresh = list(run_ids)
        self.refresh()

    def choose_path(self, purpose: str, suggestion: str) -> str | None:
        """Ask where to write ("pdf": a file, "folder": a folder) or what to read ("import");
        None when the user cancels. Tests replace this method."""
        if purpose == "pdf":
            path, _ = QFileDialog.getSaveFileName(
                self, self.tr("Save the comparison PDF"), str(Path.home() / suggestion),
                self.tr("PDF files (*.pdf)"))
        elif purpose == "folder":
            path = QFileDialog.getExistingDirectory(
                self, self.tr("Export into folder"), str(Path.home()))
        else:
            path, _ = QFileDialog.getOpenFileName(
                self, self.tr("Import results of another tool"), str(Path.home()),
                self.tr("Results (*.json *.jsonl *.csv);;All files (*)"))
        return path or None

    def _on_controller_runs_deleted(self, run_ids: list[int]) -> None:
        self.requests.model.clear()
        self.detail.setCurrentWidget(self.hint)
        self.table.selectionModel().clearSelection()
        self.refresh()

    def _on_controller_failed(self, message: str) -> None:
        self._replaying = False
        self.status_label.setText(message)
        self._update_buttons()

    # ---- helpers

    def _combo(self, items: tuple[str, ...], width: int = 0) -> QComboBox:
        """A filter: "All" first, then `items` (shown in the UI's language, kept as data)."""
        combo = QComboBox()
        combo.addItem(self.tr("All"), ALL)
        for item in items[1:]:
            combo.addItem(status_text(item), item)
        if width:  # endpoints and models can be long: a fixed width, the popup shows them all
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(width)
        else:
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        return combo

    def _set_choices(self, combo: QComboBox, values: list[str]) -> None:
        current = combo.currentData()
        if [combo.itemData(i) for i in range(1, combo.count())] == values:
            return
        combo.blockSignals(True)  # the list changes, the filter does not
        combo.clear()
        combo.addItem(self.tr("All"), ALL)
        for value in values:
            combo.addItem(value, value)
        combo.setCurrentIndex(max(combo.findData(current), 0))
        combo.blockSignals(False)

    def _update_buttons(self) -> None:
        runs = self.selected_runs()
        kinds = {r.kind for r in runs}
        self.open_button.setEnabled(len(runs) == 1)
        self.requests_button.setEnabled(len(runs) == 1 and runs[0].kind == "throughput")
        self.compare_button.setEnabled(len(runs) >= 2 and kinds <= set(COMPARABLE_KINDS))
        self.resume_button.setEnabled(len(runs) == 1 and runs[0].kind == "throughput"
                                      and runs[0].status in RESUMABLE)
        self.replay_button.setEnabled(len(runs) == 1 and runs[0].kind == "sql"
                                      and self.context.endpoint is not None
                                      and not self._replaying)
        self.export_button.setEnabled(bool(runs))
        self.export_pdf_action.setEnabled(len(runs) >= 2)
        self.delete_button.setEnabled(bool(runs) and all(r.status != "running" for r in runs))

    def _restore(self) -> None:
        if self._settings is None:
            return
        kind, _, status = self._settings.text_value(KEY_FILTERS).partition("|")
        for combo, value in ((self.kind_combo, kind), (self.status_combo, status)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(combo.findData(value), 0) if value else 0)
            combo.blockSignals(False)

    def _track(self, key: str, widget) -> bool:
        return self._settings is not None and self._settings.track(key, widget)

    def save_state(self) -> None:
        """Remember the kind and status filters (the main window saves splitters and headers)."""
        self._save()

    def _save(self) -> None:
        if self._settings is None:
            return
        kind, status = self.kind_combo.currentData(), self.status_combo.currentData()
        self._settings.set_value(KEY_FILTERS, f"{kind}|{status}")


# --------------------------------------------------------------------------- alone


def build_demo_store(db_path: Path, cache_dir: Path) -> None:
    """Fill `db_path` with two tiny sweeps and two 3-question SQL runs (sim/careful and
    sim/seed-reference) against the instant simulator: a few seconds, all simulated."""
    from desktop_app import paths
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.launcher import start_simulator
    from desktop_app.core.sqleval.runner import EvalConfig, run_eval
    from desktop_app.core.throughput.config import SweepConfig
    from desktop_app.core.throughput.sweep import run_sweep

    async def fill(url: str) -> None:
        with Store.open(db_path) as store:
            for name, inputs in (("demo sweep A", (256, 1024, 4096)),
                                 ("demo sweep B", (256, 1024, 2048, 4096))):
                config = SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b"),
                                     input_tokens=inputs, concurrency=(1, 4),
                                     output_tokens=(32,), requests_per_cell=8, warmup=1,
                                     name=name, metrics_interval_s=0.2)
                await run_sweep(config, store)
            for persona in ("sim/careful", "sim/seed-reference"):
                config = EvalConfig(EndpointConfig(url, model=persona),
                                    question_ids=("t01", "e01", "h01"), name=f"demo {persona}")
                await run_eval(config, store, sets_dir=paths.question_set_dirs(),
                               cache_dir=cache_dir)

    with start_simulator("instant") as sim:
        asyncio.run(fill(sim.url))


def main(argv: list[str] | None = None) -> int:
    """Open the Runs page alone (see the module doc)."""
    import argparse
    import sys
    import tempfile

    from PySide6.QtWidgets import QApplication

    from desktop_app.gui.event_loop import EventLoop

    parser = argparse.ArgumentParser(prog="python -m desktop_app.gui.pages.runs")
    parser.add_argument("--db", type=Path, help="results file (default: the user's)")
    parser.add_argument("--demo", action="store_true", help="use a temporary demo store")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    context = AppContext(args.db)
    temp = None
    if args.demo or (args.db is None and not _has_runs(context)):
        temp = tempfile.TemporaryDirectory(prefix="throughline-runs-demo-")
        print("building a demo store with the instant simulator...", file=sys.stderr)
        build_demo_store(Path(temp.name) / "results.db", Path(temp.name) / "databases")
        context = AppContext(Path(temp.name) / "results.db",
                             cache_dir=Path(temp.name) / "databases")
    app = QApplication.instance() or QApplication(sys.argv)
    loop = EventLoop(app)
    asyncio.set_event_loop(loop)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        page = RunsPage(context, Settings())
        page.resize(1100, 720)
        page.setWindowTitle(f"Runs: {context.db_path}")
        page.show()
        page.refresh()
        loop.run_until_complete(closed.wait())
        page.shutdown()
    if temp is not None:
        temp.cleanup()
    return 0


def _has_runs(context: AppContext) -> bool:
    try:
        with context.open_store() as store:
            return bool(store.list_runs(limit=1))
    except Exception:  # noqa: BLE001 - an unusable store: show the demo instead
        return False


if __name__ == "__main__":
    raise SystemExit(main())
