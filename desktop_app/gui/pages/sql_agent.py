"""The SQL Agent page: the evaluation form, its progress, the questions table and tier charts.

Open it alone with `python -m desktop_app.gui.pages.sql_agent` (starts the built-in simulator,
profile instant, model sim/seed-reference, and a throwaway results database).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QModelIndex, Qt
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
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.parsing import InputError
from desktop_app.core.sqleval.questions import list_question_sets
from desktop_app.core.sqleval.runner import EvalProgress, EvalResult
from desktop_app.core.sqleval.types import JUDGE_MODES, STRATEGIES, TIERS
from desktop_app.gui.context import AppContext
from desktop_app.gui.controllers.sqleval import (
    FormValues,
    SqlEvalController,
    StoredSqlRun,
    config_from_form,
    default_run_name,
    live_paths,
)
from desktop_app.gui.i18n import status_text, translate
from desktop_app.gui.models.questions import (
    FILTERS,
    QuestionFilterModel,
    QuestionRow,
    QuestionTableModel,
)
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.widgets.column_fit import ColumnFitter
from desktop_app.gui.widgets.summary import report_language
from desktop_app.gui.widgets.tier_chart import TierChart
from desktop_app.report.judge_words import JudgeWords

KEY_FORM = "sql_agent/form"
KEY_SPLITTER = "sql_agent/splitter"
KEY_RESULTS_SPLITTER = "sql_agent/results_splitter"
KEY_QUESTIONS_HEADER = "sql_agent/questions_header"
declare(KEY_FORM, KEY_SPLITTER, KEY_RESULTS_SPLITTER, KEY_QUESTIONS_HEADER)

_INVALID_STYLE = "border: 1px solid #b3261e;"
_PHASES = {"loading": QT_TRANSLATE_NOOP("SqlAgentPage", "Loading the question set..."),
           "discovering": QT_TRANSLATE_NOOP("SqlAgentPage", "Asking the endpoint..."),
           "gold": QT_TRANSLATE_NOOP("SqlAgentPage", "Running the gold queries..."),
           "done": QT_TRANSLATE_NOOP("SqlAgentPage", "Finished")}
# What each prompt strategy does (core/sqleval/strategies.py), as the checkboxes' tooltips.
STRATEGY_TIPS = {
    "format-guard": QT_TRANSLATE_NOOP(
        "SqlAgentPage", "The system prompt insists on the exact output column names, their "
        "order and the rounding the question states (ROUND in the SQL itself)."),
    "examples": QT_TRANSLATE_NOOP(
        "SqlAgentPage", "Worked window-function examples (LAG, ROW_NUMBER, running SUM) in the "
        "system prompt, for hard questions only: they cost prompt tokens on every step."),
    "glossary": QT_TRANSLATE_NOOP(
        "SqlAgentPage", "Appends the question's glossary entry and the set's business "
        "glossary to the first message, after the question's own text."),
    "validate-retry": QT_TRANSLATE_NOOP(
        "SqlAgentPage", "Checks a submitted answer's result (column names, rounding, empty "
        "result...); when something is off the model is told once and may submit again."),
    "layered": QT_TRANSLATE_NOOP(
        "SqlAgentPage", "The seeds' layered strategy: one request without tools asks for the "
        "SQL; the harness checks it (it runs, returns rows, names and rounding, never the "
        "gold) and only an answer that fails pays for the tool loop, with the format guard "
        "and examples."),
}
# What each scripted persona of the built-in simulator does (core/simulator/personas.py), as
# the model combo's tooltips: they are not models, and their scores are not a model's.
PERSONA_TIPS = {
    "sim/careful": QT_TRANSLATE_NOOP(
        "SqlAgentPage", "A scripted persona of the built-in simulator, not a model: it lists "
        "the tables, describes one, runs the gold SQL and submits it, so every question "
        "passes every judge (25/25 on sales-25). For checking the harness end to end."),
    "sim/seed-reference": QT_TRANSLATE_NOOP(
        "SqlAgentPage", "A scripted persona of the built-in simulator, not a model: it replays "
        "the seed reports' run, dropping ROUND(x, n) and misnaming columns as that run did "
        "(9/25 strict, 22/25 tolerant on sales-25), with the same faults on the layered "
        "strategy's fast path."),
}
MODEL_TIP = QT_TRANSLATE_NOOP("SqlAgentPage", "The model the agent runs on: the active "
                              "endpoint's models (or type one)")
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


class SqlAgentPage(QWidget):
    """The SQL evaluation form with Start/Stop, its progress, and the run's questions as a
    filterable table and bar charts by tier."""

    def __init__(self, context: AppContext, settings: Settings | None = None,
                 controller: SqlEvalController | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page_sql_agent")
        self._judges_follow_set = False  # True once the user picks a set: its defaults apply
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

    def _build_form(self) -> QWidget:
        self.set_combo = QComboBox()
        for name, description in list_question_sets(self.context.sets_dir):
            self.set_combo.addItem(name, name)
            self.set_combo.setItemData(self.set_combo.count() - 1, description,
                                       Qt.ItemDataRole.ToolTipRole)
        self.browse_button = QPushButton(self.tr("Folder..."))
        self.browse_button.setToolTip(self.tr("Use a question set folder (holding set.toml)"))
        self.browse_button.clicked.connect(self._on_browse_clicked)
        self.import_button = QPushButton(self.tr("Import..."))
        self.import_button.setToolTip(self.tr("Import a public question set (Spider, BIRD, "
                                              "Spider2-lite, defog sql-eval) with its "
                                              "databases"))
        self.import_button.clicked.connect(self._on_import_clicked)
        set_row = QHBoxLayout()
        set_row.addWidget(self.set_combo, 1)
        set_row.addWidget(self.browse_button)
        set_row.addWidget(self.import_button)
        self.tier_boxes = {t: QCheckBox(t) for t in TIERS}
        tier_row = QHBoxLayout()
        for box in self.tier_boxes.values():
            box.setChecked(True)
            tier_row.addWidget(box)
        self.ids_edit = QLineEdit("")
        self.ids_edit.setPlaceholderText(self.tr("all (e.g. m01, h01)"))
        self.ids_edit.setToolTip(self.tr("Only these question ids, separated by commas; empty: "
                                         "all (within the tiers chosen)"))
        questions = QGroupBox(self.tr("Questions"))
        qform = QFormLayout(questions)
        qform.addRow(self.tr("Set"), set_row)
        qform.addRow(self.tr("Tiers"), tier_row)
        qform.addRow(self.tr("Ids"), self.ids_edit)

        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setToolTip(translate("SqlAgentPage", MODEL_TIP))
        model_group = QGroupBox(self.tr("Model"))
        mform = QFormLayout(model_group)
        mform.addRow(self.tr("Model"), self.model_combo)

        words = JudgeWords(report_language())
        self.judge_boxes = {j: QCheckBox(words.judge(j)) for j in JUDGE_MODES}
        judge_row = QHBoxLayout()
        for box in self.judge_boxes.values():
            box.setChecked(True)
            judge_row.addWidget(box)
        self.tolerance_edit = QLineEdit("1e-6")
        self.tolerance_edit.setToolTip(self.tr("Numeric tolerance of the tolerant and full "
                                               "judges"))
        self.tolerance_edit.setToolTip(self.tr(
            "Numbers are rounded as the question asks, then compared within this tolerance "
            "(relative above 1, absolute below); used by the tolerant and full judges"))
        self.judging_note = QLabel("")
        self.judging_note.setWordWrap(True)
        self.judging_note.setVisible(False)
        judges = QGroupBox(self.tr("Judges"))
        jform = QFormLayout(judges)
        jform.addRow(self.tr("Judges"), judge_row)
        jform.addRow(self.tr("Tolerance"), self.tolerance_edit)
        jform.addRow(self.judging_note)

        self.strategy_boxes = {s: QCheckBox(s) for s in STRATEGIES}
        for name, box in self.strategy_boxes.items():
            tip = STRATEGY_TIPS.get(name)
            if tip:
                box.setToolTip(translate("SqlAgentPage", tip))
        strategies = QGroupBox(self.tr("Strategies"))
        sgrid = QGridLayout(strategies)
        for i, box in enumerate(self.strategy_boxes.values()):
            sgrid.addWidget(box, i // 2, i % 2)

        self.max_steps_edit = QLineEdit("20")
        self.max_tokens_edit = QLineEdit("")
        self.max_tokens_edit.setPlaceholderText(self.tr("no limit"))
        self.time_limit_edit = QLineEdit("600")
        self.time_limit_edit.setPlaceholderText(self.tr("no limit"))
        budgets = QGroupBox(self.tr("Budgets per question"))
        bform = QFormLayout(budgets)
        bform.addRow(self.tr("Max steps"), self.max_steps_edit)
        bform.addRow(self.tr("Max tokens"), self.max_tokens_edit)
        bform.addRow(self.tr("Time (s)"), self.time_limit_edit)

        self.concurrency_edit = QLineEdit("4")
        self.epochs_edit = QLineEdit("1")
        self.retries_edit = QLineEdit("0")
        self.retries_edit.setToolTip(self.tr(
            "Model calls that fail transiently (no answer, 429, 5xx) are tried again this many "
            "times, waiting at least the server's Retry-After; 0 keeps every fault visible"))
        self.language_combo = QComboBox()
        self.language_combo.addItem(self.tr("English"), "en")
        self.language_combo.addItem(self.tr("Chinese"), "zh")
        self.language_combo.setToolTip(self.tr("The language the questions are asked in"))
        self.name_edit = QLineEdit("")
        self.name_edit.setToolTip(self.tr("How the Runs page, comparisons and reports name this "
                                          "run; empty: the name shown in grey"))
        self.notes_edit = QPlainTextEdit()
        self.notes_edit.setTabChangesFocus(True)
        self.notes_edit.setPlaceholderText(self.tr("What is special about this run (optional)"))
        margins = self.notes_edit.contentsMargins()
        self.notes_edit.setFixedHeight(
            3 * self.notes_edit.fontMetrics().lineSpacing() + margins.top() + margins.bottom()
            + 2 * int(self.notes_edit.document().documentMargin()) + 6)  # 3 lines, no scroll bar
        self.server_settings_edit = QLineEdit("")
        self.server_settings_edit.setPlaceholderText(
            self.tr("e.g. max-num-seqs=2, gpu-memory-utilization=0.91"))
        self.server_settings_edit.setToolTip(self.tr(
            "key=value pairs, separated by commas. Settings the server reports are read "
            "automatically; type here only those it does not report."))
        run = QGroupBox(self.tr("Run"))
        # Name, note and settings take the group's width, their labels above them.
        identity = QFormLayout()
        identity.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        identity.addRow(self.tr("Name"), self.name_edit)
        identity.addRow(self.tr("Note"), self.notes_edit)
        identity.addRow(self.tr("Server settings"), self.server_settings_edit)
        rform = QFormLayout()
        rcolumn = QVBoxLayout(run)
        rcolumn.addLayout(identity)
        rcolumn.addLayout(rform)
        rform.addRow(self.tr("Concurrency"), self.concurrency_edit)
        rform.addRow(self.tr("Epochs"), self.epochs_edit)
        rform.addRow(self.tr("Retries"), self.retries_edit)
        rform.addRow(self.tr("Question language"), self.language_combo)

        self.error_label = QLabel("")
        self.error_label.setObjectName("formError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b3261e;")
        self.start_button = QPushButton(self.tr("Start"))
        self.start_button.setDefault(True)
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setEnabled(False)
        self.start_button.clicked.connect(self._on_start_clicked)
        self.stop_button.clicked.connect(self._on_stop_clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)

        self._field_widgets = {
            "questions": self.set_combo, "question ids": self.ids_edit,
            "model": self.model_combo, "tolerance": self.tolerance_edit,
            "max steps": self.max_steps_edit, "max tokens": self.max_tokens_edit,
            "time limit": self.time_limit_edit, "concurrency": self.concurrency_edit,
            "epochs": self.epochs_edit, "retries": self.retries_edit,
            "server settings": self.server_settings_edit}
        for edit in (self.ids_edit, self.tolerance_edit, self.max_steps_edit, self.max_tokens_edit,
                     self.time_limit_edit, self.concurrency_edit, self.epochs_edit,
                     self.retries_edit, self.server_settings_edit):
            edit.textChanged.connect(self._on_form_changed)
        for box in (*self.tier_boxes.values(), *self.judge_boxes.values(),
                    *self.strategy_boxes.values()):
            box.toggled.connect(self._on_form_changed)
        self.set_combo.currentIndexChanged.connect(self._on_set_changed)
        self.model_combo.currentTextChanged.connect(self._on_form_changed)
        self.language_combo.currentIndexChanged.connect(self._on_form_changed)

        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(0, 0, 4, 0)
        for group in (model_group, questions, judges, strategies, budgets, run):
            column.addWidget(group)
        column.addWidget(self.error_label)
        column.addLayout(buttons)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(inner)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(inner.sizeHint().width()
                               + scroll.verticalScrollBar().sizeHint().width() + 4)
        return scroll

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

    # ------------------------------------------------------------------ the form

    def form_values(self) -> FormValues:
        """What the form holds now, as typed."""
        return FormValues(
            questions=str(self.set_combo.currentData() or self.set_combo.currentText()),
            tiers=tuple(t for t, b in self.tier_boxes.items() if b.isChecked()),
            question_ids=self.ids_edit.text(), model=self.model_combo.currentText().strip(),
            judges=tuple(j for j, b in self.judge_boxes.items() if b.isChecked()),
            tolerance=self.tolerance_edit.text(),
            strategies=tuple(s for s, b in self.strategy_boxes.items() if b.isChecked()),
            max_steps=self.max_steps_edit.text(), max_tokens=self.max_tokens_edit.text(),
            time_limit_s=self.time_limit_edit.text(),
            concurrency=self.concurrency_edit.text(), epochs=self.epochs_edit.text(),
            retries=self.retries_edit.text(), language=str(self.language_combo.currentData()),
            name=self.name_edit.text(), notes=self.notes_edit.toPlainText(),
            server_settings=self.server_settings_edit.text())

    def _validate(self):
        """The config the form describes, or None after showing which field is wrong."""
        for widget in self._field_widgets.values():
            widget.setStyleSheet("")
        try:
            form = self.form_values()
            config = config_from_form(form, self.context,
                                      known_ids=self.controller.set_ids(form.questions))
        except InputError as exc:
            self.error_label.setText(str(exc))
            widget = self._field_widgets.get(exc.field)
            if widget is not None:
                widget.setStyleSheet(_INVALID_STYLE)
            self.name_edit.setPlaceholderText(self.tr("default: the model and question set"))
            return None
        self.error_label.setText("")
        self.name_edit.setPlaceholderText(default_run_name(config))
        return config

    def _update_start(self) -> None:
        valid = self._validate() is not None
        self.start_button.setEnabled(valid and not self.controller.running)

    def _on_form_changed(self, *_args) -> None:
        self._update_start()

    def _on_set_changed(self, *_args) -> None:
        self._judges_follow_set = True  # the user chose a set: its judging defaults apply
        questions = self.form_values().questions
        self.judging_note.setVisible(False)
        self._apply_set_judging(questions)  # known when the set was read before
        self.controller.load_set_ids(questions)
        self._update_start()

    def _on_controller_set_ids_loaded(self, questions: str, _ids) -> None:
        if questions == self.form_values().questions:
            self._apply_set_judging(questions)
            self._update_start()

    def _apply_set_judging(self, questions: str) -> None:
        """A set whose questions do not name their columns is judged by full, names ignored
        (strict and tolerant would compare names nobody asked for); said beside the judges.
        Nothing happens until the set has been read."""
        asks_columns = self.controller.set_asks_columns(questions)
        if asks_columns is None:
            return
        self.judging_note.setVisible(not asks_columns)
        self.judging_note.setText(self.tr(
            "This set's questions do not name their output columns or rounding: full judges "
            "them with column names ignored; strict and tolerant compare names nobody asked "
            "for.") if not asks_columns else "")
        if asks_columns or not self._judges_follow_set:
            return
        self._judges_follow_set = False
        for judge, box in self.judge_boxes.items():
            box.setChecked(judge == "full")

    def _on_import_clicked(self) -> None:
        from desktop_app.gui.widgets.import_dialog import ImportQuestionsDialog

        dialog = ImportQuestionsDialog(self)
        dialog.imported.connect(self._on_set_imported)
        dialog.open()

    def _on_set_imported(self, folder: str) -> None:
        name = Path(folder).name
        if self.set_combo.findData(name) < 0:
            self.set_combo.addItem(name, name)
        self._select_set(name)

    def _on_browse_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Question set folder"))
        if folder:
            self._select_set(folder)

    def _select_set(self, name_or_path: str) -> None:
        index = self.set_combo.findData(name_or_path)
        if index < 0:
            self.set_combo.addItem(self.tr("{name} (folder)").format(name=Path(name_or_path).name),
                                   name_or_path)
            index = self.set_combo.count() - 1
            self.set_combo.setItemData(index, name_or_path, Qt.ItemDataRole.ToolTipRole)
        self.set_combo.setCurrentIndex(index)

    def _restore_form(self) -> None:
        try:
            saved = json.loads(self.settings.text_value(KEY_FORM, "") or "{}")
            form = FormValues(**{k: tuple(v) if isinstance(v, list) else v
                                 for k, v in saved.items()
                                 if k in {f.name for f in dataclasses.fields(FormValues)}})
        except (ValueError, TypeError):
            form = FormValues()
        if form.questions:
            self._select_set(form.questions)
        self._remembered_model = form.model
        self.ids_edit.setText(form.question_ids)
        for name, boxes, chosen in (("tiers", self.tier_boxes, form.tiers or TIERS),
                                    ("judges", self.judge_boxes, form.judges),
                                    ("strategies", self.strategy_boxes, form.strategies)):
            for key, box in boxes.items():
                box.setChecked(key in chosen)
        for edit, text in ((self.tolerance_edit, form.tolerance),
                           (self.max_steps_edit, form.max_steps),
                           (self.max_tokens_edit, form.max_tokens),
                           (self.time_limit_edit, form.time_limit_s),
                           (self.concurrency_edit, form.concurrency),
                           (self.epochs_edit, form.epochs),
                           (self.retries_edit, form.retries),
                           (self.name_edit, form.name),
                           (self.server_settings_edit, form.server_settings)):
            edit.setText(str(text))
        self.notes_edit.setPlainText(str(form.notes))
        self.language_combo.setCurrentIndex(max(self.language_combo.findData(form.language), 0))

    # ------------------------------------------------------------------ actions

    def _on_start_clicked(self) -> None:
        config = self._validate()
        if config is None or self.controller.running:
            return
        self.save_state()
        self.run_id = None
        self.model.clear()
        self.chart.set_judges(config.judges)
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
            widget.setStyleSheet(_INVALID_STYLE)

    def _on_controller_loaded(self, stored: StoredSqlRun) -> None:
        self.run_id = stored.run_id
        self.model.set_rows(stored.rows)
        self.columns.fit()
        self.chart.set_judges(stored.judges)
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

    def _show_stored_choices(self, stored: StoredSqlRun) -> None:
        """Set the model, tiers, judges, strategies and ids to what the stored run used (those
        stored), so the form matches the table."""
        for chosen, boxes in ((stored.tiers, self.tier_boxes),
                              (stored.stored_judges, self.judge_boxes),
                              (stored.strategies, self.strategy_boxes)):
            if chosen is None:
                continue
            for key, box in boxes.items():
                box.setChecked(key in chosen or (boxes is self.tier_boxes and not chosen))
        if stored.question_ids is not None:
            self.ids_edit.setText(", ".join(stored.question_ids))
        if stored.model:
            self.model_combo.setCurrentText(stored.model)

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
            parts[-1] += self.tr("; {count} answers omit the ROUND the question asks for"
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

    def _update_model_tip(self, model: str) -> None:
        """The closed combo says what a chosen persona does; any other model, what it is."""
        tip = PERSONA_TIPS.get(model.strip())
        self.model_combo.setToolTip(translate("SqlAgentPage", tip or MODEL_TIP))

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

    def _fill_models(self, endpoint) -> None:
        """The endpoint's models in the combo. Chosen: for the first endpoint the page sees, the
        model remembered from the last Start if the endpoint lists it; else the endpoint's own
        model, else its first listed."""
        models = list(endpoint.info.models) if endpoint and endpoint.info else []
        own = endpoint.config.model if endpoint else ""
        if own and own not in models:
            models.insert(0, own)
        if self._remembered_model and self._remembered_model in models:
            choice = self._remembered_model
        else:
            choice = own or (models[0] if models else "")
        if endpoint is not None:
            self._remembered_model = ""  # only until the first endpoint shows
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        self.model_combo.addItems(models)
        for i, name in enumerate(models):
            if name in PERSONA_TIPS:
                self.model_combo.setItemData(i, translate("SqlAgentPage", PERSONA_TIPS[name]),
                                             Qt.ItemDataRole.ToolTipRole)
        self.model_combo.setCurrentText(choice)
        self.model_combo.blockSignals(False)
        self._update_model_tip(choice)

    def _on_context_open_run_requested(self, run_id: int, kind: str) -> None:
        if kind == "sql":
            self.controller.load_run(run_id)

    def save_state(self) -> None:
        """Remember the form as it is (the window calls this as it closes; Start does too)."""
        self.settings.set_value(KEY_FORM, json.dumps(dataclasses.asdict(self.form_values())))

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
