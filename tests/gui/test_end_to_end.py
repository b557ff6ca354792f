"""The assembled app, driven only by clicks and typing: a sweep, two SQL evaluations with
different models, a question opened in the Inspector, and the two runs compared."""

import os
import subprocess
import sys

from PySide6.QtCore import QSettings, Qt

from desktop_app.core.store import Store
from desktop_app.gui.app import build_window
from desktop_app.gui.context import AppContext
from desktop_app.gui.main_window import PAGES
from desktop_app.gui.screenshots import SHOTS
from desktop_app.gui.settings import Settings

LEFT = Qt.MouseButton.LeftButton


def _go(qtbot, window, title: str) -> None:
    """Click the page's entry in the sidebar."""
    item = window.sidebar.item([p.title for p in PAGES].index(title))
    where = window.sidebar.visualItemRect(item).center()
    qtbot.mouseClick(window.sidebar.viewport(), LEFT, pos=where)
    assert window.current_page_title() == title


def _type(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def _click_cell(qtbot, view, index, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    where = view.visualRect(index).center()
    qtbot.mouseClick(view.viewport(), LEFT, modifier, pos=where)


def _use_simulator_model(qtbot, window, context, model: str) -> None:
    """On the Endpoints page, point an unsaved endpoint at the simulator with `model`."""
    _go(qtbot, window, "Endpoints")
    page = window.pages["Endpoints"]
    if page.list.currentRow() >= 0:  # the simulator is selected: start a new endpoint
        qtbot.mouseClick(page.new_button, LEFT)
        _type(qtbot, page.name_edit, "simulator by hand")
        _type(qtbot, page.url_edit, context.endpoint.config.base_url)
    _type(qtbot, page.model_combo.lineEdit(), model)
    qtbot.mouseClick(page.use_button, LEFT)
    qtbot.waitUntil(lambda: context.endpoint.config.model == model, timeout=15_000)


def _run_sql(qtbot, window) -> int:
    page = window.pages["SQL Agent"]
    _go(qtbot, window, "SQL Agent")
    assert page.start_button.isEnabled(), page.error_label.text()
    qtbot.mouseClick(page.start_button, LEFT)
    qtbot.waitUntil(lambda: page.controller.task.done(), timeout=30_000)
    assert page.controller.task.exception() is None
    assert sorted(r.question_id for r in page.model.rows()) == ["m01", "m02"]
    return page.run_id


def test_a_session_from_sweep_to_comparison(qtbot, qapp, qt_loop, tmp_path):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    context = AppContext(tmp_path / "r.db", cache_dir=tmp_path / "db")
    window, shell = build_window(qapp, "instant", context=context, settings=settings)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    try:
        qtbot.waitUntil(lambda: context.endpoint is not None, timeout=30_000)

        # A throughput sweep typed into the Throughput page, run to the end.
        _go(qtbot, window, "Throughput")
        sweep = window.pages["Throughput"]
        for edit, text in ((sweep.input_tokens, "256, 1024"), (sweep.concurrency, "1, 4"),
                           (sweep.output_tokens, "16"), (sweep.requests_per_cell, "4")):
            _type(qtbot, edit, text)
        _type(qtbot, sweep.warmup.lineEdit(), "0")
        qtbot.mouseClick(sweep.start_button, LEFT)
        qtbot.waitUntil(lambda: sweep.controller.task.done(), timeout=30_000)
        assert sweep.controller.task.exception() is None
        assert sweep.model.rowCount() == 4
        assert sweep.status_label.text().startswith("Run ")

        # A SQL evaluation of sim/seed-reference on the medium tier (m01, m02).
        _use_simulator_model(qtbot, window, context, "sim/seed-reference")
        sql = window.pages["SQL Agent"]
        _go(qtbot, window, "SQL Agent")
        assert "sim/seed-reference" in sql.endpoint_label.text()
        for tier, box in sql.tier_boxes.items():
            if box.isChecked() != (tier == "medium"):
                qtbot.mouseClick(box, LEFT)
        assert [t for t, b in sql.tier_boxes.items() if b.isChecked()] == ["medium"]
        seed_run = _run_sql(qtbot, window)

        # Double-click m01: the window shows it in the Inspector, ROUND named in a finding.
        m01 = next(sql.proxy.index(r, 0) for r in range(sql.proxy.rowCount())
                   if sql.proxy.index(r, 0).data() == "m01")
        _click_cell(qtbot, sql.table, m01)
        qtbot.mouseDClick(sql.table.viewport(), LEFT, pos=sql.table.visualRect(m01).center())
        inspector = window.pages["Inspector"]
        qtbot.waitUntil(lambda: inspector.detail is not None, timeout=15_000)
        assert window.current_page_title() == "Inspector"
        assert inspector.detail.question_id == "m01" and inspector.detail.run_id == seed_run
        assert "ROUND" in inspector.findings.text()

        # The same questions with sim/careful.
        _use_simulator_model(qtbot, window, context, "sim/careful")
        careful_run = _run_sql(qtbot, window)
        assert careful_run != seed_run

        # The Runs page lists all three runs; select the two SQL runs and compare them.
        _go(qtbot, window, "Runs")
        runs = window.pages["Runs"]
        qtbot.waitUntil(lambda: runs.model.rowCount() == 3, timeout=15_000)
        _click_cell(qtbot, runs.table, runs.model.index(runs.model.row_of(seed_run), 1))
        _click_cell(qtbot, runs.table, runs.model.index(runs.model.row_of(careful_run), 1),
                    Qt.KeyboardModifier.ControlModifier)
        assert sorted(r.id for r in runs.selected_runs()) == sorted([seed_run, careful_run])
        qtbot.mouseClick(runs.compare_button, LEFT)
        qtbot.waitUntil(lambda: runs.detail.currentWidget() is runs.comparison
                        and runs.controller.tasks["compare"].done(), timeout=15_000)
        compared = runs.comparison.sql_model
        assert compared.question_ids() == ["m01", "m02"]
        assert any(compared.cell_text(q, seed_run) != compared.cell_text(q, careful_run)
                   for q in ("m01", "m02"))
        assert "different verdicts" in runs.comparison.title.text()
    finally:
        shell.shutdown()


def test_gui_screenshots_saves_a_png_of_every_page(tmp_path):
    out = tmp_path / "shots"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "desktop_app", "--db", str(tmp_path / "r.db"),
                           "gui", "--screenshots", str(out)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    names = [name for _, name in SHOTS]
    assert done.stdout.split() == [str(out / name) for name in names]
    for name in names:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (out / name).stat().st_size > 20_000
    with Store.open(tmp_path / "r.db") as store:  # --db: the runs went there
        assert sorted(r.kind for r in store.list_runs()) == ["sql", "sql", "throughput"]
