"""Event-loop stalls of the desktop app during a sweep, the client's TTFT error with the GUI
running, and the time the Runs page takes to show the first rows of a 100,000-request run.

**Stalls.** Starts the simulator in its own process (`launcher.start_simulator`, profile `fast`),
builds the main window as the app does (`gui.app.build_window`, every page, a temporary results
file and settings file), makes the simulator the active endpoint, opens the Throughput page,
types the sweep into its form and presses Start; the page's controller runs the sweep in a
process of its own (`gui.worker.run_in_process`) and the page's live charts redraw on their 10 Hz
clocks. Two probes run in the GUI
process while the sweep runs: a 5 ms `QTimer` (PreciseTimer) and an asyncio task sleeping 5 ms;
a probe's stall is how late it fires (interval - 5 ms). Reported: max and p99.

**TTFT error.** For the GUI's sweep, each stored request's client TTFT (ttft_s, first token
minus sent, as the client stamped it) and response id are read from its results file; for the
headless sweep `stream_request` is wrapped in this script, collecting every StreamResult. Each is
matched by response id to the simulator's `GET /sim/trace` record; TTFT error = (client first_token_ns - sent_ns) - (server
first_token_s - arrival_s), both CLOCK_MONOTONIC. The same sweep is then run headless
(`run_sweep` on plain asyncio, no Qt) against the same simulator, for comparison.

**Runs page.** Builds a store with one run of 100,000 requests once, then `--repeats` times:
a new RunsPage, refresh, select the run, and time until the request browser's model has its
rows (as tests/gui/test_runs_page.py measures) and until its view has painted them.

With `--concurrency 64 256 --workers 1 2` each (concurrency, workers) pair is one GUI sweep
(the form's "Load-generating processes" set to the workers; with more than 1 the sweep process
starts that many worker processes) and, unless `--order gui`, one headless sweep; a table at the
end gives, for each, the largest and p99 stall and the GUI's TTFT error p99.

    .venv/bin/python bench/gui_stall.py                    # ~1 min: stalls + TTFT error + Runs page
    .venv/bin/python bench/gui_stall.py --skip-runs-page --order gui \
        --concurrency 64 256 --workers 1 2                 # the issue #13 figures (~3 min)
    .venv/bin/python bench/gui_stall.py --skip-runs-page --requests 256
    .venv/bin/python bench/gui_stall.py --skip-runs-page --order gui --detail 30
        # each stall over 30 ms: CPU or waiting for a core, what ran (lengthens stalls)
    .venv/bin/python bench/gui_stall.py --only-runs-page --repeats 5
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
import numpy as np  # noqa: E402
from PySide6.QtCore import QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_app.gui.event_loop import EventLoop  # noqa: E402

from desktop_app.core.endpoint.discovery import discover  # noqa: E402
from desktop_app.core.endpoint.types import EndpointConfig, StreamResult  # noqa: E402
from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402
from desktop_app.core.store import Store  # noqa: E402
from desktop_app.core.throughput import sweep as sweep_module  # noqa: E402
from desktop_app.gui import app as gui_app  # noqa: E402
from desktop_app.gui.context import ActiveEndpoint, AppContext  # noqa: E402
from desktop_app.gui.controllers.throughput import SweepForm, build_config  # noqa: E402
from desktop_app.gui.settings import Settings  # noqa: E402

PROBE_MS = 5
TARGET_STALL_MS = 50.0
TARGET_ROWS_S = 1.0

# ---- the wrapped client: every StreamResult of whichever sweep runs

RESULTS: list[StreamResult] = []


def _recording(stream):
    async def recording_stream_request(*args, **kwargs) -> StreamResult:
        res = await stream(*args, **kwargs)
        RESULTS.append(res)
        return res

    return recording_stream_request


# The sweep streams on the lean path (endpoint.lean) unless a proxy applies or --http-client
# httpx is chosen; wrap both. (A sweep with workers > 1 streams in other processes: not seen.)
sweep_module.stream_request = _recording(sweep_module.stream_request)
sweep_module.stream_request_lean = _recording(sweep_module.stream_request_lean)


def pct(values, q) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else float("nan")


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Probes:
    """A 5 ms QTimer and a 5 ms asyncio sleeper; lateness of each wake-up, in ms."""

    def __init__(self, phase: dict) -> None:
        self.phase = phase  # {"now": the sweep's latest progress phase}
        self.qt: list[float] = []
        self.aio: list[float] = []
        self.aio_phase: list[str] = []
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(PROBE_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._last = 0.0
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()
        self._task = asyncio.ensure_future(self._sleeper())

    async def _sleeper(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(PROBE_MS / 1000)
            self.aio.append((time.perf_counter() - t) * 1000 - PROBE_MS)
            self.aio_phase.append(self.phase["now"])

    def _on_timer_timeout(self) -> None:
        now = time.perf_counter()
        self.qt.append((now - self._last) * 1000 - PROBE_MS)
        self._last = now

    async def stop(self) -> None:
        self._timer.stop()
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


class StallSampler:
    """Diagnostic (--where, --detail): a thread that, while the loop's heartbeat is over 20 ms
    old, samples the loop thread's stack every 10 ms (`fine`: over 10 ms, every 5 ms); `top()`
    names where the stalled time went. Off by default: each sample takes the GIL from the loop
    thread, and on a busy machine the hand-off back can wait for a core, lengthening the very
    stalls it samples (2026-12-03, quiet machine: largest stall 24-31 ms without it, 42-93 ms
    with the fine one, same code).

    It also keeps each stall over the threshold as an episode: when it began (since `start`), how long
    the heartbeat was late, the loop thread's CPU time and its time waiting for a core in it
    (the kernel's /proc/self/task/TID/schedstat: a stall the thread spent waiting for a core is
    the machine's, not the GUI's), the stacks sampled, and `marks` (what the page was told and
    when) and `calls` (timed page/chart functions) near it; `episodes_text()` lists them."""

    def __init__(self, fine: bool = False) -> None:
        import threading

        self.period_s, self.stale_s = (0.005, 0.01) if fine else (0.01, 0.02)
        self.beat = time.perf_counter()
        self.thread_id = threading.get_ident()
        self.native_id = threading.get_native_id()
        self.counts: dict[str, float] = {}
        self.episodes: list[dict] = []
        self.marks: list[tuple[float, str]] = []
        self.calls: list[tuple[float, float, str]] = []  # (start, seconds, name)
        self.t0 = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self, thread_id: int | None = None) -> None:
        import threading

        self.thread_id = thread_id or threading.get_ident()
        self.native_id = threading.get_native_id()
        self.beat = self.t0 = time.perf_counter()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def mark(self, what: str) -> None:
        self.marks.append((time.perf_counter(), what))

    def _schedstat(self) -> tuple[float, float]:
        """(ms on a CPU, ms waiting for one) of the loop thread so far."""
        try:
            with open(f"/proc/self/task/{self.native_id}/schedstat") as f:
                run, wait, _ = f.read().split()
            return int(run) / 1e6, int(wait) / 1e6
        except (OSError, ValueError):
            return float("nan"), float("nan")

    @staticmethod
    def _stack_key(frame) -> tuple[str, str]:
        # Walked by hand, without reading source lines: this thread holds the GIL meanwhile.
        stack = []  # innermost first: (file, function, line)
        while frame is not None:
            code = frame.f_code
            stack.append((code.co_filename, code.co_name, frame.f_lineno))
            frame = frame.f_back
        # The innermost frame plus the innermost frame of the project, when there is one.
        inner = stack[0]
        ours = next((f for f in stack if "/desktop_app/" in f[0]), None)
        key = f"{Path(inner[0]).name}:{inner[1]}"
        if ours is not None and ours is not inner:
            key += f" <- ... {Path(ours[0]).name}:{ours[2]}:{ours[1]}"
        short = " < ".join(f"{Path(f[0]).stem}:{f[1]}" for f in stack[:5])
        return key, short

    def _threads_cpu(self) -> dict[int, float]:
        """ms on a CPU so far of each of this process's threads but the loop's."""
        out = {}
        for tid in os.listdir("/proc/self/task"):
            if int(tid) == self.native_id:
                continue
            try:
                with open(f"/proc/self/task/{tid}/schedstat") as f:
                    out[int(tid)] = int(f.read().split()[0]) / 1e6
            except (OSError, ValueError):
                pass
        return out

    def _watch(self) -> None:
        episode: dict | None = None
        last = time.perf_counter()
        while not self._stop.wait(self.period_s):
            now = time.perf_counter()
            elapsed, last = (now - last) * 1000, now
            beat = self.beat
            if episode is not None and beat != episode["beat"]:
                run, wait = self._schedstat()
                others = self._threads_cpu()
                busy = {tid: ms - episode["others"].get(tid, 0.0) for tid, ms in others.items()}
                episode.update(ms=(beat - episode["beat"]) * 1000 - PROBE_MS,
                               cpu_ms=run - episode["run"], wait_ms=wait - episode["wait"],
                               others_ms=sorted(busy.values(), reverse=True)[:2])
                self.episodes.append(episode)
                episode = None
            late = now - beat
            if late <= self.stale_s:
                continue
            if episode is None:
                run, wait = self._schedstat()
                episode = {"beat": beat, "run": run, "wait": wait, "stacks": {},
                           "others": self._threads_cpu()}
            frame = sys._current_frames().get(self.thread_id)
            if frame is None:
                continue
            key, short = self._stack_key(frame)
            episode["stacks"][short] = episode["stacks"].get(short, 0) + 1
            if late > 0.02:
                self.counts[key] = self.counts.get(key, 0) + elapsed

    def top(self, n: int = 6) -> str:
        if not self._thread.is_alive() and not self.counts and not self.episodes:
            return "not sampled (--where or --detail to sample)"
        total = sum(self.counts.values())
        best = sorted(self.counts.items(), key=lambda kv: -kv[1])[:n]
        return f"{total:.0f} ms sampled in stalls over 20 ms; " + "; ".join(
            f"{c:.0f} ms {k}" for k, c in best)

    def episodes_text(self, over_ms: float) -> str:
        """Every stall over `over_ms`: when, how long, CPU vs waiting for a core, what the page
        was told just before, the timed calls inside it and the stacks sampled."""
        lines = []
        for ep in self.episodes:
            if ep["ms"] < over_ms:
                continue
            start = ep["beat"]
            end = start + (ep["ms"] + PROBE_MS) / 1000
            before = [w for t, w in self.marks if start - 0.3 <= t <= end]
            calls = sorted(((d, n) for t, d, n in self.calls
                            if t < end and t + d > start), reverse=True)[:5]
            stacks = sorted(ep["stacks"].items(), key=lambda kv: -kv[1])[:3]
            lines.append(
                f"#   t={start - self.t0:6.2f} s  stall {ep['ms']:5.1f} ms  (sampled part: "
                f"CPU {ep['cpu_ms']:.0f} ms, waiting for a core {ep['wait_ms']:.0f} ms; "
                f"busiest other threads {', '.join(f'{ms:.0f}' for ms in ep['others_ms'])} ms)  "
                f"marks: {', '.join(before) or '-'}")
            if calls:
                lines.append("#       calls: " + "; ".join(f"{n} {d * 1000:.0f} ms"
                                                         for d, n in calls))
            for short, count in stacks:
                lines.append(f"#       {count}x {short}")
        return "\n".join(lines) or "#   none"


SAMPLER: dict = {}  # {"s": the running GUI sweep's StallSampler}
# --detail: list the GUI's stalls over this many ms; --where or --detail: sample stacks
DETAIL_MS = {"over": float("inf"), "sample": False}


def time_gui_calls() -> None:
    """Record the page's and the charts' costly calls (--detail): what ran in each stall."""
    import pyqtgraph as pg

    from desktop_app.gui.pages.throughput import ThroughputPage
    from desktop_app.gui.widgets.diagnosis import DiagnosisView
    from desktop_app.gui.widgets.live_chart import LiveChart

    for name in ("redraw", "set_series", "set_x_ticks", "clear", "_new_curve"):
        timed(SAMPLER, LiveChart, name)
    for name in ("_on_controller_cell_finished", "_on_controller_samples_received",
                 "_on_controller_progress_changed", "show_result", "_show_cells",
                 "_plot_cells", "_on_start_clicked"):
        timed(SAMPLER, ThroughputPage, name)
    timed(SAMPLER, DiagnosisView, "set_findings")
    timed(SAMPLER, pg.GraphicsView, "paintEvent", "chart paintEvent")
    timed(SAMPLER, pg.AxisItem, "paint", "AxisItem.paint")
    timed(SAMPLER, pg.AxisItem, "boundingRect", "AxisItem.boundingRect")
    timed(SAMPLER, pg.AxisItem, "generateDrawSpecs", "AxisItem.generateDrawSpecs")


def timed(sampler_ref: dict, owner, name: str, label: str | None = None) -> None:
    """Wrap owner.name so each call over 2 ms is recorded in sampler_ref["s"].calls."""
    original = getattr(owner, name)
    label = label or f"{owner.__name__}.{name}"

    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            d = time.perf_counter() - t
            sampler = sampler_ref.get("s")
            if sampler is not None and d > 0.002:
                sampler.calls.append((t, d, label))

    wrapper.__name__ = name
    setattr(owner, name, wrapper)


def client_ttfts(results: list[StreamResult]) -> list[tuple[str | None, float | None]]:
    """(response id, client TTFT in seconds) of each wrapped StreamResult."""
    return [(r.response_id, None if r.first_token_ns is None
             else (r.first_token_ns - r.sent_ns) / 1e9) for r in results]


def stored_ttfts(db: Path) -> list[tuple[str | None, float | None]]:
    """(response id, client TTFT) of every request the GUI's sweep stored: it runs in a process
    of its own, where this script's wrapper does not reach; the stored ttft_s is the same
    first_token_ns - sent_ns."""
    with Store.open(db) as store:
        run = store.list_runs(kind="throughput", limit=1)[0]
        rows = store.requests(run.id, limit=1_000_000)
    return [(r["response_id"], r["ttft_s"]) for r in rows]


def ttft_errors(results: list[tuple[str | None, float | None]],
                trace: list[dict]) -> tuple[list[float], int]:
    """TTFT error per matched request, in ms; and how many results had no trace record."""
    by_id = {r["id"]: r for r in trace if r.get("id")}
    errors, unmatched = [], 0
    for response_id, client in results:
        rec = by_id.get(response_id)
        if (rec is None or client is None or rec.get("first_token_s") is None
                or rec.get("arrival_s") is None):
            unmatched += 1
            continue
        server = rec["first_token_s"] - rec["arrival_s"]
        errors.append((client - server) * 1000)
    return errors, unmatched


def in_thread(fn):
    """fn() in a thread of its own (asyncio.run there leaves the main thread's qasync loop be)."""
    import threading

    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("v", fn()))
    thread.start()
    thread.join()
    return out["v"]


def sim_trace(sim_url: str) -> list[dict]:
    return httpx.get(sim_url + "/sim/trace", timeout=30).json()["records"]


def clear_trace(sim_url: str) -> None:
    httpx.delete(sim_url + "/sim/trace", timeout=30)


def gui_sweep(app: QApplication, loop, sim, info, form: SweepForm, tmp: Path,
              screenshot: Path | None) -> dict:
    """The sweep driven through the main window's Throughput page, with the probes running."""
    settings = Settings(QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat))
    context = AppContext(tmp / "gui.db")
    window, shell = gui_app.build_window(app, None, context=context, settings=settings)
    context.set_endpoint(ActiveEndpoint(EndpointConfig(sim.url, model=info.models[0]), info,
                                        f"built-in simulator at {sim.url}"))
    window.resize(1280, 800)
    window.show()
    window.show_page_named("Throughput")
    page = window.pages["Throughput"]
    page.input_tokens.setText(form.input_tokens)
    page.concurrency.setText(form.concurrency)
    page.output_tokens.setText(form.output_tokens)
    page.requests_per_cell.setText(form.requests_per_cell)
    page.time_budget.setText("")
    page.warmup.setValue(form.warmup)
    page.scrape_metrics.setChecked(True)
    page.workers.setValue(form.workers)
    redraws = {"n": 0}
    for chart in (*page.charts, page.server_chart):
        chart._timer.timeout.connect(lambda: redraws.__setitem__("n", redraws["n"] + 1))
    assert page.start_button.isEnabled(), page.form_error.text()

    async def run() -> dict:
        await asyncio.sleep(0.5)  # let the window settle (first paints, the Runs page refresh)
        clear_trace(sim.url)
        RESULTS.clear()
        phase = {"now": "starting"}
        sampler = StallSampler(fine=DETAIL_MS["over"] < float("inf"))

        def on_progress(p) -> None:
            if p.phase != phase["now"]:
                sampler.mark(p.phase)
            phase["now"] = p.phase

        page.controller.progress_changed.connect(on_progress)
        page.controller.cell_finished.connect(lambda c: sampler.mark(f"cell end {c.spec.label}"))
        page.controller.sweep_finished.connect(lambda _r: sampler.mark("sweep end"))
        page.controller.samples_received.connect(lambda s: sampler.mark(f"{len(s)} samples"))
        probes = Probes(phase)
        probes.start()
        SAMPLER["s"] = sampler
        if DETAIL_MS["sample"]:
            sampler.start()
        collections: list[tuple[int, float]] = []  # (generation, ms) of each gc pass
        started = {}

        def on_gc(what: str, info: dict) -> None:
            if what == "start":
                started["t"] = time.perf_counter()
            elif "t" in started:
                collections.append((info["generation"],
                                    (time.perf_counter() - started.pop("t")) * 1000))

        gc.callbacks.append(on_gc)

        async def heartbeat() -> None:
            while True:
                sampler.beat = time.perf_counter()
                await asyncio.sleep(PROBE_MS / 1000)

        beating = asyncio.ensure_future(heartbeat())
        await asyncio.sleep(0.05)  # the probes and the heartbeat running: Start's turn counts
        cpu0, t0 = time.process_time(), time.perf_counter()
        page.start_button.click()
        task = page.controller.task
        await asyncio.wait({task})
        wall = time.perf_counter() - t0
        cpu = (time.process_time() - cpu0) / wall
        await probes.stop()
        beating.cancel()
        sampler.stop()
        SAMPLER.pop("s", None)
        gc.callbacks.remove(on_gc)
        by_gen = {g: [ms for gen, ms in collections if gen == g] for g in range(3)}
        gc_text = "; ".join(f"generation {g}: {len(v)} passes, max {max(v):.1f} ms"
                            for g, v in by_gen.items() if v)
        status = page.status_label.text()
        return {"probes": probes, "aio": probes.aio, "aio_phase": probes.aio_phase,
                "wall": wall, "where": sampler.top(), "cpu": cpu, "status": status,
                "episodes": sampler.episodes_text(DETAIL_MS["over"]), "gc": gc_text,
                "results": stored_ttfts(tmp / "gui.db")}

    try:
        out = loop.run_until_complete(run())
        if screenshot is not None:
            app.processEvents()
            window.grab().save(str(screenshot))
    finally:
        shell.shutdown()
        window.close()
        window.deleteLater()
        app.processEvents()
    out["trace"] = sim_trace(sim.url)
    out["redraws"] = redraws["n"]
    return out


def headless_sweep(sim, info, form: SweepForm, tmp: Path) -> dict:
    """The same sweep with no Qt: run_sweep on a plain asyncio loop in a thread of its own."""
    import threading

    clear_trace(sim.url)
    RESULTS.clear()
    endpoint = ActiveEndpoint(EndpointConfig(sim.url, model=info.models[0]), info, "sim")
    config = build_config(form, endpoint)
    out: dict = {}

    def body() -> None:
        async def main() -> None:
            lags: list[float] = []
            phases: list[str] = []
            phase = {"now": "starting"}

            async def sleeper() -> None:
                while True:
                    t = time.perf_counter()
                    await asyncio.sleep(PROBE_MS / 1000)
                    lags.append((time.perf_counter() - t) * 1000 - PROBE_MS)
                    phases.append(phase["now"])

            sampler = StallSampler()
            if DETAIL_MS["sample"]:
                sampler.start()

            async def heartbeat() -> None:
                while True:
                    sampler.beat = time.perf_counter()
                    await asyncio.sleep(PROBE_MS / 1000)

            probe = asyncio.ensure_future(sleeper())
            beating = asyncio.ensure_future(heartbeat())
            with Store.open(tmp / "headless.db") as store:
                t0 = time.perf_counter()
                await sweep_module.run_sweep(config, store,
                                             lambda p: phase.__setitem__("now", p.phase),
                                             info=info)
                out["wall"] = time.perf_counter() - t0
            probe.cancel()
            beating.cancel()
            await asyncio.gather(probe, beating, return_exceptions=True)
            sampler.stop()
            out["where"] = sampler.top()
            out["aio"], out["aio_phase"] = lags, phases

        asyncio.run(main())

    thread = threading.Thread(target=body)  # this thread's loop is qasync's: keep off it
    thread.start()
    thread.join()
    # With worker processes the streams ran where the wrapper does not reach: read the store.
    out["results"] = (client_ttfts(RESULTS) if config.workers == 1
                      else stored_ttfts(tmp / "headless.db"))
    out["trace"] = sim_trace(sim.url)
    return out


def stall_bench(args, app: QApplication, loop) -> None:
    """One GUI (and headless) sweep per (concurrency, workers) pair; a table of them all."""
    summary = []
    with start_simulator(args.profile) as sim, tempfile.TemporaryDirectory() as tmp:
        info = in_thread(lambda: asyncio.run(discover(EndpointConfig(sim.url))))
        for concurrency in args.concurrency:
            for workers in args.workers:
                where = Path(tmp) / f"c{concurrency}-w{workers}"
                where.mkdir()
                summary += stall_one(args, app, loop, sim, info, concurrency, workers, where)
    print(f"\n## Summary: profile {args.profile}, inputs {args.inputs}, output {args.output}; "
          f"{os.cpu_count()} CPUs")
    print("| run | c | workers | requests per cell | wall s | asyncio stall max / p99 ms | "
          "QTimer stall max / p99 ms | TTFT error p50 / p99 ms | load avg before -> after |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for row in summary:
        print("| {label} | {c} | {w} | {n} | {wall:.1f} | {aio} | {qt} | {err} | {load} |"
              .format(**row))
    gui = [row for row in summary if row["label"] == "gui"]
    if gui:
        worst = max(row["aio_max"] for row in gui)
        print(f"# target: largest GUI stall under {TARGET_STALL_MS:g} ms: "
              f"{'met' if worst < TARGET_STALL_MS else 'missed'} (worst asyncio probe max "
              f"{worst:.1f} ms)")


def stall_one(args, app: QApplication, loop, sim, info, concurrency: int, workers: int,
              tmp: Path) -> list[dict]:
    requests = args.requests or max(256, 4 * concurrency)
    form = SweepForm(input_tokens=args.inputs, concurrency=str(concurrency),
                     output_tokens=str(args.output), requests_per_cell=str(requests),
                     warmup=args.warmup, scrape_metrics=True, workers=workers)
    print(f"\n## Stalls and TTFT error: profile {args.profile}, inputs {args.inputs}, "
          f"c={concurrency}, workers {workers}, output {args.output}, {requests} requests per "
          f"cell")
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, load average before {load_avg()}")
    rows, summary = [], []
    for label in args.order:
        before = load_avg()
        if label == "gui":
            shot = args.screenshot if concurrency == args.concurrency[0] else None
            r = gui_sweep(app, loop, sim, info, form, tmp, shot)
            qt, aio = r["probes"].qt, r["probes"].aio
            extra = (f"garbage collection in the GUI process: {r['gc'] or 'none'}; "
                     f"QTimer probe stall max {max(qt):.1f} / p99 {pct(qt, 99):.1f} ms "
                     f"({len(qt)} wake-ups); chart redraw ticks {r['redraws']}; "
                     f"GUI process CPU {r['cpu'] * 100:.0f}%; page said: {r['status']}")
            qt_text = f"{max(qt):.1f} / {pct(qt, 99):.1f}"
        else:
            r = headless_sweep(sim, info, form, tmp)
            aio = r["aio"]
            extra, qt_text = "", "-"
        errors, unmatched = ttft_errors(r["results"], r["trace"])
        rows.append((label, r["wall"], len(r["results"]), len(errors), unmatched, aio, errors))
        summary.append({"label": label, "c": concurrency, "w": workers, "n": requests,
                        "wall": r["wall"], "aio": f"{max(aio):.1f} / {pct(aio, 99):.1f}",
                        "aio_max": max(aio), "qt": qt_text,
                        "err": (f"{pct(errors, 50):.2f} / {pct(errors, 99):.2f}" if errors
                                else "no match"),
                        "load": f"{before} -> {load_avg()}"})
        by_phase: dict[str, list[float]] = {}
        for lag, ph in zip(r["aio"], r["aio_phase"]):
            by_phase.setdefault(ph, []).append(lag)
        print(f"# {label}: asyncio probe stall by sweep phase, max / p99 ms (wake-ups): " +
              "; ".join(f"{ph} {max(v):.1f} / {pct(v, 99):.1f} ({len(v)})"
                        for ph, v in by_phase.items()))
        if extra:
            print("# " + extra)
        print(f"# {label}: where the loop was: {r['where']}")
        if r.get("episodes") is not None and DETAIL_MS["over"] < float("inf"):
            print(f"# {label}: stalls over {DETAIL_MS['over']:g} ms, one by one:")
            print(r["episodes"])
    print(f"# load average after {load_avg()}")
    print("| run | wall s | requests (incl. warm-up) | matched | asyncio probe stall max / "
          "p99 ms | TTFT error p50 / p99 / max ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, wall, n, matched, unmatched, aio, errors in rows:
        err = (f"{pct(errors, 50):.2f} / {pct(errors, 99):.2f} / {max(errors):.2f}" if errors
               else "no match")
        print(f"| {label} | {wall:.1f} | {n} | {matched} | {max(aio):.1f} / {pct(aio, 99):.1f}"
              f" | {err} |")
    return summary


def build_big_store(path: Path, total: int) -> int:
    with Store.open(path) as store:
        run_id = store.create_run("throughput", name="big", endpoint_url="http://127.0.0.1:8000",
                                  model="m")
        cell = store.add_cell(run_id, cell_index=0, input_tokens=512, output_tokens=64,
                              concurrency=8, status="completed")
        with store.writer() as writer:
            for seq in range(total):
                writer.add_request({"run_id": run_id, "cell_id": cell, "seq": seq,
                                    "sent_at": 1.0 + seq, "ttft_s": 0.0123, "e2e_s": 0.5,
                                    "prompt_tokens": 512, "completion_tokens": 64,
                                    "prefill_tps": 41000.0, "decode_tps": 130.0,
                                    "finish_reason": "length", "status_code": 200,
                                    "error_class": "timeout" if seq % 1000 == 7 else None})
        store.finish_run(run_id, "completed")
    return run_id


def runs_page_bench(args, app: QApplication, loop) -> None:
    from desktop_app.gui.pages.runs import RunsPage

    print(f"\n## Runs page: a stored run of {args.rows:,} requests")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.db"
        t = time.perf_counter()
        run_id = build_big_store(path, args.rows)
        print(f"# store built in {time.perf_counter() - t:.1f} s "
              f"({path.stat().st_size / 1e6:.0f} MB); {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, "
              f"load average {load_avg()}")
        settings = Settings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        rows_ms, painted_ms = [], []

        async def once() -> tuple[float, float]:
            page = RunsPage(AppContext(path), settings)
            page.resize(1100, 720)
            page.show()
            try:
                await page.refresh()
                await asyncio.sleep(0.05)
                started = time.perf_counter()
                page.select_runs([run_id])
                task = page.controller.tasks["requests"]
                await asyncio.wait({task})
                model = page.requests.model
                assert model.rowCount() == args.rows, model.rowCount()
                assert model.index(0, 0).data() == "512 / c=8 / 64"
                rows = time.perf_counter() - started
                page.requests.view.viewport().repaint()
                painted = time.perf_counter() - started
                return rows, painted
            finally:
                page.shutdown()
                page.close()
                page.deleteLater()

        for _ in range(args.repeats):
            rows, painted = loop.run_until_complete(once())
            app.processEvents()
            rows_ms.append(rows * 1000)
            painted_ms.append(painted * 1000)
        print("| repeat | first rows ms | painted ms |")
        print("|---:|---:|---:|")
        for i, (r, p) in enumerate(zip(rows_ms, painted_ms), 1):
            print(f"| {i} | {r:.0f} | {p:.0f} |")
        print(f"# first rows median {statistics.median(rows_ms):.0f} ms, max {max(rows_ms):.0f} ms;"
              f" painted median {statistics.median(painted_ms):.0f} ms, max "
              f"{max(painted_ms):.0f} ms; target under {TARGET_ROWS_S * 1000:.0f} ms: "
              f"{'met' if max(painted_ms) < TARGET_ROWS_S * 1000 else 'missed'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="fast")
    parser.add_argument("--inputs", default="256, 1k", help="prompt lengths, as typed in the form")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64],
                        help="one sweep per value (e.g. 64 256)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1],
                        help="load-generating processes; one sweep per value (e.g. 1 2)")
    parser.add_argument("--output", type=int, default=64)
    parser.add_argument("--requests", type=int, default=None,
                        help="requests per cell (default: 4 x concurrency, at least 256)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--order", nargs="+", default=["gui", "headless"],
                        choices=["gui", "headless"], help="which sweeps to run, in order")
    parser.add_argument("--screenshot", type=Path, default=Path("/tmp/gui_stall_throughput.png"))
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-runs-page", action="store_true")
    parser.add_argument("--only-runs-page", action="store_true")
    parser.add_argument("--detail", type=float, metavar="MS", default=None,
                        help="list each GUI stall over MS ms: CPU or waiting for a core, what "
                             "the page was told before it, timed chart/page calls, stacks")
    parser.add_argument("--where", action="store_true",
                        help="sample the loop thread's stack during stalls (where the stalled "
                             "time went); the sampling lengthens stalls a little")
    args = parser.parse_args(argv)
    DETAIL_MS["sample"] = args.where or args.detail is not None
    if args.detail is not None:
        DETAIL_MS["over"] = args.detail
        time_gui_calls()
    print(f"# {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
          f"QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM')}")
    app = QApplication.instance() or QApplication(sys.argv)
    loop = EventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        if not args.only_runs_page:
            stall_bench(args, app, loop)
        if not args.skip_runs_page:
            runs_page_bench(args, app, loop)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
