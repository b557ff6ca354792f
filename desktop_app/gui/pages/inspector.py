"""The Inspector: one question of a stored SQL run, its agent steps and the judges' findings.

`InspectorPage.show_question(run_id, question_row_id)` (also wired to
`context.open_question_requested`) asks its controller (`gui.controllers.inspector`) to read the
stored question and steps and re-run the gold and final SQL read-only in the sandbox, and shows
both results side by side; it can re-judge at another tolerance without calling any model and
without writing to the store.

    python -m desktop_app.gui.pages.inspector [RUN_ID QUESTION_ROW_ID] [--screenshot PNG]

Without ids it runs the sales-25 evaluation of `sim/seed-reference` on the instant simulator
into a temporary store first and shows question m01.
"""

from __future__ import annotations

import asyncio
import html
import math
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.compare.strategies import check_problems, route_code
from desktop_app.core.sqleval.judges import get_judge, judge_names
from desktop_app.core.sqleval.records import QuestionElsewhere
from desktop_app.core.sqleval.types import TIERS, Headline, JudgeFinding, Verdict
from desktop_app.core.store import Store
from desktop_app.gui.context import AppContext
from desktop_app.gui.controllers.inspector import (
    InspectorController,
    QuestionDetail,
    RejudgeOutcome,
)
from desktop_app.gui.i18n import report_language, status_text, translate
from desktop_app.gui.models.questions import (
    CLASS_PASSED,
    VERDICT_MIXED,
    VERDICT_UNJUDGED,
    QuestionRow,
    QuestionSearch,
)
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.widgets.result_diff import ResultDiffTable
from desktop_app.gui.widgets.sql_view import SqlView
from desktop_app.gui.widgets.step_timeline import StepTimeline
from desktop_app.gui.widgets.transcript import TranscriptPanel
from desktop_app.report.judge_words import JudgeWords, failure_class_text

KEY_TOLERANCE = "inspector/tolerance"
KEY_SPLITTER = "inspector/splitter"
KEY_JUDGE_SPLITTER = "inspector/judge_splitter"
declare(KEY_TOLERANCE, KEY_SPLITTER, KEY_JUDGE_SPLITTER)

PASS_STYLE = "background: #d7f0dd; color: #14532d; border-radius: 4px; padding: 3px 8px;"
FAIL_STYLE = "background: #fbd9d5; color: #7f1d1d; border-radius: 4px; padding: 3px 8px;"
MUTED_STYLE = "color: #5b5f66;"
ERROR_STYLE = "color: #b3261e;"
PATH_STYLE = "background: #eef3fb; color: #1f3b63; border-radius: 4px; padding: 3px 8px;"

# Why a layered question took its path (route codes of core.compare.strategies), in words.
ROUTE_WORDS = {
    "validated": QT_TRANSLATE_NOOP("InspectorPage",
                                   "the fast answer passed the harness's checks"),
    "validation_failed": QT_TRANSLATE_NOOP("InspectorPage",
                                           "the fast answer failed the harness's checks"),
    "no_fast_answer": QT_TRANSLATE_NOOP("InspectorPage", "the fast path gave no answer"),
    "structured": QT_TRANSLATE_NOOP("InspectorPage",
                                    "the route sends this tier straight to the tool loop"),
    "always_loop": QT_TRANSLATE_NOOP("InspectorPage",
                                     "the route sends every question to the tool loop"),
}
# What the harness's checks found in a fast answer (check codes), in words.
PROBLEM_WORDS = {
    "query_failed": QT_TRANSLATE_NOOP("InspectorPage", "the query failed: {error}"),
    "no_rows": QT_TRANSLATE_NOOP("InspectorPage", "the query returned no rows"),
    "columns": QT_TRANSLATE_NOOP("InspectorPage", "the output columns are {columns}, the "
                                 "question asks for {required}"),
    "rounding": QT_TRANSLATE_NOOP("InspectorPage", "column {column} must be rounded to "
                                  "{decimals} decimals (values like {value})"),
}


def route_reason_text(reason: str) -> str:
    """A stored layered route reason in the UI's language: its code in words, then what the
    checks found (each finding in words; one the catalogue does not know as stored)."""
    code, detail = route_code(reason)
    if code not in ROUTE_WORDS:
        return detail or reason
    text = translate("InspectorPage", ROUTE_WORDS[code])
    if code == "validation_failed" and detail:
        found = [translate("InspectorPage", PROBLEM_WORDS[kind]).format(**params)
                 if kind in PROBLEM_WORDS else params.get("text", "")
                 for kind, params in check_problems(detail)]
        text += translate("InspectorPage", ": ") + translate("InspectorPage", "; ").join(found)
    elif code == "structured" and detail:
        text += f" ({detail})"
    elif code == "no_fast_answer" and detail:
        text += f" ({detail})"
    return text


# --------------------------------------------------------------------------- the page


def _label(text: str = "", style: str = "", *, rich: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if style:
        label.setStyleSheet(style)
    return label


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


def findings_html(verdicts: dict[str, Verdict], explain: tuple[JudgeFinding, ...],
                  lang: str = "en") -> str:
    """Every finding once, in `lang`, with the judges that made it (the SQL's explanation as
    "SQL")."""
    words = JudgeWords(lang)
    seen: dict[tuple[str, str], list[str]] = {}
    for judge, verdict in verdicts.items():
        for f in verdict.findings:
            seen.setdefault((f.code, words.finding(f)), []).append(words.judge(judge))
    for f in explain:
        seen.setdefault((f.code, words.finding(f)), []).append("SQL")
    if not seen:
        return translate("InspectorPage", "No findings: the answer matches.")
    sep = "、" if lang == "zh" else ", "
    items = "".join(f"<li><b>{html.escape(sep.join(who))}</b>: {html.escape(message)}</li>"
                    for (_code, message), who in seen.items())
    return f"<ul style='margin-left: -20px'>{items}</ul>"


# The question list's row colours: every judge passed, some did, none did (or not judged).
LIST_PASS_COLOR = QColor("#d7f0dd")
LIST_MIXED_COLOR = QColor("#fff0c2")
LIST_FAIL_COLOR = QColor("#fbd9d5")


def question_list_text(row: QuestionRow, judges: tuple[str, ...] | None = None,
                       lang: str | None = None) -> str:
    """One question in the Inspector's question list: id (and epoch), tier, and PASS / FAIL
    per judge ("-" for a judge that did not judge it), e.g. "m01 · medium · strict FAIL,
    tolerant PASS, full PASS", in `lang` (default: the UI's)."""
    lang = lang or report_language()
    words = JudgeWords(lang)
    name = row.question_id + (f" #{row.epoch + 1}" if row.epoch else "")
    marks = []
    for judge in judge_names() if judges is None else judges:  # those without a verdict skip
        if judge not in row.verdicts and row.status == "completed":
            continue  # that judge was not run
        outcome = row.outcome(judge)
        marks.append(f"{words.judge(judge)} "
                     + ("-" if outcome is None else words.outcome(outcome)))
    if not row.judged:
        marks = [status_text(row.status)] if row.status else marks
    sep = "，" if lang == "zh" else ", "
    return " · ".join([name, row.tier, sep.join(marks)] if marks else [name, row.tier])


def question_list_color(row: QuestionRow) -> QColor | None:
    """The list row's colour: green when every judge passed, red when none did, amber
    between; None when the question was not judged."""
    outcomes = [v for v in row.verdicts.values()] if row.judged else []
    if not outcomes:
        return None
    if all(outcomes):
        return LIST_PASS_COLOR
    return LIST_FAIL_COLOR if not any(outcomes) else LIST_MIXED_COLOR


def _finding_cells(verdicts: dict[str, Verdict], lang: str = "en") -> tuple:
    words = JudgeWords(lang)
    return tuple((int(c[0]), str(c[1]), str(c[2]), str(c[3]), words.finding(f))
                 for v in verdicts.values() for f in v.findings for c in f.cells
                 if len(c) >= 4)


class InspectorPage(QWidget):
    """One question of a stored SQL run: its text, the agent's steps, and the judges' panel."""

    def __init__(self, context: AppContext, settings: Settings | None = None,
                 parent: QWidget | None = None, *,
                 controller: InspectorController | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page_inspector")
        self._context = context
        self._settings = settings or Settings()
        self.detail: QuestionDetail | None = None
        self.controller = controller or InspectorController(context, self)
        self.controller.loaded.connect(self._on_controller_loaded)
        self.controller.load_failed.connect(self._on_controller_load_failed)
        self.controller.rejudged.connect(self._on_controller_rejudged)
        self.controller.rejudge_failed.connect(self._on_controller_rejudge_failed)
        context.open_question_requested.connect(self._on_context_open_question_requested)

        self.title = _label(self.tr("Inspector"), rich=True)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        self.title.setFont(font)
        self.status = _label(self.tr("Open a question from a SQL run (Runs page or SQL Agent "
                                     "page)."), MUTED_STYLE)
        self.question_text = _label()
        # Which path answered, in a layered run (hidden otherwise).
        self.path_label = _label("", PATH_STYLE)
        self.path_label.setVisible(False)
        self.timeline = StepTimeline()

        # Walking the run: Previous / Next in the run's order, or a jump from the list.
        self._run_questions: tuple[QuestionRow, ...] = ()
        self._shown_run: int | None = None
        self._shown_row: int | None = None  # the row asked for last (maybe still loading)
        self.prev_button = QPushButton(self.tr("< Previous"))
        self.prev_button.setToolTip(self.tr("The run's previous question (Alt+Left)"))
        self.prev_button.clicked.connect(self._on_prev_clicked)
        self.next_button = QPushButton(self.tr("Next >"))
        self.next_button.setToolTip(self.tr("The run's next question (Alt+Right)"))
        self.next_button.clicked.connect(self._on_next_clicked)
        self.question_list = QComboBox()
        self.question_list.setToolTip(self.tr("The run's questions in the run's order, with "
                                              "each judge's verdict: choose one to open it"))
        self.question_list.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.question_list.setMinimumContentsLength(36)
        self.question_list.activated.connect(self._on_question_list_activated)
        self.position_label = QLabel("")
        self.position_label.setStyleSheet(MUTED_STYLE)

        # Another run's transcript of the question beside this run's (same question set).
        self._beside_run: int | None = None
        self.beside_list = QComboBox()
        self.beside_list.setToolTip(self.tr("Another run of this question set: its transcript "
                                            "of the question shown, beside this run's"))
        self.beside_list.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.beside_list.setMinimumContentsLength(14)
        self.beside_list.activated.connect(self._on_beside_list_activated)
        self.beside_controller = InspectorController(context, self)
        self.beside_controller.loaded.connect(self._on_beside_controller_loaded)
        self.beside_controller.load_failed.connect(self._on_beside_controller_load_failed)
        nav_row = QHBoxLayout()
        nav_row.addWidget(self.prev_button)
        nav_row.addWidget(self.question_list, 1)
        nav_row.addWidget(self.next_button)
        nav_row.addWidget(self.position_label)

        # Finding questions in a run of hundreds: words in the id, the text or the SQL, a
        # tier, a failure class, a verdict. The list and Previous / Next walk the matches.
        self._judges: tuple[str, ...] = ()
        self._matching: tuple[QuestionRow, ...] = ()
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(self.tr("Search id, question or SQL"))
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setToolTip(self.tr(
            "Every word must appear in the question's id, its text, its final SQL or its gold "
            "SQL (case and spacing ignored; \"double quotes\" keep a phrase). Enter opens the "
            "first match."))
        self.search_edit.textChanged.connect(self._on_filter_changed)
        self.search_edit.returnPressed.connect(self._on_search_return_pressed)
        self.tier_filter = QComboBox()
        self.tier_filter.setToolTip(self.tr("Only the questions of one tier"))
        self.class_filter = QComboBox()
        self.class_filter.setToolTip(self.tr("Only the answers that failed for one reason (the "
                                             "failure class of the run's own judges), or those "
                                             "that passed"))
        self.verdict_filter = QComboBox()
        self.verdict_filter.setToolTip(self.tr("Only the questions a judge failed or passed, "
                                               "those the run's judges disagree on, or those "
                                               "not judged"))
        for combo in (self.tier_filter, self.class_filter, self.verdict_filter):
            # Narrow windows keep their width: a long class name is cut, its list is whole.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
            combo.currentIndexChanged.connect(self._on_filter_changed)
        self.clear_filter_button = QPushButton(self.tr("Clear"))
        self.clear_filter_button.setToolTip(self.tr("Show every question of the run again"))
        self.clear_filter_button.clicked.connect(self._on_clear_filter_clicked)
        self.match_label = QLabel("")
        self.match_label.setStyleSheet(MUTED_STYLE)
        filter_row = QHBoxLayout()
        filter_row.addWidget(self.search_edit, 1)
        filter_row.addWidget(self.tier_filter)
        filter_row.addWidget(self.class_filter)
        filter_row.addWidget(self.verdict_filter)
        filter_row.addWidget(self.clear_filter_button)
        filter_row.addWidget(self.match_label)
        self._fill_filters()
        self.clear_filter_button.setEnabled(False)
        self.nav_shortcuts = []
        # Alt+arrows, not Page Up / Down: those keep scrolling the steps and result tables.
        for keys, step in ((QKeySequence("Alt+Left"), -1), (QKeySequence("Alt+Right"), 1)):
            shortcut = QShortcut(keys, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(self._on_prev_clicked if step < 0
                                       else self._on_next_clicked)
            self.nav_shortcuts.append(shortcut)
        self._update_nav()

        self.verdict_labels = {judge: QLabel(judge) for judge in judge_names()}
        verdict_row = QHBoxLayout()
        for label in self.verdict_labels.values():
            label.setTextFormat(Qt.TextFormat.PlainText)
            verdict_row.addWidget(label)
        verdict_row.addStretch(1)
        self.counterfactual = _label()
        self.findings = _label(rich=True)
        self.tolerance_edit = QLineEdit(self._settings.text_value(KEY_TOLERANCE, ""))
        self.tolerance_edit.setPlaceholderText(self.tr("e.g. 1e-6"))
        self.tolerance_edit.setMaximumWidth(110)
        self.tolerance_edit.setToolTip(self.tr("Numbers are rounded as the question asks, then "
                                               "compared within this tolerance"))
        self.tolerance_edit.returnPressed.connect(self._on_rejudge_clicked)
        self.rejudge_button = QPushButton(self.tr("Re-judge"))
        self.rejudge_button.setToolTip(self.tr("Run the gold and final SQL again and judge at "
                                               "this tolerance. No model call; nothing is "
                                               "saved."))
        self.rejudge_button.clicked.connect(self._on_rejudge_clicked)
        self.rejudge_button.setEnabled(False)
        self.rejudge_note = _label("", MUTED_STYLE)
        rejudge_row = QHBoxLayout()
        tolerance_label = QLabel(self.tr("Tolerance"))
        tolerance_label.setToolTip(self.tolerance_edit.toolTip())
        rejudge_row.addWidget(tolerance_label)
        rejudge_row.addWidget(self.tolerance_edit)
        rejudge_row.addWidget(self.rejudge_button)
        rejudge_row.addWidget(self.rejudge_note, 1)
        self.diff = ResultDiffTable()
        self.gold_sql = SqlView()
        self.final_sql = SqlView()
        self.sql_tabs = QTabWidget()
        self.sql_tabs.addTab(self.gold_sql, self.tr("Gold SQL"))
        self.sql_tabs.setTabToolTip(0, self.tr("The question's gold SQL, laid out one clause a "
                                               "line as the agent's queries are; the judges "
                                               "ran it as stored"))
        self.sql_tabs.addTab(self.final_sql, self.tr("Final SQL"))

        judge_top = QWidget()
        top = QVBoxLayout(judge_top)
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(_heading(self.tr("Judges")))
        top.addLayout(verdict_row)
        top.addWidget(self.counterfactual)
        top.addWidget(self.findings)
        top.addLayout(rejudge_row)
        top.addWidget(self.diff, 1)
        judge_split = QSplitter(Qt.Orientation.Vertical)
        judge_split.addWidget(judge_top)
        judge_split.addWidget(self.sql_tabs)
        judge_split.setStretchFactor(0, 3)
        judge_split.setStretchFactor(1, 1)
        self.judge_splitter = judge_split

        steps_panel = QWidget()
        steps = QVBoxLayout(steps_panel)
        steps.setContentsMargins(0, 0, 0, 0)
        steps.addWidget(_heading(self.tr("Agent steps")))
        steps.addWidget(self.timeline, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(steps_panel)
        self.splitter.addWidget(judge_split)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([420, 680])

        # Side by side: this run's transcript and the other run's, the judges' panel aside.
        self.main_panel = TranscriptPanel()
        self.beside_panel = TranscriptPanel()
        self.side_by_side = QSplitter(Qt.Orientation.Horizontal)
        self.side_by_side.addWidget(self.main_panel)
        self.side_by_side.addWidget(self.beside_panel)
        self.side_by_side.setChildrenCollapsible(False)
        self.views = QStackedWidget()
        self.views.addWidget(self.splitter)
        self.views.addWidget(self.side_by_side)

        title_row = QHBoxLayout()
        title_row.addWidget(self.title, 1)
        title_row.addWidget(self.beside_list, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(title_row)
        layout.addLayout(nav_row)
        layout.addLayout(filter_row)
        layout.addWidget(self.status)
        layout.addWidget(self.question_text)
        layout.addWidget(self.path_label)
        layout.addWidget(self.views, 1)
        self._settings.track(KEY_SPLITTER, self.splitter)
        self._settings.track(KEY_JUDGE_SPLITTER, self.judge_splitter)
        self._show_verdicts({}, None)

    # -- public ------------------------------------------------------------------------

    def show_question(self, run_id: int, question_row_id: int) -> asyncio.Task:
        """Load and show question row `question_row_id` of SQL run `run_id`."""
        self.status.setText(self.tr("Loading run {run}, question row {row}...").format(
            run=run_id, row=question_row_id))
        self.status.setStyleSheet(MUTED_STYLE)
        self.rejudge_button.setEnabled(False)
        if run_id != self._shown_run:
            self._run_questions = ()
            self._apply_filter()
        self._shown_run, self._shown_row = run_id, question_row_id
        self._update_nav()
        return self.controller.load(run_id, question_row_id)

    def position(self) -> int:
        """The index of the question shown (or being opened) among the run's questions, -1
        when there is none."""
        return next((i for i, q in enumerate(self._run_questions)
                     if q.row_id == self._shown_row), -1)

    def run_questions(self) -> tuple[QuestionRow, ...]:
        """The open run's questions, in the run's order (what Previous / Next walk)."""
        return self._run_questions

    def matching_questions(self) -> tuple[QuestionRow, ...]:
        """The open run's questions the filter bar keeps (every one when it asks nothing), in
        the run's order: what the list and Previous / Next walk."""
        return self._matching

    def step_question(self, offset: int) -> asyncio.Task | None:
        """Open the matching question `offset` places away from the one shown (-1: previous,
        1: next); from a question the filter does not keep, the nearest match that way in the
        run's order. None at either end or when no run is open."""
        target = self._walk_target(offset)
        if target is None or target.row_id is None or self._shown_run is None:
            return None
        return self.show_question(self._shown_run, target.row_id)

    def set_search(self, search: QuestionSearch) -> None:
        """Set the filter bar to `search` (a tier, class or verdict the run lacks: any)."""
        for combo, value in ((self.tier_filter, search.tier),
                             (self.class_filter, search.failure_class),
                             (self.verdict_filter, search.verdict)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(False)
        self.search_edit.blockSignals(True)
        self.search_edit.setText(search.text)
        self.search_edit.blockSignals(False)
        self._apply_filter()

    def search(self) -> QuestionSearch:
        """What the filter bar asks now."""
        return QuestionSearch(self.search_edit.text(), self.tier_filter.currentData() or "",
                              self.class_filter.currentData() or "",
                              self.verdict_filter.currentData() or "")

    def set_beside(self, run_id: int | None) -> asyncio.Task | None:
        """Show run `run_id`'s transcript of the question beside this run's (None: back to the
        judges' view); the task reading it, None when there is nothing to read."""
        self._beside_run = run_id
        self.views.setCurrentIndex(0 if run_id is None else 1)
        if self.detail is not None:
            self._fill_beside_list(self.detail)
        return self._load_beside()

    def rejudge(self) -> asyncio.Task | None:
        """Re-judge the shown question at the tolerance typed (None when it is not a number)."""
        if self.detail is None:
            return None
        text = self.tolerance_edit.text().strip()
        try:
            tolerance = float(text)
        except ValueError:
            tolerance = math.nan
        if not (tolerance >= 0 and math.isfinite(tolerance)):
            self.rejudge_note.setText(self.tr("tolerance: {text} must be a number >= 0, e.g. "
                                              "1e-6").format(text=repr(text)))
            self.rejudge_note.setStyleSheet(ERROR_STYLE)
            return None
        self._settings.set_value(KEY_TOLERANCE, text)
        self.rejudge_button.setEnabled(False)
        self.rejudge_note.setText(self.tr("Re-judging at tolerance {tolerance}...").format(
            tolerance=f"{tolerance:g}"))
        self.rejudge_note.setStyleSheet(MUTED_STYLE)
        return self.controller.rejudge(self.detail, tolerance)

    def save_state(self) -> None:
        """Remember the tolerance typed (the window calls this as it closes)."""
        if self.tolerance_edit.text().strip():
            self._settings.set_value(KEY_TOLERANCE, self.tolerance_edit.text().strip())

    # -- handlers ----------------------------------------------------------------------

    def _on_context_open_question_requested(self, run_id: int, row_id: int) -> None:
        self.show_question(run_id, row_id)

    def _on_rejudge_clicked(self) -> None:
        self.rejudge()

    def _on_prev_clicked(self) -> None:
        self.step_question(-1)

    def _on_next_clicked(self) -> None:
        self.step_question(1)

    def _on_filter_changed(self, *_args) -> None:
        self._apply_filter()

    def _on_clear_filter_clicked(self) -> None:
        self.set_search(QuestionSearch())

    def _on_search_return_pressed(self) -> None:
        here = self._matching_index()
        if here < 0 and self._matching and self._shown_run is not None:
            first = self._matching[0].row_id
            if first is not None:
                self.show_question(self._shown_run, first)

    def _on_beside_list_activated(self, index: int) -> None:
        run_id = self.beside_list.itemData(index)
        self.set_beside(None if run_id is None else int(run_id))

    def _on_beside_controller_loaded(self, detail: QuestionDetail) -> None:
        if (self.detail is not None and detail.run_id == self._beside_run
                and detail.question_id == self.detail.question_id):
            self.beside_panel.set_detail(detail)

    def _on_beside_controller_load_failed(self, message: str) -> None:
        if self._beside_run is not None:
            self.beside_panel.set_missing(self._beside_heading(self._beside_run), message)

    def _beside_heading(self, run_id: int) -> str:
        return self.tr("Run {run}").format(run=run_id)

    def _elsewhere(self, run_id: int | None) -> QuestionElsewhere | None:
        if self.detail is None or run_id is None:
            return None
        return next((e for e in self.detail.elsewhere if e.run.id == run_id), None)

    def _load_beside(self) -> asyncio.Task | None:
        if self._beside_run is None or self.detail is None:
            self.beside_controller.cancel()
            return None
        other = self._elsewhere(self._beside_run)
        if other is None:
            self.beside_controller.cancel()
            self.beside_panel.set_missing(
                self._beside_heading(self._beside_run),
                self.tr("Run {run} did not ask {question}.").format(
                    run=self._beside_run, question=self.detail.question_id))
            return None
        self.beside_panel.set_missing(self._beside_heading(self._beside_run),
                                      self.tr("Loading..."))
        return self.beside_controller.load(other.run.id, other.row_id)

    def _fill_beside_list(self, detail: QuestionDetail) -> None:
        """The runs this question can be set beside: off, then the same set's other runs."""
        words = JudgeWords(report_language())
        sep = "，" if words.lang == "zh" else ", "
        self.beside_list.blockSignals(True)
        self.beside_list.clear()
        self.beside_list.addItem(self.tr("Side by side: off"), None)
        for other in detail.elsewhere:
            marks = sep.join(f"{words.judge(j)} {words.outcome(other.passed[j])}"
                             for j in detail.judges if j in other.passed)
            text = self.tr("beside run {run} “{name}” · {model}").format(
                run=other.run.id, name=other.run.name, model=other.run.model)
            self.beside_list.addItem(text + (f" · {marks}" if marks else ""), other.run.id)
        if self._beside_run is not None and self._elsewhere(self._beside_run) is None:
            self.beside_list.addItem(self.tr("beside run {run} (did not ask {question})")
                                     .format(run=self._beside_run,
                                             question=detail.question_id), self._beside_run)
        self.beside_list.setCurrentIndex(max(0, self.beside_list.findData(self._beside_run)))
        self.beside_list.setEnabled(bool(detail.elsewhere) or self._beside_run is not None)
        self.beside_list.blockSignals(False)

    def _fill_filters(self) -> None:
        """The filter bar's choices for the open run: its tiers, its failure classes (most
        frequent first, with counts), its judges' verdicts; a choice the run still has stays."""
        lang = report_language()
        words = JudgeWords(lang)
        rows = self._run_questions
        tiers = [t for t in TIERS if any(r.tier == t for r in rows)]
        counts: dict[str, int] = {}
        for r in rows:
            if r.judged and r.failure_class:
                counts[r.failure_class] = counts.get(r.failure_class, 0) + 1
        passed = sum(1 for r in rows if r.judged and not r.failure_class)
        classes = [(self.tr("Passed ({count})").format(count=passed), CLASS_PASSED)] if passed \
            else []
        classes += [(f"{failure_class_text(code, lang)} ({n})", code)
                    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        verdicts = []
        for judge in self._judges:
            verdicts.append((self.tr("Fails {judge}").format(judge=words.judge(judge)),
                             f"fail:{judge}"))
            verdicts.append((self.tr("Passes {judge}").format(judge=words.judge(judge)),
                             f"pass:{judge}"))
        if len(self._judges) > 1:
            verdicts.append((self.tr("Judges disagree"), VERDICT_MIXED))
        if any(not r.judged for r in rows):
            verdicts.append((self.tr("Not judged"), VERDICT_UNJUDGED))
        for combo, first, choices in (
                (self.tier_filter, self.tr("All tiers"), [(t, t) for t in tiers]),
                (self.class_filter, self.tr("All classes"), classes),
                (self.verdict_filter, self.tr("All verdicts"), verdicts)):
            chosen = combo.currentData() or ""
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(first, "")
            for text, value in choices:
                combo.addItem(text, value)
            combo.setCurrentIndex(max(0, combo.findData(chosen)))
            combo.blockSignals(False)

    def _apply_filter(self) -> None:
        search = self.search()
        self._matching = search.select(self._run_questions, self._judges)
        self._fill_question_list()
        self.match_label.setText(
            self.tr("{count} of {total} match").format(count=len(self._matching),
                                                       total=len(self._run_questions))
            if search.active and self._run_questions else "")
        self.clear_filter_button.setEnabled(search.active)
        self._update_nav()

    def _matching_index(self) -> int:
        return next((i for i, q in enumerate(self._matching) if q.row_id == self._shown_row),
                    -1)

    def _walk_target(self, offset: int) -> QuestionRow | None:
        walk = self._matching
        i = self._matching_index()
        if i >= 0:
            return walk[i + offset] if 0 <= i + offset < len(walk) else None
        here = self.position()
        if here < 0:
            return None
        order = {q.row_id: k for k, q in enumerate(self._run_questions)}
        that_way = [q for q in walk if (order[q.row_id] - here) * offset > 0]
        if not that_way:
            return None
        return that_way[0] if offset > 0 else that_way[-1]

    def _on_question_list_activated(self, index: int) -> None:
        row_id = self.question_list.itemData(index)
        if self._shown_run is not None and row_id is not None and row_id != self._shown_row:
            self.show_question(self._shown_run, int(row_id))

    def _fill_question_list(self) -> None:
        self.question_list.blockSignals(True)
        self.question_list.clear()
        for row in self._matching:
            self.question_list.addItem(question_list_text(row), row.row_id)
            color = question_list_color(row)
            if color is not None:
                i = self.question_list.count() - 1
                self.question_list.setItemData(i, QBrush(color),
                                               Qt.ItemDataRole.BackgroundRole)
                self.question_list.setItemData(i, QBrush(QColor("#202020")),
                                               Qt.ItemDataRole.ForegroundRole)
        self.question_list.blockSignals(False)

    def _update_nav(self) -> None:
        here, total = self._matching_index(), len(self._matching)
        self.prev_button.setEnabled(self._walk_target(-1) is not None)
        self.next_button.setEnabled(self._walk_target(1) is not None)
        self.question_list.setEnabled(total > 0)
        self.question_list.setPlaceholderText(
            self.tr("No question matches") if not total and self._run_questions else
            self.tr("The question shown is not among the matches"))
        if self.question_list.currentIndex() != here:
            self.question_list.blockSignals(True)
            self.question_list.setCurrentIndex(here)
            self.question_list.blockSignals(False)
        self.position_label.setText(
            self.tr("{index} of {total}").format(index=here + 1, total=total) if here >= 0
            else "")

    def _on_controller_loaded(self, detail: QuestionDetail) -> None:
        new_run = self.detail is None or self.detail.run_id != detail.run_id
        self.detail = detail
        self._shown_run, self._shown_row = detail.run_id, detail.row_id
        if detail.run_questions != self._run_questions or detail.judges != self._judges:
            self._run_questions = detail.run_questions
            self._judges = detail.judges
            self._fill_filters()
            self._apply_filter()
        self._update_nav()
        if new_run and self._elsewhere(self._beside_run) is None:
            self._beside_run = None  # another set's run, or one not asked: back to the judges
            self.views.setCurrentIndex(0)
        self.main_panel.set_detail(detail)
        self._fill_beside_list(detail)
        self._load_beside()
        sim = (" <span style='color:#9a5b00'>"
               + html.escape(self.tr("(SIMULATED persona, not a model)")) + "</span>"
               if detail.simulated else "")
        self.title.setText(
            f"<b>{html.escape(detail.question_id)}</b> · {html.escape(detail.tier)} · "
            + html.escape(self.tr("run {run} “{name}”").format(run=detail.run_id,
                                                                name=detail.run_name)) + sim)
        rejudged = self.tr(" · verdicts re-judged") if detail.rejudged else ""
        # Two sentences, not "1 steps": Qt's plural forms need a translation for English too.
        status = (self.tr("Model {model} · epoch {epoch} · {status} · stopped: {stop} · 1 step "
                          "· stored tolerance {tolerance}") if len(detail.steps) == 1 else
                  self.tr("Model {model} · epoch {epoch} · {status} · stopped: {stop} · {steps} "
                          "steps · stored tolerance {tolerance}"))
        self.status.setText(
            status.format(
                model=detail.model, epoch=detail.epoch + 1, status=status_text(detail.status),
                stop=JudgeWords(report_language()).stop_reason(detail.stop_reason) or "-",
                steps=len(detail.steps),
                tolerance=f"{detail.tolerance:g}") + rejudged)
        self.status.setStyleSheet(MUTED_STYLE)
        self.question_text.setText(f"[{detail.language}] {detail.question_text}")
        self.timeline.set_steps(list(detail.steps))
        self.gold_sql.set_sql(detail.gold_sql_pretty or detail.gold_sql)
        self._show_path(detail)
        self.final_sql.set_sql(detail.final_sql or "-- " + self.tr("no final SQL"))
        self._show_verdicts(detail.verdicts, detail.counterfactual, detail.findings)
        self.diff.set_results(detail.gold, detail.actual, expected_note=detail.gold_note,
                              actual_note=detail.actual_note,
                              finding_cells=_finding_cells(detail.verdicts, report_language()))
        if not self.tolerance_edit.text().strip():
            self.tolerance_edit.setText(f"{detail.tolerance:g}")
        can = detail.database is not None and detail.question is not None
        self.rejudge_button.setEnabled(can)
        self.rejudge_note.setText("" if can else self.tr("Re-judging needs the question's "
                                                         "database."))
        self.rejudge_note.setStyleSheet(MUTED_STYLE)

    def _show_path(self, detail: QuestionDetail) -> None:
        """A layered run's question: which path answered, which steps were whose, and why."""
        if detail.path not in ("fast", "loop"):
            self.path_label.setVisible(False)
            self.path_label.setText("")
            return
        why = route_reason_text(detail.route_reason)
        code = route_code(detail.route_reason)[0]
        if detail.path == "fast":
            text = self.tr("Layered: the fast path answered (one request without tools): "
                           "{why}.").format(why=why)
        elif code in ("structured", "always_loop"):
            text = self.tr("Layered: the tool loop answered (steps 1–{last}); the fast path "
                           "was skipped: {why}.").format(last=len(detail.steps), why=why)
        else:
            text = self.tr("Layered: the tool loop answered (steps 2–{last}); step 1 was the "
                           "fast path. The loop was entered because {why}.").format(
                last=len(detail.steps), why=why)
        self.path_label.setText(text)
        self.path_label.setVisible(True)

    def _on_controller_load_failed(self, message: str) -> None:
        if self.detail is not None and self.detail.run_id == self._shown_run:
            self._shown_row = self.detail.row_id  # still showing that one: walk on from it
            self._update_nav()
        self.status.setText(message)
        self.status.setStyleSheet(ERROR_STYLE)

    def _on_controller_rejudged(self, outcome: RejudgeOutcome) -> None:
        explain = self.detail.findings if self.detail else ()
        self._show_verdicts(outcome.verdicts, outcome.counterfactual, explain)
        self.diff.set_results(outcome.gold, outcome.actual, actual_note=outcome.actual_note,
                              finding_cells=_finding_cells(outcome.verdicts,
                                                           report_language()))
        self.rejudge_note.setText(self.tr("Re-judged at tolerance {tolerance} (not saved; no "
                                          "model call).").format(
            tolerance=f"{outcome.tolerance:g}"))
        self.rejudge_note.setStyleSheet(MUTED_STYLE)
        self.rejudge_button.setEnabled(True)

    def _on_controller_rejudge_failed(self, message: str) -> None:
        self.rejudge_note.setText(message)
        self.rejudge_note.setStyleSheet(ERROR_STYLE)
        self.rejudge_button.setEnabled(self.detail is not None)

    def _show_verdicts(self, verdicts: dict[str, Verdict], line: Headline | None,
                       explain: tuple[JudgeFinding, ...] = ()) -> None:
        """Each judge's verdict, the line across judges and the findings, in the UI's
        language (the judges' words: `report/judge_words`)."""
        lang = report_language()
        words = JudgeWords(lang)
        for judge, label in self.verdict_labels.items():
            verdict = verdicts.get(judge)
            official = bool(getattr(get_judge(judge), "benchmark", None))
            label.setVisible(verdict is not None or not official)  # a rule the run did not ask for
            if verdict is None:
                label.setText(f"{words.judge(judge)}: -")
                label.setStyleSheet(MUTED_STYLE)
                continue
            tol = ("" if verdict.tolerance is None
                   else self.tr(" (tol {tolerance})").format(tolerance=f"{verdict.tolerance:g}"))
            label.setText(words.verdict(judge, verdict.passed) + tol)
            label.setStyleSheet(PASS_STYLE if verdict.passed else FAIL_STYLE)
        text = words.headline(line) if line is not None and verdicts else ""
        self.counterfactual.setText(text[:1].upper() + text[1:])
        self.findings.setText(findings_html(verdicts, explain, lang) if verdicts else "")


# --------------------------------------------------------------------------- python -m


async def build_demo_run(db_path: Path, sets_dir: Path, cache_dir: Path,
                         question_ids: tuple[str, ...] = ()) -> tuple[int, dict[str, int]]:
    """Run `sim/seed-reference` on sales-25 on the instant simulator into `db_path`; returns the
    run id and each question id's row id."""
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.launcher import start_simulator
    from desktop_app.core.sqleval.records import load_eval
    from desktop_app.core.sqleval.runner import EvalConfig, run_eval

    with start_simulator("instant") as sim, Store.open(db_path) as store:
        config = EvalConfig(EndpointConfig(sim.url, model="sim/seed-reference"),
                            question_ids=question_ids)
        result = await run_eval(config, store, sets_dir=sets_dir, cache_dir=cache_dir)
        rows = {q.question_id: q.row_id for q in load_eval(store, result.run_id).questions}
    return result.run_id, rows


def main(argv: list[str] | None = None) -> int:
    """Open the page alone (see the module doc)."""
    import argparse
    import sys
    import tempfile

    from PySide6.QtWidgets import QApplication

    from desktop_app.gui.event_loop import EventLoop

    parser = argparse.ArgumentParser(prog="python -m desktop_app.gui.pages.inspector")
    parser.add_argument("ids", nargs="*", type=int, help="RUN_ID QUESTION_ROW_ID")
    parser.add_argument("--screenshot", metavar="PNG", help="save the loaded page and exit")
    args = parser.parse_args(argv)
    if args.ids and len(args.ids) != 2:
        parser.error("give both RUN_ID and QUESTION_ROW_ID, or neither")
    context_args: dict = {}
    if args.ids:
        run_id, row_id = args.ids
    else:
        from desktop_app import paths

        tmp = Path(tempfile.mkdtemp(prefix="throughline-inspector-"))
        context_args["db_path"] = tmp / "results.db"
        print("Running sales-25 with sim/seed-reference on the instant simulator...",
              file=sys.stderr)
        run_id, rows = asyncio.run(build_demo_run(
            context_args["db_path"], paths.question_set_dirs(),
            paths.user_data_dir() / "databases"))
        row_id = rows["m01"]
    app = QApplication.instance() or QApplication(sys.argv)
    loop = EventLoop(app)
    asyncio.set_event_loop(loop)
    context = AppContext(context_args.get("db_path"))
    page = InspectorPage(context)
    page.resize(1100, 720)
    page.show()
    done = asyncio.Event()
    app.aboutToQuit.connect(done.set)

    def on_loaded(_detail) -> None:
        if args.screenshot:
            app.processEvents()
            page.grab().save(args.screenshot)
            print(f"saved {args.screenshot}", file=sys.stderr)
            page.close()
            done.set()

    page.controller.loaded.connect(on_loaded)
    page.controller.load_failed.connect(lambda m: print(m, file=sys.stderr))
    with loop:
        page.show_question(run_id, row_id)
        loop.run_until_complete(done.wait())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
