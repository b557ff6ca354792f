"""The Ray actors' clocks as a diagnosis finding (`ray_clocks_uncertain`): read from the run's
stored configuration (`ray_clocks`, as `RayPool.clock_record` writes it), so a run read back
shows it even though its diagnosis was kept before the clocks were stored; worded in English
and Chinese from the catalogue. Ray is not needed: the records are built by hand."""

from __future__ import annotations

import json
import math

import pytest

from desktop_app.core.store import Store
from desktop_app.core.throughput.checks import ray_clocks_uncertain
from desktop_app.core.throughput.diagnosis import diagnose, with_config_findings
from desktop_app.core.throughput.ray_pool import CLOCKS_KEY, save_clocks
from desktop_app.core.throughput.records import (
    finding_to_json,
    findings_from_json,
    load_sweep,
    save_diagnosis,
)
from desktop_app.report.diagnosis_words import finding_text, findings_text, suggestion_text
from tests.core.throughput.test_diagnosis import by_code, codes, sweep
from tests.lang_check import english_runs


def _actor(host, uncertainty, cell_drift, drift=0.0):
    return {"host": host, "offset_start_ms": 12.5, "offset_end_ms": 12.5 + drift,
            "drift_ms": drift, "uncertainty_max_ms": uncertainty, "cell_drift_ms": cell_drift}


def _record(per_actor, *, end_failed=False):
    """A session's record as `RayPool.clock_record` writes it (milliseconds)."""
    return {"address": "ray://head:10001", "actors": len(per_actor), "round_trips": 8,
            "measurements": 4, "corrected": True, "tolerance_ms": 1.0,
            "beyond_tolerance": any(a["uncertainty_max_ms"] > 1 or a["cell_drift_ms"] > 1
                                    for a in per_actor),
            "end_failed": end_failed,
            "end_error": "RayActorError: the actor died" if end_failed else None,
            "per_actor": per_actor}


# Four actors on three hosts: one known to 1.8 ms, one drifting 2.4 ms between two
# measurements, two well within 1 ms.
BEYOND = {"ray": "ray://head:10001", CLOCKS_KEY: [_record([
    _actor("gpu-a", 1.8, 0.3, drift=0.6), _actor("gpu-b", 0.4, 2.4, drift=3.1),
    _actor("gpu-b", 0.2, 0.1), _actor("gpu-c", 0.3, 0.2)])]}
WITHIN = {"ray": "ray://head:10001", CLOCKS_KEY: [_record([
    _actor("gpu-a", 0.4, 0.3), _actor("gpu-b", 0.9, 0.95)])]}


def test_clocks_beyond_a_millisecond_are_a_warning_with_their_figures():
    cells = sweep("fast", (512,), (1, 2))
    finding = by_code(diagnose(cells, run_config=BEYOND), "ray_clocks_uncertain")
    assert finding.severity == "warning"
    p = finding.params
    assert (p["actors"], p["actors_total"], p["hosts"], p["hosts_total"]) == (2, 4, 2, 3)
    assert p["uncertainty_ms"] == pytest.approx(1.8) and p["drift_ms"] == pytest.approx(2.4)
    # The worst actor's uncertainty plus its drift: how far its requests may sit off.
    assert p["error_ms"] == pytest.approx(2.8) and p["worst_host"] == "gpu-b"
    assert p["tolerance_ms"] == 1.0 and p["end_failed"] is False
    assert finding.evidence["run_drift_max_ms"] == pytest.approx(3.1)
    assert finding.suggestion_code == "ray_clocks_closer"
    json.dumps(finding.params)
    en = finding_text(finding, "en")
    for figure in ("2.8 ms", "1.8 ms", "2.4 ms", "1.0 ms", "2 of 4 actors", "2 hosts", "gpu-b"):
        assert figure in en, (figure, en)
    assert "TTFT" in en and "cannot be put in order" in en
    assert "8 round trips" in suggestion_text(finding, "en")


def test_clocks_within_a_millisecond_or_no_ray_give_no_finding():
    cells = sweep("fast", (512,), (1, 2))
    plain = codes(diagnose(cells))
    assert codes(diagnose(cells, run_config=WITHIN)) == plain
    assert "ray_clocks_uncertain" not in plain
    assert ray_clocks_uncertain({"ray": None}) is None and ray_clocks_uncertain(None) is None


def test_an_end_measurement_that_failed_is_said_even_within_tolerance():
    failed = {CLOCKS_KEY: [_record([_actor("gpu-a", 0.3, 0.2), _actor("gpu-b", 0.3, 0.2)],
                                   end_failed=True)]}
    finding = ray_clocks_uncertain(failed)
    assert finding is not None and finding.severity == "warning"
    assert finding.params["end_failed"] is True and finding.params["error_ms"] is None
    assert finding.evidence["end_errors"] == ["RayActorError: the actor died"]
    assert finding.suggestion_code is None  # nothing to tighten: the actor was gone
    en, zh = finding_text(finding, "en"), finding_text(finding, "zh")
    assert "not be measured at the end" in en and "2 actors on 2 hosts" in en
    assert "运行结束时未能测量" in zh and english_runs(zh) == []
    # With clocks beyond the tolerance as well, both are said.
    both = ray_clocks_uncertain({CLOCKS_KEY: [*BEYOND[CLOCKS_KEY], *failed[CLOCKS_KEY]]})
    assert both.params["end_failed"] and "at the end of the run, failed" in finding_text(both)


def test_the_chinese_words_quote_the_figures_and_hold_no_english_sentence():
    finding = ray_clocks_uncertain(BEYOND)
    zh, sug = finding_text(finding, "zh"), suggestion_text(finding, "zh")
    assert zh != finding_text(finding, "en")
    for figure in ("2.8 ms", "1.8 ms", "2.4 ms", "1.0 ms", "gpu-b", "4 个 actor 中有 2 个",
                   "2 台主机"):
        assert figure in zh, (figure, zh)
    assert english_runs(zh) == [], zh
    assert "8 次" in sug and english_runs(sug) == [], sug
    text = findings_text([finding], "zh")
    assert text.startswith("诊断：") and "[警告]" in text and english_runs(text) == []


def test_a_resumed_run_reports_the_worst_of_its_sessions():
    second = _record([_actor("gpu-d", 4.0, 0.5)])
    finding = ray_clocks_uncertain({CLOCKS_KEY: [*BEYOND[CLOCKS_KEY], second]})
    p = finding.params
    assert p["error_ms"] == pytest.approx(4.5) and p["worst_host"] == "gpu-d"
    assert p["uncertainty_ms"] == pytest.approx(4.0) and p["hosts"] == 3
    assert finding.evidence["sessions"] == 2


@pytest.mark.parametrize("stored", [
    {CLOCKS_KEY: "ray"}, {CLOCKS_KEY: [None, 3, "x"]}, {CLOCKS_KEY: [{"per_actor": "x"}]},
    {CLOCKS_KEY: [{"actors": 6, "per_actor": []}]},  # as an older test stored it
    {CLOCKS_KEY: [{"per_actor": [{"uncertainty_max_ms": "9", "cell_drift_ms": True}]}]},
    {CLOCKS_KEY: [{"per_actor": [{"uncertainty_max_ms": math.nan,
                                  "cell_drift_ms": math.inf}]}]},
])
def test_a_hostile_stored_record_gives_no_finding_and_no_error(stored):
    assert ray_clocks_uncertain(stored) is None


def test_a_hostile_host_name_is_not_quoted():
    odd = {CLOCKS_KEY: [_record([_actor("evil\x1b[2J host\n", 5.0, 0.0),
                                 _actor("x" * 300, 0.1, 0.0)])]}
    finding = ray_clocks_uncertain(odd)
    assert finding.params["worst_host"] is None and finding.params["hosts_total"] == 0
    assert "\x1b" not in finding_text(finding, "en") and "5.0 ms" in finding_text(finding, "en")
    huge = {CLOCKS_KEY: [_record([_actor(f"h{i}", 2.0, 0.0) for i in range(5000)])] * 500}
    assert ray_clocks_uncertain(huge).params["actors"] == 256  # capped, not a minute's work


def test_a_run_read_back_shows_the_finding_its_kept_diagnosis_lacked(tmp_path):
    """The sweep keeps its diagnosis, then stores the clocks as it ends (sweep._finish): the
    run read back has the finding, once, from what was stored."""
    with Store.open(tmp_path / "r.db") as store:
        run_id = store.create_run("throughput", name="on ray", model="m",
                                  config={"input_tokens": [512], "ray": "ray://head:10001"})
        store.add_cell(run_id, cell_index=0, input_tokens=512, output_tokens=8,
                       concurrency=1, status="completed")
        kept = findings_from_json([{"code": "ttft_linear", "severity": "info",
                                    "params": {"slope_s_per_1k_tokens": 0.1, "pearson_r": 0.99,
                                               "fixed_s": None, "longest_tokens": 512,
                                               "longest_ttft_s": 0.05}}])
        save_diagnosis(store, run_id, kept)
        store.finish_run(run_id, "completed")
        assert codes(load_sweep(store, run_id).findings) == ["ttft_linear"]
        save_clocks(store, run_id, BEYOND[CLOCKS_KEY][0])
        back = load_sweep(store, run_id)
        assert codes(back.findings) == ["ray_clocks_uncertain", "ttft_linear"]
        assert back.findings[0] == ray_clocks_uncertain(BEYOND)
        # Kept again with the finding (a later `whatif` saves what it read): still once.
        save_diagnosis(store, run_id, back.findings)
        assert codes(load_sweep(store, run_id).findings) == codes(back.findings)
        # A run that resumed within the tolerance keeps the first session's figures.
        save_clocks(store, run_id, WITHIN[CLOCKS_KEY][0])
        assert by_code(load_sweep(store, run_id).findings,
                       "ray_clocks_uncertain").params["error_ms"] == pytest.approx(2.8)


def test_merging_leaves_a_kept_diagnosis_in_its_order():
    kept = findings_from_json([
        {"code": "client_bound", "severity": "problem", "params": {"cells": []}},
        {"code": "concurrency_cap", "severity": "problem", "params": {"cap": 2}},
        {"code": "goodput", "severity": "info", "params": {"rows": []}},
    ])
    merged = with_config_findings(kept, BEYOND)
    assert codes(merged) == ["client_bound", "concurrency_cap", "ray_clocks_uncertain",
                             "goodput"]
    assert with_config_findings(kept, {}) == list(kept)
    assert findings_from_json([finding_to_json(merged[2])])[0] == merged[2]
