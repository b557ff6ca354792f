"""The engine model fitted to a measured sweep (#15): parameters recovered from a sweep of a
known profile, a changed max_num_seqs predicted, and `whatif --from-run` on a stored sweep."""

from __future__ import annotations

import json

import pytest

from desktop_app.cli import main
from desktop_app.core.fit import (
    MeasuredCell,
    changed,
    fit_profile,
    parse_changes,
    predict,
)
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.virtual import simulate_closed_loop


def sweep(profile, lengths=(512, 1024, 2048), loads=(1, 2, 4, 8)):
    cells = []
    for n in lengths:
        for c in loads:
            requests = max(4 * c, 8)
            cells.append(MeasuredCell(n, 64, c, requests, tuple(simulate_closed_loop(
                profile, input_tokens=n, output_tokens=64, concurrency=c, requests=requests))))
    return cells


def close(got, want, within=0.10):
    return abs(got / want - 1) <= within


def test_a_sweep_of_a_profile_gives_back_its_parameters():
    true = load_profile("fast")
    fit = fit_profile(sweep(true), {"max_num_seqs": 16, "max_num_batched_tokens": 2048})
    p = fit.profile
    assert close(p.prefill_tokens_per_s, true.prefill_tokens_per_s)
    assert close(p.prefill_ctx_slowdown_tokens, true.prefill_ctx_slowdown_tokens)
    # The step overhead cannot be told apart from the client's side: it is folded in.
    assert close(p.decode_base_s, true.decode_base_s + true.step_overhead_s)
    assert close(p.decode_per_seq_s, true.decode_per_seq_s)
    assert close(p.preprocess_s, true.preprocess_s + true.step_overhead_s)
    assert abs(fit.worst("ttft")) < 0.05 and abs(fit.worst("decode")) < 0.05
    sources = {param.name: param.source for param in fit.params}
    assert sources["max_num_seqs"] == "server" and sources["kv_cache_tokens"] == "assumed"


def test_a_raised_max_num_seqs_is_predicted_within_ten_percent():
    capped, uncapped = load_profile("fast-capped"), load_profile("fast")
    measured = sweep(capped)
    fit = fit_profile(measured, {"max_num_seqs": 2, "max_num_batched_tokens": 2048})
    predicted = predict(changed(fit.profile, parse_changes(["max-num-seqs=16"])), measured)
    actual = predict(uncapped, measured)
    for cell, got, want in zip(measured, predicted, actual):
        assert close(got.ttft_s.p50, want.ttft_s.p50), cell
        assert close(got.output_tps, want.output_tps), cell
    # ... and the queue it removes is large: at 8 concurrent, TTFT falls by more than half.
    before = predict(fit.profile, measured)
    assert predicted[-1].ttft_s.p50 < before[-1].ttft_s.p50 / 2
    # Batches above 2 never ran: a prediction letting more run at once says it extrapolates;
    # one letting fewer, or no more than the cells' concurrency allows, does not.
    assert fit.extrapolated_batch(parse_changes(["max-num-seqs=16"])) == 2
    assert fit.extrapolated_batch(parse_changes(["max-num-seqs=1"])) is None
    uncapped_fit = fit_profile(measured, {"max_num_seqs": 16, "max_num_batched_tokens": 2048})
    assert uncapped_fit.extrapolated_batch(parse_changes(["max-num-seqs=64"])) is None


def test_changes_take_engine_spellings_and_name_bad_items():
    assert parse_changes(["--parallel=4", "chunked_prefill_size=4096", "kv_capacity=x1.5"]) == {
        "max_num_seqs": 4, "max_num_batched_tokens": 4096, "kv_capacity_factor": 1.5}
    assert parse_changes(["kv_capacity=200000"]) == {"kv_capacity": 200000}
    # TGI's: its batch-size limit, its prefill budget, and its batch's token budget (the cache).
    assert parse_changes(["--max-batch-size=8", "max-batch-prefill-tokens=4096",
                          "max_batch_total_tokens=160000"]) == {
        "max_num_seqs": 8, "max_num_batched_tokens": 4096, "kv_capacity": 160000}
    with pytest.raises(ValueError, match="max-concurrent-requests"):
        parse_changes(["max-concurrent-requests=8"])  # refuses what it cannot run: not a cap
    profile = load_profile("fast")
    assert changed(profile, {"kv_capacity_factor": 1.5}).kv_cache_tokens == 180_000
    with pytest.raises(ValueError, match="'temperature=1'"):
        parse_changes(["temperature=1"])
    with pytest.raises(ValueError, match="whole number"):
        parse_changes(["max_num_seqs=2.5"])


def test_whatif_from_a_stored_sweep(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    db = str(tmp_path / "r.db")
    assert main(["--db", db, "throughput", "--simulator", "fast-capped", "--input-tokens",
                 "512,1024", "--concurrency", "1,4", "--output-tokens", "32"]) == 0
    capsys.readouterr()
    out_json = tmp_path / "fit.json"
    assert main(["--db", db, "whatif", "--from-run", "1", "--set", "max_num_seqs=8",
                 "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    # The cap is read from what the server reported, not typed.
    assert "max_num_seqs                  2            server" in out
    assert "What if max_num_seqs=8" in out and "virtual time" in out
    doc = json.loads(out_json.read_text())
    at4 = [r for r in doc["predicted"] if r["concurrency"] == 4]
    assert all(after < before for before, after in (r["ttft_p50_s"] for r in at4))
    assert main(["--db", db, "whatif", "--from-run", "1", "--set", "colour=blue"]) != 0
    assert "--set" in capsys.readouterr().err


def test_the_worst_cell_error_keeps_its_sign():
    """A cell the fit predicts 19 % low is shown as -19 %, as the per-cell table shows it."""
    from desktop_app.core.fit import CellError, Fit

    errors = (CellError(512, 1, 0.05, -0.19, 0.02), CellError(512, 4, -0.08, 0.11, None))
    fit = Fit(load_profile("fast"), (), errors)
    assert fit.worst("prefill") == -0.19
    assert fit.worst("ttft") == -0.08
    assert fit.worst("decode") == 0.02
