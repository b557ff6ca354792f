"""The metric definitions, on hand-computed examples."""

from __future__ import annotations

import json

import numpy as np
import pytest

from desktop_app.core.metrics import (
    RequestTiming,
    distribution,
    request_metrics,
    summarize_cell,
    union_length_s,
)


def timing(sent, first, last, prompt=1000, completion=11, chunks=(), error=None):
    return RequestTiming(prompt, completion, sent, first, last, tuple(chunks), error)


def test_per_request_figures():
    m = request_metrics(timing(10.0, 12.0, 17.0, prompt=1000, completion=11))
    assert m.ttft_s == pytest.approx(2.0)
    assert m.prefill_tps == pytest.approx(500.0)
    assert m.decode_tps == pytest.approx(2.0)  # 10 tokens after the first, in 5 s
    assert m.tpot_s == pytest.approx(0.5)  # vLLM's TPOT: excludes TTFT
    assert m.e2e_s == pytest.approx(7.0)


def test_a_chunk_carrying_several_tokens_counts_once_for_itl_but_fully_for_decode():
    # 7 tokens from usage, in 3 content chunks: [1 token] [4 tokens] [2 tokens]
    t = timing(0.0, 1.0, 4.0, completion=7, chunks=(1.0, 3.0, 4.0))
    m = request_metrics(t)
    assert m.itl_s == pytest.approx((2.0, 1.0))
    assert m.decode_tps == pytest.approx(6 / 3.0)


def test_decode_is_undefined_for_one_token_or_a_single_burst():
    assert request_metrics(timing(0.0, 1.0, 1.0, completion=1)).decode_tps is None
    one_burst = request_metrics(timing(0.0, 1.0, 1.0, completion=5))
    assert one_burst.decode_tps is None and one_burst.tpot_s is None
    no_token = request_metrics(timing(0.0, None, None, completion=0, error="timeout"))
    assert no_token.ttft_s is None and no_token.prefill_tps is None and no_token.e2e_s is None


def test_distribution_matches_numpy_linear_percentiles():
    values = [1.0, 2.0, 3.0, 4.0, 10.0]
    d = distribution(values)
    assert d.n == 5 and d.mean == pytest.approx(4.0) and d.min == 1.0 and d.max == 10.0
    assert d.p50 == pytest.approx(3.0)
    assert d.p90 == pytest.approx(np.percentile(values, 90)) == pytest.approx(7.6)
    assert d.p99 == pytest.approx(9.76)
    assert distribution([]) is None


def test_union_of_overlapping_intervals():
    assert union_length_s([(0, 2), (1, 3), (5, 6), (5.5, 5.7)]) == pytest.approx(4.0)
    assert union_length_s([(0, 1), (1, 2)]) == pytest.approx(2.0)  # touching: no gap
    assert union_length_s([]) == 0.0
    assert union_length_s([(3, 3), (4, 2)]) == 0.0


def test_cell_summary_with_failures_and_overlapping_phases():
    a = timing(0.0, 2.0, 6.0, prompt=1000, completion=5, chunks=(2, 3, 4, 5, 6))
    b = timing(1.0, 4.0, 8.0, prompt=3000, completion=9, chunks=(4, 5, 6, 8))
    timeout = timing(0.5, None, None, completion=0, error="timeout")
    http = timing(0.5, None, None, completion=0, error="http_500")
    http2 = timing(0.6, None, None, completion=0, error="http_500")
    s = summarize_cell([a, b, timeout, http, http2])

    assert (s.count, s.ok) == (5, 2)
    assert s.failures_by_class == {"http_500": 2, "timeout": 1}
    # latency stats cover the two completed requests only
    assert s.ttft_s.n == 2 and s.ttft_s.mean == pytest.approx((2.0 + 3.0) / 2)
    assert s.prefill_tps.mean == pytest.approx((500.0 + 1000.0) / 2)
    assert s.decode_tps.mean == pytest.approx((4 / 4.0 + 8 / 4.0) / 2)
    assert s.itl_s.n == 4 + 3  # all gaps pooled
    assert s.e2e_s.max == pytest.approx(7.0)
    # wall: first send (0.0) to last token (8.0); output tok/s counts completed requests
    assert s.wall_s == pytest.approx(8.0)
    assert s.output_tps == pytest.approx(14 / 8.0)
    # prefill intervals [0, 2] and [1, 4] overlap: union 4 s for 4000 prompt tokens
    assert s.effective_prefill_tps == pytest.approx(4000 / 4.0)
    # decode intervals [2, 6] and [4, 8]: union 6 s for 4 + 8 tokens after the first
    assert s.effective_decode_tps == pytest.approx(12 / 6.0)


def test_effective_rate_is_the_time_weighted_sum_of_request_rates():
    """AIPerf's definition: sum each request's rate over the time it is in the phase, averaged
    over the time the phase is active; equal to tokens / union of the phase intervals."""
    a = timing(0.0, 0.0, 4.0, completion=9)  # 2 tok/s on [0, 4]
    b = timing(0.0, 2.0, 4.0, completion=9)  # 4 tok/s on [2, 4]
    s = summarize_cell([a, b])
    rate_integral = 2 * 4 + 4 * 2  # tokens
    assert s.effective_decode_tps == pytest.approx(rate_integral / 4.0)


def test_explicit_wall_time_and_json_export():
    a = timing(0.0, 1.0, 3.0, completion=5)
    s = summarize_cell([a], wall_s=10.0)
    assert s.output_tps == pytest.approx(0.5)
    d = json.loads(json.dumps(s.to_dict()))
    assert d["ttft_s"]["p50"] == pytest.approx(1.0)
    assert d["itl_s"] is None  # no chunk times were kept
    assert d["failures_by_class"] == {}


def test_an_empty_or_all_failed_cell_has_no_rates():
    s = summarize_cell([timing(0.0, None, None, completion=0, error="connect")])
    assert s.ok == 0 and s.ttft_s is None and s.output_tps is None
    assert s.effective_prefill_tps is None and s.effective_decode_tps is None
    assert summarize_cell([]).count == 0
