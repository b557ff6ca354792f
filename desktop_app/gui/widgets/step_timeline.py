"""The agent's steps for one question, top to bottom: what the model said, the tools it called
(SQL highlighted), what each tool answered (a table when it was one), tokens, latency, errors."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QLabel,
    QSizePolicy,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.sqleval.records import StoredStep, StoredToolCall
from desktop_app.gui.widgets.result_diff import ResultGrid, ResultTableModel
from desktop_app.gui.widgets.sql_view import SqlView
from desktop_app.gui.widgets.table_copy import install_table_copy

MAX_TEXT_CHARS = 4000  # longer assistant text is cut on screen (the store keeps all of it)
TABLE_ROWS_SHOWN = 8  # a tool result table taller than this scrolls
_RULE = re.compile(r"^-+(?:-\+-+)*$")  # the line under a result table's header
ERROR_STYLE = "color: #b3261e;"


# The stored step as the records read it; the timeline shows it as it is.
ToolCallView = StoredToolCall
TimelineStep = StoredStep


def parse_result_table(text: str) -> tuple[ResultGrid, str] | None:
    """A run_sql result as the model saw it (sandbox.format_result_for_model: header, rule,
    rows, "(N rows)") as a grid and its footer line; None when the text is not such a table."""
    lines = text.split("\n")
    if len(lines) < 2 or not _RULE.match(lines[1]):
        return None
    columns = tuple(c.strip() for c in lines[0].split(" | "))
    rows, footer = [], ""
    for line in lines[2:]:
        if line.startswith("(") and line.endswith(")"):
            footer = line
            break
        cells = tuple(c.strip() for c in line.split(" | "))
        if len(cells) != len(columns):
            if len(columns) == 1:
                cells = (line.strip(),)
            else:
                return None  # a value holding " | ": show the text as it is
        rows.append(cells)
    return ResultGrid(columns, tuple(rows)), footer


def _label(text: str, *, style: str = "", mono: bool = False, rich: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    # A model's unbroken run (a 900-character identifier) would widen the card past the pane
    # and push every wrapped line, the step's error included, out of sight: the label takes
    # the pane's width and only that run is clipped.
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if mono:
        label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    if style:
        label.setStyleSheet(style)
    return label


class StepCard(QFrame):
    """One step of the timeline: header line, harness notes, assistant text, tool calls."""

    def __init__(self, step: TimelineStep, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.step = step
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.sql_views: list[SqlView] = []
        self.result_tables: list[QTableView] = []
        layout = QVBoxLayout(self)
        layout.setSpacing(4)
        tools = ", ".join(c.name for c in step.calls) or self.tr("no tool call")
        sep = " &nbsp;·&nbsp; "
        self.header = _label(
            "<b>" + self.tr("Step {step}").format(step=step.index + 1) + "</b>" + sep + tools
            + sep + self.tr("{prompt} + {completion} tokens").format(
                prompt=f"{step.prompt_tokens:,}", completion=f"{step.completion_tokens:,}")
            + sep + _duration(step.latency_s), rich=True)
        self.header.setToolTip(self.tr(
            "{prompt} prompt tokens, {completion} completion tokens; the server answered in "
            "{seconds} s").format(prompt=f"{step.prompt_tokens:,}",
                                  completion=f"{step.completion_tokens:,}",
                                  seconds=f"{step.latency_s:.3f}"))
        layout.addWidget(self.header)
        for note in step.harness_notes:
            layout.addWidget(_label(self.tr("Harness to model: {note}").format(note=note),
                                    style="color: #5b5f66; font-style: italic;"))
        if step.text:
            text = step.text if len(step.text) <= MAX_TEXT_CHARS else (
                step.text[:MAX_TEXT_CHARS] + self.tr(" ... ({count} characters in all)").format(
                    count=f"{len(step.text):,}"))
            layout.addWidget(_label(text))
        for call in step.calls:
            self._add_call(layout, call)
        if step.error:
            layout.addWidget(_label(self.tr("Step error: {error}").format(error=step.error),
                                    style=ERROR_STYLE))

    def _add_call(self, layout: QVBoxLayout, call: ToolCallView) -> None:
        layout.addWidget(_label(f"<b>→ {call.name}</b>", rich=True))
        sql = call.sql
        if sql is not None:
            view = SqlView(sql, fit_lines=14)
            self.sql_views.append(view)
            layout.addWidget(view)
        elif call.arguments and call.arguments.strip() not in ("{}", ""):
            layout.addWidget(_label(call.arguments, mono=True))
        if call.error:
            layout.addWidget(_label(self.tr("Error: {error}").format(error=call.error),
                                    style=ERROR_STYLE))
            if call.result and call.error not in call.result:
                layout.addWidget(_label(call.result, mono=True))
            return
        parsed = parse_result_table(call.result)
        if parsed is not None:
            grid, footer = parsed
            layout.addWidget(self._table(grid))
            if footer:
                layout.addWidget(_label(footer, style="color: #5b5f66;"))
        elif call.result:
            layout.addWidget(_label(call.result, mono=True,
                                    style="background: #f4f5f7; padding: 4px;"))
        if call.truncated:
            layout.addWidget(_label(self.tr("(the result was cut before the model saw it)"),
                                    style="color: #5b5f66;"))

    def _table(self, grid: ResultGrid) -> QTableView:
        model = ResultTableModel(self)
        model.set_grid(grid)
        view = QTableView()
        view.setModel(model)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        row_height = view.fontMetrics().height() + 6
        view.verticalHeader().setDefaultSectionSize(row_height)
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setStretchLastSection(True)
        view.resizeColumnsToContents()
        shown = min(len(grid.rows), TABLE_ROWS_SHOWN)
        view.setFixedHeight(row_height * (shown + 1) + 8
                            + (view.horizontalScrollBar().sizeHint().height()
                               if len(grid.columns) > 3 else 0))
        self.result_tables.append(view)
        return view


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


class StepTimeline(QScrollArea):
    """A scrolling column of StepCards, one per model call, in order."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cards: list[StepCard] = []
        self._show([])

    def set_steps(self, steps: list[TimelineStep]) -> None:
        """Show `steps` (replacing what was shown)."""
        self._show(steps)

    def _show(self, steps: list[TimelineStep]) -> None:
        container = QWidget()
        layout = QVBoxLayout(container)
        layout.setSpacing(8)
        self.cards = [StepCard(step) for step in steps]
        for card in self.cards:
            layout.addWidget(card)
        if not steps:
            layout.addWidget(_label(self.tr("No steps recorded."), style="color: #5b5f66;"))
        layout.addStretch(1)
        install_table_copy(container)  # the result tables are made here, after the page
        self.setWidget(container)  # the old container is deleted with its cards
