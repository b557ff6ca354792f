"""Table models of the Runs page: the stored runs, and two or more runs aligned for comparison.

Adapters only: they hold RunRecord / CellRecord / stored question rows as the store returns them
and format them for display. Aligning means keying rows (a cell's input/load/output, a
question's id) and looking each run's value up; nothing is recomputed from requests.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
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

from desktop_app.core.sqleval.types import TIERS
from desktop_app.core.store import CellRecord, RunRecord
from desktop_app.gui.i18n import status_text, translate

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


def run_label(run: RunRecord) -> str:
    """A short name for a run in column headers and legends: '#12 model'."""
    return f"#{run.id} {run.model or run.name or run.kind}"


class RunsTableModel(QAbstractTableModel):
    """Every stored run, one row each, newest first (the order the store lists them)."""

    HEADERS = ("Id", QT_TRANSLATE_NOOP("RunsTableModel", "Kind"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Name"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Status"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Started"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Duration"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Model"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Engine"),
               QT_TRANSLATE_NOOP("RunsTableModel", "Endpoint"))

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: list[RunRecord] = []

    def set_runs(self, runs: Sequence[RunRecord]) -> None:
        self.beginResetModel()
        self._runs = list(runs)
        self.endResetModel()

    def run_at(self, row: int) -> RunRecord:
        return self._runs[row]

    def runs(self) -> list[RunRecord]:
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
        if role == Qt.ItemDataRole.DisplayRole:
            return (str(run.id), status_text(run.kind), run.name, status_text(run.status),
                    format_started(run.started_at
                    or run.created_at), format_duration(run.duration_s), run.model or "",
                    run.engine or "", run.endpoint_url or "")[column]
        if role == Qt.ItemDataRole.ForegroundRole and column == 3:
            return STATUS_FG.get(run.status)
        if role == Qt.ItemDataRole.ToolTipRole:
            return run.error if run.error else run.name or None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


# --------------------------------------------------------------------------- comparison data


@dataclass(frozen=True)
class ComparisonData:
    """Stored data of the runs to compare, read in one go: `cells` (throughput) or `questions`
    (sql, rows as `Store.sql_questions` returns them) per run id."""

    kind: str
    runs: tuple[RunRecord, ...]
    cells: dict[int, list[CellRecord]] = field(default_factory=dict, hash=False)
    questions: dict[int, list[dict]] = field(default_factory=dict, hash=False)


def _stat(summary: dict | None, key: str, stat: str) -> float | None:
    dist = (summary or {}).get(key)
    return dist.get(stat) if isinstance(dist, dict) else None


def cell_key(cell: CellRecord) -> tuple:
    """Rows of the throughput comparison are keyed by input tokens, load and output tokens."""
    load = cell.concurrency if cell.concurrency is not None else -(cell.request_rate or 0)
    return (cell.input_tokens or 0, load, cell.output_tokens or 0)


def _load_text(key: tuple) -> str:
    return f"c={key[1]}" if key[1] >= 0 else f"{-key[1]:g}/s"


class ThroughputComparisonModel(QAbstractTableModel):
    """Throughput cells of several runs side by side: rows keyed by input/load/output, and per
    run a group of prefill tok/s (mean), decode tok/s (mean) and TTFT p50 (ms)."""

    GROUP = (("prefill tok/s", "prefill_tps", "mean", 1, ".0f"),
             ("decode tok/s", "decode_tps", "mean", 1, ".1f"),
             ("TTFT p50 ms", "ttft_s", "p50", 1000, ".0f"))
    KEYS = (QT_TRANSLATE_NOOP("CellTableModel", "input"),
            QT_TRANSLATE_NOOP("CellTableModel", "load"),
            QT_TRANSLATE_NOOP("CellTableModel", "output"))

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple[RunRecord, ...] = ()
        self._keys: list[tuple] = []
        self._cells: list[dict[int, CellRecord]] = []  # per row: run id -> cell

    def set_data(self, data: ComparisonData) -> None:
        self.beginResetModel()
        self._runs = data.runs
        by_key: dict[tuple, dict[int, CellRecord]] = {}
        for run in data.runs:
            for cell in data.cells.get(run.id, []):
                by_key.setdefault(cell_key(cell), {})[run.id] = cell
        self._keys = sorted(by_key)
        self._cells = [by_key[k] for k in self._keys]
        self.endResetModel()

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._keys)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self.KEYS) + len(self.GROUP) * len(self._runs)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        if section < len(self.KEYS):
            return translate("CellTableModel", self.KEYS[section])
        run_index, metric = divmod(section - len(self.KEYS), len(self.GROUP))
        return f"#{self._runs[run_index].id}\n{self.GROUP[metric][0]}"

    def runs(self) -> tuple[RunRecord, ...]:
        return self._runs

    def value(self, row: int, column: int) -> float | None:
        """The number shown at (row, column) of a run's group, in display units."""
        run_index, metric = divmod(column - len(self.KEYS), len(self.GROUP))
        cell = self._cells[row].get(self._runs[run_index].id)
        if cell is None:
            return None
        _, key, stat, scale, _ = self.GROUP[metric]
        number = _stat(cell.summary, key, stat)
        return None if number is None else number * scale

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            key = self._keys[row]
            if column < len(self.KEYS):
                return (str(key[0]), _load_text(key), str(key[2]))[column]
            number = self.value(row, column)
            spec = self.GROUP[(column - len(self.KEYS)) % len(self.GROUP)][4]
            return "—" if number is None else format(number, spec)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and column >= len(self.KEYS):
            # Alternate shading per run group, so the groups read as blocks.
            if ((column - len(self.KEYS)) // len(self.GROUP)) % 2:
                return QColor(0, 0, 0, 14)
        return None

    def series(self) -> list[tuple[RunRecord, str, list[tuple[int, float]]]]:
        """For the chart: per run and load level (and output length when several), the points
        (input tokens, mean prefill tok/s), by input length."""
        out = []
        outputs = {k[2] for k in self._keys}
        for run in self._runs:
            groups: dict[tuple, list[tuple[int, float]]] = {}
            for key, cells in zip(self._keys, self._cells):
                cell = cells.get(run.id)
                number = _stat(cell.summary, "prefill_tps", "mean") if cell else None
                if number is not None:
                    groups.setdefault((key[1], key[2]), []).append((key[0], number))
            for (load, output), points in sorted(groups.items()):
                name = _load_text((0, load))
                if len(outputs) > 1:
                    name += f" out={output}"
                out.append((run, name, points))
        return out


# --------------------------------------------------------------------------- SQL comparison


def verdict_passed(row: dict, judge: str) -> bool | None:
    """Whether `judge` passed a stored question row (None: not judged, e.g. it errored)."""
    verdict = ((row.get("verdicts_json") or {}).get("verdicts") or {}).get(judge)
    return None if verdict is None else bool(verdict.get("passed"))


def _verdict_text(rows: list[dict], judge: str) -> str:
    results = [verdict_passed(r, judge) for r in rows]
    if len(results) == 1:
        unjudged = status_text(rows[0].get("status") or "—")
        return {True: "PASS", False: "FAIL", None: unjudged}[results[0]]
    return f"{sum(bool(r) for r in results)}/{len(results)}"  # several epochs


class SqlComparisonModel(QAbstractTableModel):
    """SQL verdicts of several runs aligned by question id: one column per run reading
    'strict / tolerant' (PASS/FAIL, or passes/epochs when a run has several epochs)."""

    JUDGES = ("strict", "tolerant")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple[RunRecord, ...] = ()
        self._ids: list[str] = []
        self._tiers: dict[str, str] = {}
        self._rows: dict[tuple[str, int], list[dict]] = {}  # (question id, run id) -> epochs

    def set_data(self, data: ComparisonData) -> None:
        self.beginResetModel()
        self._runs = data.runs
        self._rows = {}
        self._tiers = {}
        for run in data.runs:
            for row in data.questions.get(run.id, []):
                self._rows.setdefault((row["question_id"], run.id), []).append(row)
                self._tiers.setdefault(row["question_id"], row.get("tier") or "")
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
        return len({self.cell_text(self._ids[row], r.id) for r in self._runs}) > 1

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
        return f"{run_label(self._runs[section - 2])}\nstrict / tolerant"

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        qid, column = self._ids[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return qid
            if column == 1:
                return self._tiers[qid]
            return self.cell_text(qid, self._runs[column - 2].id)
        if role == Qt.ItemDataRole.FontRole and column == 0 and self.disagrees(index.row()):
            return _bold()  # the questions where the runs differ stand out
        if column < 2:
            return None
        rows = self._rows.get((qid, self._runs[column - 2].id))
        if role == Qt.ItemDataRole.BackgroundRole and rows:
            results = {verdict_passed(r, j) for r in rows for j in self.JUDGES}
            return PASS_BG if results == {True} else FAIL_BG if True not in results else MIXED_BG
        if role == Qt.ItemDataRole.ToolTipRole and rows:
            strict = ((rows[0].get("verdicts_json") or {}).get("verdicts") or {}).get("strict")
            findings = (strict or {}).get("findings") or []
            return findings[0].get("message") if findings else rows[0].get("stop_reason")
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None


class SqlTierSummaryModel(QAbstractTableModel):
    """Pass rate by tier per run: rows are tiers and 'all', per run a strict and a tolerant
    column reading 'passed/total  rate' (epochs pooled)."""

    JUDGES = SqlComparisonModel.JUDGES

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._runs: tuple[RunRecord, ...] = ()
        self._tiers: list[str] = []
        self._counts: dict[tuple[str, int, str], tuple[int, int]] = {}

    def set_data(self, data: ComparisonData) -> None:
        self.beginResetModel()
        self._runs = data.runs
        counts: dict[tuple[str, int, str], list[int]] = {}
        present = set()
        for run in data.runs:
            for row in data.questions.get(run.id, []):
                present.add(row.get("tier") or "")
                for tier in (row.get("tier") or "", "all"):
                    for judge in self.JUDGES:
                        c = counts.setdefault((tier, run.id, judge), [0, 0])
                        c[0] += bool(verdict_passed(row, judge))
                        c[1] += 1
        self._tiers = [t for t in TIERS if t in present] + sorted(present - set(TIERS)) + ["all"]
        self._counts = {k: (v[0], v[1]) for k, v in counts.items()}
        self.endResetModel()

    def counts(self, tier: str, run_id: int, judge: str) -> tuple[int, int]:
        return self._counts.get((tier, run_id, judge), (0, 0))

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
        return f"#{self._runs[run_index].id}\n{self.JUDGES[judge]}"

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        tier, column = self._tiers[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return translate("SqlComparisonModel", "all") if tier == "all" else tier
            run_index, judge = divmod(column - 1, len(self.JUDGES))
            ok, total = self.counts(tier, self._runs[run_index].id, self.JUDGES[judge])
            return f"{ok}/{total}  {ok / total:.0%}" if total else "—"
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and tier == "all":
            return _bold()
        return None
