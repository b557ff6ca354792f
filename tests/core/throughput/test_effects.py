"""Suggestions with numbers (#15): each tuning suggestion of the diagnosis carries its effect as
the engine model fitted to the sweep predicts it, per prompt length, in English and Chinese; a
suggestion the model predicts gains nothing is withdrawn, saying why; a sweep the model cannot
be fitted to keeps its suggestions without numbers.

Relations, not profile numbers: resources/profiles/seed-reference.toml is being re-calibrated,
and these hold for the server it describes (max-num-seqs 2, a small step budget, a KV cache
that two 32k requests fill)."""

from __future__ import annotations

import dataclasses
import functools
import json

import pytest

from desktop_app.core.fit import fit_profile, measured_from_results
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.throughput.diagnosis import diagnose
from desktop_app.core.throughput.effects import (
    REASONS,
    THRESHOLD,
    VERDICTS,
    annotate,
    classify,
)
from desktop_app.core.throughput.records import finding_to_json, findings_from_json
from desktop_app.report.diagnosis_words import (
    WORDS,
    findings_text,
    suggestion_parts,
    suggestion_text,
)
from tests.core.throughput.test_diagnosis import by_code, sweep, vllm_info
from tests.lang_check import english_runs

LENGTHS = (2048, 8192, 32768)


def _settings(profile: str) -> dict:
    """What the simulator reports of a profile on /metrics (the fit's limits)."""
    p = load_profile(profile)
    return {"max_num_seqs": p.max_num_seqs, "max_num_batched_tokens": p.max_num_batched_tokens,
            "kv_cache_tokens": p.kv_cache_tokens}


@pytest.fixture(scope="module")
def seed():
    """The seed reports' sweep shape on the seed-reference server (one wave per cell, as the
    reports measured; 64 tokens out to keep the fit to seconds), diagnosed and annotated."""
    cells = sweep("seed-reference", LENGTHS, (1, 2, 4, 6), metrics_cap=2, kv=0.91,
                  requests=lambda c: c)
    settings = _settings("seed-reference")
    findings = diagnose(cells, vllm_info(), server_settings=settings)
    measured = measured_from_results(cells)
    fit = fit_profile(measured, settings, cap=2, rounds=4)
    outcome = annotate(findings, measured, settings, "vllm", fit=fit)
    return dataclasses.make_dataclass("Seed", ["cells", "findings", "measured", "fit",
                                               "outcome", "settings"])(
        cells, findings, measured, fit, outcome, settings)


@functools.cache
def fast_capped_findings() -> tuple:
    """A small sweep of fast-capped (max-num-seqs 2), diagnosed and annotated: the cap's
    suggestion carries numbers, the budget's is withdrawn (a second or so to fit)."""
    cells = sweep("fast-capped", (512, 1024), (1, 4), metrics_cap=2, kv=0.2)
    settings = _settings("fast-capped")
    findings = diagnose(cells, vllm_info(), server_settings=settings)
    return annotate(findings, measured_from_results(cells), settings, "vllm").findings


def _by_length(finding) -> dict[int, dict]:
    return {e["input_tokens"]: e for e in finding.params["predicted"]["lengths"]}


def test_raising_max_num_seqs_is_predicted_per_prompt_length(seed):
    assert seed.outcome.status == "predicted"
    cap = by_code(seed.outcome.findings, "concurrency_cap")
    effect = cap.params["predicted"]
    assert (effect["setting"], effect["knob"], effect["before"], effect["after"]) == (
        "max_num_seqs", "max-num-seqs", 2, 4)
    at = _by_length(cap)
    assert set(at) == set(LENGTHS) and all(e["concurrency"] == 6 for e in at.values())
    # Short prompts queue behind the cap: two more running slots cut their TTFT.
    short = at[2048]
    assert short["ttft_p50_s"][1] < short["ttft_p50_s"][0] * (1 - THRESHOLD)
    assert short["verdict"] in ("gain", "tradeoff")
    # The longest prompt gains nothing: its prefill's compute (or the cache) is the limit.
    long = at[32768]
    assert long["verdict"] in ("no_gain", "loss")
    assert long["reason"] in ("prefill_compute_bound", "kv_bound")
    assert effect["withdrawn"] is False
    en = suggestion_text(cap, "en")
    assert en.startswith("Raising max-num-seqs lets more requests run at once")
    assert ("Raising max-num-seqs to 4 (model fitted to this run): at 2k tokens x 6 "
            "concurrent") in en
    assert "TTFT p50 " in en and "decode per request " in en
    assert "at 32k no gain: " in en or "at 32k tokens x 6 concurrent, worse: " in en
    # Batches above the cap of 2 never ran: the prediction says it extrapolates.
    assert "extrapolated" in en


def test_raising_the_token_budget_is_predicted_per_prompt_length(seed):
    drop = by_code(seed.outcome.findings, "prefill_drop_under_concurrency")
    effect = drop.params["predicted"]
    assert (effect["setting"], effect["knob"]) == ("max_num_batched_tokens",
                                                    "max-num-batched-tokens")
    assert effect["after"] == 2 * effect["before"]
    at = _by_length(drop)
    assert set(at) == set(LENGTHS)
    en = suggestion_text(drop, "en")
    for n in ("2k", "8k", "32k"):
        assert f"at {n}" in en or f", {n}" in en
    withdrawn = all(e["verdict"] in ("no_gain", "loss") for e in at.values())
    assert effect["withdrawn"] is withdrawn
    if withdrawn:  # the model says so rather than suggesting it
        assert en.startswith(f"Leave max-num-batched-tokens at {effect['before']}: the model "
                             f"fitted to this run predicts no gain from raising it to "
                             f"{effect['after']}")
    else:
        assert f"Raising max-num-batched-tokens to {effect['after']}" in en
    # The CLI's diagnosis carries both predictions.
    text = findings_text(seed.outcome.findings, "en")
    assert "max-num-seqs to 4 (model fitted to this run)" in text
    assert f"max-num-batched-tokens at {effect['before']}" in text or (
        f"max-num-batched-tokens to {effect['after']}" in text)


def test_the_chinese_diagnosis_states_the_same_predictions_without_english(seed):
    cap = by_code(seed.outcome.findings, "concurrency_cap")
    zh = suggestion_text(cap, "zh")
    assert "将 max-num-seqs 调到 4（按本次运行拟合的模型）：2k tokens、6 并发时" in zh
    assert "TTFT p50 " in zh and " 秒 -> " in zh and "每请求 Decode " in zh
    assert "32k 时无收益：" in zh or "32k tokens、6 并发时反而变差" in zh
    drop = by_code(seed.outcome.findings, "prefill_drop_under_concurrency")
    assert "max-num-batched-tokens" in suggestion_text(drop, "zh")
    text = findings_text(seed.outcome.findings, "zh")
    assert text.startswith("诊断：") and english_runs(text) == []


def test_a_reopened_run_shows_the_same_numbers(seed):
    kept = [json.loads(json.dumps(finding_to_json(f))) for f in seed.outcome.findings]
    back = findings_from_json(kept)
    assert back == seed.outcome.findings
    for lang in ("en", "zh"):
        assert findings_text(back, lang) == findings_text(seed.outcome.findings, lang)


def test_a_suggestion_the_model_predicts_does_nothing_is_withdrawn():
    # fast-capped's prompts fit one step's 2048-token budget: a larger one cannot help, but
    # the queue behind its cap of 2 can be shortened.
    cells = sweep("fast-capped", (512, 1024), (1, 4), metrics_cap=2, kv=0.2)
    findings = diagnose(cells, vllm_info(), server_settings=_settings("fast-capped"))
    drop = by_code(findings, "prefill_drop_under_concurrency")
    before = suggestion_text(drop, "en")
    assert before.startswith("A larger max-num-batched-tokens")
    annotated = fast_capped_findings()
    drop = by_code(annotated, "prefill_drop_under_concurrency")
    assert drop.params["predicted"]["withdrawn"] is True
    assert {e["reason"] for e in drop.params["predicted"]["lengths"]} == {"fits_one_step"}
    en, effect = suggestion_parts(drop, "en")
    assert effect is None and "A larger" not in en
    assert en == ("Leave max-num-batched-tokens at 2048: the model fitted to this run predicts "
                  "no gain from raising it to 4096 (at 512, 1k no gain: each prompt fits in one "
                  "step's 2048 tokens already).")
    assert english_runs(suggestion_text(drop, "zh")) == []
    # The finding keeps its words; the cap's suggestion, which does help, is still made.
    assert drop.params["mean_change_by_concurrency"] == by_code(
        findings, "prefill_drop_under_concurrency").params["mean_change_by_concurrency"]
    cap = by_code(annotated, "concurrency_cap")
    assert not cap.params["predicted"]["withdrawn"]
    assert suggestion_text(cap, "en").startswith("Raising max-num-seqs lets more requests")


def test_a_sweep_the_model_cannot_fit_keeps_its_suggestions_without_numbers():
    # No cell at concurrency 1: prefill cannot be told from queueing (FitError).
    cells = sweep("fast-capped", (512, 1024), (2, 4), metrics_cap=2, kv=0.2)
    findings = diagnose(cells, vllm_info(), server_settings=_settings("fast-capped"))
    cap = by_code(findings, "concurrency_cap")
    outcome = annotate(findings, measured_from_results(cells), _settings("fast-capped"))
    assert outcome.status == "fit_failed" and "concurrency 1" in outcome.detail
    assert tuple(outcome.findings) == tuple(findings)
    for lang in ("en", "zh"):
        assert suggestion_parts(cap, lang)[1] is None
    assert "model fitted" not in suggestion_text(cap, "en")
    # A sweep too large to fit quickly is skipped the same way, and says so.
    big = annotate(findings, measured_from_results(cells), _settings("fast-capped"),
                   max_steps=10)
    assert big.status == "too_large" and tuple(big.findings) == tuple(findings)


def test_the_verdict_counts_only_changes_beyond_the_threshold():
    before = (10.0, 20.0, 30.0)  # TTFT p50 s, decode tok/s per request, output tok/s
    assert classify(before, (9.7, 20.0, 30.5)) == "no_gain"  # 3 %, within the fit's noise
    assert classify(before, (8.0, 20.0, 33.0)) == "gain"
    assert classify(before, (5.0, 15.0, 36.0)) == "tradeoff"  # TTFT better, decode worse
    assert classify(before, (9.8, 15.0, 30.0)) == "loss"
    # Faster decode alone is not what a suggestion is for; with TTFT worse it is a loss.
    assert classify(before, (10.0, 23.0, 30.0)) == "no_gain"
    assert classify(before, (14.0, 23.0, 30.0)) == "loss"


def test_the_knobs_are_named_as_the_engine_spells_them(seed):
    sglang = annotate(seed.findings, seed.measured, seed.settings, "sglang", fit=seed.fit)
    cap = by_code(sglang.findings, "concurrency_cap")
    assert "Raising max-running-requests to 4 (model fitted" in suggestion_text(cap, "en")
    drop = by_code(sglang.findings, "prefill_drop_under_concurrency")
    assert "chunked-prefill-size" in suggestion_text(drop, "en")


def test_every_verdict_and_reason_has_english_and_chinese_words():
    for code in (*VERDICTS, *REASONS, "extrapolated"):
        for lang in ("en", "zh"):
            assert WORDS[lang].get(f"eff_{code}"), f"no {lang} words for {code}"


def test_a_prediction_of_an_unknown_shape_shows_the_plain_suggestion(seed):
    cap = by_code(seed.outcome.findings, "concurrency_cap")
    plain = by_code(seed.findings, "concurrency_cap")
    good = cap.params["predicted"]
    for bad in ({"lengths": "many"}, {**good, "lengths": [{"verdict": "x"}]},
                {**good, "lengths": []}, None, {**good, "after": float("inf")},
                {**good, "knob": "x" * 10_000}, {**good, "setting": None}):
        odd = dataclasses.replace(cap, params={**cap.params, "predicted": bad})
        for lang in ("en", "zh"):
            assert suggestion_text(odd, lang) == suggestion_text(plain, lang)


def test_throughput_keeps_the_predictions_with_the_run_and_whatif_shows_them(
        tmp_path, capsys, monkeypatch):
    from desktop_app.cli import main
    from desktop_app.core.store import Store
    from desktop_app.core.throughput.records import load_sweep

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    db = str(tmp_path / "r.db")
    assert main(["--db", db, "throughput", "--simulator", "fast-capped", "--input-tokens",
                 "512,1024", "--concurrency", "1,4", "--output-tokens", "32"]) == 0
    printed = capsys.readouterr()
    assert "Fitting the engine model" in printed.err
    assert "Raising max-num-seqs to 4 (model fitted to this run): at 512 tokens x 4" in (
        printed.out)
    with Store.open(db) as store:
        run = load_sweep(store, 1)
    cap = by_code(run.findings, "concurrency_cap")
    assert run.diagnosis_kept and cap.params["predicted"]["after"] == 4
    # Reopened, the run says what was printed.
    assert suggestion_text(cap, "en") in printed.out
    assert main(["--db", db, "whatif", "--from-run", "1", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "诊断的建议，以及按本次运行拟合的模型预测的效果" in out and "将 max-num-seqs 调到 4" in out
    # What-if's own fit (more rounds) shows the run's kept predictions, never replaces them:
    # the numbers the run stated when it was diagnosed stay its claim.
    assert suggestion_text(cap, "zh") in out and "已随运行的诊断保存" in out
    with Store.open(db) as store:
        again = by_code(load_sweep(store, 1).findings, "concurrency_cap")
    assert again.params["predicted"] == cap.params["predicted"]


def test_a_sweep_run_for_the_window_keeps_its_predictions(tmp_path):
    """The window runs sweeps as `jobs.sweep_job` in a worker process: the job predicts the
    suggestions' effects there and keeps them with the run the window then shows, saying how
    far it is (seconds of CPU after the last request, where the window said only
    "Diagnosing...")."""
    import asyncio
    import threading

    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.launcher import start_simulator
    from desktop_app.core.store import Store
    from desktop_app.core.throughput.config import SweepConfig
    from desktop_app.core.throughput.jobs import sweep_job
    from desktop_app.core.throughput.records import load_sweep

    db = tmp_path / "results.db"
    results = []
    events = []

    def run(url: str) -> None:
        config = SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b"),
                             input_tokens=(256, 1024), concurrency=(1, 4), output_tokens=(64,),
                             requests_per_cell=8, warmup=0, metrics_interval_s=0.05, workers=1)
        results.append(asyncio.run(sweep_job(config, db, None, events.append)))

    with start_simulator("fast-capped") as sim:
        worker = threading.Thread(target=run, args=(sim.url,))
        worker.start()
        worker.join(120)
    result, = results
    cap = by_code(result.findings, "concurrency_cap")
    assert cap.params["predicted"]["after"] == 4
    with Store.open(db) as store:
        kept = load_sweep(store, result.run_id).findings
    assert kept == tuple(result.findings)
    phases = list(dict.fromkeys(e.phase for e in events))
    assert phases[-2:] == ["diagnosing", "predicting"]
    steps = [(e.done, e.total) for e in events if e.phase == "predicting"]
    assert len(steps) > 2 and steps[-1][0] == steps[-1][1] > 1
    assert [d for d, _ in steps[1:]] == sorted(d for d, _ in steps[1:])


def test_a_prediction_starts_from_the_measured_figures(seed):
    """#26: the predicted effect's "before" is the cell the user sees beside it, not the
    fitted model's version of it, and "after" moves it by the model's relative change."""
    cap = by_code(seed.outcome.findings, "concurrency_cap")
    cells = {(c.spec.input_tokens, c.spec.concurrency): c.summary for c in seed.cells}
    for n, e in _by_length(cap).items():
        shown = cells[(n, e["concurrency"])]
        assert e["ttft_p50_s"][0] == pytest.approx(shown.ttft_s.p50)
        assert e["decode_tps"][0] == pytest.approx(shown.decode_tps.mean)
        assert e["output_tps"][0] == pytest.approx(shown.output_tps)
    short = _by_length(cap)[2048]
    assert short["ttft_p50_s"][1] < short["ttft_p50_s"][0]
