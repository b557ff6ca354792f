"""Workload files a sweep replays (#29): each format detected and named on a small file the
test writes, a bad record left out by its line with the rest loaded, closed-loop and on-schedule
replay against the simulator."""

import asyncio
import dataclasses
import json
import time

import httpx
import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.client import make_client
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.prompts import PromptFactory
from desktop_app.core.throughput.records import load_sweep
from desktop_app.core.throughput.resume import sweep_config_from_json
from desktop_app.core.throughput.sweep import _blocks, run_sweep
from desktop_app.core.throughput.workload import (
    BLOCK_TOKENS, WorkloadRecord, load_workload, schedule, summarize,
)
from desktop_app.report.errors import error_text
from tests.lang_check import english_runs

WORDS = "the quick brown fox jumps over a lazy dog while rain falls on the quiet town"


def _sharegpt(path, n=6):
    items = [{"id": str(i), "conversations": [
        {"from": "human", "value": f"{WORDS} question {i} " * (2 + i)},
        {"from": "gpt", "value": "an answer " * (5 + i)},
        {"from": "human", "value": "and a follow-up, not used"}]} for i in range(n)]
    items.insert(2, {"id": "alone", "conversations": [{"from": "human", "value": "no reply"}]})
    items.insert(4, {"id": "no list"})
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def _jsonl(path, n=6):
    lines = [json.dumps({"prompt": f"{WORDS} {i} " * 3, "max_tokens": 4 + i}) for i in range(n)]
    lines.insert(3, '{"prompt": "cut off in the mid')  # a truncated record
    lines.append(json.dumps({"messages": [{"role": "system", "content": "be brief"},
                                          {"role": "user", "content": WORDS * 2}],
                             "max_tokens": 5}))
    lines.append(json.dumps({"prompt": WORDS, "max_tokens": -3}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _mooncake(path, n=8, step_ms=100):
    lines = [json.dumps({"timestamp": i * step_ms, "input_length": 600 + 10 * i,
                         "output_length": 6, "hash_ids": [7, 1000 + i]}) for i in range(n)]
    lines.insert(5, json.dumps({"timestamp": 5, "input_length": 100, "output_length": 4,
                                "hash_ids": [1, 2, 3]}))  # 3 blocks cannot make 100 tokens
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_each_format_is_detected_and_a_bad_record_is_left_out_by_its_line(tmp_path):
    share = load_workload(_sharegpt(tmp_path / "sg.json"))
    assert (share.format, share.label, len(share.records)) == ("sharegpt", "sharegpt:sg.json", 6)
    assert [(s.line, s.code) for s in share.skipped] == [(3, "no_exchange"),
                                                          (5, "no_conversations")]
    first = share.records[0]
    assert first.prompt.startswith(WORDS) and first.output_chars == len("an answer " * 5)
    lines = load_workload(_jsonl(tmp_path / "p.jsonl"))
    assert (lines.format, len(lines.records)) == ("jsonl", 7)
    assert [(s.line, s.code) for s in lines.skipped] == [(4, "not_json"), (9, "bad_max_tokens")]
    assert [r.output_tokens for r in lines.records] == [4, 5, 6, 7, 8, 9, 5]
    assert lines.records[-1].messages[0] == {"role": "system", "content": "be brief"}
    trace = load_workload(_mooncake(tmp_path / "t.jsonl"))
    assert (trace.format, len(trace.records), trace.timed) == ("mooncake", 8, True)
    assert [(s.line, s.code) for s in trace.skipped] == [(6, "hash_ids_longer")]
    summary = summarize(trace)
    assert summary.duration_s == pytest.approx(0.7)
    # Block 7 opens every record: 7 of the 16 blocks repeat one sent before.
    assert summary.shared_prefix_share == pytest.approx(7 / 16)
    assert sum(n for _, _, n in summary.histogram("input")) == 8


def test_a_file_with_nothing_to_send_is_refused_naming_it_in_the_readers_language(tmp_path):
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"question": "q"}\n{"question": "r"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="odd.jsonl: not a workload this knows"):
        load_workload(odd)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"prompt": 3}\n{"prompt": ""}\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_workload(broken)
    said = error_text(caught.value, "zh")
    assert "broken.jsonl：这个 jsonl 文件中没有可发送的记录（跳过 2 条；第一条：第 1 行：没有 prompt 或 messages）" \
        in said, said
    assert english_runs(said) == [], said
    with pytest.raises(InputError, match="no such file"):
        load_workload(tmp_path / "missing.json")


def test_a_trace_is_cut_into_blocks_and_equal_hash_ids_share_a_prefix():
    record = WorkloadRecord(1, input_tokens=1100, output_tokens=4, hash_ids=(9, 4, 5))
    assert _blocks(record) == [(9, BLOCK_TOKENS), (4, BLOCK_TOKENS), (5, 1100 - 2 * BLOCK_TOKENS)]
    assert _blocks(WorkloadRecord(2, input_tokens=300)) == [(-1, 300)]
    times = schedule([WorkloadRecord(1, timestamp_s=10.0), WorkloadRecord(2, timestamp_s=12.0)],
                     speedup=4)
    assert times == [0.0, 0.5]

    async def build():
        with start_simulator("instant") as sim:
            endpoint = EndpointConfig(sim.url, model="sim/llama-sim-8b", api="completions")
            async with make_client(endpoint, 2) as client:
                info = await discover(endpoint, client)
                prompts = PromptFactory(client, endpoint, info, seed=3)
                a = await prompts.blocks([(0, BLOCK_TOKENS), (1, 40)])
                b = await prompts.blocks([(0, BLOCK_TOKENS), (2, 40)])
                alone = await prompts.prompt(BLOCK_TOKENS, 0)
        return a, b, alone

    a, b, alone = asyncio.run(build())
    assert a.text.startswith(alone.text + "\n") and b.text.startswith(alone.text + "\n")
    assert a.text != b.text


@pytest.fixture(scope="module")
def instant():
    with start_simulator("instant") as sim:
        yield sim


def _config(url, workload, **kw):
    return SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b", api="completions"),
                       input_tokens=(), workload=workload.ref(), concurrency=(1, 2), warmup=1,
                       metrics_interval_s=0.1, **kw)


@pytest.mark.parametrize("make", [_sharegpt, _jsonl, _mooncake])
def test_a_workload_is_replayed_at_each_concurrency(instant, tmp_path, make):
    workload = load_workload(make(tmp_path / "w.jsonl"))
    config = _config(instant.url, workload)
    with Store.open(tmp_path / "r.db") as store:
        result = asyncio.run(asyncio.wait_for(run_sweep(config, store), 60))
        run = load_sweep(store, result.run_id)
        stored = store.get_run(result.run_id).config
    n = len(workload.records)
    assert [c.spec.label for c in run.cells] == [f"{workload.label} in / {config.output_tokens[0]}"
                                                 f" out / c={c}" for c in (1, 2)]
    assert [c.summary.ok for c in result.cells] == [n, n]
    if workload.format != "sharegpt":  # the file says each output length
        asked = sorted(r.estimated_output(0) for r in workload.records)
        assert sorted(r.completion_tokens for r in result.requests if r.cell == 0) == asked
    if workload.format == "mooncake":  # lengths only: built to them, within a token a block
        sent = sorted(r.prompt_tokens for r in result.requests if r.cell == 0)
        wanted = sorted(r.input_tokens for r in workload.records)
        assert all(abs(s - w) <= 2 for s, w in zip(sent, wanted)), (sent, wanted)
        assert all(c.token_mismatches == 0 for c in result.cells)
    again = sweep_config_from_json(stored, config.endpoint)
    assert again.workload == config.workload and again.cells() == config.cells()


def test_a_changed_file_is_not_replayed_as_the_run_that_named_it(instant, tmp_path):
    path = _jsonl(tmp_path / "p.jsonl")
    config = _config(instant.url, load_workload(path))
    path.write_text(json.dumps({"prompt": WORDS * 4, "max_tokens": 3}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="is not the file the run replayed"):
        asyncio.run(run_sweep(config, None))


def test_a_trace_on_its_schedule_waits_for_each_timestamp_and_says_how_late_it_sent(
        instant, tmp_path):
    workload = load_workload(_mooncake(tmp_path / "t.jsonl", n=8, step_ms=200))
    config = _config(instant.url, workload, speedup=2.0)
    (spec,) = config.cells()
    assert spec.concurrency is None and spec.request_rate == pytest.approx(8 / 1.4 * 2)
    httpx.delete(f"{instant.url}/sim/trace", timeout=5)
    started = time.perf_counter()
    result = asyncio.run(asyncio.wait_for(run_sweep(config, None), 60))
    cell = result.cells[0]
    assert cell.summary.ok == 8
    # 1.4 s of trace at twice the speed: no send went before its time.
    assert time.perf_counter() - started >= 0.7
    arrivals = sorted(r["arrival_s"] for r in httpx.get(f"{instant.url}/sim/trace",
                                                         timeout=5).json()["records"])[-8:]
    assert arrivals[-1] - arrivals[0] >= 0.7 - 0.01
    late = cell.send_lateness
    assert late["n"] == 8 and 0 <= late["p50"] <= late["p99"] <= late["max"]


def test_the_cli_replays_a_workload_and_refuses_a_schedule_it_cannot_keep(instant, tmp_path,
                                                                         capsys, monkeypatch):
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "r.db"))
    path = _jsonl(tmp_path / "p.jsonl")
    assert main(["throughput", "--base-url", instant.url, "--workload", str(path),
                 "--concurrency", "2", "--warmup", "0"]) == 0
    captured = capsys.readouterr()
    assert "Workload jsonl:p.jsonl: 7 records" in captured.err
    assert "2 record(s) of the file left out; the first: line 4: not JSON" in captured.err
    assert any(line.strip().startswith("jsonl:p.jsonl:") and "7/7" in line
               for line in captured.out.splitlines()), captured.out
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["throughput", "--base-url", instant.url, "--workload", str(path),
                 "--on-schedule"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "并非每条记录都有 timestamp" in err, err
    assert main(["throughput", "--base-url", instant.url, "--input-tokens", "64",
                 "--on-schedule"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "仅可与 --workload FILE" in err, err


def test_a_sweep_file_names_its_workload_beside_it_and_its_schedule(instant, tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "r.db"))
    folder = tmp_path / "plans"
    folder.mkdir()
    _mooncake(folder / "t.jsonl", n=4, step_ms=100)
    sweep = folder / "sweep.toml"
    sweep.write_text('workload = "t.jsonl"\non_schedule = true\nspeedup = 4\napi = "completions"\n'
                     "warmup = 0\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # not the file's folder: the path is read beside the file
    assert main(["throughput", "--base-url", instant.url, "--config", str(sweep)]) == 0
    out = capsys.readouterr().out
    assert "mooncake:t.jsonl x4" in out and "(x4)" in out and "(4 sends)" in out, out
    sweep.write_text('workload = "t.jsonl"\nspeedup = "fast"\n', encoding="utf-8")
    assert main(["throughput", "--base-url", instant.url, "--config", str(sweep)]) == 2
    assert "speedup" in capsys.readouterr().err


def test_a_sharegpt_file_cut_short_keeps_the_conversations_before_the_cut(tmp_path):
    whole = _sharegpt(tmp_path / "whole.json").read_text(encoding="utf-8")
    cut = tmp_path / "cut.json"
    cut.write_text(whole[: len(whole) * 2 // 3], encoding="utf-8")  # a download stopped early
    workload = load_workload(cut)
    assert 0 < len(workload.records) < 6
    last = workload.skipped[-1]
    assert last.code == "list_broken" and last.line > len(workload.records)
    nested = tmp_path / "nested.json"
    nested.write_text('[{"conversations": [{"from": "human", "value": "q"}, {"from": "gpt", '
                      '"value": "a"}]}, ' + "[" * 100_000 + "]" * 100_000 + "]", encoding="utf-8")
    deep = load_workload(nested)
    assert len(deep.records) == 1 and deep.skipped[-1].code == "list_broken"


def test_sharegpt_replies_are_sized_by_the_servers_tokenizer_not_four_characters_a_token(
        instant, tmp_path):
    """A Chinese reply is about a character a token, not four: the first replies are counted
    with the server's /tokenize and every reply's length is taken at that rate."""
    replies = ["这是一个关于销售数据的回答。" * (2 + i) for i in range(5)]
    items = [{"conversations": [{"from": "human", "value": f"{WORDS} 问题 {i}"},
                                {"from": "gpt", "value": reply}]}
             for i, reply in enumerate(replies)]
    path = tmp_path / "zh.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    workload = load_workload(path)
    config = dataclasses.replace(_config(instant.url, workload), concurrency=(1,), warmup=0)
    result = asyncio.run(asyncio.wait_for(run_sweep(config, None), 60))
    # The simulator's tokenizer makes each of these characters a token of its own.
    assert (result.reply_chars_per_token, result.replies_counted) == (1.0, 5)
    assert sorted(r.completion_tokens for r in result.requests) == sorted(map(len, replies))
    # The estimate without a tokenizer would have asked for a quarter of each reply.
    assert sorted(r.estimated_output(0) for r in workload.records) == [
        -(-len(x) // 4) for x in sorted(replies, key=len)]
