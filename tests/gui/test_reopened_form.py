"""A stored sweep reopened in the Throughput page fills the form beside its charts (#30: the
form kept another length, concurrency and name), from values checked as hostile."""

import asyncio

import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.gui.context import AppContext
from desktop_app.gui.controllers.throughput import SweepForm, form_from_config
from desktop_app.gui.pages.throughput import ThroughputPage


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    db = tmp_path_factory.mktemp("reopen") / "results.db"
    with Store.open(db) as store, start_simulator("instant") as sim:
        config = SweepConfig(EndpointConfig(sim.url, model="sim/llama-sim-8b"),
                             input_tokens=(256, 1024), concurrency=(1, 3), output_tokens=(8,),
                             requests_per_cell=5, warmup=0, name="reopen me",
                             server_settings={"max-num-seqs": 3})
        run_id = asyncio.run(run_sweep(config, store)).run_id
    return db, run_id


def test_a_reopened_run_fills_the_form(qtbot, qt_loop, stored):
    db, run_id = stored
    page = ThroughputPage(AppContext(db))
    qtbot.addWidget(page)
    page.concurrency.setText("1, 2, 4, 8")
    page.run_name.setText("something else")
    page.load_run(run_id)
    qtbot.waitUntil(lambda: page.model.rowCount() == 4, timeout=10000)
    form = page.form()
    assert (form.input_tokens, form.concurrency, form.output_tokens, form.requests_per_cell,
            form.warmup, form.name) == ("256, 1024", "1, 3", "8", "5", 0, "reopen me")
    assert "max-num-seqs=3" in form.server_settings  # typed by the user, so it comes back


def test_a_hostile_or_foreign_configuration_leaves_the_form_as_it_is():
    current = SweepForm(concurrency="1, 2")
    assert form_from_config(None, current) is None
    assert form_from_config({}, current) is None  # an imported file records no sweep
    assert form_from_config({"input_tokens": [512], "concurrency": [1], "output_tokens": [8],
                             "request_rates": [2.0]}, current) is None  # open loop
    for bad in ([0], [True], ["512"], [512] * 65, 512):
        assert form_from_config({"input_tokens": bad, "concurrency": [1],
                                 "output_tokens": [8]}, current) is None, bad
    form = form_from_config({"input_tokens": [512], "concurrency": [4], "output_tokens": [8],
                             "requests_per_cell": -3, "warmup": "x", "api": "evil",
                             "cell_time_budget_s": float("nan"), "name": "n" * 5000,
                             "server_settings": {"a": "1,b=2", "c": 5},
                             "server_settings_source": {"a": "user", "c": "server"}}, current)
    assert (form.concurrency, form.requests_per_cell, form.warmup, form.api,
            form.time_budget_s) == ("4", "", current.warmup, current.api, "")
    assert len(form.name) == 2000 and form.server_settings == ""
