"""The diagnosis pane (headlines in the core's order, severity colour and icon, evidence folded
away), the tier chart's count labels, and the SQL Agent page's ETA and strategy tooltips."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from PySide6.QtCore import QSettings, Qt

from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.runs import is_simulated
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.throughput.types import Finding
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.models.questions import QuestionRow
from desktop_app.gui.pages.sql_agent import STRATEGY_TIPS, duration_text, eta_seconds
from desktop_app.gui.pages.throughput import ThroughputPage
from desktop_app.gui.settings import Settings
from desktop_app.gui.widgets.diagnosis import SEVERITY_COLORS, DiagnosisView, headline
from desktop_app.gui.widgets.tier_chart import TierChart

CLIENT_BOUND = Finding(
    "client_bound", "problem",
    "The client, not the server, limited some cells: it could not keep the requests in "
    "flight it was asked to. " + " ".join(f"Cell {i} reached {i}.5 of {i + 1} requests."
                                          for i in range(12)),
    {"cells": list(range(12))}, "Run the client on a machine of its own.")
CAP = Finding("concurrency_cap", "problem",
              "Requests queue: the server ran at most 2 requests at once while up to 6 waited "
              "(vllm:num_requests_running plateau at 2).", {"cap": 2, "max_waiting": 6},
              "Raising max-num-seqs lets more requests run at once.")
INFO = Finding("ttft_linear", "info", "TTFT grows linearly with the prompt length (e.g. 2.5 s "
               "at 8k tokens). That is expected.", {})


def test_headline_is_the_first_sentence():
    assert headline(CAP.message) == (CAP.message, "")
    first, rest = headline(INFO.message)
    assert first == "TTFT grows linearly with the prompt length (e.g. 2.5 s at 8k tokens)."
    assert rest == "That is expected."


def test_findings_keep_their_order_and_a_long_one_does_not_push_the_cap_down(qtbot):
    view = DiagnosisView()
    qtbot.addWidget(view)
    view.resize(700, 300)
    view.show()
    view.set_findings([CLIENT_BOUND, CAP, INFO])
    lines = view.headlines()
    assert [f.code for f in view.findings] == ["client_bound", "concurrency_cap", "ttft_linear"]
    assert lines[0].startswith("Problem: The client, not the server, limited some cells")
    assert lines[1] == "Problem: " + CAP.message
    assert lines[2].startswith("Info: TTFT grows linearly")
    tree = view.tree
    first, cap = tree.topLevelItem(0), tree.topLevelItem(1)
    # Folded: the long finding is one line, so the cap is on screen right below it.
    assert not first.isExpanded()
    assert tree.visualItemRect(cap).top() < 3 * tree.fontMetrics().height() + 8
    assert tree.visualItemRect(first).height() < 2.5 * tree.fontMetrics().height()
    # Severity by colour and icon; the evidence and suggestion fold out.
    assert cap.foreground(0).color() == SEVERITY_COLORS["problem"]
    assert tree.topLevelItem(2).foreground(0).color() == SEVERITY_COLORS["info"]
    assert not cap.icon(0).isNull()
    children = [cap.child(i).text(0) for i in range(cap.childCount())]
    assert children[0].startswith("Suggestion: Raising max-num-seqs")
    assert children[-1] == "Evidence (concurrency_cap)"
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                     pos=tree.visualItemRect(cap).center())
    assert cap.isExpanded()
    # The text as the CLI prints it, numbered in the same order.
    text = view.toPlainText()
    assert text.index("1. [problem] The client") < text.index("2. [problem] Requests queue")


def test_no_findings_and_a_note_alone(qtbot):
    view = DiagnosisView()
    qtbot.addWidget(view)
    view.set_findings([])
    assert view.headlines() == ["Nothing stands out."]
    view.set_findings(None, "could not be rebuilt")
    assert view.toPlainText() == "could not be rebuilt" and view.headlines() == []


@pytest.fixture(scope="module")
def capped_sim():
    with start_simulator("fast-capped") as sim:
        with ThreadPoolExecutor(1) as pool:  # the session's Qt loop may count as running here
            info = pool.submit(lambda: asyncio.run(discover(EndpointConfig(sim.url)))).result()
        yield sim, info


def test_a_capped_sweep_shows_the_concurrency_cap_first(qtbot, qt_loop, tmp_path, capped_sim):
    sim, info = capped_sim
    context = AppContext(tmp_path / "r.db")
    context.set_endpoint(ActiveEndpoint(EndpointConfig(sim.url, model=info.models[0]), info,
                                        "simulator"))
    page = ThroughputPage(context, Settings(QSettings(str(tmp_path / "s.ini"),
                                                      QSettings.Format.IniFormat)))
    qtbot.addWidget(page)
    for edit, text in ((page.input_tokens, "512"), (page.concurrency, "1, 6"),
                       (page.output_tokens, "64"), (page.requests_per_cell, "12")):
        edit.setText(text)
    page.warmup.setValue(0)
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(page.controller.task.done, timeout=60_000)
    assert page.controller.task.exception() is None
    codes = [f.code for f in page.findings.findings]
    assert codes and codes[0] == "concurrency_cap", codes
    assert page.findings.headlines()[0].startswith("Problem: Requests queue: the server ran "
                                                   "at most 2 requests at once")


def _row(qid, tier, strict, tolerant, full):
    return QuestionRow(qid, tier, 0, {"strict": strict, "tolerant": tolerant, "full": full},
                       None, 3, 100, 1.0)


def test_tier_bars_carry_their_counts_even_at_zero_height(qtbot):
    chart = TierChart()
    qtbot.addWidget(chart)
    rows = [_row(f"m{i:02d}", "medium", False, i < 5, True) for i in range(13)]
    rows.append(_row("t01", "trivial", True, True, True))
    chart.set_rows(rows)
    chart.redraw()
    # Tier by tier (trivial, then medium), judge by judge.
    assert chart.bar_labels() == ["1/1", "1/1", "1/1", "0/13", "5/13", "13/13"]
    zero = chart.count_labels[3]
    assert zero.pos().y() == 0 and zero.isVisible()
    chart.set_judges(["strict"])
    chart.redraw()
    assert chart.bar_labels() == ["1/1", "0/13"]


def test_eta_and_strategy_tooltips():
    assert eta_seconds(0, 10, 5.0) is None
    assert eta_seconds(10, 10, 5.0) is None
    assert eta_seconds(2, 10, 10.0) == pytest.approx(40.0)
    assert duration_text(40) == "40 s"
    assert duration_text(200) == "3 min 20 s"
    assert duration_text(3900) == "1 h 05 min"
    from desktop_app.core.sqleval.types import STRATEGIES

    assert set(STRATEGY_TIPS) == set(STRATEGIES)  # every strategy says what it does
    assert is_simulated(None, "sim/seed-reference")  # the personas the page labels SIMULATED
