"""The SQL Agent page's evaluation form: its fields, what they hold, checking them, and
restoring them from the settings or from a stored run.

`SqlEvalFormMixin` is a part of `SqlAgentPage` (its only user), kept apart so the page reads as
its layout, actions and the controller's events. Its words keep the page's translation context
("SqlAgentPage"), spelled out in each `translate` call since lupdate files `self.tr` under the
class it is written in.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import (
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
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.parsing import InputError
from desktop_app.core.sqleval.questions import list_question_sets
from desktop_app.core.sqleval.judges import all_judges, get_judge, judge_names
from desktop_app.core.sqleval.types import STRATEGIES, TIERS
from desktop_app.gui.controllers.sqleval import (
    FormValues,
    StoredSqlRun,
    config_from_form,
    default_run_name,
)
from desktop_app.gui.i18n import error_words, report_language, translate
from desktop_app.gui.settings import declare
from desktop_app.gui.widgets.fields import form_scroll
from desktop_app.report.judge_words import JudgeWords

KEY_FORM = "sql_agent/form"
declare(KEY_FORM)

INVALID_STYLE = "border: 1px solid #b3261e;"
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


class SqlEvalFormMixin:
    """The evaluation form of `SqlAgentPage`: set, tiers, ids, model, judges, strategies,
    budgets and the run's name, note and settings, with Start and Stop.

    The page provides `context`, `controller`, `settings`, `_judges_follow_set`,
    `_judges_defaulted`,
    `_remembered_model`, and the slots `_on_start_clicked` and `_on_stop_clicked`.
    """

    def _build_form(self) -> QWidget:
        self.set_combo = QComboBox()
        for name, description in list_question_sets(self.context.sets_dir):
            self.set_combo.addItem(name, name)
            self.set_combo.setItemData(self.set_combo.count() - 1, description,
                                       Qt.ItemDataRole.ToolTipRole)
        self.browse_button = QPushButton(translate("SqlAgentPage", "Folder..."))
        self.browse_button.setToolTip(translate(
            "SqlAgentPage", "Use a question set folder (holding set.toml)"))
        self.browse_button.clicked.connect(self._on_browse_clicked)
        self.import_button = QPushButton(translate("SqlAgentPage", "Import..."))
        self.import_button.setToolTip(translate(
            "SqlAgentPage", "Import a public question set (Spider, BIRD, Spider2-lite, defog "
            "sql-eval) with its databases"))
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
        self.ids_edit.setPlaceholderText(translate("SqlAgentPage", "all (e.g. m01, h01)"))
        self.ids_edit.setToolTip(translate(
            "SqlAgentPage", "Only these question ids, separated by commas; empty: all (within "
            "the tiers chosen)"))
        questions = QGroupBox(translate("SqlAgentPage", "Questions"))
        qform = QFormLayout(questions)
        qform.addRow(translate("SqlAgentPage", "Set"), set_row)
        qform.addRow(translate("SqlAgentPage", "Tiers"), tier_row)
        qform.addRow(translate("SqlAgentPage", "Ids"), self.ids_edit)

        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setToolTip(translate("SqlAgentPage", MODEL_TIP))
        model_group = QGroupBox(translate("SqlAgentPage", "Model"))
        mform = QFormLayout(model_group)
        mform.addRow(translate("SqlAgentPage", "Model"), self.model_combo)

        words = JudgeWords(report_language())
        self.judge_boxes = {j: QCheckBox(words.judge(j)) for j in judge_names()}
        judge_row = QHBoxLayout()
        for judge, box in self.judge_boxes.items():
            # A benchmark's own rule (spider2, bird, test-suite) shows only for a set imported
            # from that benchmark (_apply_set_judging).
            official = bool(getattr(get_judge(judge), "benchmark", None))
            box.setChecked(not official)
            box.setVisible(not official)
            judge_row.addWidget(box)
        self.tolerance_edit = QLineEdit("1e-6")
        self.tolerance_edit.setToolTip(translate(
            "SqlAgentPage", "Numeric tolerance of the tolerant and full judges"))
        self.tolerance_edit.setToolTip(translate(
            "SqlAgentPage",
            "Numbers are rounded as the question asks, then compared within this tolerance "
            "(relative above 1, absolute below); used by the tolerant and full judges"))
        self.judging_note = QLabel("")
        self.judging_note.setWordWrap(True)
        self.judging_note.setVisible(False)
        judges = QGroupBox(translate("SqlAgentPage", "Judges"))
        jform = QFormLayout(judges)
        jform.addRow(translate("SqlAgentPage", "Judges"), judge_row)
        jform.addRow(translate("SqlAgentPage", "Tolerance"), self.tolerance_edit)
        jform.addRow(self.judging_note)

        self.strategy_boxes = {s: QCheckBox(s) for s in STRATEGIES}
        for name, box in self.strategy_boxes.items():
            tip = STRATEGY_TIPS.get(name)
            if tip:
                box.setToolTip(translate("SqlAgentPage", tip))
        strategies = QGroupBox(translate("SqlAgentPage", "Strategies"))
        sgrid = QGridLayout(strategies)
        for i, box in enumerate(self.strategy_boxes.values()):
            sgrid.addWidget(box, i // 2, i % 2)

        self.max_steps_edit = QLineEdit("20")
        self.max_tokens_edit = QLineEdit("")
        self.max_tokens_edit.setPlaceholderText(translate("SqlAgentPage", "no limit"))
        self.time_limit_edit = QLineEdit("600")
        self.time_limit_edit.setPlaceholderText(translate("SqlAgentPage", "no limit"))
        budgets = QGroupBox(translate("SqlAgentPage", "Budgets per question"))
        bform = QFormLayout(budgets)
        bform.addRow(translate("SqlAgentPage", "Max steps"), self.max_steps_edit)
        bform.addRow(translate("SqlAgentPage", "Max tokens"), self.max_tokens_edit)
        bform.addRow(translate("SqlAgentPage", "Time (s)"), self.time_limit_edit)

        self.concurrency_edit = QLineEdit("4")
        self.epochs_edit = QLineEdit("1")
        self.retries_edit = QLineEdit("0")
        self.retries_edit.setToolTip(translate(
            "SqlAgentPage",
            "Model calls that fail transiently (no answer, 429, 5xx) are tried again this many "
            "times, waiting at least the server's Retry-After; 0 keeps every fault visible"))
        self.language_combo = QComboBox()
        self.language_combo.addItem(translate("SqlAgentPage", "English"), "en")
        self.language_combo.addItem(translate("SqlAgentPage", "Chinese"), "zh")
        self.language_combo.setToolTip(translate(
            "SqlAgentPage", "The language the questions are asked in"))
        self.name_edit = QLineEdit("")
        self.name_edit.setToolTip(translate(
            "SqlAgentPage", "How the Runs page, comparisons and reports name this run; empty: "
            "the name shown in grey"))
        self.notes_edit = QPlainTextEdit()
        self.notes_edit.setTabChangesFocus(True)
        self.notes_edit.setPlaceholderText(translate(
            "SqlAgentPage", "What is special about this run (optional)"))
        margins = self.notes_edit.contentsMargins()
        self.notes_edit.setFixedHeight(
            3 * self.notes_edit.fontMetrics().lineSpacing() + margins.top() + margins.bottom()
            + 2 * int(self.notes_edit.document().documentMargin()) + 6)  # 3 lines, no scroll bar
        self.server_settings_edit = QLineEdit("")
        self.server_settings_edit.setPlaceholderText(
            translate("SqlAgentPage", "e.g. max-num-seqs=2, gpu-memory-utilization=0.91"))
        self.server_settings_edit.setToolTip(translate(
            "SqlAgentPage",
            "key=value pairs, separated by commas. Settings the server reports are read "
            "automatically; type here only those it does not report."))
        run = QGroupBox(translate("SqlAgentPage", "Run"))
        # Name, note and settings take the group's width, their labels above them.
        identity = QFormLayout()
        identity.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        identity.addRow(translate("SqlAgentPage", "Name"), self.name_edit)
        identity.addRow(translate("SqlAgentPage", "Note"), self.notes_edit)
        identity.addRow(translate("SqlAgentPage", "Server settings"), self.server_settings_edit)
        rform = QFormLayout()
        rcolumn = QVBoxLayout(run)
        rcolumn.addLayout(identity)
        rcolumn.addLayout(rform)
        rform.addRow(translate("SqlAgentPage", "Concurrency"), self.concurrency_edit)
        rform.addRow(translate("SqlAgentPage", "Epochs"), self.epochs_edit)
        rform.addRow(translate("SqlAgentPage", "Retries"), self.retries_edit)
        rform.addRow(translate("SqlAgentPage", "Question language"), self.language_combo)

        self.error_label = QLabel("")
        self.error_label.setObjectName("formError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b3261e;")
        self.start_button = QPushButton(translate("SqlAgentPage", "Start"))
        self.start_button.setDefault(True)
        self.stop_button = QPushButton(translate("SqlAgentPage", "Stop"))
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
        column.addStretch(1)
        footer = QVBoxLayout()
        footer.addWidget(self.error_label)
        footer.addLayout(buttons)
        return form_scroll(inner, footer=footer)

    def form_values(self) -> FormValues:
        """What the form holds now, as typed."""
        return FormValues(
            questions=str(self.set_combo.currentData() or self.set_combo.currentText()),
            tiers=tuple(t for t, b in self.tier_boxes.items() if b.isChecked()),
            question_ids=self.ids_edit.text(), model=self.model_combo.currentText().strip(),
            judges=tuple(j for j, b in self.judge_boxes.items() if b.isChecked() and not b.isHidden()),
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
            self.error_label.setText(error_words(exc))
            widget = self._field_widgets.get(exc.field)
            if widget is not None:
                widget.setStyleSheet(INVALID_STYLE)
            self.name_edit.setPlaceholderText(translate(
                "SqlAgentPage", "default: the model and question set"))
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
        self.judging_note.setText(translate(
            "SqlAgentPage",
            "This set's questions do not name their output columns or rounding: full judges "
            "them with column names ignored; strict and tolerant compare names nobody asked "
            "for.") if not asks_columns else "")
        benchmark = self.controller.set_benchmark(questions) or ""
        for judge, box in self.judge_boxes.items():
            spec = get_judge(judge)
            if spec is not None and spec.benchmark:
                box.setVisible(spec.benchmark == benchmark)
                if spec.benchmark != benchmark:
                    box.setChecked(False)
                elif self._judges_follow_set:
                    box.setChecked(True)
        if not self._judges_follow_set:
            return
        self._judges_follow_set = False
        # The judges that can ignore names (full) are the ones a no-columns set keeps.
        without_names = {j.name for j in all_judges() if j.names_optional}
        own = {j.name: box for j in all_judges() if not j.benchmark
               for box in [self.judge_boxes[j.name]]}
        only_full = all(box.isChecked() == (judge in without_names)
                        for judge, box in own.items())
        if asks_columns:
            # Back from a set that named no columns to one that does (sales-25): the judges
            # that set turned off come back, unless the user changed them since.
            if self._judges_defaulted and only_full:
                for box in own.values():
                    box.setChecked(True)
            self._judges_defaulted = False
            return
        for judge, box in own.items():
            box.setChecked(judge in without_names)
        self._judges_defaulted = True

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
        folder = QFileDialog.getExistingDirectory(
            self, translate("SqlAgentPage", "Question set folder"))
        if folder:
            self._select_set(folder)

    def _select_set(self, name_or_path: str) -> None:
        index = self.set_combo.findData(name_or_path)
        if index < 0:
            self.set_combo.addItem(translate("SqlAgentPage", "{name} (folder)").format(
                name=Path(name_or_path).name), name_or_path)
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

    def _update_model_tip(self, model: str) -> None:
        """The closed combo says what a chosen persona does; any other model, what it is."""
        tip = PERSONA_TIPS.get(model.strip())
        self.model_combo.setToolTip(translate("SqlAgentPage", tip or MODEL_TIP))

    def save_state(self) -> None:
        """Remember the form as it is (the window calls this as it closes; Start does too)."""
        self.settings.set_value(KEY_FORM, json.dumps(dataclasses.asdict(self.form_values())))
