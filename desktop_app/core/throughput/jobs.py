"""Sweeps as self-contained jobs: everything they need is passed in and pickles, so a sweep can
run in another process (the desktop app runs it in one, off its GIL; see gui/worker.py) and
store into the same results file as the app reads from.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import SweepProgress, SweepResult, run_sweep


async def sweep_job(config: SweepConfig, db_path: Path, info: EndpointInfo | None,
                    emit: Callable[[SweepProgress], None]) -> SweepResult:
    """`run_sweep(config)` into the results file `db_path`, progress to `emit`. Cancelling
    stores the run as cancelled, as run_sweep does."""
    store = await asyncio.to_thread(Store.open, db_path)
    try:
        return await run_sweep(config, store, emit, info=info)
    finally:
        await asyncio.to_thread(store.close)


async def resume_job(run_id: int, endpoint: EndpointConfig | None, db_path: Path,
                     info: EndpointInfo | None,
                     emit: Callable[[SweepProgress], None]) -> SweepResult:
    """`resume_sweep(run_id)` on `endpoint` (None: the run's stored URL) in `db_path`."""
    from desktop_app.core.throughput.resume import resume_sweep

    store = await asyncio.to_thread(Store.open, db_path)
    try:
        return await resume_sweep(store, run_id, endpoint, emit, info=info)
    finally:
        await asyncio.to_thread(store.close)
