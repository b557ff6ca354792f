"""What-if sweeps and the virtual-time driver behind them."""

from __future__ import annotations

import io
import json

import pytest

from desktop_app.core.simulator.engine import Profile
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.virtual import simulate_closed_loop, simulate_open_loop
from desktop_app.cli.whatif import print_profile_whatif
from desktop_app.core.whatif import format_table, run_whatif, whatif_to_json
from desktop_app.report.sweep_table_words import table_headers

SMALL = Profile(
    name="small", max_num_seqs=2, max_num_batched_tokens=1024, kv_cache_tokens=50_000,
    prefill_tokens_per_s=5000.0, preprocess_s=0.01, step_overhead_s=0.001,
    decode_base_s=0.01, decode_per_seq_s=0.002,
)


def test_closed_loop_keeps_concurrency_clients_busy_and_drops_warmup():
    timings = simulate_closed_loop(SMALL, input_tokens=500, output_tokens=20, concurrency=3,
                                   requests=7, warmup=2)
    assert len(timings) == 7
    assert all(t.completion_tokens == 20 and len(t.chunk_times_s) == 20 for t in timings)
    assert all(t.ok for t in timings)
    # the two warm-up requests were sent at t=0 with the third; the first kept one is that third
    assert timings[0].sent_s == 0.0 and all(t.sent_s > 0 for t in timings[1:])
    # every later request is sent the moment an earlier one finished
    everything = simulate_closed_loop(SMALL, input_tokens=500, output_tokens=20, concurrency=3,
                                      requests=9)
    finishes = {t.last_token_s for t in everything}
    assert all(t.sent_s in finishes for t in everything[3:])


def test_closed_loop_with_one_client_is_sequential_and_steady():
    timings = simulate_closed_loop(SMALL, input_tokens=1000, output_tokens=11, concurrency=1,
                                   requests=3)
    for prev, nxt in zip(timings, timings[1:]):
        assert nxt.sent_s == prev.last_token_s
    ttfts = {round(t.first_token_s - t.sent_s, 9) for t in timings}
    assert len(ttfts) == 1


def test_open_loop_is_deterministic_for_a_seed():
    a = simulate_open_loop(SMALL, input_tokens=200, output_tokens=5, rate_per_s=4.0,
                           requests=20, seed=7)
    b = simulate_open_loop(SMALL, input_tokens=200, output_tokens=5, rate_per_s=4.0,
                           requests=20, seed=7)
    c = simulate_open_loop(SMALL, input_tokens=200, output_tokens=5, rate_per_s=4.0,
                           requests=20, seed=8)
    assert a == b and a != c
    sends = [t.sent_s for t in a]
    assert sends == sorted(sends) and sends[0] == 0.0
    assert 2.0 < sends[-1] < 10.0  # 19 gaps of mean 0.25 s


def test_requests_that_cannot_fit_are_refused():
    with pytest.raises(ValueError, match="max_model_len"):
        simulate_closed_loop(SMALL, input_tokens=200_000, output_tokens=5, concurrency=1,
                             requests=1)
    with pytest.raises(ValueError, match="KV cache"):
        simulate_closed_loop(SMALL, input_tokens=60_000, output_tokens=5, concurrency=1,
                             requests=1)


def test_run_whatif_cells_defaults_and_changes_against_one_client():
    cells = run_whatif(SMALL, [500, 2000], [1, 4], [16])
    assert [(c.input_tokens, c.concurrency) for c in cells] == [(500, 1), (500, 4),
                                                                 (2000, 1), (2000, 4)]
    assert [c.requests for c in cells] == [8, 16, 8, 16]  # max(4 x concurrency, 8)
    assert all(c.summary.count == c.requests for c in cells)
    one, four = cells[2], cells[3]
    assert one.prefill_change == 0.0
    expected = four.summary.prefill_tps.mean / one.summary.prefill_tps.mean - 1
    assert four.prefill_change == pytest.approx(expected)
    assert four.prefill_change < 0  # four clients and two slots: requests queue
    without_one = run_whatif(SMALL, [500], [2], [16], requests_per_cell=3)
    assert without_one[0].requests == 3
    assert without_one[0].prefill_change is None and without_one[0].decode_change is None
    wave = run_whatif(SMALL, [500], [3], [16], requests_per_client=1)
    assert wave[0].requests == 3


def test_bad_numbers_are_value_errors():
    for args in (([0], [1], [8]), ([100], [], [8]), ([100], [1], [-1])):
        with pytest.raises(ValueError):
            run_whatif(SMALL, *args)
    with pytest.raises(ValueError, match="requests per cell"):
        run_whatif(SMALL, [100], [1], [8], requests_per_cell=0)


def test_table_and_json_say_what_they_are():
    cells = run_whatif(SMALL, [500], [1, 2], [8])
    table = format_table(cells, table_headers("en")).splitlines()
    assert len(table) == 3 and "TTFT p50" in table[0] and "Prefill tok/s" in table[0]
    assert len({len(line) for line in table}) == 1  # aligned
    data = json.loads(json.dumps(whatif_to_json(SMALL, cells)))
    assert data["profile"] == "small" and data["simulated"] is True
    assert "decode_tps" in data["definitions"]
    assert data["profile_parameters"]["prefill_ctx_slowdown_tokens"] is None  # infinite
    assert data["cells"][1]["metrics"]["ttft_s"]["mean"] > 0


def test_whatif_command_prints_a_simulated_table_and_writes_json(tmp_path):
    out = io.StringIO()
    path = tmp_path / "whatif.json"
    code = print_profile_whatif("fast", [512, 2048], [1, 2], [16], "sweep", path, out)
    assert code == 0
    lines = out.getvalue().splitlines()
    assert "simulated" in lines[0].lower() and "'fast'" in lines[0]
    assert "max(4 x concurrency, 8)" in lines[0]
    data = json.loads(path.read_text())
    assert data["cells"][0]["input_tokens"] == 512
    assert [c["requests"] for c in data["cells"]] == [8, 8, 8, 8]


@pytest.mark.parametrize("args, message", [
    (("no-such-profile", [512], [1], [16], "wave"), "no-such-profile"),
    (("fast", [512], [0], [16], "wave"), "concurrency"),
    (("fast", [512], [1], [16], "many"), "many"),
])
def test_whatif_command_errors_are_value_errors(args, message):
    with pytest.raises(ValueError, match=message):
        print_profile_whatif(*args, None, io.StringIO())


def test_the_issue_command_reproduces_the_reference_ttft(tmp_path, capsys):
    """`throughline whatif --profile seed-reference --input-tokens 2048,32768 --concurrency
    1,2,4,6 --output-tokens 256 --json OUT`: one wave per cell by default, as the seeds
    measured, so TTFT at 32k is 51.5 s alone and about 186 s with 6 at once (within 15 %)."""
    from desktop_app.cli import main

    out = tmp_path / "whatif.json"
    assert main(["whatif", "--profile", "seed-reference", "--input-tokens", "2048,32768",
                 "--concurrency", "1,2,4,6", "--output-tokens", "256", "--json", str(out)]) == 0
    assert "one wave" in capsys.readouterr().out.splitlines()[0]
    cells = {(c["input_tokens"], c["concurrency"]): c for c in json.loads(out.read_text())["cells"]}
    assert cells[(32768, 1)]["metrics"]["ttft_s"]["mean"] == pytest.approx(51.5, rel=0.15)
    assert cells[(32768, 6)]["metrics"]["ttft_s"]["mean"] == pytest.approx(186.4, rel=0.15)
    assert cells[(2048, 6)]["metrics"]["prefill_tps"]["mean"] == pytest.approx(228, rel=0.15)
    assert cells[(2048, 6)]["requests"] == 6


def test_fast_profile_sweep_takes_seconds_of_server_time():
    cells = run_whatif(load_profile("fast"), [512, 1024, 2048], [1, 2, 4, 8], [64])
    total = sum(c.summary.wall_s for c in cells)
    assert 5 < total < 20, f"fast sweep takes {total:.1f} s of server time"
    for c in cells:
        assert c.summary.ttft_s.p50 < 0.2
        assert 100 <= c.summary.decode_tps.mean <= 350


def test_whatif_prints_chinese_with_throughline_lang(tmp_path, capsys, monkeypatch):
    from desktop_app.cli import main
    from tests.lang_check import english_runs

    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["whatif", "--profile", "fast", "--input-tokens", "512", "--concurrency", "1,2",
                 "--output-tokens", "16", "--json", str(tmp_path / "w.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("配置 'fast' 的模拟结果") and "一轮" in out[0]
    assert out[1].split()[:3] == ["输入", "负载", "输出"]
    assert out[-1].startswith("JSON 已写入")
    assert [english_runs(line) for line in (out[0], out[1], out[-1])] == [[], [], []]
    document = json.loads((tmp_path / "w.json").read_text())
    assert document["requests_method"] == "wave" and document["requests_per_cell"] is None
    assert main(["whatif", "--profile", "fast", "--requests", "many"]) == 2
    assert "--requests：'many' 不是 'wave'、'sweep' 或数字" in capsys.readouterr().err


@pytest.mark.parametrize(("kwargs", "field", "zh"), [
    ({"concurrency": [4, 0]}, "concurrency", "0 必须是不小于 1 的整数"),
    ({"input_tokens": []}, "input tokens", "请给出一个或多个值"),
    ({"warmup": -1}, "warm-up", "-1 不能为负数"),
])
def test_a_bad_plan_names_its_field_in_the_readers_language(kwargs, field, zh):
    from desktop_app.core.parsing import InputError
    from desktop_app.report.input_words import input_error_text

    plan = {"input_tokens": [512], "concurrency": [1], "output_tokens": [32], **kwargs}
    with pytest.raises(InputError) as caught:
        run_whatif(load_profile("fast"), **plan)
    assert caught.value.field == field
    assert zh in input_error_text(caught.value, "zh")
