"""The PDF's What-if section (#15): per throughput run, the fit's error per cell, what the sweep
could not identify, and the predicted effect of the diagnosis's suggested change, in English
and Chinese."""

import asyncio
import re
import threading
import time
from types import SimpleNamespace

import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.records import load_sweep
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.report.whatif_section import whatif
from tests.lang_check import english_runs


@pytest.fixture(scope="module")
def capped_run(tmp_path_factory):
    """A small sweep of the `fast-capped` profile (max_num_seqs 2): the diagnosis finds the
    cap, so its suggestion (max_num_seqs doubled) is predicted. 64 output tokens and /metrics
    every 50 ms: cells long enough for the scrapes to see the queue (with 16 tokens and 0.2 s
    the 4-concurrent cells sometimes ended between two scrapes and no cap was found)."""
    db = tmp_path_factory.mktemp("whatif_pdf") / "results.db"

    def fill(url: str) -> None:
        config = SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b"),
                             input_tokens=(256, 1024), concurrency=(1, 4), output_tokens=(64,),
                             requests_per_cell=8, warmup=0, name="capped",
                             metrics_interval_s=0.05)
        with Store.open(db) as store:
            asyncio.run(run_sweep(config, store))

    with start_simulator("fast-capped") as sim:
        worker = threading.Thread(target=fill, args=(sim.url,))
        worker.start()
        worker.join(120)
    with Store.open(db) as store:
        (info,) = store.list_runs(kind="throughput")
        return load_sweep(store, info.id)


def test_the_section_predicts_the_suggested_change_per_cell(capped_run):
    comp = SimpleNamespace(throughput=[capped_run])
    started = time.process_time()
    html = whatif(comp, "en", lambda image: "")
    assert time.process_time() - started < 5  # a few seconds of CPU per run at most
    assert "What if" in html and capped_run.info.label in html
    assert "Worst cell error of the fit" in html
    assert "raising max_num_seqs from 2 to 4" in html
    assert html.count("<tr") == 1 + 4  # the header and one row per cell
    assert "→" in html


def test_the_chinese_section_has_no_english_sentence(capped_run):
    html = whatif(SimpleNamespace(throughput=[capped_run]), "zh", lambda image: "")
    assert "假设分析" in html and "从 2 提高到 4" in html
    text = html.replace(capped_run.info.label, "")
    plain = re.sub(r"<[^>]+>", " ", text)
    assert english_runs(plain) == []


def test_no_throughput_run_no_section():
    assert whatif(SimpleNamespace(throughput=[]), "en", lambda image: "") == ""
