"""Table models of the Runs page: the stored runs, and two or more runs aligned for comparison.

Adapters only: they hold what the records modules read (`RunInfo`, `ThroughputRun` /
`StoredCell`, `SqlRun` / `StoredQuestion`, and the comparison's `DimensionRow` s) and format it
for display. Aligning means keying rows (a cell's input/load/output, a question's id) and
looking each run's value up; nothing is recomputed here, and pass counts are `PassCount` s.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor, QFont

from desktop_app.core.compare import Comparison, DimensionRow
from desktop_app.core.runs import PassCount, RunInfo, pass_count
from desktop_app.core.sqleval.records import SqlRun, StoredQuestion
from desktop_app.core.sqleval.types import TIERS
from desktop_app.core.stats import Estimate
from desktop_app.core.throughput.records import StoredCell, ThroughputRun
from desktop_app.gui.i18n import report_language, status_text, translate
from desktop_app.gui.widgets.table_copy import COPY_ROLE
from desktop_app.report.words_common import load_text
from desktop_app.report.fmt import engine_label
from desktop_app.report.judge_words import JudgeWords
from desktop_app.report.verdicts import render_row, row_label
from desktop_app.report.verdicts import value_text as dim_value_text

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()

PASS_BG = QColor("#d7f0d2")
FAIL_BG = QColor("#f6d3d0")
MIXED_BG = QColor("#fbeccb")
STATUS_FG = {"failed": QColor("#b3261e"), "interrupted": QColor("#9a6700"),
             "cancelled": QColor("#6b6b6b"), "running": QColor("#1a5fb4")}


@functools.cache
def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


def format_started(iso: str | None) -> str:
    """A stored ISO-8601 UTC time as local 'YYYY-MM-DD HH:MM'."""
    if not iso:
        return ""
    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")


def format_duration(seconds: float | None) -> str:
    """Seconds as '4.2 s', '3 min 05 s' or '2 h 07 min'; '' when unknown."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return translate("RunsTableModel", "{minutes} min {seconds} s").format(
            minutes=minutes, seconds=f"{secs:02d}")
    hours, minutes = divmod(minutes, 60)
    return translate("RunsTableModel", "{hours} h {minutes} min").format(
        hours=hours, minutes=f"{minutes:02d}")


def duration_s(run: RunInfo) -> float | None:
    """Wall time from start to end in seconds, or None while running."""
    if not (run.started_at and run.ended_at):
        return None
    delta = datetime.fromisoformat(run.ended_at) - datetime.fromisoformat(run.started_at)
    return delta.total_seconds()


def run_tooltip(run: RunInfo) -> str:
    """What a hover over a run says: its label (id and name), its note, its error."""
    lines = [run.label]
    if run.notes:
        lines.append(run.notes)
    if run.error:
        lines.append(run.error)
    return "\n".join(lines)


class RunsTableModel(QAbstractTableModel):
    """Every stored run, one row each, newest first (the order the store lists them); a hover
    shows the run's note."""

    HEADERS = ("Id", QT_TRANSLATE_NOOP("RunsTableModel", "Kind"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Name"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Status"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Started"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Duration"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Model"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Engine"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Endpoint"))
    COL_NAME = 2

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: list[RunInfo] = []

    def set_runs(self, runs: Sequence[RunInfo]) -> None:
        self.beginResetModel()
        self._runs = list(runs)
        self.endResetModel()

    def run_at(self, row: int) -> RunInfo:
        return self._runs[row]

    def runs(self) -> list[RunInfo]:
        return list(self._runs)

    def row_of(self, run_id: int) -> int | None:
        return next((i for i, r in enumerate(self._runs) if r.id == run_id), None)

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._runs)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return translate("RunsTableModel", self.HEADERS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        run = self._runs[index.row()]
        column = index.column()
        if role == COPY_ROLE and column == 2:
            return run.name  # copied without the pencil
        if role == Qt.ItemDataRole.DisplayRole:
            name = run.name + (" \u270e" if run.notes else "")  # a pencil: a note to hover for
            return (str(run.id), status_text(run.kind), name, status_text(run.status),
                    format_started(run.started_at), format_duration(duration_s(run)),
                    run.model, engine_label(run.engine, report_language()), run.endpoint)[column]
        if role == Qt.ItemDataRole.ForegroundRole and column == 3:
            return STATUS_FG.get(run.status)
        if role == Qt.ItemDataRole.FontRole and column == self.COL_NAME:
            return _bold()  # the name is what tells runs apart
        if role == Qt.ItemDataRole.ToolTipRole:
            return run_tooltip(run)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


# --------------------------------------------------------------------------- throughput comparison


def cell_key(cell: StoredCell) -> tuple:
    """Rows of the throughput comparison are keyed by input tokens, load and output tokens;
    the load is (0, concurrency), (1, rate) or (2, 0) when unknown, so closed-loop cells sort
    first and an unknown load is never mistaken for one."""
    if cell.concurrency is not None:
        load = (0, cell.concurrency)
    elif cell.request_rate is not None:
        load = (1, cell.request_rate)
    else:
        load = (2, 0)
    return (cell.input_tokens, load, cell.output_tokens)


def _load_text(load: tuple) -> str:
    kind, value = load
    return load_text(value if kind == 0 else None, value if kind == 1 else None,
                     report_language())


def interval_text(estimate: Estimate | None, spec: str, scale: float = 1.0) -> str:
    """'[low – high]' of an estimate in display units, '' when it has no interval."""
    if estimate is None or not estimate.has_interval:
        return ""
    return f"[{estimate.low * scale:{spec}} – {estimate.high * scale:{spec}}]"


class ThroughputComparisonModel(QAbstractTableModel):
    """Throughput cells of several runs side by side: rows keyed by input/load/output, and per
    run a group of prefill tok/s (mean), decode tok/s (mean) and TTFT p50 (ms); a hover shows
    a value's 95 % interval."""

    GROUP = (("Prefill tok/s", "prefill", 1, ".0f"),
             ("Decode tok/s", "decode", 1, ".1f"),
             ("TTFT p50 ms", "ttft", 1000, ".0f"))
    KEYS = (QT_TRANSLATE_NOOP("CellTableModel", "input"),
            QT_TRANSLATE_NOOP("CellTableModel", "load"),
            QT_TRANSLATE_NOOP("CellTableModel", "output"))

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple[ThroughputRun, ...] = ()
        self._keys: list[tuple] = []
        self._cells: list[dict[int, StoredCell]] = []  # per row: run id -> cell

    def set_runs(self, runs: Sequence[ThroughputRun]) -> None:
        self.beginResetModel()
        self._runs = tuple(runs)
        by_key: dict[tuple, dict[int, StoredCell]] = {}
        for run in self._runs:
            for cell in run.cells:
                by_key.setdefault(cell_key(cell), {})[run.info.id] = cell
        self._keys = sorted(by_key)
        self._cells = [by_key[k] for k in self._keys]
        self.endResetModel()

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._keys)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self.KEYS) + len(self.GROUP) * len(self._runs)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.ToolTipRole and section >= len(self.KEYS):
            return self._runs[(section - len(self.KEYS)) // len(self.GROUP)].info.label
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if section < len(self.KEYS):
            return translate("CellTableModel", self.KEYS[section])
        run_index, metric = divmod(section - len(self.KEYS), len(self.GROUP))
        return f"#{self._runs[run_index].info.id}\n{self.GROUP[metric][0]}"

    def runs(self) -> tuple[ThroughputRun, ...]:
        return self._runs

    def cell_count(self, run_id: int) -> int:
        """How many of the rows hold a cell of run `run_id` (finished or not)."""
        return sum(run_id in cells for cells in self._cells)

    def estimate(self, row: int, column: int) -> Estimate | None:
        """The figure at (row, column) of a run's group, with its noise (stored units)."""
        run_index, metric = divmod(column - len(self.KEYS), len(self.GROUP))
        cell = self._cells[row].get(self._runs[run_index].info.id)
        return None if cell is None else getattr(cell, self.GROUP[metric][1])

    def value(self, row: int, column: int) -> float | None:
        """The number shown at (row, column) of a run's group, in display units."""
        estimate = self.estimate(row, column)
        scale = self.GROUP[(column - len(self.KEYS)) % len(self.GROUP)][2]
        return None if estimate is None else estimate.value * scale

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            key = self._keys[row]
            if column < len(self.KEYS):
                return (str(key[0]), _load_text(key[1]), str(key[2]))[column]
            number = self.value(row, column)
            spec = self.GROUP[(column - len(self.KEYS)) % len(self.GROUP)][3]
            return "—" if number is None else format(number, spec)
        if role == Qt.ItemDataRole.ToolTipRole and column >= len(self.KEYS):
            _, _, scale, spec = self.GROUP[(column - len(self.KEYS)) % len(self.GROUP)]
            estimate = self.estimate(row, column)
            interval = interval_text(estimate, spec, scale)
            return (translate("ComparisonView", "95 % interval {interval}, {n} requests").format(
                interval=interval, n=estimate.n) if interval else None)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and column >= len(self.KEYS):
            # Alternate shading per run group, so the groups read as blocks.
            if ((column - len(self.KEYS)) // len(self.GROUP)) % 2:
                return QColor(0, 0, 0, 14)
        return None

    def series(self) -> list[tuple[ThroughputRun, str, list[tuple[int, float]]]]:
        """For the chart: per run and load level (and output length when several), the points
        (input tokens, mean prefill tok/s), by input length."""
        out = []
        outputs = {k[2] for k in self._keys}
        for run in self._runs:
            groups: dict[tuple, list[tuple[int, float]]] = {}
            for key, cells in zip(self._keys, self._cells):
                cell = cells.get(run.info.id)
                number = cell.prefill_tps if cell else None
                if number is not None:
                    groups.setdefault((key[1], key[2]), []).append((key[0], number))
            for (load, output), points in sorted(groups.items()):
                name = _load_text(load)
                if len(outputs) > 1:
                    name += f" out={output}"
                out.append((run, name, points))
        return out


# --------------------------------------------------------------------------- SQL comparison


def _verdict_text(questions: list[StoredQuestion], judge: str) -> str:
    if len(questions) == 1:
        outcome = questions[0].outcome(judge)
        if outcome is None:  # unfinished (or not judged by this judge): not a failure
            return status_text(questions[0].status or "—")
        return JudgeWords(report_language()).outcome(outcome)
    return pass_count(q.outcome(judge) for q in questions).text  # several epochs


class SqlComparisonModel(QAbstractTableModel):
    """SQL verdicts of several runs aligned by question id: one column per run reading
    'strict / tolerant' (PASS/FAIL, passed/judged when a run has several epochs, the status of
    a question a stopped run never finished)."""

    JUDGES = ("strict", "tolerant")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple[SqlRun, ...] = ()
        self._ids: list[str] = []
        self._tiers: dict[str, str] = {}
        # (question id, run id) -> the question in each epoch
        self._rows: dict[tuple[str, int], list[StoredQuestion]] = {}

    def set_runs(self, runs: Sequence[SqlRun]) -> None:
        self.beginResetModel()
        self._runs = tuple(runs)
        self._rows = {}
        self._tiers = {}
        for run in self._runs:
            for q in run.questions:
                self._rows.setdefault((q.question_id, run.info.id), []).append(q)
                self._tiers.setdefault(q.question_id, q.tier)
        tier_order = {t: i for i, t in enumerate(TIERS)}
        self._ids = sorted(self._tiers, key=lambda q: (tier_order.get(self._tiers[q], 99), q))
        self.endResetModel()

    def question_ids(self) -> list[str]:
        return list(self._ids)

    def cell_text(self, question_id: str, run_id: int) -> str:
        rows = self._rows.get((question_id, run_id))
        if not rows:
            return "—"
        return " / ".join(_verdict_text(rows, judge) for judge in self.JUDGES)

    def disagrees(self, row: int) -> bool:
        """Whether the runs' verdicts differ on this question."""
        return len({self.cell_text(self._ids[row], r.info.id) for r in self._runs}) > 1

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else 2 + len(self._runs)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        if section < 2:
            return (self.tr("question"), self.tr("tier"))[section]
        words = JudgeWords(report_language())
        return (f"{self._runs[section - 2].info.label}\n"
                + " / ".join(words.judge(j) for j in self.JUDGES))

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        qid, column = self._ids[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return qid
            if column == 1:
                return self._tiers[qid]
            return self.cell_text(qid, self._runs[column - 2].info.id)
        if role == Qt.ItemDataRole.FontRole and column == 0 and self.disagrees(index.row()):
            return _bold()  # the questions where the runs differ stand out
        if column < 2:
            return None
        rows = self._rows.get((qid, self._runs[column - 2].info.id))
        if role == Qt.ItemDataRole.BackgroundRole and rows:
            results = {q.outcome(j) for q in rows for j in self.JUDGES} - {None}
            if not results:
                return None  # never judged: unfinished is not a failure
            return PASS_BG if results == {True} else FAIL_BG if True not in results else MIXED_BG
        if role == Qt.ItemDataRole.ToolTipRole and rows:
            from desktop_app.report.judge_words import finding_text, stop_reason_text

            strict, lang = rows[0].verdicts.get("strict"), report_language()
            if strict and strict.findings:
                return finding_text(strict.findings[0], lang)
            return stop_reason_text(rows[0].stop_reason, lang) if rows[0].stop_reason else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None


class SqlTierSummaryModel(QAbstractTableModel):
    """Pass rate by tier per run: rows are tiers and 'all', per run a strict and a tolerant
    column reading 'passed/judged  rate' (epochs pooled; `SqlRun.pass_count`, so unfinished
    questions are counted apart, never as failures)."""

    JUDGES = SqlComparisonModel.JUDGES

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple[SqlRun, ...] = ()
        self._tiers: list[str] = []

    def set_runs(self, runs: Sequence[SqlRun]) -> None:
        self.beginResetModel()
        self._runs = tuple(runs)
        present = {q.tier for run in self._runs for q in run.questions}
        self._tiers = [t for t in TIERS if t in present] + sorted(present - set(TIERS)) + ["all"]
        self.endResetModel()

    def counts(self, tier: str, run_id: int, judge: str) -> PassCount:
        """The pass count of run `run_id` under `judge` in `tier` ("all": every tier)."""
        run = next(r for r in self._runs if r.info.id == run_id)
        return run.pass_count(judge, None if tier == "all" else tier)

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._tiers)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else 1 + len(self.JUDGES) * len(self._runs)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        if section == 0:
            return translate("SqlComparisonModel", "tier")
        run_index, judge = divmod(section - 1, len(self.JUDGES))
        return (f"#{self._runs[run_index].info.id}\n"
                + JudgeWords(report_language()).judge(self.JUDGES[judge]))

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        tier, column = self._tiers[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return translate("SqlComparisonModel", "all") if tier == "all" else tier
            run_index, judge = divmod(column - 1, len(self.JUDGES))
            count = self.counts(tier, self._runs[run_index].info.id, self.JUDGES[judge])
            return pass_count_text(count)
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and tier == "all":
            return _bold()
        return None


def pass_count_text(count: PassCount) -> str:
    """'6/6  100%', with ', 3 unfinished' when a stopped run left questions unjudged; '—' when
    nothing was judged and nothing left unfinished."""
    text = f"{count.text}  {count.rate:.0%}" if count.judged else "—"
    if count.unfinished:
        text += translate("SqlComparisonModel", ", {count} unfinished").format(
            count=count.unfinished)
    return text


# --------------------------------------------------------------------------- dimension rows


WIN_BG = QColor("#d7f0d2")
TALLY_BG = QColor("#eef2f7")
NA_FG = QColor("#888888")


class SettingsDifferModel(QAbstractTableModel):
    """What differs between the compared runs (`Comparison.settings_differ`): one row per
    setting, named as the engine spells it, one column per run; shown above the verdicts, so a
    reader sees what was changed before what it did."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple = ()
        self._items: list[tuple[str, dict]] = []

    def set_comparison(self, comparison: Comparison) -> None:
        self.beginResetModel()
        self._runs = comparison.runs
        self._items = list(comparison.settings_differ.items())
        self.endResetModel()

    def settings(self) -> list[str]:
        return [name for name, _ in self._items]

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else 1 + len(self._runs)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        if section == 0:
            return translate("SettingsDifferModel", "what differs")
        return self._runs[section - 1].info.label

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole,
                                               Qt.ItemDataRole.ToolTipRole):
            return None
        name, values = self._items[index.row()]
        if index.column() == 0:
            return name
        run = self._runs[index.column() - 1].info
        value = values.get(run.id)
        if value is None:
            return translate("SettingsDifferModel", "not recorded")
        if run.settings_source.get(name) == "user":
            return translate("SettingsDifferModel", "{value} (typed)").format(value=value)
        return str(value)


class DimensionRowsModel(QAbstractTableModel):
    """The comparison's rows (`core.compare.dimension_rows`, as the PDF prints them): per
    dimension each run's value with its 95 % interval, and the verdict in words, decided on
    that noise (a winner only when the difference is real; its value is shaded)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple = ()
        self._rows: tuple = ()
        self._lang = "en"

    def set_comparison(self, comparison: Comparison, lang: str = "en") -> None:
        """Show `comparison`'s rows in `lang` ("en" or "zh", the report's languages)."""
        self.beginResetModel()
        self._runs, self._rows, self._lang = comparison.runs, comparison.rows, lang
        self.endResetModel()

    def row(self, row: int) -> DimensionRow:
        return self._rows[row]

    def verdict_text(self, row: int) -> str:
        return render_row(self._rows[row], self._runs, self._lang)

    def value_text(self, row: int, run_index: int) -> str:
        dim = self._rows[row]
        return dim_value_text(dim, dim.values[run_index], self._lang)

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else 2 + len(self._runs)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        last = self.columnCount() - 1
        if role == Qt.ItemDataRole.ToolTipRole and 0 < section < last:
            return run_tooltip(self._runs[section - 1].info)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if section == 0:
            return translate("DimensionRowsModel", "dimension")
        if section == last:
            return translate("DimensionRowsModel", "verdict (95 % intervals)")
        return self._runs[section - 1].info.label

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        dim, column = self._rows[index.row()], index.column()
        last = self.columnCount() - 1
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if column == 0:
                return row_label(dim, self._lang)
            if column == last:
                return self.verdict_text(index.row())
            return self.value_text(index.row(), column - 1)
        winner = dim.verdict.winner if dim.verdict.significant else None
        if role == Qt.ItemDataRole.BackgroundRole and winner is not None and column == winner + 1:
            return WIN_BG
        if role == Qt.ItemDataRole.BackgroundRole and dim.scope == "tally":
            return TALLY_BG  # a figure's summary line heads its cells
        if role == Qt.ItemDataRole.FontRole and dim.scope == "tally":
            return _bold()
        if role == Qt.ItemDataRole.FontRole and (column == last and winner is not None
                                                 or column == 0):
            return _bold()
        if role == Qt.ItemDataRole.ForegroundRole and 0 < column < last and not (
                dim.values[column - 1].available):
            return NA_FG
        if role == Qt.ItemDataRole.TextAlignmentRole and 0 < column < last:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
