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
        result = await run_sweep(config, store, emit, info=info)
        await _predict_effects(result, store, emit)
        return result
    finally:
        await asyncio.to_thread(store.close)


async def _predict_effects(result: SweepResult, store: Store,
                           emit: Callable[[SweepProgress], None]) -> None:
    """The suggestions' predicted effects kept with the run (`effects.annotate_sweep`): seconds
    of CPU, here in the sweep's own process so the window keeps ticking, and shown as a
    "predicting" phase with the fit's steps (a window that only said "Diagnosing..." looked
    stuck for seconds at 100 %). A failure leaves the suggestions without numbers, as a sweep
    the model cannot be fitted to does: the sweep ran and is stored, and its diagnosis must
    still show."""
    from desktop_app.core.throughput.effects import TRIALS, annotate_sweep

    if not any(f.suggestion_code in TRIALS for f in result.findings):
        return
    loop = asyncio.get_running_loop()

    def on_step(done: int, total: int) -> None:
        # From the fit's thread: the events go out on the loop's own thread, one pipe writer.
        loop.call_soon_threadsafe(emit, SweepProgress(
            "predicting", done=done, total=total, run_id=result.run_id,
            cells_total=len(result.cells)))

    on_step(0, 1)
    try:
        await asyncio.to_thread(annotate_sweep, result, store, on_step=on_step)
    except Exception:  # noqa: BLE001, S110 - see the docstring
        pass


async def resume_job(run_id: int, endpoint: EndpointConfig | None, db_path: Path,
                     info: EndpointInfo | None,
                     emit: Callable[[SweepProgress], None]) -> SweepResult:
    """`resume_sweep(run_id)` on `endpoint` (None: the run's stored URL) in `db_path`."""
    from desktop_app.core.throughput.resume import resume_sweep

    store = await asyncio.to_thread(Store.open, db_path)
    try:
        result = await resume_sweep(store, run_id, endpoint, emit, info=info)
        await _predict_effects(result, store, emit)
        return result
    finally:
        await asyncio.to_thread(store.close)
