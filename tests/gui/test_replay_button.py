"""The Runs page's "Replay as load…" (#29, part 4): a stored SQL run's conversations sent again
as concurrent agents against the active endpoint, the figures in the status line as each
number of agents ends, and the replay stored as a run the list then shows."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QInputDialog

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.pages.runs import RunsPage
from tests.core.sim_helpers import record_eval


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A SQL evaluation of two questions recorded on the simulator, and the simulator."""
    db = tmp_path_factory.mktemp("replay_button") / "r.db"
    with start_simulator("instant") as sim:
        record_eval(db, sim.url, "m01,h01")
        yield sim, db


def _wait(qtbot, task, timeout=20000):
    qtbot.waitUntil(task.done, timeout=timeout)
    assert task.exception() is None


def test_a_sql_run_is_replayed_on_the_active_endpoint_and_listed(recorded, qt_loop, qtbot,
                                                                 monkeypatch):
    sim, db = recorded
    context = AppContext(db)
    page = RunsPage(context)
    qtbot.addWidget(page)
    page.show()
    try:
        _wait(qtbot, page.refresh())
        page.select_runs([1])
        assert not page.replay_button.isEnabled()  # no endpoint to replay against yet
        context.set_endpoint(ActiveEndpoint(EndpointConfig(sim.url, model="sim/llama-sim-8b"),
                                            None, "simulator"))
        page.select_runs([1])
        assert page.replay_button.isEnabled()
        monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("1,x", True))
        page.replay_button.click()
        assert "agents" in page.status_label.text() and "'x'" in page.status_label.text()
        monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("1,2", True))
        with qtbot.waitSignal(page.controller.replayed, timeout=20000) as done:
            page.replay_button.click()
        result = done.args[0]
        assert [p.sessions for p in result.points] == [1, 2]
        assert page.status_label.text().startswith(f"Replay stored as run #{result.run_id}: "
                                                   "1 agent(s): ")
        assert "tasks/h [" in page.status_label.text()
        _wait(qtbot, page.controller.tasks["refresh"])
        assert page.model.index(0, 1).data() == "replay"
        assert page.model.index(0, 2).data() == "#1 → sim/llama-sim-8b ×1,2"
        # The refresh that lists it keeps what it measured in the status line.
        assert page.status_label.text().startswith(f"Replay stored as run #{result.run_id}")
        with Store.open(db) as store:
            assert store.get_run(result.run_id).config["sql_run"] == 1
        page.select_runs([result.run_id])
        page.open_button.click()  # a replay's figures fit the status line
        assert page.status_label.text().startswith(f"Replay #{result.run_id} of run #1: "
                                                   "1 agent(s): ")
    finally:
        page.shutdown()
