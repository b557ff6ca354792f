"""Verdicts that respect noise (issue #11): identical servers compare as about even, a real
difference wins with `significant`, a client-bound cell never wins or loses, two SQL runs on the
same questions get an exact McNemar test, the `compare` command's JSON, and every verdict in
Chinese.

The sweeps run on the built-in simulator once for the module (about 10 s): two of the `fast`
profile, then one of `fast-capped` (the same server with max_num_seqs 2, so at 4 concurrent two
requests queue behind the two running ones, each 32 tokens long).
"""

import asyncio
import dataclasses
import json
import re

import pytest

from desktop_app import paths
from desktop_app.cli import main
from desktop_app.core.compare import VERDICT_CODES, compare, dimension_rows
from desktop_app.core.compare.dimensions import DimensionRow, DimValue, RowVerdict
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.stats import ALPHA, mcnemar_exact
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.core.throughput.types import ClientLoad
from desktop_app.report.verdicts import render_row, row_label, value_text
from tests.core.compare.test_compare import by_key, cell, question, sql_run, tp_run

SIM_MODEL = "sim/llama-sim-8b"


async def _sweep(store: Store, url: str, name: str) -> int:
    # 1024-token prompts: a TTFT of about 25 ms alone, well above the client's own jitter.
    # 32 requests a cell: with 16, the capped server's first two (unqueued) requests weighed
    # enough in its mean to make its interval reach the uncapped one's on a busy machine.
    config = SweepConfig(EndpointConfig(url, model=SIM_MODEL), input_tokens=(1024,),
                         concurrency=(1, 4), output_tokens=(32,), requests_per_cell=32,
                         warmup=1, metrics_interval_s=0.05, name=name)
    return (await run_sweep(config, store)).run_id


async def _sweeps(store: Store, urls: list[str]) -> list[int]:
    # One after the other: side by side, one sweep's 4-concurrent cell would slow the other's
    # 1-concurrent cell on the shared CPU, a real difference between two identical servers.
    return [await _sweep(store, url, f"sweep {i}") for i, url in enumerate(urls)]


@pytest.fixture(scope="module")
def stored(tmp_path_factory, steady_load):
    folder = tmp_path_factory.mktemp("noise")
    db = folder / "results.db"
    with steady_load(), Store.open(db) as store, start_simulator("fast") as fast1, \
            start_simulator("fast") as fast2, start_simulator("fast-capped") as capped:
        ids = asyncio.run(_sweeps(store, [fast1.url, fast2.url, capped.url]))
        ev = EvalConfig(EndpointConfig(fast1.url, model="sim/careful"),
                        question_ids=("t01", "e01"), concurrency=2, name="eval careful")
        sql = asyncio.run(run_eval(ev, store, sets_dir=paths.questions_dir(),
                                   cache_dir=folder / "dbs")).run_id
    return db, ids, sql


def trusting(run):
    """The run with its client-bound marks and measured lateness cleared: on a busy test machine (two cores, the
    simulator beside the client) nearly every cell is marked, which would hide the noise rule
    these tests are about behind the client-bound rule."""
    return dataclasses.replace(run, cells=tuple(
        dataclasses.replace(c, client_bound=False,
                            result=dataclasses.replace(c.result, client_load=None))
        for c in run.cells))


def test_identical_servers_compare_as_about_even_in_every_row(stored):
    db, (a, b, _), _ = stored
    with Store.open(db) as store:
        comp = compare(store, [a, b])
    assert comp.settings_differ == {}  # the same profile; the random ports do not count
    for runs in (list(comp.runs), [trusting(r) for r in comp.runs]):
        rows = dimension_rows(runs)
        # Per cell (1024 tokens at 1 and 4): total output, requests/s, TTFT, TPOT, decode,
        # prefill, and the prefill change at 4; each figure with its tally.
        assert len([r for r in rows if r.cell]) == 13
        assert [r.key for r in rows if r.scope == "tally"] == [
            "output_tps", "request_rate", "ttft", "tpot", "decode", "prefill", "prefill_change"]
        for row in rows:
            assert row.verdict.winner is None and not row.verdict.significant, (
                row.key, row.params, render_row(row, runs))
    # Trusted, every figure has an interval and lands "about even": inside the noise, or
    # outside it by less than two runs of one server drift apart (stats.MIN_EFFECT).
    assert {r.verdict.code for r in dimension_rows([trusting(r) for r in comp.runs])
            if r.cell} <= {"within_noise", "below_min_effect"}
    # ... and with the client's lateness as it was measured, at most "could be the client".
    assert {r.verdict.code for r in dimension_rows(list(comp.runs)) if r.cell} <= {
        "within_noise", "below_min_effect", "within_client_lag"}
    assert {s.status for s in comp.scenarios} == {"even"}
    assert comp.trade_off is None


def test_a_capped_server_loses_on_prefill_and_ttft_at_4_concurrent(stored):
    db, (fast, _, capped), _ = stored
    with Store.open(db) as store:
        comp = compare(store, [fast, capped])
    assert comp.settings_differ["max_num_seqs"] == {fast: 16, capped: 2}
    assert comp.settings_differ["endpoint"] == {fast: "simulator:fast",
                                                capped: "simulator:fast-capped"}
    runs = [trusting(r) for r in comp.runs]
    rows = dimension_rows(runs)
    for key in ("prefill", "ttft"):
        row = by_key(rows, key, concurrency=4)
        v = row.verdict
        assert (v.status, v.winner, v.runner_up, v.significant) == ("win", 0, 1, True), (
            key, render_row(row, runs))
        assert v.method == ("bootstrap-median" if key == "ttft" else "bootstrap-mean")
        slow, quick = row.values[1], row.values[0]
        better = quick.low > slow.high if key == "prefill" else quick.high < slow.low
        assert better  # outside both intervals, which is what "significant" promised
        assert render_row(row, runs).startswith(f"{runs[0].info.label} wins: ")


def _late(c, lag_ms):
    """The cell as one whose client loop ran up to `lag_ms` late (p99)."""
    load = ClientLoad(lag_ms / 2, lag_ms, lag_ms * 2, 90.0, 100)
    return dataclasses.replace(c, client_bound=True,
                               result=dataclasses.replace(c.result, client_load=load))


def test_the_clients_lateness_is_an_error_bar_not_a_veto():
    # TTFT 0.5 s against 1.5 s, with the client 7 ms late: far more than the client could
    # explain, so the faster run wins, marked client-bound (the 44 against 138 ms).
    fast = tp_run(1, [_late(cell(1000, 1, 900.0, 30.0, ttft=0.5), 7.0)])
    slow = tp_run(2, [cell(1000, 1, 300.0, 10.0, ttft=1.5)])
    rows = dimension_rows([fast, slow])
    ttft = by_key(rows, "ttft", concurrency=1)
    assert ttft.values[0].detail["client_bound"] and ttft.verdict.winner == 0
    low = ttft.values[0].estimate.low
    assert low == pytest.approx(0.475 - 0.007)  # widened towards a shorter time by the lag
    assert value_text(ttft, ttft.values[0]).endswith("(client-bound)")
    # 44 ms [43.1 - 44.9] against 50 [49 - 51], apart on the requests and 12 % apart, but the
    # slower run's client was up to 10 ms late: that could close the gap, so no winner.
    quick = tp_run(3, [cell(1000, 4, 900.0, 30.0, ttft=0.044, spread=0.02)])
    late = tp_run(4, [_late(cell(1000, 4, 800.0, 30.0, ttft=0.050, spread=0.02), 10.0)])
    row = by_key(dimension_rows([quick, late]), "ttft", concurrency=4)
    assert (row.verdict.status, row.verdict.code, row.verdict.winner) == (
        "tie", "within_client_lag", None)
    assert render_row(row, [quick, late]) == (
        "about even: 44 vs 50 ms are apart on the requests, but the client itself ran up to "
        "10 ms late, which could explain 10 ms")
    # Total output is timed on the cell's wall clock: the lateness hardly moves it.
    out = tp_run(5, [_late(cell(1000, 4, 800.0, 30.0, ttft=0.05), 10.0)])
    assert not any(v.detail.get("lag_bound") for r in dimension_rows([quick, out])
                   if r.key == "output_tps" for v in r.values)


# --------------------------------------------------------------------------- SQL: McNemar


def _questions(passes: list[bool], tier="hard", epoch=0):
    return [question(f"q{i:02d}", tier, [(1000, 10)], ok, epoch=epoch)
            for i, ok in enumerate(passes)]


def test_mcnemar_on_the_same_questions_counts_fixes_and_breaks():
    # 20 questions: both pass 4, both fail 3; B fixes 13 that A failed, breaks none.
    a = [True] * 4 + [False] * 3 + [False] * 13
    b = [True] * 4 + [False] * 3 + [True] * 13
    A = sql_run(1, _questions(a), judges=("strict",))
    B = sql_run(2, _questions(b), judges=("strict",), name="B")
    row = by_key(dimension_rows([A, B]), "pass_rate", judge="strict")
    v = row.verdict
    assert (v.params["fixes"], v.params["breaks"], v.params["paired"]) == (13, 0, 20)
    # Exact: 2 x 0.5^13 = 0.000244.
    assert v.params["p_value"] == pytest.approx(2 * 0.5**13) == mcnemar_exact(13, 0)
    assert (v.status, v.winner, v.significant, v.method) == ("win", 1, True, "mcnemar-exact")
    assert render_row(row, [A, B]) == (
        "#2 B wins: 85 % vs 20 %; #2 B fixes 13, breaks 0 against #1 (exact McNemar p = 0.0002)")
    assert render_row(row, [A, B], "zh") == (
        "#2 B 胜出：85 % 对 20 %；#2 B 修正 13 题，破坏 0 题（相对 #1；精确 McNemar 检验 p = 0.0002）")
    # Nearly the same rate from a mix (B fixes 2, breaks 3): p = 2 x 16 / 32, no winner.
    c = [True] * 4 + [False] * 3 + [True, True, True, False, False] + [False] * 8
    d = [True] * 4 + [False] * 3 + [False, False, False, True, True] + [False] * 8
    C, D = (sql_run(3, _questions(c), judges=("strict",)),
            sql_run(4, _questions(d), judges=("strict",)))
    row = by_key(dimension_rows([C, D]), "pass_rate", judge="strict")
    assert (row.verdict.params["fixes"], row.verdict.params["breaks"]) == (2, 3)
    assert row.verdict.params["p_value"] == 1.0 > ALPHA
    assert row.verdict.code == "within_noise" and row.verdict.winner is None
    assert render_row(row, [C, D]).startswith("about even (within noise): 35 % vs 30 %; #4 fixes 2")


def test_pass_rates_on_different_questions_use_wilson_intervals():
    A = sql_run(1, [question(f"a{i}", "hard", [(1, 1)], i < 2) for i in range(20)],
                judges=("strict",))
    B = sql_run(2, [question(f"b{i}", "hard", [(1, 1)], i < 18) for i in range(20)],
                judges=("strict",))
    row = by_key(dimension_rows([A, B]), "pass_rate", judge="strict")
    # 10 % [2.8, 30.1] against 90 % [69.9, 97.2]: no overlap.
    assert row.values[0].low == pytest.approx(0.0279, abs=1e-3)
    assert row.values[0].high == pytest.approx(0.3010, abs=1e-3)
    assert row.verdict.method == "wilson" and row.verdict.winner == 1
    assert "fixes" not in row.verdict.params
    assert render_row(row, [A, B]) == (
        "#2 wins: 90 % vs 10 % (80 points, outside both 95 % Wilson intervals)")


def test_epochs_pair_question_and_epoch_and_show_their_spread():
    a = _questions([True, False, True, False]) + _questions([True, True, False, False], epoch=1)
    b = _questions([True, True, True, False]) + _questions([True, True, True, True], epoch=1)
    A, B = sql_run(1, a, judges=("strict",)), sql_run(2, b, judges=("strict",))
    row = by_key(dimension_rows([A, B]), "pass_rate", judge="strict")
    assert (row.verdict.params["fixes"], row.verdict.params["breaks"]) == (3, 0)
    assert row.verdict.params["paired"] == 8
    assert row.values[0].detail["epochs"]["rates"] == [0.5, 0.5]
    assert row.values[1].detail["epochs"]["rates"] == [0.75, 1.0]


# --------------------------------------------------------------------------- the CLI


def test_compare_cli_json_on_stored_runs(stored, tmp_path, capsys):
    db, (fast, _, capped), sql = stored
    out = tmp_path / "cmp.json"
    assert main(["compare", "--runs", f"{fast},{capped},{sql}", "--json", str(out),
                 "--db", str(db)]) == 0
    printed = capsys.readouterr().out
    assert printed.index("What differs between the runs") < printed.index("max_num_seqs") < \
        printed.index("Verdict per scenario") < printed.index(
            "Prefill (mean tok/s per request, per user): 1024 tokens in, 32 out, 4 concurrent")
    data = json.loads(out.read_text(encoding="utf-8"))
    # A sweep and a SQL run of one server: the capacity in tasks too, as the PDF has it.
    assert set(data) == {"runs", "settings_differ", "scenarios", "trade_off", "rows", "capacity"}
    assert [r["id"] for r in data["runs"]] == [fast, capped, sql]
    for r in data["runs"]:
        assert set(r) == {"id", "name", "kind", "model", "endpoint", "engine", "simulated",
                          "status"} and r["simulated"] is True
    assert data["settings_differ"]["max_num_seqs"] == {str(fast): 16, str(capped): 2,
                                                       str(sql): 16}
    methods = {"bootstrap-mean", "bootstrap-median", "bootstrap-ratio", "mcnemar-exact",
               "wilson", "none"}
    for row in data["rows"]:
        assert {"dimension", "params", "label", "unit", "values", "winner", "significant",
                "method", "text"} <= set(row)
        assert row["method"] in methods and isinstance(row["significant"], bool)
        assert row["winner"] in (None, fast, capped, sql)
        assert row["significant"] == (row["winner"] is not None)
        for v in row["values"]:
            assert {"run", "value", "low", "high", "n"} <= set(v)
    ttft = next(r for r in data["rows"] if r["dimension"] == "ttft" and r["params"] == {
        "concurrency": 4, "input_tokens": 1024, "output_tokens": 32})
    assert [v["run"] for v in ttft["values"]] == [fast, capped]
    assert all(v["low"] <= v["value"] <= v["high"] and v["n"] == 32 for v in ttft["values"])
    assert ttft["label"] == "TTFT p50 (per user): 1024 tokens in, 32 out, 4 concurrent"
    assert (ttft["unit"], ttft["audience"], ttft["scope"]) == ("s", "user", "cell")
    total = next(r for r in data["rows"] if r["dimension"] == "output_tps" and r["params"])
    assert total["audience"] == "system" and total["unit"] == "tok/s"
    # The capped server is behind for many concurrent users, named in the scenario.
    many = next(s for s in data["scenarios"] if s["scenario"] == "many_users")
    assert many["status"] == "ahead" and many["ahead"] == fast, many["text"]
    strict = next(r for r in data["rows"] if r["dimension"] == "pass_rate")
    assert strict["values"][0]["run"] == sql and strict["text"].startswith("n/a: only #")
    # Chinese words in the JSON too.
    assert main(["compare", "--runs", f"{fast},{capped}", "--json", "-", "--lang", "zh",
                 "--db", str(db)]) == 0
    zh = json.loads(capsys.readouterr().out)
    assert zh["rows"][0]["label"] == "总输出（tok/s，系统）：全部单元格"
    assert zh["scenarios"][0]["label"] == "多用户并发（TTFT、总吞吐）"


def test_compare_cli_bad_input_is_one_line(stored, tmp_path, capsys, monkeypatch):
    db, (fast, capped, _), _ = stored
    for args, message in ((["--runs", f"{fast},9999"], "no run 9999 in"),
                          (["--runs", str(fast)], "at least two different run ids"),
                          (["--runs", f"{fast},x"], "'x' is not a run id")):
        assert main(["compare", *args, "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert main(["compare", "--runs", f"{fast},{capped}", "--db",
                 str(tmp_path / "absent.db")]) == 2
    assert "no results database" in capsys.readouterr().err
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["compare", "--runs", f"{fast},{capped}", "--db", str(db)]) == 0
    assert "各运行之间的差异" in capsys.readouterr().out


# --------------------------------------------------------------------------- words


# Terms a Chinese reader of a serving benchmark reads as they are (the seeds use them).
_ZH_TERMS = {"McNemar", "Wilson", "p", "n", "a", "tok", "s", "ms", "token", "TTFT", "Prefill",
             "Decode", "KV", "Cache", "SQL"}


def _every_code_row() -> list[tuple[DimensionRow, list]]:
    """A row for every verdict code, most from real rows."""
    runs = [tp_run(1, [cell(1000, 1, 900.0, 30.0, ttft=0.5)], name="快"),
            tp_run(2, [cell(1000, 1, 300.0, 10.0, ttft=1.5)], name="慢")]
    rows = dimension_rows(runs)
    samples = [(r, runs) for r in rows]
    wide = [tp_run(3, [cell(1000, 1, 500.0, 30.0, spread=0.2)]),
            tp_run(4, [cell(1000, 1, 510.0, 30.0, spread=0.2)])]
    samples += [(r, wide) for r in dimension_rows(wide)]
    close = [tp_run(7, [cell(1000, 1, 500.0, 328.0, spread=0.001)]),
             tp_run(8, [cell(1000, 1, 500.0, 327.0, spread=0.001)])]
    samples += [(r, close) for r in dimension_rows(close)]
    a = sql_run(5, _questions([False] * 12), judges=("strict",))
    b = sql_run(6, _questions([True] * 12), judges=("strict",))
    samples += [(r, [a, b]) for r in dimension_rows([a, b])]
    samples += [(r, [a]) for r in dimension_rows([a])]
    for code, params in (("not_comparable_lengths", {}), ("client_bound", {"runs": [0, 1]}),
                         ("none", {}), ("same_bottleneck", {"bottleneck": "kv_cache_pressure"}),
                         ("different_bottlenecks", {"bottlenecks": {0: "concurrency_cap",
                                                                    1: "failures"}}),
                         ("fewest_failures", {"run": 1, "share": 0.25}),
                         ("failures_even", {"shares": {0: 0.25, 1: 0.25}}),
                         ("within_client_lag", {"best": 0.044, "second": 0.05,
                                                "client_lag_s": 0.01, "lag_bound": 0.01}),
                         ("no_interval", {"best": 0.5, "second": 0.7}),
                         ("different_tasks", {"sql_runs": [1, 2]})):
        row = DimensionRow("ttft", "s", (DimValue(), DimValue()),
                           RowVerdict("n/a", code, params), {"concurrency": 2})
        samples.append((row, runs))
    return samples


def test_every_verdict_code_has_english_and_chinese_words():
    samples = _every_code_row()
    assert {row.verdict.code for row, _ in samples} == set(VERDICT_CODES)
    for row, runs in samples:
        en, zh = render_row(row, runs, "en"), render_row(row, runs, "zh")
        assert en and zh and en != zh, row.verdict.code
        assert row_label(row, "zh") != row_label(row, "en")
        for run in runs:  # run labels are names, not words to translate
            zh = zh.replace(run.info.label, "")
        words = set(re.findall(r"[A-Za-z]+", zh))
        assert words <= _ZH_TERMS, (row.verdict.code, zh, words - _ZH_TERMS)
