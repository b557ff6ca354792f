"""What-if checked against a real engine: fit llama.cpp with 2 slots, predict 4, then measure 4.

`throughline whatif --from-run` fits the engine model to a sweep of the 2-slot server that
`make test-real` starts, and predicts the same sweep with `--set parallel=4`. This test then
starts a second llama.cpp server with 4 slots (the same build and model,
`../shared/real-engine/start-real-server.sh` with NP=4), runs the same sweep against it and
compares. At 1 and 2 running at once (batches the 2-slot sweep measured) the predicted TTFT
p50 and decode tok/s must land within MAX_ERROR of what 4 slots measured. At 4 running at once
(a batch the 2-slot sweep never measured) `whatif` must say the figure is extrapolated, and
what it claims for it is held to what an extrapolation can promise on 2 shared CPU cores: TTFT
within MAX_ERROR, decode per request and total output within a factor of EXTRAPOLATED_FACTOR, and decode
per request predicted to fall from what 2 slots measured at 4 concurrent, as it does. Decode
at 4 was predicted -17 % to +50 % off over four runs on the machines we have (the +50 % on CI's):
the per-sequence cost carried past batch 2 is where the model knows least. The figures are
printed (pytest -s) and written down in docs/WHATIF.md. On a machine crowded by other work the
4-slot server slows down far more than any engine model predicts (docs/WHATIF.md has such a
run), and this test fails: run it where the 2 cores are the engine's and the client's.
"""

import json
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
CELLS = ["--input-tokens", "512", "--output-tokens", "32", "--concurrency", "1,2,4",
         "--requests", "8"]
# Worst relative error of a prediction against what was measured: a CPU engine on 2 cores is
# noisy (three quiet runs: at most 27 %).
MAX_ERROR = 0.5
# A figure at a batch the sweep never measured: predicted / measured within [1/2, 2].
EXTRAPOLATED_FACTOR = 2.0


def _cli(db: Path, *args: str, timeout: float = 600) -> str:
    done = subprocess.run([sys.executable, "-m", "desktop_app", "--db", str(db), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _sweep(db: Path, url: str) -> None:
    _cli(db, "throughput", "--base-url", url, *CELLS)


def _cells(db: Path, run_id: int) -> dict[int, dict]:
    from desktop_app.core.store import Store
    from desktop_app.core.throughput.records import load_sweep

    with Store.open(db) as store:
        run = load_sweep(store, run_id)
    return {c.spec.concurrency: {"ttft": c.summary.ttft_s.p50,
                                 "decode": c.summary.decode_tps.mean,
                                 "output": c.summary.output_tps}
            for c in run.cells}


def test_whatif_predicts_four_slots_from_a_two_slot_sweep(real_url, start_server, tmp_path):
    db = tmp_path / "results.db"
    _sweep(db, real_url)  # run 1: 2 slots
    pred_file = tmp_path / "whatif.json"
    _cli(db, "whatif", "--from-run", "1", "--set", "parallel=4", "--json", str(pred_file))
    predicted = {row["concurrency"]: row for row in json.loads(pred_file.read_text())["predicted"]}
    _sweep(db, start_server(NP="4"))  # run 2: 4 slots
    two, four = _cells(db, 1), _cells(db, 2)

    print("\nconcurrency  2 slots measured / 4 predicted / 4 measured: TTFT p50 s"
          "   decode tok/s per request   output tok/s")
    for c in sorted(four):
        p = predicted[c]
        print(f"{c:>11}  {two[c]['ttft']:.3f} / {p['ttft_p50_s'][1]:.3f} / {four[c]['ttft']:.3f}"
              f"   {two[c]['decode']:.1f} / {p['decode_tps'][1]:.1f} / {four[c]['decode']:.1f}"
              f"   {two[c]['output']:.1f} / {p['output_tps'][1]:.1f} / {four[c]['output']:.1f}")

    document = json.loads(pred_file.read_text())
    assert document["extrapolated_beyond_batch"] == 2  # said beside the prediction
    for c in (1, 2):
        for figure, key in (("ttft", "ttft_p50_s"), ("decode", "decode_tps")):
            error = predicted[c][key][1] / four[c][figure] - 1
            assert abs(error) <= MAX_ERROR, f"{figure} at {c}: predicted off by {error:+.0%}"
    error = predicted[4]["ttft_p50_s"][1] / four[4]["ttft"] - 1
    assert abs(error) <= MAX_ERROR, f"ttft at 4: predicted off by {error:+.0%}"
    for figure, key in (("decode", "decode_tps"), ("output", "output_tps")):
        ratio = predicted[4][key][1] / four[4][figure]
        assert 1 / EXTRAPOLATED_FACTOR <= ratio <= EXTRAPOLATED_FACTOR, (
            f"{figure} at 4 (extrapolated): predicted {ratio:.2f}x what 4 slots measured")
    # Read as a user reads it: each stream decodes slower with 4 in a batch than with 2. (Total
    # output at 4 is no such test: on 2 CPU cores 4 slots came out about even with 2.)
    assert predicted[4]["decode_tps"][1] < two[4]["decode"], "decode at 4 predicted to rise"
    assert four[4]["decode"] < two[4]["decode"], "decode at 4 measured to rise with 4 slots"
