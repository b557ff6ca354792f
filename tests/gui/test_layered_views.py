"""A layered run as the GUI shows it: the Inspector says which path answered a question (and
why the loop was entered), the SQL Agent page the share of each path; the gold SQL is laid out
like the agent's; personas and simulator profiles say what they do in their tooltips."""

import asyncio
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from PySide6.QtCore import QSettings, Qt

from desktop_app import paths
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.records import load_eval
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.controllers.inspector import pretty_sql
from desktop_app.gui.pages.endpoints import SIM_PROFILE_TIPS, EndpointsPage
from desktop_app.gui.pages.inspector import InspectorPage
from desktop_app.gui.controllers.sqleval import live_paths
from desktop_app.gui.pages.sql_agent import PERSONA_TIPS, SqlAgentPage
from desktop_app.gui.settings import Settings

TIP = Qt.ItemDataRole.ToolTipRole


@pytest.fixture(scope="module")
def layered_run(tmp_path_factory):
    """sim/seed-reference on t01 and h01 of sales-25 with the layered strategy, stored once:
    t01's fast answer passes the checks, h01's does not (its ROUND is missing). Also the
    simulator's discovery info, for the model combo, and the run's EvalResult."""
    base = tmp_path_factory.mktemp("layered")
    db, cache = base / "r.db", base / "databases"

    def build():
        with start_simulator("instant") as sim, Store.open(db) as store:
            config = EvalConfig(EndpointConfig(sim.url, model="sim/seed-reference"),
                                question_ids=("t01", "h01"), strategies=("layered",))
            result = asyncio.run(run_eval(config, store, sets_dir=paths.questions_dir(),
                                          cache_dir=cache))
            rows = {q.question_id: q.row_id for q in load_eval(store, result.run_id).questions}
            info = asyncio.run(discover(EndpointConfig(sim.url)))
        return result, rows, info

    with ThreadPoolExecutor(1) as pool:  # the session's Qt loop counts as running here
        result, rows, info = pool.submit(build).result()
    return db, cache, result.run_id, rows, info, result


def _settings(tmp_path):
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def context(layered_run, tmp_path):
    db, cache, *_ = layered_run
    own = tmp_path / "r.db"
    shutil.copy(db, own)
    return AppContext(own, sets_dir=paths.questions_dir(), cache_dir=cache)


def test_the_inspector_shows_which_path_answered_and_why(qtbot, qt_loop, layered_run,
                                                         context, tmp_path):
    _db, _cache, run_id, rows, _info, _result = layered_run
    page = InspectorPage(context, _settings(tmp_path))
    qtbot.addWidget(page)
    page.resize(1100, 720)
    page.show()

    task = page.show_question(run_id, rows["t01"])
    qtbot.waitUntil(task.done, timeout=15000)
    assert page.path_label.isVisible()
    assert "fast path answered" in page.path_label.text()
    assert "passed the harness's checks" in page.path_label.text()

    task = page.show_question(run_id, rows["h01"])
    qtbot.waitUntil(task.done, timeout=15000)
    text = page.path_label.text()
    assert "tool loop answered" in text and "step 1 was the fast path" in text
    assert "failed the harness's checks" in text
    assert f"steps 2–{len(page.timeline.cards)}" in text
    # The gold SQL is laid out one clause a line, as the agent's queries are.
    gold = page.detail.question.gold_sql
    assert "\n" not in gold.strip()
    assert page.gold_sql.sql() == pretty_sql(gold) and "\n" in page.gold_sql.sql()


def test_the_sql_agent_page_shows_each_paths_share(qtbot, qt_loop, layered_run, context,
                                                   tmp_path):
    _db, _cache, run_id, _rows, _info, _result = layered_run
    page = SqlAgentPage(context, _settings(tmp_path))
    qtbot.addWidget(page)
    page.show()
    task = page.controller.load_run(run_id)
    qtbot.waitUntil(task.done, timeout=15000)
    assert page.paths_label.isVisible()
    lines = page.paths_label.text().splitlines()
    assert lines[0].startswith("Fast path: 1 of 2 questions (50 %), passed strict 1/1")
    assert lines[1].startswith("Tool loop: 1 of 2 questions (50 %), passed strict 0/1")
    assert "tokens and" in lines[1] and "s per question" in lines[1]
    # A live run shows the same split when it finishes as the stored run does.
    shown = page.paths_label.text()
    page._show_paths(live_paths(layered_run[-1]))
    assert page.paths_label.text() == shown


def test_personas_and_simulator_profiles_say_what_they_do(qtbot, qt_loop, layered_run,
                                                          context, tmp_path):
    *_, info, _result = layered_run
    page = SqlAgentPage(context, _settings(tmp_path))
    qtbot.addWidget(page)
    page.context.set_endpoint(ActiveEndpoint(EndpointConfig("http://sim.test",
                                                            model="sim/careful"),
                                             info, "simulator"))
    combo = page.model_combo
    for persona in PERSONA_TIPS:
        i = combo.findText(persona)
        assert i >= 0, persona
        assert "scripted persona" in combo.itemData(i, TIP)
    assert "every question passes every judge" in combo.toolTip()
    combo.setCurrentText("sim/seed-reference")
    assert "seed reports' run" in combo.toolTip()
    combo.setCurrentText("qwen")
    assert combo.toolTip().startswith("The model the agent runs on")

    endpoints = EndpointsPage(AppContext(tmp_path / "e.db"), settings=_settings(tmp_path),
                              profiles_path=tmp_path / "endpoints.json")
    qtbot.addWidget(endpoints)
    sim = endpoints.sim_profile
    for name in SIM_PROFILE_TIPS:
        i = sim.findText(name)
        assert i >= 0, name
        assert len(sim.itemData(i, TIP)) > 40
    assert sim.toolTip() == sim.itemData(sim.currentIndex(), TIP)
    endpoints.shutdown()
