"""One run's transcript of one question, compact enough to stand beside another run's: who
answered (run, model), each judge's verdict, what failed, the final SQL and every step.

The Inspector's side-by-side view sets two of these next to each other (`set_detail` takes the
controller's `QuestionDetail`); `set_missing` says why a run has nothing to show.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from desktop_app.gui.i18n import report_language, status_text
from desktop_app.gui.widgets.sql_view import SqlView
from desktop_app.gui.widgets.step_timeline import StepTimeline
from desktop_app.report.judge_words import JudgeWords

if TYPE_CHECKING:
    from desktop_app.gui.controllers.inspector import QuestionDetail

MUTED_STYLE = "color: #5b5f66;"
_PASS = "background: #d7f0dd; color: #14532d;"
_FAIL = "background: #fbd9d5; color: #7f1d1d;"
SQL_HEIGHT = 120  # the final SQL's box; the steps take the rest


def _label(*, rich: bool = False, style: str = "") -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if style:
        label.setStyleSheet(style)
    return label


def verdicts_html(verdicts: dict, judges: tuple[str, ...], lang: str) -> str:
    """The run's judges' verdicts as coloured marks ("strict FAIL  full PASS"); a judge without
    a verdict is left out, "-" when none has one."""
    words = JudgeWords(lang)
    marks = []
    for judge in judges or tuple(verdicts):
        verdict = verdicts.get(judge)
        if verdict is None:
            continue
        style = _PASS if verdict.passed else _FAIL
        marks.append(f"<span style='{style}'>&nbsp;{html.escape(words.verdict(judge, verdict.passed))}"
                     "&nbsp;</span>")
    return " ".join(marks) or "-"


class TranscriptPanel(QWidget):
    """A run's answer to one question: heading, verdicts, what failed, final SQL, steps."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.detail: QuestionDetail | None = None
        self.heading = _label(rich=True)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.verdicts = _label(rich=True)
        self.summary = _label(style=MUTED_STYLE)
        self.failure = _label()
        self.final_sql = SqlView()
        self.final_sql.setMaximumHeight(SQL_HEIGHT)
        self.timeline = StepTimeline()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.heading, self.verdicts, self.summary, self.failure,
                       self.final_sql):
            layout.addWidget(widget)
        layout.addWidget(self.timeline, 1)

    def set_detail(self, detail: QuestionDetail) -> None:
        """Show `detail`'s run, verdicts, first finding, final SQL and steps."""
        self.detail = detail
        lang = report_language()
        words = JudgeWords(lang)
        sim = (" <span style='color:#9a5b00'>" + html.escape(self.tr("(SIMULATED)"))
               + "</span>" if detail.simulated else "")
        self.heading.setText(html.escape(self.tr("Run {run} “{name}” · {model}").format(
            run=detail.run_id, name=detail.run_name, model=detail.model)) + sim)
        self.verdicts.setText(verdicts_html(detail.verdicts, detail.judges, lang))
        steps = len(detail.steps)
        tokens = sum(s.prompt_tokens + s.completion_tokens for s in detail.steps)
        summary = (self.tr("epoch {epoch} · {status} · stopped: {stop} · 1 step · {tokens} "
                           "tokens") if steps == 1 else
                   self.tr("epoch {epoch} · {status} · stopped: {stop} · {steps} steps · "
                           "{tokens} tokens"))
        self.summary.setText(summary.format(
            epoch=detail.epoch + 1, status=status_text(detail.status),
            stop=words.stop_reason(detail.stop_reason) or "-", steps=steps,
            tokens=f"{tokens:,}"))
        self.failure.setText(self._first_failure(detail, words))
        self.failure.setVisible(bool(self.failure.text()))
        self.final_sql.set_sql(detail.final_sql_pretty or detail.final_sql
                               or "-- " + self.tr("no final SQL"))
        self.final_sql.setVisible(True)
        self.timeline.set_steps(list(detail.steps))

    def set_missing(self, heading: str, why: str) -> None:
        """Nothing to show: `heading` names the run, `why` says what is missing."""
        self.detail = None
        self.heading.setText(html.escape(heading))
        self.verdicts.setText("")
        self.summary.setText(why)
        self.failure.setVisible(False)
        self.final_sql.setVisible(False)
        self.timeline.set_steps([])

    @staticmethod
    def _first_failure(detail: QuestionDetail, words: JudgeWords) -> str:
        """Why the strictest of the run's judges that failed it failed, in one finding."""
        for judge in detail.judges or tuple(detail.verdicts):
            verdict = detail.verdicts.get(judge)
            if verdict is not None and not verdict.passed and verdict.findings:
                return f"{words.judge(judge)}: {words.finding(verdict.findings[0])}"
        return ""
