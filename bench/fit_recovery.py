"""How well `core/fit.py` recovers a profile it did not see, and predicts a changed cap.

    .venv/bin/python bench/fit_recovery.py

Fits the `fast` profile's parameters from a virtual-time sweep of it (512/1024/2048 tokens x
1/2/4/8 concurrent, 64 out), then fits `fast-capped` and predicts max_num_seqs 16 against the
`fast` profile itself. Prints each parameter with the true value and the worst prediction
error per figure. Results go in docs/WHATIF.md.
"""

from __future__ import annotations

import time

from desktop_app.core.fit import MeasuredCell, changed, fit_profile, predict
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.virtual import simulate_closed_loop


def sweep(profile):
    return [MeasuredCell(n, 64, c, max(4 * c, 8), tuple(simulate_closed_loop(
        profile, input_tokens=n, output_tokens=64, concurrency=c, requests=max(4 * c, 8))))
        for n in (512, 1024, 2048) for c in (1, 2, 4, 8)]


def main() -> None:
    true = load_profile("fast")
    t0 = time.perf_counter()
    fit = fit_profile(sweep(true), {"max_num_seqs": 16, "max_num_batched_tokens": 2048})
    print(f"fit of fast: {time.perf_counter() - t0:.1f} s")
    p = fit.profile
    for name, got, want in (
            ("prefill_tokens_per_s", p.prefill_tokens_per_s, true.prefill_tokens_per_s),
            ("prefill_ctx_slowdown_tokens", p.prefill_ctx_slowdown_tokens,
             true.prefill_ctx_slowdown_tokens),
            ("decode_base_s (+ step overhead)", p.decode_base_s,
             true.decode_base_s + true.step_overhead_s),
            ("decode_per_seq_s", p.decode_per_seq_s, true.decode_per_seq_s),
            ("decode_per_ctx_token_s", p.decode_per_ctx_token_s, true.decode_per_ctx_token_s),
            ("preprocess_s (+ step overhead)", p.preprocess_s,
             true.preprocess_s + true.step_overhead_s)):
        print(f"  {name:<32} {got:.4g}  true {want:.4g}  ({got / want - 1:+.1%})")
    measured = sweep(load_profile("fast-capped"))
    capped = fit_profile(measured, {"max_num_seqs": 2, "max_num_batched_tokens": 2048})
    got = predict(changed(capped.profile, {"max_num_seqs": 16}), measured)
    want = predict(true, measured)
    ttft = max(abs(g.ttft_s.p50 / w.ttft_s.p50 - 1) for g, w in zip(got, want))
    tps = max(abs(g.output_tps / w.output_tps - 1) for g, w in zip(got, want))
    print(f"fast-capped fitted, max_num_seqs 16 predicted against fast: worst TTFT p50 "
          f"{ttft:.1%}, worst output tok/s {tps:.1%}")


if __name__ == "__main__":
    main()
