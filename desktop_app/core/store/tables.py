"""Row specs for the store's tables, and the records reads return.

A :class:`_TableSpec` knows one table's columns and how a row dict becomes SQL parameters (compact
JSON for ``*_json`` columns, redaction of free-text errors, ISO text for datetimes) and how rows
come back as dicts. :class:`RunRecord` and :class:`CellRecord` are the typed rows of ``runs`` and
``tp_cells``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from desktop_app.core.redact import redact_text
from desktop_app.core.store.locations import _iso

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _dumps(value: Any) -> str:
    return _JSON.encode(value)


@dataclass(frozen=True)
class DamagedRow:
    """A stored value that is not the JSON the store wrote (a file edited by hand, a disk's
    damage): which table, row and column. The read left that value out, and only that."""

    table: str
    row_id: int | None
    column: str


_DAMAGED: list[DamagedRow] = []  # each read that met one; a read may run in any thread
_DAMAGED_LOCK = threading.Lock()
_MAX_DAMAGED = 10_000  # a window open for days reading one damaged row again and again


def _loads(text: Any, table: str, column: str, row_id: int | None) -> Any:
    """``text`` parsed, or None (noted in :func:`damaged_rows`) when it is not JSON: one bad
    value costs that value, not every command that reads the file."""
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        with _DAMAGED_LOCK:
            if len(_DAMAGED) < _MAX_DAMAGED:
                _DAMAGED.append(DamagedRow(table, row_id, column))
        return None


def damaged_rows() -> list[DamagedRow]:
    """The damaged values this process's reads met (and left out), in the order met, once per
    read: a caller takes the ones after its own start and shows each once."""
    with _DAMAGED_LOCK:
        return list(_DAMAGED)


# --------------------------------------------------------------------------- row specs


_TIME_COLUMNS = frozenset({"created_at", "started_at", "ended_at"})


class _TableSpec:
    """One table's columns, and how a row dict becomes SQL parameters (JSON, redaction)."""

    def __init__(
        self,
        name: str,
        column_names: str,
        *,
        required: Iterable[str],
        defaults: Mapping[str, Any] | None = None,
        redacted: Iterable[str] = (),
    ) -> None:
        self.name = name
        self.columns = columns = tuple(column_names.split())
        self.column_set = frozenset(columns)
        self.required = tuple(required)
        self.defaults = dict(defaults or {})
        self.json_columns = frozenset(c for c in columns if c.endswith("_json") or c == "itl_s")
        # Free text that may quote a URL or header from a failed request.
        self.redacted = frozenset(redacted)
        special = self.json_columns | self.redacted | self.defaults.keys() | _TIME_COLUMNS
        # Only these columns need work per row; the rest are bound as given (100k rows a run).
        self._special = tuple((i, c) for i, c in enumerate(columns) if c in special)
        marks = ", ".join("?" * len(columns))
        self.insert_sql = f"INSERT INTO {name} ({', '.join(columns)}) VALUES ({marks})"

    def check_keys(self, keys: Iterable[str]) -> None:
        unknown = set(keys) - self.column_set
        if unknown:
            raise ValueError(f"{self.name} has no column(s) {sorted(unknown)}")

    def encode(self, col: str, value: Any) -> Any:
        if value is None:
            return self.defaults.get(col)
        if col in self.json_columns and not isinstance(value, str):
            return _dumps(value)
        if col in self.redacted and isinstance(value, str):
            return redact_text(value)
        if isinstance(value, datetime):
            return _iso(value)
        return value

    def params(self, row: Mapping[str, Any]) -> tuple:
        """Validate a row dict in the caller's thread, so a bad key fails where it was written."""
        if row.keys() - self.column_set:
            self.check_keys(row.keys())
        for col in self.required:
            if row.get(col) is None:
                raise ValueError(f"{self.name} row needs {col!r}")
        values = list(map(row.get, self.columns))
        for i, col in self._special:
            values[i] = self.encode(col, values[i])
        return tuple(values)

    def decode(self, cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
        """Rows of ``SELECT *`` as dicts, JSON columns parsed and ``warmup`` as a bool."""
        names = [d[0] for d in cursor.description]
        json_idx = [i for i, n in enumerate(names) if n in self.json_columns]
        rows = []
        for values in cursor:
            row = dict(zip(names, values))
            for i in json_idx:
                if values[i] is not None:
                    row[names[i]] = _loads(values[i], self.name, names[i], row.get("id"))
            if "warmup" in row:
                row["warmup"] = bool(row["warmup"])
            rows.append(row)
        return rows


_TP_REQUESTS = _TableSpec(
    "tp_requests",
    "run_id cell_id seq warmup sent_at ttft_s e2e_s prompt_tokens_target prompt_tokens "
    "completion_tokens tokens_source prefill_tps decode_tps tpot_s itl_s error_class error_message "
    "finish_reason response_id status_code ttft_answer_s reasoning_chunks",
    required=("run_id",),
    defaults={"warmup": 0},
    redacted=("error_message",),
)
_METRIC_SAMPLES = _TableSpec(
    "metric_samples",
    "run_id cell_id t_s running waiting kv_cache_usage preemptions raw_json",
    required=("run_id", "t_s"),
)
_SQL_QUESTIONS = _TableSpec(
    "sql_questions",
    "run_id question_id epoch tier status stop_reason failure_class verdicts_json steps "
    "prompt_tokens completion_tokens seconds final_sql result_json started_at ended_at",
    required=("run_id", "question_id"),
    defaults={"epoch": 0},
)
_SQL_STEPS = _TableSpec(
    "sql_steps",
    "run_id question_row_id step_index request_json reply_json tool_name tool_args_json "
    "tool_result_json prompt_tokens completion_tokens latency_s error",
    required=("run_id", "question_row_id", "step_index"),
    redacted=("error",),
)
_TP_CELLS = _TableSpec(
    "tp_cells",
    "run_id cell_index input_tokens output_tokens concurrency request_rate status started_at "
    "ended_at summary_json error workload_json",
    required=("run_id", "cell_index"),
    defaults={"status": "pending"},
)


def _update_sql(spec: _TableSpec, row_id: int, fields: Mapping[str, Any]) -> tuple[str, tuple]:
    spec.check_keys(fields)
    sets = ", ".join(f"{c} = ?" for c in fields)
    values = tuple(spec.encode(c, v) for c, v in fields.items())
    return f"UPDATE {spec.name} SET {sets} WHERE id = ?", (*values, row_id)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class RunRecord:
    """One run as stored. Times are ISO-8601 UTC text; ``config`` is the redacted configuration."""

    id: int
    kind: str
    name: str
    endpoint_url: str | None
    model: str | None
    engine: str | None
    config: dict[str, Any] = field(hash=False)
    status: str
    created_at: str
    started_at: str | None
    ended_at: str | None
    pid: int | None
    hostname: str | None
    app_version: str | None
    error: str | None
    notes: str | None

    @property
    def duration_s(self) -> float | None:
        """Wall time from start to end in seconds, or None while running or if never started."""
        if not (self.started_at and self.ended_at):
            return None
        delta = datetime.fromisoformat(self.ended_at) - datetime.fromisoformat(self.started_at)
        return delta.total_seconds()


@dataclass(frozen=True)
class CellRecord:
    """One cell of a throughput sweep: a (prompt length, output length, load) point.

    ``input_tokens``/``output_tokens`` are the targets in tokens; ``concurrency`` is the closed-loop
    number of requests in flight, ``request_rate`` the open-loop rate in requests per second (one of
    them is usually None). ``summary`` is whatever the runner stored when the cell finished.
    ``error`` says why a cell is 'incomplete' (its requests did not all reach the file) or
    what ended a 'failed' one.
    """

    id: int
    run_id: int
    cell_index: int
    input_tokens: int | None
    output_tokens: int | None
    concurrency: int | None
    request_rate: float | None
    status: str
    started_at: str | None
    ended_at: str | None
    summary: dict[str, Any] | None = field(hash=False)
    error: str | None = None
    # What the cell's requests were made of (`CellSpec.workload_json`); None: fixed lengths.
    workload: dict[str, Any] | None = field(default=None, hash=False)


_RUN_COLUMNS = (
    "id, kind, name, endpoint_url, model, engine, config_json, status, created_at, started_at, "
    "ended_at, pid, hostname, app_version, error, notes"
)


def _run_record(row: Sequence[Any]) -> RunRecord:
    values = list(row)
    config = _loads(values[6], "runs", "config_json", values[0]) if values[6] else {}
    values[6] = config if isinstance(config, dict) else {}
    return RunRecord(*values)


def _cell_record(row: Sequence[Any]) -> CellRecord:
    values = list(row)  # id, ..., status, started_at, ended_at, summary_json, error, lengths
    if values[-3]:
        summary = _loads(values[-3], "tp_cells", "summary_json", values[0])
        if not isinstance(summary, dict):
            # A completed cell without its figures is shown, compared and resumed as one that
            # did not finish: resume measures it again.
            values[-3], values[-6] = None, "incomplete"
            values[-2] = values[-2] or "damaged in the results file: its summary is not JSON"
        else:
            values[-3] = summary
    if values[-1]:
        workload = _loads(values[-1], "tp_cells", "workload_json", values[0])
        values[-1] = workload if isinstance(workload, dict) else None
    return CellRecord(*values)
