"""The SQL Agent page: the evaluation form, its progress, the questions table and tier charts.

Open it alone with `python -m desktop_app.gui.pages.sql_agent` (starts the built-in simulator,
profile instant, model sim/seed-reference, and a throwaway results database). The form's
fields, their checks and their restoring are `sql_agent_form.py`'s (`SqlEvalFormMixin`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.sqleval.runner import EvalProgress, EvalResult
from desktop_app.core.sqleval.types import TIERS
from desktop_app.gui.context import AppContext
from desktop_app.gui.controllers.sqleval import SqlEvalController, StoredSqlRun, live_paths
from desktop_app.gui.i18n import report_language, status_text, translate
from desktop_app.gui.models.questions import (
    FILTER_JUDGES,
    FILTERS,
    QuestionFilterModel,
    QuestionRow,
    QuestionTableModel,
)
from desktop_app.gui.pages.sql_agent_form import (  # the tips: tests import them from here
    INVALID_STYLE,
    KEY_FORM,
    MODEL_TIP,
    PERSONA_TIPS,
    STRATEGY_TIPS,
    SqlEvalFormMixin,
)
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.widgets.column_fit import ColumnFitter
from desktop_app.gui.widgets.tier_chart import TierChart
from desktop_app.report.judge_words import JudgeWords

__all__ = ["KEY_FORM", "KEY_QUESTIONS_HEADER", "KEY_RESULTS_SPLITTER", "KEY_SPLITTER",
           "MODEL_TIP", "PERSONA_TIPS", "STRATEGY_TIPS", "SqlAgentPage", "duration_text",
           "eta_seconds", "main"]

KEY_SPLITTER = "sql_agent/splitter"
KEY_RESULTS_SPLITTER = "sql_agent/results_splitter"
KEY_QUESTIONS_HEADER = "sql_agent/questions_header"
declare(KEY_SPLITTER, KEY_RESULTS_SPLITTER, KEY_QUESTIONS_HEADER)

_PHASES = {"loading": QT_TRANSLATE_NOOP("SqlAgentPage", "Loading the question set..."),
           "discovering": QT_TRANSLATE_NOOP("SqlAgentPage", "Asking the endpoint..."),
           "gold": QT_TRANSLATE_NOOP("SqlAgentPage", "Running the gold queries..."),
           "done": QT_TRANSLATE_NOOP("SqlAgentPage", "Finished")}
MIN_DONE_FOR_ETA = 1  # questions finished before the progress text estimates the time left


def eta_seconds(done: int, total: int, elapsed_s: float) -> float | None:
    """Seconds left at the pace so far (elapsed per finished question run), None before
    the first one finishes or when nothing is left."""
    if done < MIN_DONE_FOR_ETA or total <= done or elapsed_s <= 0:
        return None
    return elapsed_s / done * (total - done)


def duration_text(seconds: float) -> str:
    """A short duration: "45 s", "3 min 20 s", "1 h 05 min"."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class SqlAgentPage(SqlEvalFormMixin, QWidget):
    """The SQL evaluation form with Start/Stop, its progress, and the run's questions as a
    filterable table and bar charts by tier."""

    def __init__(self, context: AppContext, settings: Settings | None = None,
                 controller: SqlEvalController | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page_sql_agent")
        self._judges_follow_set = False  # True once the user picks a set: its defaults apply
        self._judges_defaulted = False  # the judges were set to a no-columns set's default
        self.context = context
        self.settings = settings or Settings()
        self.controller = controller or SqlEvalController(context, self)
        self.run_id: int | None = None
        self._simulated = False
        self._remembered_model = ""  # the model of the last Start, until an endpoint shows

        self.model = QuestionTableModel(self)
        self.proxy = QuestionFilterModel(self)
        self.proxy.setSourceModel(self.model)

        form_panel = self._build_form()
        results = self._build_results()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(form_panel)
        splitter.addWidget(results)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 770])
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(splitter)

        c = self.controller
        c.run_created.connect(self._on_controller_run_created)
        c.progressed.connect(self._on_controller_progressed)
        c.question_finished.connect(self._on_controller_question_finished)
        c.finished.connect(self._on_controller_finished)
        c.cancelled.connect(self._on_controller_cancelled)
        c.failed.connect(self._on_controller_failed)
        c.loaded.connect(self._on_controller_loaded)
        c.running_changed.connect(self._on_controller_running_changed)
        c.set_ids_loaded.connect(self._on_controller_set_ids_loaded)
        context.endpoint_changed.connect(self._on_context_endpoint_changed)
        context.open_run_requested.connect(self._on_context_open_run_requested)

        self._restore_form()
        self._judges_follow_set = False  # restored judges stay as the user left them
        self.settings.track(KEY_SPLITTER, self.splitter)
        self.settings.track(KEY_RESULTS_SPLITTER, self.results_splitter)
        self.columns = ColumnFitter(self.table, restored=self.settings.track(
            KEY_QUESTIONS_HEADER, self.table.horizontalHeader()))
        self.columns.fit()
        self._on_context_endpoint_changed(context.endpoint)
        self.model_combo.currentTextChanged.connect(self._on_model_combo_text_changed)
        self.controller.load_set_ids(self.form_values().questions)

    # ------------------------------------------------------------------ building

    def _build_results(self) -> QWidget:
        self.endpoint_label = QLabel()
        self.endpoint_label.setWordWrap(True)
        # The model of the run in progress or shown, with its run id (None: no run yet); the
        # header names it rather than the endpoint's own model.
        self._header_run: tuple[str, int | None, bool] | None = None  # model, run, running
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat(self.tr("no run yet"))
        self.status_label = QLabel(self.tr("No run yet: choose the options and press Start."))
        self.summary_label = QLabel("")
        self.summary_label.setWordWrap(True)
        # A layered run: the share of questions each path answered, with pass rates and cost.
        self.paths_label = QLabel("")
        self.paths_label.setWordWrap(True)
        self.paths_label.setVisible(False)
        self.paths_label.setToolTip(self.tr(
            "The layered strategy: the fast path is one request without tools whose answer "
            "passed the harness's checks; the tool loop answered the rest"))

        self.filter_combo = QComboBox()
        for name in FILTERS:
            self.filter_combo.addItem(translate("QuestionFilterModel", name), name)
        self.filter_combo.currentIndexChanged.connect(self._on_filter_combo_changed)
        self.tier_filter = QComboBox()
        self.tier_filter.addItem(self.tr("all tiers"), "")
        for tier in TIERS:
            self.tier_filter.addItem(tier, tier)
        self.tier_filter.currentIndexChanged.connect(self._on_filter_combo_changed)
        self.shown_label = QLabel("")
        filters = QHBoxLayout()
        filters.addWidget(QLabel(self.tr("Show")))
        filters.addWidget(self.filter_combo)
        filters.addWidget(self.tier_filter)
        filters.addWidget(self.shown_label, 1)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        # Every column as wide as its content (a narrow page scrolls rather than cutting
        # the failure class) until the user sizes one; the last one takes what is left.
        header.setStretchLastSection(True)
        self.table.setToolTip(self.tr("Double-click a question to open it in the Inspector"))
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        self.table.setColumnHidden(self.model.COL_EPOCH, True)

        self.chart = TierChart()
        self.chart.setMinimumHeight(180)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.endpoint_label, self.progress_bar, self.status_label,
                       self.summary_label, self.paths_label):
            top_layout.addWidget(widget)
        top_layout.addLayout(filters)
        top_layout.addWidget(self.table, 1)
        self.results_splitter = QSplitter(Qt.Orientation.Vertical)
        self.results_splitter.addWidget(top)
        self.results_splitter.addWidget(self.chart)
        self.results_splitter.setStretchFactor(0, 3)
        self.results_splitter.setStretchFactor(1, 2)
        self.results_splitter.setSizes([420, 260])
        return self.results_splitter

    # ------------------------------------------------------------------ actions

    def _on_start_clicked(self) -> None:
        config = self._validate()
        if config is None or self.controller.running:
            return
        self.save_state()
        self.run_id = None
        self.model.clear()
        self._show_judges(config.judges)
        self.chart.set_rows([])
        info = self.context.endpoint.info if self.context.endpoint else None
        self._simulated = bool(info and info.simulated) or config.endpoint.model.startswith(
            "sim/")
        self.table.setColumnHidden(self.model.COL_EPOCH, config.epochs <= 1)
        self.progress_bar.setRange(0, 0)
        self.status_label.setText(self.tr("Starting {questions} with {model}...").format(
            questions=config.questions, model=config.endpoint.model))
        self._header_run = (config.endpoint.model, None, True)
        self._update_header()
        self._update_summary(config.judges)
        self._show_paths(())
        self.controller.start(config)

    def _on_stop_clicked(self) -> None:
        self.status_label.setText(self.tr("Stopping..."))
        self.controller.stop()

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        row = self.model.row_at(self.proxy.mapToSource(index).row())
        if self.run_id is not None and row.row_id is not None:
            self.context.open_question_requested.emit(self.run_id, row.row_id)

    def _show_judges(self, judges) -> None:
        """The run's judges: their verdict columns, the chart's bars, and the filters that
        read them (a filter on a judge not run is greyed out and left if chosen)."""
        self.model.set_judges(judges)
        self.chart.set_judges(judges)
        items = self.filter_combo.model()
        for i in range(self.filter_combo.count()):
            needs = FILTER_JUDGES.get(str(self.filter_combo.itemData(i)), ())
            items.item(i).setEnabled(all(j in self.model.judges for j in needs))
        if not items.item(self.filter_combo.currentIndex()).isEnabled():
            self.filter_combo.setCurrentIndex(0)

    def _on_filter_combo_changed(self, *_args) -> None:
        self.proxy.set_verdict_filter(str(self.filter_combo.currentData()))
        self.proxy.set_tier(str(self.tier_filter.currentData() or ""))
        self._on_filter_changed()

    def _on_filter_changed(self, *_args) -> None:
        self.shown_label.setText(self.tr("{shown} of {total} shown").format(
            shown=self.proxy.rowCount(), total=self.model.rowCount()))

    # ------------------------------------------------------------------ controller events

    def _on_controller_running_changed(self, running: bool) -> None:
        self.stop_button.setEnabled(running)
        for widget in (self.set_combo, self.browse_button, self.import_button,
                       self.model_combo):
            widget.setEnabled(not running)
        self._update_start()

    def _on_controller_run_created(self, run_id: int) -> None:
        self.run_id = run_id
        if self._header_run is not None:
            self._header_run = (self._header_run[0], run_id, True)
            self._update_header()

    def _on_controller_progressed(self, progress: EvalProgress) -> None:
        if progress.phase == "running":
            self.progress_bar.setFormat(self.tr("%v / %m questions"))
            self.progress_bar.setRange(0, max(progress.total, 1))
            self.progress_bar.setValue(progress.done)
            now = ""
            if progress.step is not None and progress.question_id:
                now = self.tr(": {question} step {step}").format(
                    question=progress.question_id, step=progress.step.index + 1)
            elif progress.latest is not None:
                now = self.tr(": {question} finished").format(question=progress.question_id)
            left = eta_seconds(progress.done, progress.total, progress.elapsed_s)
            eta = ("" if left is None else
                   self.tr(", about {time} left").format(time=duration_text(left)))
            self.status_label.setText(
                self.tr("Running, {done} of {total} questions done after {seconds} s").format(
                    done=progress.done, total=progress.total,
                    seconds=f"{progress.elapsed_s:.1f}") + eta + now)
            if left is not None:
                self.progress_bar.setFormat(self.tr("%v / %m questions, about {time} left")
                                            .format(time=duration_text(left)))
        elif progress.phase in _PHASES and progress.phase != "done":
            self.status_label.setText(translate("SqlAgentPage", _PHASES[progress.phase]))

    def _on_controller_question_finished(self, row: QuestionRow) -> None:
        self.model.add_row(row)
        self.columns.fit()
        self.chart.add_row(row)
        self._update_summary(self.chart.judges)
        self._on_filter_changed()

    def _on_controller_finished(self, result: EvalResult) -> None:
        self.run_id = result.run_id
        self.progress_bar.setFormat(self.tr("%v / %m questions"))
        if self._header_run is not None:
            self._header_run = (self._header_run[0], result.run_id, False)
            self._update_header()
        self.progress_bar.setRange(0, max(len(result.items), 1))
        self.progress_bar.setValue(len(result.items))
        skipped = (self.tr(", {count} skipped").format(count=len(result.skipped))
                   if result.skipped else "")
        self.status_label.setText(
            self.tr("Finished run {run}: {count} questions{skipped}. Double-click one to "
                    "inspect it.").format(run=result.run_id, count=len(result.items),
                                          skipped=skipped))
        self._show_paths(live_paths(result))

    def _on_controller_cancelled(self, run_id: int) -> None:
        self.progress_bar.setFormat(self.tr("%v / %m questions"))
        if self._header_run is not None:
            self._header_run = (self._header_run[0], run_id if run_id >= 0 else None, False)
            self._update_header()
        self.progress_bar.setRange(0, max(self.progress_bar.maximum(), 1))
        where = (self.tr("run {run} stored as cancelled").format(run=run_id) if run_id >= 0
                 else self.tr("nothing stored"))
        self.status_label.setText(self.tr("Stopped ({where}); {count} questions finished.")
                                  .format(where=where, count=self.model.rowCount()))

    def _on_controller_failed(self, field: str, message: str) -> None:
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat(self.tr("not run"))
        self.status_label.setText(self.tr("Not run."))
        self.error_label.setText(message)
        widget = self._field_widgets.get(field)
        if widget is not None:
            widget.setStyleSheet(INVALID_STYLE)

    def _on_controller_loaded(self, stored: StoredSqlRun) -> None:
        self.run_id = stored.run_id
        self._show_judges(stored.judges)
        self.model.set_rows(stored.rows)
        self.columns.fit()
        self.chart.set_rows(stored.rows)
        self.table.setColumnHidden(self.model.COL_EPOCH, self.model.max_epoch() == 0)
        self.progress_bar.setFormat(self.tr("%v / %m questions"))
        self.progress_bar.setRange(0, max(len(stored.rows), 1))
        self.progress_bar.setValue(len(stored.rows))
        self.status_label.setText(self.tr("Stored run {run} ({status}): {name}").format(
            run=stored.run_id, status=status_text(stored.status), name=stored.name))
        if stored.model:
            self._header_run = (stored.model, stored.run_id, False)
            self._update_header()
        self._simulated = stored.simulated
        self._show_paths(stored.paths)
        self._show_stored_choices(stored)
        self._update_summary(stored.judges)
        self._on_filter_changed()

    def _update_summary(self, judges) -> None:
        # passed / judged per judge (the rule of every view); questions a stopped run never
        # finished are counted apart, never as failures.
        counts = {j: self.model.pass_count(j) for j in judges}
        words = JudgeWords(report_language())
        parts = [f"{words.judge(j)} {c.text}" for j, c in counts.items()]
        unfinished = max((c.unfinished for c in counts.values()), default=0)
        if unfinished:
            parts[-1] += self.tr("; {count} unfinished").format(count=unfinished)
        omitted = self.model.explained_count("missing_round")
        if omitted:
            parts[-1] += (self.tr("; 1 answer omits the ROUND the question asks for")
                          if omitted == 1 else
                          self.tr("; {count} answers omit the ROUND the question asks for")
                          ).format(count=omitted)
        note = self.tr("   (SIMULATED persona: not a model's score)") if self._simulated else ""
        self.summary_label.setText(self.tr("Passed: {counts}").format(counts=", ".join(parts))
                                   + note if self.model.rowCount() else "")

    def _show_paths(self, shares) -> None:
        """One line per path of a layered run: its share of the questions, each judge's
        passes, tokens and seconds per question; hidden for other runs."""
        lines = []
        for share in shares:
            name = (self.tr("Fast path") if share.path == "fast" else self.tr("Tool loop"))
            if not share.questions:
                lines.append(self.tr("{path}: no question").format(path=name))
                continue
            passed = ", ".join(f"{j} {n}/{share.questions}" for j, n in share.passed.items())
            lines.append(self.tr(
                "{path}: {count} of {total} questions ({share} %), passed {passed}; "
                "{tokens} tokens and {seconds} s per question").format(
                path=name, count=share.questions, total=share.total,
                share=f"{share.share * 100:.0f}", passed=passed,
                tokens=f"{share.tokens_per_question or 0:,.0f}",
                seconds=f"{share.seconds_per_question or 0:.1f}"))
        self.paths_label.setText("\n".join(lines))
        self.paths_label.setVisible(bool(lines))

    # ------------------------------------------------------------------ context events

    def _on_context_endpoint_changed(self, endpoint) -> None:
        self._fill_models(endpoint)
        self._update_header()
        self._update_start()

    def _on_model_combo_text_changed(self, text: str) -> None:
        self._update_header()
        self._update_model_tip(text)

    def _update_header(self) -> None:
        """The header names the model evaluated: the run in progress's, else the shown run's,
        else the model chosen for the next run (the endpoint's own when none is chosen)."""
        endpoint = self.context.endpoint
        if self._header_run is not None:
            model, run, running = self._header_run
            if running:
                text = self.tr("Evaluating model {model} on {endpoint}").format(
                    model=model, endpoint=endpoint.label if endpoint else "-")
            elif run is not None:
                text = self.tr("Run {run}: model {model}").format(run=run, model=model)
            else:
                text = self.tr("Model {model}").format(model=model)
            self.endpoint_label.setText(text)
            return
        if endpoint is None:
            self.endpoint_label.setText(self.tr("Endpoint: none (choose one on the Endpoints "
                                                "page)"))
            return
        model = (self.model_combo.currentText().strip() or endpoint.config.model
                 or self.tr("(first listed model)"))
        self.endpoint_label.setText(self.tr("Endpoint: {endpoint}, model {model}").format(
            endpoint=endpoint.label, model=model))

    def _on_context_open_run_requested(self, run_id: int, kind: str) -> None:
        if kind == "sql":
            self.controller.load_run(run_id)

    def shutdown(self) -> None:
        """Stop the evaluation and any reading in progress (the window is closing)."""
        self.controller.stop()
        self.controller.cancel_reads()


# ---------------------------------------------------------------------- open alone


def main(argv: list[str] | None = None) -> int:
    """Open the page alone against the built-in simulator (profile instant, sim/seed-reference).

    `--smoke` shows it, processes events once and exits (the smoke test).
    """
    import argparse
    import asyncio
    import sys
    import tempfile

    from PySide6.QtWidgets import QApplication

    from desktop_app.gui.event_loop import EventLoop

    from desktop_app.core.endpoint.discovery import discover
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.launcher import start_simulator
    from desktop_app.gui.context import ActiveEndpoint

    parser = argparse.ArgumentParser(prog="python -m desktop_app.gui.pages.sql_agent")
    parser.add_argument("--smoke", action="store_true", help="show, then exit at once")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with start_simulator("instant") as sim, tempfile.TemporaryDirectory() as tmp:
        info = asyncio.run(discover(EndpointConfig(sim.url)))
        context = AppContext(Path(tmp) / "results.db")
        context.set_endpoint(ActiveEndpoint(EndpointConfig(sim.url, model="sim/seed-reference"),
                                            info, f"built-in simulator (instant) at {sim.url}"))
        loop = EventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            page = SqlAgentPage(context)
            page.setWindowTitle("Throughline: SQL Agent")
            page.resize(1100, 720)
            page.show()
            if args.smoke:
                app.processEvents()
                page.shutdown()
                page.close()
                return 0
            closed = asyncio.Event()
            app.lastWindowClosed.connect(closed.set)
            loop.run_until_complete(closed.wait())
            page.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
