"""The results store: every run, cell, request, metric sample and agent step, in one SQLite file.

One file (``results.db`` in the user's data folder, unless ``--db`` or ``THROUGHLINE_DB`` says
otherwise) in WAL mode, so the run browser can read while a run writes. The schema carries a version
in the ``meta`` table; :data:`MIGRATIONS` brings an older file forward on open, in one transaction.

Two ways in:

- :class:`Store`, for everything low-rate: runs, throughput cells, the reads a run browser needs.
- :class:`RunWriter` (``store.writer()``), for the high-rate rows written while a run is going:
  requests, metric samples, SQL-agent questions and steps. It batches on its own thread and commits
  at least every 0.25 s, so a killed process loses at most the last second of results and the event
  loop never waits on the disk.

The rows come back as :class:`~desktop_app.core.store.tables.RunRecord` and
:class:`~desktop_app.core.store.tables.CellRecord` and dicts, which only the records modules
(``core/throughput/records.py``, ``core/sqleval/records.py``, ``core/runs.py``) and the writers
read; everything else reads their typed results (docs/ARCHITECTURE.md; an import-linter
contract and tests/core/test_records_boundary.py keep it so).

Secrets never reach the file: run configurations, endpoint URLs and error messages pass through
:mod:`desktop_app.core.redact` first.
"""

from desktop_app.core.store import checks
from desktop_app.core.store.errors import STORE_PROBLEMS, NotFoundError, StoreError, StoreUnusable
from desktop_app.core.store.locations import default_db_path, resolve_db_path, utc_now_iso
from desktop_app.core.store.schema import DEFAULT_BUSY_TIMEOUT_S, MIGRATIONS, SCHEMA_VERSION
from desktop_app.core.store.store import FINAL_STATUSES, RUN_STATUSES, Store
from desktop_app.core.store.tables import DamagedRow, damaged_rows
from desktop_app.core.store.writer import RunWriter

__all__ = [
    "DEFAULT_BUSY_TIMEOUT_S",
    "FINAL_STATUSES",
    "MIGRATIONS",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "STORE_PROBLEMS",
    "DamagedRow",
    "NotFoundError",
    "RunWriter",
    "Store",
    "StoreError",
    "StoreUnusable",
    "checks",
    "damaged_rows",
    "default_db_path",
    "resolve_db_path",
    "utc_now_iso",
]
