"""Exports of stored runs (CSV, JSON) and imports of other tools' results into the store.

Two plain functions for the command line and the GUI (call them through ``asyncio.to_thread``:
they read and write files and the store):

- :func:`export_run` ``(store, run_id, fmt, out_dir) -> list[Path]``
- :func:`import_file` ``(store, path) -> run id``

Both raise :class:`ExchangeError` (an ``InputError``) with one line naming the run, file or line
on bad input, and leave nothing half-written behind. Field names and the import mapping are in
docs/EXPORTS.md. No Qt here.
"""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.exchange.errors import ExchangeError
from desktop_app.core.exchange.export import FORMATS, export_run
from desktop_app.core.store import Store


def import_file(store: Store, path: Path) -> int:
    """Import the results file at ``path`` (the tool is detected from its content) as a
    completed throughput run in ``store``; return the new run's id.

    The run is named "<tool>: <file name>" and its configuration holds ``source``
    ("vllm-bench-serve", "aiperf" or "guidellm") and ``missing`` (our metrics the file lacks,
    stored as None). Nothing is stored when the file cannot be read.
    """
    from desktop_app.core.exchange.detect import detect_and_read
    from desktop_app.core.exchange.importers.common import store_run

    path = Path(path).expanduser()
    imported = detect_and_read(path)
    return store_run(store, imported, path.name)


__all__ = ["FORMATS", "ExchangeError", "export_run", "import_file"]
