"""The Inspector: one question of a stored SQL run, its agent steps and the judges' findings.

`InspectorPage.show_question(run_id, question_row_id)` (also wired to
`context.open_question_requested`) reads the stored question and steps, re-runs the gold and
final SQL read-only in the sandbox to show both results side by side, and can re-judge at
another tolerance without calling any model and without writing to the store.

    python -m desktop_app.gui.pages.inspector [RUN_ID QUESTION_ROW_ID] [--screenshot PNG]

Without ids it runs the sales-25 evaluation of `sim/seed-reference` on the instant simulator
into a temporary store first and shows question m01.
"""

from __future__ import annotations

import asyncio
import html
import math
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.sqleval.export import question_from_snapshot
from desktop_app.core.sqleval.judge import counterfactual, judge_all
from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError
from desktop_app.core.sqleval.types import (
    JUDGE_MODES,
    JudgeFinding,
    Question,
    QueryResult,
    Verdict,
)
from desktop_app.core.store import NotFoundError, Store
from desktop_app.gui.context import AppContext
from desktop_app.gui.i18n import status_text, translate
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.widgets.result_diff import ResultDiffTable
from desktop_app.gui.widgets.sql_view import SqlView
from desktop_app.gui.widgets.step_timeline import StepTimeline, TimelineStep

KEY_TOLERANCE = "inspector/tolerance"
KEY_SPLITTER = "inspector/splitter"
KEY_JUDGE_SPLITTER = "inspector/judge_splitter"
declare(KEY_TOLERANCE, KEY_SPLITTER, KEY_JUDGE_SPLITTER)

PASS_STYLE = "background: #d7f0dd; color: #14532d; border-radius: 4px; padding: 3px 8px;"
FAIL_STYLE = "background: #fbd9d5; color: #7f1d1d; border-radius: 4px; padding: 3px 8px;"
MUTED_STYLE = "color: #5b5f66;"
ERROR_STYLE = "color: #b3261e;"


# --------------------------------------------------------------------------- what is shown


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
    steps: tuple[TimelineStep, ...]
    verdicts: dict[str, Verdict]
    counterfactual: str
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


@dataclass(frozen=True)
class RejudgeOutcome:
    """New verdicts for a question at `tolerance`, computed without the model (not stored)."""

    tolerance: float
    verdicts: dict[str, Verdict]
    counterfactual: str
    gold: QueryResult
    actual: QueryResult | None
    actual_note: str


class InspectorError(Exception):
    """A question that cannot be shown or re-judged, with a sentence for the user."""


def _finding(data: dict) -> JudgeFinding:
    return JudgeFinding(str(data.get("code", "")), str(data.get("message", "")),
                        tuple(tuple(c) for c in data.get("cells") or ()))


def _verdicts(stored: dict) -> dict[str, Verdict]:
    return {judge: Verdict(judge, bool(v.get("passed")),
                           tuple(_finding(f) for f in v.get("findings") or ()),
                           v.get("tolerance"))
            for judge, v in (stored or {}).items()}


def _stored_result(data: dict | None) -> QueryResult | None:
    if not data or not data.get("columns"):
        return None
    return QueryResult(tuple(data["columns"]), tuple(tuple(r) for r in data.get("rows") or ()),
                       data.get("total_rows"), bool(data.get("truncated")))


def _run(sandbox: Sandbox, sql: str | None) -> tuple[QueryResult | None, str]:
    if not sql:
        return None, translate("InspectorPage", "no final SQL")
    try:
        return sandbox.run(sql), ""
    except SandboxError as exc:
        return None, str(exc)


def read_question(db_path: Path, sets_dir: Path, cache_dir: Path, run_id: int,
                  row_id: int) -> QuestionDetail:
    """Read a stored question and its steps and re-run its gold and final SQL (blocking: call
    it through asyncio.to_thread). Raises InspectorError for an unknown run or row."""
    with Store.open(db_path) as store:
        try:
            record = store.get_run(run_id)
        except NotFoundError:
            raise InspectorError(translate("InspectorPage", "There is no run {run} in {path}.")
                                 .format(run=run_id, path=db_path)) from None
        if record.kind != "sql":
            raise InspectorError(translate(
                "InspectorPage", "Run {run} is a {kind} run, not a SQL evaluation.").format(
                run=run_id, kind=status_text(record.kind)))
        row = next((r for r in store.sql_questions(run_id) if r["id"] == row_id), None)
        if row is None:
            raise InspectorError(translate("InspectorPage", "Run {run} has no question row "
                                           "{row}.").format(run=run_id, row=row_id))
        steps = tuple(TimelineStep.from_row(s) for s in store.sql_steps(row_id))
    config = record.config or {}
    stored = row.get("verdicts_json") or {}
    question = question_from_snapshot(stored.get("question"))
    database, note = None, ""
    try:
        qset = load_question_set(config.get("set_path") or config.get("questions") or "sales-25",
                                 sets_dir=sets_dir, cache_dir=cache_dir, check_gold=False)
        if question is None:
            question = next((q for q in qset.questions if q.id == row["question_id"]), None)
        if question is not None:
            database = qset.databases.get(question.database)
    except (QuestionSetError, OSError) as exc:
        note = translate("InspectorPage", "the question set cannot be loaded: {error}").format(
            error=exc)
    limit = float(config.get("sql_time_limit_s") or 5.0)
    gold = actual = None
    gold_note, actual_note = note or translate("InspectorPage", "not available"), ""
    if database is not None and question is not None:
        try:
            with Sandbox(database, time_limit_s=limit) as sandbox:
                gold, gold_note = _run(sandbox, question.gold_sql)
                actual, actual_note = _run(sandbox, row.get("final_sql"))
        except (SandboxError, OSError) as exc:
            gold_note = translate("InspectorPage", "the database cannot be opened: {error}"
                                  ).format(error=exc)
            database = None
    if database is None or question is None:
        actual = _stored_result(row.get("result_json"))
        actual_note = translate("InspectorPage", "as stored") if actual is not None else (
            (row.get("result_json") or {}).get("error")
            or translate("InspectorPage", "no result"))
    language = config.get("language") or "en"
    return QuestionDetail(
        run_id, row_id, record.name, record.model or "",
        (record.engine or "").startswith("simulated") or (record.model or "").startswith("sim/"),
        row["question_id"], row.get("tier") or "", int(row.get("epoch") or 0),
        row.get("status") or "", row.get("stop_reason") or "", language, question,
        question.text(language) if question
        else translate("InspectorPage", "(the question's text was not stored)"),
        question.gold_sql if question else "", row.get("final_sql"), steps,
        _verdicts(stored.get("verdicts")), stored.get("counterfactual") or "",
        tuple(_finding(f) for f in stored.get("findings") or ()),
        float(stored.get("tolerance") or config.get("tolerance") or 1e-6),
        bool(stored.get("ignore_names")), bool(stored.get("rejudged")), database, limit,
        gold, gold_note, actual, actual_note)


def rejudge_question(detail: QuestionDetail, tolerance: float) -> RejudgeOutcome:
    """Run the gold and final SQL again and judge under every judge at `tolerance`, without
    the model and without writing to the store (blocking: call it through asyncio.to_thread)."""
    if detail.question is None or detail.database is None:
        raise InspectorError(translate("InspectorPage", "Cannot re-judge: the question's "
                                       "database is not available."))
    with Sandbox(detail.database, time_limit_s=detail.sql_time_limit_s) as sandbox:
        gold, gold_error = _run(sandbox, detail.question.gold_sql)
        actual, error = _run(sandbox, detail.final_sql)
    if gold is None:
        raise InspectorError(translate("InspectorPage", "Cannot re-judge: the gold SQL failed: "
                                       "{error}").format(error=gold_error))
    verdicts = judge_all(detail.question, gold, actual, modes=JUDGE_MODES,
                         final_sql=detail.final_sql, error=error or None,
                         stop_reason=detail.stop_reason or "submitted", tolerance=tolerance,
                         ignore_names=detail.ignore_names)
    return RejudgeOutcome(tolerance, verdicts, counterfactual(verdicts), gold, actual, error)


# --------------------------------------------------------------------------- the controller


class InspectorController(QObject):
    """Owns the task that reads a question or re-judges it, and reports the outcome as signals."""

    loaded = Signal(object)  # QuestionDetail
    load_failed = Signal(str)
    rejudged = Signal(object)  # RejudgeOutcome
    rejudge_failed = Signal(str)

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self.task: asyncio.Task | None = None

    def load(self, run_id: int, row_id: int) -> asyncio.Task:
        """Read question row `row_id` of run `run_id` (cancels what was running)."""
        return self._start(self._load(run_id, row_id))

    def rejudge(self, detail: QuestionDetail, tolerance: float) -> asyncio.Task:
        """Judge `detail` again at `tolerance` (cancels what was running)."""
        return self._start(self._rejudge(detail, tolerance))

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def _start(self, coro) -> asyncio.Task:
        self.cancel()
        self.task = asyncio.ensure_future(coro)
        return self.task

    async def _load(self, run_id: int, row_id: int) -> None:
        c = self._context
        try:
            detail = await asyncio.to_thread(read_question, c.db_path, c.sets_dir, c.cache_dir,
                                             run_id, row_id)
        except Exception as exc:  # noqa: BLE001 - shown to the user as is
            self.load_failed.emit(str(exc) if isinstance(exc, InspectorError)
                                  else f"{type(exc).__name__}: {exc}")
            return
        self.loaded.emit(detail)

    async def _rejudge(self, detail: QuestionDetail, tolerance: float) -> None:
        try:
            outcome = await asyncio.to_thread(rejudge_question, detail, tolerance)
        except Exception as exc:  # noqa: BLE001 - shown to the user as is
            self.rejudge_failed.emit(str(exc) if isinstance(exc, InspectorError)
                                     else f"{type(exc).__name__}: {exc}")
            return
        self.rejudged.emit(outcome)


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


def findings_html(verdicts: dict[str, Verdict], explain: tuple[JudgeFinding, ...]) -> str:
    """Every finding once, with the judges that made it (the SQL's explanation as "SQL")."""
    seen: dict[tuple[str, str], list[str]] = {}
    for judge, verdict in verdicts.items():
        for f in verdict.findings:
            seen.setdefault((f.code, f.message), []).append(judge)
    for f in explain:
        seen.setdefault((f.code, f.message), []).append("SQL")
    if not seen:
        return translate("InspectorPage", "No findings: the answer matches.")
    items = "".join(f"<li><b>{', '.join(who)}</b>: {html.escape(message)}</li>"
                    for (_code, message), who in seen.items())
    return f"<ul style='margin-left: -20px'>{items}</ul>"


def _finding_cells(verdicts: dict[str, Verdict]) -> tuple:
    return tuple((int(c[0]), str(c[1]), str(c[2]), str(c[3]), f.message)
                 for v in verdicts.values() for f in v.findings for c in f.cells
                 if len(c) >= 4)


class InspectorPage(QWidget):
    """One question of a stored SQL run: its text, the agent's steps, and the judges' panel."""

    def __init__(self, context: AppContext, settings: Settings | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page_inspector")
        self._context = context
        self._settings = settings or Settings()
        self.detail: QuestionDetail | None = None
        self.controller = InspectorController(context, self)
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
        self.timeline = StepTimeline()

        self.verdict_labels = {judge: QLabel(judge) for judge in JUDGE_MODES}
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
        self.tolerance_edit.returnPressed.connect(self._on_rejudge_clicked)
        self.rejudge_button = QPushButton(self.tr("Re-judge"))
        self.rejudge_button.setToolTip(self.tr("Run the gold and final SQL again and judge at "
                                               "this tolerance. No model call; nothing is "
                                               "saved."))
        self.rejudge_button.clicked.connect(self._on_rejudge_clicked)
        self.rejudge_button.setEnabled(False)
        self.rejudge_note = _label("", MUTED_STYLE)
        rejudge_row = QHBoxLayout()
        rejudge_row.addWidget(QLabel(self.tr("Tolerance")))
        rejudge_row.addWidget(self.tolerance_edit)
        rejudge_row.addWidget(self.rejudge_button)
        rejudge_row.addWidget(self.rejudge_note, 1)
        self.diff = ResultDiffTable()
        self.gold_sql = SqlView()
        self.final_sql = SqlView()
        self.sql_tabs = QTabWidget()
        self.sql_tabs.addTab(self.gold_sql, self.tr("Gold SQL"))
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

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.status)
        layout.addWidget(self.question_text)
        layout.addWidget(self.splitter, 1)
        self._settings.track(KEY_SPLITTER, self.splitter)
        self._settings.track(KEY_JUDGE_SPLITTER, self.judge_splitter)
        self._show_verdicts({}, "")

    # -- public ------------------------------------------------------------------------

    def show_question(self, run_id: int, question_row_id: int) -> asyncio.Task:
        """Load and show question row `question_row_id` of SQL run `run_id`."""
        self.status.setText(self.tr("Loading run {run}, question row {row}...").format(
            run=run_id, row=question_row_id))
        self.status.setStyleSheet(MUTED_STYLE)
        self.rejudge_button.setEnabled(False)
        return self.controller.load(run_id, question_row_id)

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

    def _on_controller_loaded(self, detail: QuestionDetail) -> None:
        self.detail = detail
        sim = (" <span style='color:#9a5b00'>"
               + html.escape(self.tr("(SIMULATED persona, not a model)")) + "</span>"
               if detail.simulated else "")
        self.title.setText(
            f"<b>{html.escape(detail.question_id)}</b> · {html.escape(detail.tier)} · "
            + html.escape(self.tr("run {run} “{name}”").format(run=detail.run_id,
                                                                name=detail.run_name)) + sim)
        rejudged = self.tr(" · verdicts re-judged") if detail.rejudged else ""
        self.status.setText(
            self.tr("Model {model} · epoch {epoch} · {status} · stopped: {stop} · {steps} steps "
                    "· stored tolerance {tolerance}").format(
                model=detail.model, epoch=detail.epoch + 1, status=status_text(detail.status),
                stop=detail.stop_reason or "-", steps=len(detail.steps),
                tolerance=f"{detail.tolerance:g}") + rejudged)
        self.status.setStyleSheet(MUTED_STYLE)
        self.question_text.setText(f"[{detail.language}] {detail.question_text}")
        self.timeline.set_steps(list(detail.steps))
        self.gold_sql.set_sql(detail.gold_sql)
        self.final_sql.set_sql(detail.final_sql or "-- " + self.tr("no final SQL"))
        self._show_verdicts(detail.verdicts, detail.counterfactual, detail.findings)
        self.diff.set_results(detail.gold, detail.actual, expected_note=detail.gold_note,
                              actual_note=detail.actual_note,
                              finding_cells=_finding_cells(detail.verdicts))
        if not self.tolerance_edit.text().strip():
            self.tolerance_edit.setText(f"{detail.tolerance:g}")
        can = detail.database is not None and detail.question is not None
        self.rejudge_button.setEnabled(can)
        self.rejudge_note.setText("" if can else self.tr("Re-judging needs the question's "
                                                         "database."))
        self.rejudge_note.setStyleSheet(MUTED_STYLE)

    def _on_controller_load_failed(self, message: str) -> None:
        self.status.setText(message)
        self.status.setStyleSheet(ERROR_STYLE)

    def _on_controller_rejudged(self, outcome: RejudgeOutcome) -> None:
        explain = self.detail.findings if self.detail else ()
        self._show_verdicts(outcome.verdicts, outcome.counterfactual, explain)
        self.diff.set_results(outcome.gold, outcome.actual, actual_note=outcome.actual_note,
                              finding_cells=_finding_cells(outcome.verdicts))
        self.rejudge_note.setText(self.tr("Re-judged at tolerance {tolerance} (not saved; no "
                                          "model call).").format(
            tolerance=f"{outcome.tolerance:g}"))
        self.rejudge_note.setStyleSheet(MUTED_STYLE)
        self.rejudge_button.setEnabled(True)

    def _on_controller_rejudge_failed(self, message: str) -> None:
        self.rejudge_note.setText(message)
        self.rejudge_note.setStyleSheet(ERROR_STYLE)
        self.rejudge_button.setEnabled(self.detail is not None)

    def _show_verdicts(self, verdicts: dict[str, Verdict], line: str,
                       explain: tuple[JudgeFinding, ...] = ()) -> None:
        for judge, label in self.verdict_labels.items():
            verdict = verdicts.get(judge)
            if verdict is None:
                label.setText(f"{judge}: -")
                label.setStyleSheet(MUTED_STYLE)
                continue
            tol = ("" if verdict.tolerance is None
                   else self.tr(" (tol {tolerance})").format(tolerance=f"{verdict.tolerance:g}"))
            label.setText(f"{judge}: {'PASS' if verdict.passed else 'FAIL'}{tol}")
            label.setStyleSheet(PASS_STYLE if verdict.passed else FAIL_STYLE)
        self.counterfactual.setText(line[:1].upper() + line[1:] if line else "")
        self.findings.setText(findings_html(verdicts, explain) if verdicts else "")


# --------------------------------------------------------------------------- python -m


async def build_demo_run(db_path: Path, sets_dir: Path, cache_dir: Path,
                         question_ids: tuple[str, ...] = ()) -> tuple[int, dict[str, int]]:
    """Run `sim/seed-reference` on sales-25 on the instant simulator into `db_path`; returns the
    run id and each question id's row id."""
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.launcher import start_simulator
    from desktop_app.core.sqleval.runner import EvalConfig, run_eval

    with start_simulator("instant") as sim, Store.open(db_path) as store:
        config = EvalConfig(EndpointConfig(sim.url, model="sim/seed-reference"),
                            question_ids=question_ids)
        result = await run_eval(config, store, sets_dir=sets_dir, cache_dir=cache_dir)
        rows = {r["question_id"]: r["id"] for r in store.sql_questions(result.run_id)}
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
            context_args["db_path"], paths.questions_dir(),
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
