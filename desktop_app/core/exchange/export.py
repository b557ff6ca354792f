"""Export a stored run as CSV or JSON files: :func:`export_run`.

Throughput runs give ``run-<id>-cells.csv`` and ``run-<id>-requests.csv`` (CSV) or
``run-<id>.json``; SQL runs give ``run-<id>-questions.csv`` and ``run-<id>-steps.csv`` or
``run-<id>.json``. Files appear all at once or not at all (see :mod:`.atomic`). Field names are
documented in docs/EXPORTS.md.

The core holds no words: findings and the line across judges are exported as codes and values,
and, when the caller passes `words` (`report/export_words.ExportWords`), also as sentences in
that language (`message`/`suggestion` of each diagnosis finding, the questions' `counterfactual`).
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from desktop_app import __version__
from desktop_app.core.exchange import sql_export, tp_export
from desktop_app.core.exchange.atomic import check_out_dir, write_all
from desktop_app.core.exchange.errors import ExchangeError
from desktop_app.core.metrics import DEFINITIONS as METRIC_DEFINITIONS
from desktop_app.core.runs import RunInfo, run_info
from desktop_app.core.sqleval.records import eval_from, question_rows, step_rows
from desktop_app.core.store import NotFoundError, Store, utc_now_iso
from desktop_app.core.throughput.records import finding_to_json, sweep_from

FORMATS = ("csv", "json")


class ExportWords(Protocol):
    """What puts an export's findings in words (`report/export_words.py` implements it)."""

    def diagnosis(self, finding) -> tuple[str, str | None]:
        """A diagnosis finding's message and suggestion."""

    def headline(self, headline) -> str:
        """A question's line across judges."""
EXPORT_FORMAT = "throughline-run-export"
EXPORT_FORMAT_VERSION = 1
KINDS = ("throughput", "sql")


def _csv_value(value: Any) -> Any:
    if value is True or value is False:
        return "true" if value else "false"
    return value


def csv_writer(columns: Sequence[str], rows: Iterable[dict[str, Any]]):
    """A writer for :func:`write_all`: a header of ``columns``, then one line per row dict
    (None as an empty field, booleans as true/false)."""
    def write(stream: IO[str]) -> None:
        out = csv.writer(stream)
        out.writerow(columns)
        for row in rows:
            out.writerow([_csv_value(row.get(c)) for c in columns])
    return write


class Many:
    """A JSON array written element by element by :func:`json_writer` (never all in memory)."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _dumps(value: Any) -> str:
    # Compact, so the C encoder does the work; a NaN or infinity (which JSON cannot hold) is
    # written as null rather than as invalid JSON.
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        return json.dumps(_finite(value), ensure_ascii=False, allow_nan=False,
                          separators=(",", ":"))


def json_writer(fields: Iterable[tuple[str, Any]]):
    """A writer for :func:`write_all`: one JSON object of ``fields`` (key, value) in order, a
    :class:`Many` value streamed as an array one element per line; compact otherwise."""
    def write(stream: IO[str]) -> None:
        stream.write("{")
        for n, (key, value) in enumerate(fields):
            stream.write(("," if n else "") + "\n" + _dumps(key) + ":")
            if isinstance(value, Many):
                stream.write("[")
                for i, item in enumerate(value.items):
                    stream.write(("," if i else "") + "\n" + _dumps(item))
                stream.write("]")
            else:
                stream.write(_dumps(value))
        stream.write("\n}\n")
    return write


def _envelope(run: RunInfo) -> dict[str, Any]:
    return {"format": EXPORT_FORMAT, "format_version": EXPORT_FORMAT_VERSION,
            "app_version": __version__, "exported_at": utc_now_iso(), "kind": run.kind}


def get_run(store: Store, run_id: int) -> RunInfo:
    """The run to export; ExchangeError naming ``--run`` when there is none or its kind is not
    one this exporter knows."""
    try:
        run = run_info(store.get_run(int(run_id)))
    except NotFoundError:
        raise ExchangeError("--run", code="no_run", run=run_id, path=store.path) from None
    if run.kind not in KINDS:
        raise ExchangeError("--run", code="export_kind", run=run_id, kind=repr(run.kind))
    return run


def export_run(store: Store, run_id: int, fmt: str, out_dir: Path,
               words: ExportWords | None = None) -> list[Path]:
    """Write run ``run_id`` into ``out_dir`` as ``fmt`` ('csv' or 'json'); return the files.
    With ``words``, findings and verdict lines also carry their sentences in its language.

    Raises ExchangeError (one line naming ``--run``, ``--format`` or ``--out``) for an unknown
    run, a kind that cannot be exported, an unknown format or a folder that cannot be written;
    then nothing is left in ``out_dir`` but what was there before. Reads the store on the calling
    thread (the GUI should call it through ``asyncio.to_thread``).
    """
    if fmt not in FORMATS:
        raise ExchangeError("--format", code="export_format", item=repr(fmt),
                            choices=", ".join(FORMATS))
    run = get_run(store, run_id)
    created = not Path(out_dir).expanduser().exists()
    out_dir = check_out_dir(Path(out_dir))
    stem = out_dir / f"run-{run.id}"
    try:
        if run.kind == "throughput":
            files = _throughput_files(store, run, fmt, stem, words)
        else:
            files = _sql_files(store, run, fmt, stem, words)
        return write_all(files)
    except BaseException as exc:
        if created:  # a folder made for this export goes too, if nothing else went in
            with contextlib.suppress(OSError):
                out_dir.rmdir()
        if isinstance(exc, sqlite3.Error):
            raise ExchangeError("--run", code="export_cannot_read", run=run.id,
                                path=store.path, detail=str(exc)) from None
        raise


def _finding_json(f, words: ExportWords | None) -> dict:
    out = finding_to_json(f)
    if words is not None:
        out["message"], out["suggestion"] = words.diagnosis(f)
    return out


def _throughput_files(store: Store, run: RunInfo, fmt: str, stem: Path,
                      words: ExportWords | None) -> list:
    # No per-request timings here: the intervals come from one streamed pass in load_sweep,
    # and the requests themselves are streamed again per cell below.
    sweep = sweep_from(store, run)
    index_of: dict[Any, int] = {c.id: c.index for c in sweep.cells}  # keyed by a row's cell_id
    if fmt == "json":
        fields = [*_envelope(run).items(), ("run", tp_export.run_json(run)),
                  ("definitions", METRIC_DEFINITIONS),
                  ("diagnosis", {"kept": sweep.diagnosis_kept,
                                 "findings": [_finding_json(f, words) for f in sweep.findings]}),
                  ("cells", Many(tp_export.json_cells(store, sweep))),
                  ("requests", Many(tp_export.json_requests(store, run.id, index_of))),
                  ("server_metrics", tp_export.json_server_metrics(store, run.id, index_of))]
        return [(stem.with_name(stem.name + ".json"), json_writer(fields))]
    requests = tp_export.iter_requests(store, run.id, decode=False)
    return [
        (stem.with_name(stem.name + "-cells.csv"),
         csv_writer(tp_export.cell_columns(),
                    (tp_export.cell_row(run.id, c) for c in sweep.cells))),
        (stem.with_name(stem.name + "-requests.csv"),
         csv_writer(tp_export.REQUEST_COLUMNS,
                    (tp_export.request_row(run.id, index_of.get(r.get("cell_id")), r)
                     for r in requests))),
    ]


def _sql_files(store: Store, run: RunInfo, fmt: str, stem: Path,
               words: ExportWords | None) -> list:
    rows = question_rows(store, run.id)
    sql_run = eval_from(store, run)
    typed = {q.row_id: q for q in sql_run.questions}
    if fmt == "json":
        fields = [*_envelope(run).items(), ("run", tp_export.run_json(run)),
                  ("summary", sql_export.summary_json(sql_run)),
                  ("questions", Many(sql_export.json_questions(store, rows, typed, words)))]
        return [(stem.with_name(stem.name + ".json"), json_writer(fields))]
    return [
        (stem.with_name(stem.name + "-questions.csv"),
         csv_writer(sql_export.question_columns(),
                    (sql_export.question_row(run.id, r, typed[r["id"]], words) for r in rows))),
        (stem.with_name(stem.name + "-steps.csv"),
         csv_writer(sql_export.STEP_COLUMNS,
                    (sql_export.step_row(run.id, q, s)
                     for q in rows for s in step_rows(store, q["id"])))),
    ]
