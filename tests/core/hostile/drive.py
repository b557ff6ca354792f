"""Run one throughput sweep against a base URL in this process and print what happened as one
JSON line (peak RSS in MiB: /proc's VmHWM, else `resource.getrusage`; see `rss_mib`). Used by
the hostile-server tests in a subprocess, so each behaviour's memory is measured alone.

    python drive.py BASE_URL '{"limits": {"MAX_SSE_LINE_BYTES": 1048576}, "sweep": {...}}'

"store": a results file to store into; "spare_pages": let its writers grow it by that many
pages only (a full disk).
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time


def rss_mib() -> tuple[float, float]:
    """(resident, peak resident) MiB of this process. Linux: /proc's VmRSS and VmHWM, which
    exec resets; `resource.getrusage`'s ru_maxrss is not reset by exec (a child of a big test
    process starts at its parent's peak, hiding its own growth), so it is the fallback only."""
    try:
        fields = dict(line.split(":", 1) for line in
                      open("/proc/self/status", encoding="ascii").read().splitlines()
                      if line.startswith(("VmRSS", "VmHWM")))
        return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))
    except (OSError, KeyError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak


def _tighten_writers(spare_pages: int) -> None:
    """The store's writers may grow the file by `spare_pages` pages only; then SQLite answers
    SQLITE_FULL, as a full disk does (a small filesystem cannot be mounted without root)."""
    from desktop_app.core.store import writer

    connect = writer._connect

    def tight(path, busy):
        conn = connect(path, busy)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + spare_pages}")
        return conn

    writer._connect = tight


def main() -> None:
    base_url, spec = sys.argv[1], json.loads(sys.argv[2] if len(sys.argv) > 2 else "{}")
    from desktop_app.core.endpoint import limits
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.throughput.config import SweepConfig
    from desktop_app.core.throughput.sweep import run_sweep

    for name, value in spec.get("limits", {}).items():
        assert hasattr(limits, name), name
        setattr(limits, name, value)
    endpoint = EndpointConfig(base_url, model="m", **spec.get("endpoint", {}))
    sweep = {"input_tokens": (16,), "output_tokens": (8,), "concurrency": (1,),
             "requests_per_cell": 2, "warmup": 0, **spec.get("sweep", {})}
    for key in ("input_tokens", "output_tokens", "concurrency"):
        sweep[key] = tuple(sweep[key])
    config = SweepConfig(endpoint=endpoint, **sweep)
    base_rss = rss_mib()[0]
    t0 = time.perf_counter()
    error = None
    result = None
    store = None
    if spec.get("store"):
        from pathlib import Path

        from desktop_app.core.store import Store

        if spec.get("spare_pages") is not None:
            _tighten_writers(int(spec["spare_pages"]))
        store = Store.open(Path(spec["store"]))
    try:
        result = asyncio.run(run_sweep(config, store))
    except Exception as exc:  # noqa: BLE001 - reported, the test decides
        error = f"{type(exc).__name__}: {exc}"
    if store is not None:
        store.close()
    out = {
        "elapsed_s": time.perf_counter() - t0,
        "base_rss_mib": base_rss,
        "peak_rss_mib": rss_mib()[1],
        "error": error,
    }
    if result is not None:
        out.update(
            status=result.status,
            failures=[c.summary.failures_by_class for c in result.cells],
            implausible=[c.implausible for c in result.cells],
            cell_status=[c.status for c in result.cells],
            messages=[r.error_message for r in result.requests],
            findings=[f.code for f in result.findings],
            samples=len(result.samples),
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
