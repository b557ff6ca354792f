"""The checker that Chinese renderings use: it must find a sentence and pass identifiers."""

from tests.lang_check import english_runs


def test_english_runs_finds_a_sentence_and_passes_identifiers():
    assert english_runs("服务端最多同时运行 2 个请求 (vllm:num_requests_running = 2)") == []
    assert english_runs("列 `grossRevenue` 应为 gross_revenue；缺少 ROUND(x, 2)") == []
    assert english_runs("TTFT p50 22 s -> 11 s，decode 18 -> 13 tok/s") == []
    assert english_runs("建议: Run the client on another machine") == ["Run the client on another machine"]
    assert english_runs("the server ran at most 2") != []
