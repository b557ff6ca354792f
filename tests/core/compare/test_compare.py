"""The comparison's dimension rows, verdicts on noise, n/a handling, what differs between runs
and the capacity arithmetic, on runs built by hand (expected figures worked out in the
comments). The noise rules on real simulator sweeps and the McNemar test are in
test_compare_noise.py."""

import dataclasses

import pytest

from desktop_app.core.compare import (
    RunInfo,
    SqlRun,
    StepTokens,
    StoredCell,
    StoredQuestion,
    ThroughputRun,
    capacity,
    capacity_verdicts,
    dimension_rows,
    pair_runs,
    settings_differ,
)
from desktop_app.core.metrics import CellSummary
from desktop_app.core.sqleval.export import summarize
from desktop_app.core.sqleval.types import Verdict
from desktop_app.core.stats import Estimate, point
from desktop_app.core.throughput.types import CellResult, CellSpec, Finding
from desktop_app.report.verdicts import render_row, row_label, value_text
from tests.lang_check import english_runs

URL = "http://gpu-box:8000"


def info(run_id, kind, model="m", url=URL, name="", engine="vllm", settings=None):
    config = {"server_settings": settings} if settings is not None else {}
    return RunInfo(run_id, kind, name, url, model, engine, "completed", "2026-12-01T10:00:00",
                   "2026-12-01T10:05:00", config)


def est(value, spread=0.05, n=16, method="bootstrap-mean"):
    """A figure with an interval of +-`spread` (relative) around it."""
    if value is None:
        return None
    return Estimate(value, value * (1 - spread), value * (1 + spread), n, method)


def cell(n, c, prefill, decode, ttft=None, change=None, spread=0.05, client_bound=False,
         out=64, estimates=True):
    """A finished cell: `n` prompt tokens at concurrency `c`, figures with +-`spread`
    intervals (`estimates=False`: figures without intervals, as an imported file gives)."""
    summary = CellSummary(8, 8, {}, None, None, None, None, None, None, None, None, None, None)
    result = CellResult(CellSpec(n, out, 8, concurrency=c), summary, (), prefill_change=change)
    make = (lambda v, m="bootstrap-mean": est(v, spread, method=m)) if estimates else (
        lambda v, m=None: None if v is None else point(v, 8))
    return StoredCell(0, 0, "completed", None, None, result, client_bound=client_bound,
                      figures={"ttft": make(ttft, "bootstrap-median"), "prefill": make(prefill),
                               "decode": make(decode)})


def tp_run(run_id, cells, model="m", findings=(), url=URL, **kw):
    return ThroughputRun(info(run_id, "throughput", model, url, **kw), tuple(cells), (),
                         tuple(findings))


def question(qid, tier, steps, strict, tolerant=None, seconds=1.0, failure=None, epoch=0):
    verdicts = {"strict": Verdict("strict", strict)}
    if tolerant is not None:
        verdicts["tolerant"] = Verdict("tolerant", tolerant)
    return StoredQuestion(
        0, qid, tier, epoch, "completed", "submitted", f"text {qid}", "", verdicts,
        failure_class=failure, steps=tuple(StepTokens(p, k, 0.1) for p, k in steps),
        step_count=len(steps), prompt_tokens=sum(p for p, _ in steps),
        completion_tokens=sum(k for _, k in steps), seconds=seconds)


def sql_run(run_id, questions, model="m", url=URL, judges=("strict", "tolerant"), **kw):
    """A SqlRun whose summaries are counted from `questions` as the loader counts them."""
    items = [q.item() for q in questions if q.judged]
    return SqlRun(info(run_id, "sql", model, url, **kw), judges, 1e-6, tuple(questions),
                  *summarize(items, judges))


def by_key(rows, key, **params):
    return next(r for r in rows if r.key == key and all(r.params.get(k) == v
                                                        for k, v in params.items()))


# --------------------------------------------------------------------------- throughput rows


A = tp_run(1, [cell(1000, 1, 500.0, 25.0, ttft=2.0), cell(4000, 1, 400.0, 20.0, ttft=10.0),
               cell(1000, 2, 325.0, 18.0, ttft=3.0, change=-0.35),
               cell(4000, 2, 240.0, 15.0, ttft=16.0, change=-0.40)],
           findings=[Finding("ttft_linear", "info", "linear"),
                     Finding("concurrency_cap", "problem", "queue", {"cap": 2})], name="tp first")
B = tp_run(2, [cell(1000, 1, 600.0, 30.0, ttft=1.5), cell(4000, 1, 600.0, 30.0, ttft=6.0),
               cell(1000, 4, 300.0, 12.0, ttft=4.0, change=-0.5),
               cell(4000, 4, 300.0, 10.0, ttft=20.0, change=-0.5)])
S1 = sql_run(3, [question("t1", "trivial", [(1000, 51)], True, True),
                 question("h1", "hard", [(1000, 51), (3000, 26)], False, True,
                          failure="rounding_only"),
                 question("h2", "hard", [(2000, 11)], False, False, failure="column_names")])
S2 = sql_run(4, [question("t1", "trivial", [(500, 11)], True, True),
                 question("h1", "hard", [(800, 11), (900, 11)], True, True)])


def test_a_difference_outside_both_intervals_wins_per_cell_and_says_by_how_much():
    rows = dimension_rows([A, B, S1])
    prefill = by_key(rows, "prefill", concurrency=1, input_tokens=1000)
    # A 500 [475, 525] against B 600 [570, 630]: apart, B wins by 600 / 500 - 1 = 20 %.
    a, b = prefill.values[0], prefill.values[1]
    assert (a.value, a.low, a.high, a.n) == (500.0, 475.0, 525.0, 16)
    assert (b.value, b.low, b.high) == (600.0, 570.0, 630.0)
    v = prefill.verdict
    assert (v.status, v.code, v.winner, v.runner_up, v.significant) == ("win", "win", 1, 0, True)
    assert v.method == "bootstrap-mean" and v.diff == pytest.approx(0.2)
    assert prefill.audience == "user" and prefill.cell
    assert render_row(prefill, [A, B, S1]) == (
        "#2 wins: 600 vs 500 tok/s (20 % higher, outside both 95 % intervals)")
    assert render_row(prefill, [A, B, S1], "zh") == (
        "#2 胜出：600 对 500 tok/s（高 20 %，超出双方的 95 % 置信区间）")
    assert value_text(prefill, a) == "500 tok/s [475 – 525]"
    assert row_label(prefill) == (
        "Prefill (mean tok/s per request, per user): 1000 tokens in, 64 out, 1 concurrent")
    assert row_label(prefill, "zh") == (
        "Prefill（单请求平均 tok/s，单用户）：输入 1000 token，输出 64，1 并发")
    # The other prompt length is its own cell, never pooled with this one.
    long = by_key(rows, "prefill", concurrency=1, input_tokens=4000)
    assert (long.values[0].value, long.verdict.winner, long.verdict.diff) == (
        400.0, 1, pytest.approx(0.5))
    ttft = by_key(rows, "ttft", concurrency=1, input_tokens=1000)
    # TTFT, lower wins: A 2.0 s [1.9, 2.1], B 1.5 s [1.425, 1.575].
    assert ttft.verdict.winner == 1 and ttft.verdict.method == "bootstrap-median"
    assert render_row(ttft, [A, B, S1]) == (
        "#2 wins: 1.50 vs 2.00 s (25 % lower, outside both 95 % intervals)")
    # The figure's tally counts the cells: B won both at 1 concurrent.
    tally = next(r for r in rows if r.key == "prefill" and r.scope == "tally")
    assert tally.verdict.status == "info" and tally.verdict.winner is None
    assert render_row(tally, [A, B, S1]) == "at 1 concurrent: #2 wins 2 of 2 cells"
    assert render_row(tally, [A, B, S1], "zh") == "1 并发：#2 在 2 个单元格中胜出 2 个"
    assert row_label(tally) == "Prefill (mean tok/s per request, per user): every cell"


def test_cells_pooled_would_overlap_but_each_cell_decides():
    # The case: TTFT at 4 concurrent, 43 vs 138 ms at 512 tokens and 140 vs 240 at
    # 2048. Pooled over the two lengths the medians' intervals overlapped ("about even");
    # cell by cell the uncapped server wins both.
    fast = tp_run(40, [cell(512, 4, 9000.0, 250.0, ttft=0.043, spread=0.3),
                       cell(2048, 4, 14000.0, 180.0, ttft=0.140, spread=0.3)], name="fast")
    capped = tp_run(41, [cell(512, 4, 3500.0, 278.0, ttft=0.138, spread=0.02),
                         cell(2048, 4, 8500.0, 215.0, ttft=0.240, spread=0.02)], name="capped")
    rows = dimension_rows([fast, capped])
    cells = [r for r in rows if r.key == "ttft" and r.cell]
    assert [r.params["input_tokens"] for r in cells] == [512, 2048]
    assert [r.verdict.winner for r in cells] == [0, 0]
    tally = next(r for r in rows if r.key == "ttft" and r.scope == "tally")
    assert render_row(tally, [fast, capped]) == "at 4 concurrent: #40 fast wins 2 of 2 cells"
    # Decode per request is a per-user figure, inside the fast run's wide noise here.
    decode = [r for r in rows if r.key == "decode" and r.cell]
    assert [(r.audience, r.verdict.code) for r in decode] == [("user", "within_noise")] * 2


def test_a_difference_under_the_minimum_effect_never_wins_even_outside_both_intervals():
    # Decode 328 [327.7, 328.3] vs 327 [326.7, 327.3]: the intervals do not overlap, but
    # 0.3 % is less than two runs of one server drift apart (bench/identical_runs.py).
    a = tp_run(7, [cell(1000, 1, 600.0, 328.0, spread=0.001)])
    b = tp_run(8, [cell(1000, 1, 600.0, 327.0, spread=0.001)])
    decode = by_key(dimension_rows([a, b]), "decode", concurrency=1)
    v = decode.verdict
    assert (v.status, v.code, v.winner, v.significant) == ("tie", "below_min_effect", None,
                                                           False)
    assert render_row(decode, [a, b]).startswith("about even: 328 vs 327 tok/s differ by less")
    assert "10 %" in render_row(decode, [a, b], "zh")
    c = tp_run(9, [cell(1000, 1, 600.0, 290.0, spread=0.001)])  # 13 % apart
    assert by_key(dimension_rows([a, c]), "decode", concurrency=1).verdict.winner == 0
    # No winner: the figures follow the columns (they came better-first, "328 vs 327" under
    # the columns of 327 and 328).
    decode = by_key(dimension_rows([b, a]), "decode", concurrency=1)
    assert render_row(decode, [b, a]).startswith("about even: 327 vs 328 tok/s")
    # A winner's figure still comes first, whichever column it is in.
    decode = by_key(dimension_rows([c, a]), "decode", concurrency=1)
    assert render_row(decode, [c, a]).startswith("#7 wins: 328 vs 290")


def test_overlapping_intervals_are_about_even_whatever_the_figures():
    wide = tp_run(5, [cell(1000, 1, 560.0, 29.0, spread=0.10), cell(4000, 1, 560.0, 29.0,
                                                                       spread=0.10)])
    rows = dimension_rows([B, wide])
    prefill = by_key(rows, "prefill", concurrency=1, input_tokens=1000)
    # 600 [570, 630] against 560 [504, 616]: 7 % apart, and inside the noise.
    v = prefill.verdict
    assert (v.status, v.code, v.winner, v.significant) == ("tie", "within_noise", None, False)
    assert (v.leader, v.runner_up) == (0, 1)
    assert render_row(prefill, [B, wide]) == "about even (within noise): 600 vs 560 tok/s"
    assert render_row(prefill, [B, wide], "zh") == "大致持平（在噪声范围内）：600 对 560 tok/s"
    tally = next(r for r in rows if r.key == "prefill" and r.scope == "tally")
    assert render_row(tally, [B, wide]) == "at 1 concurrent: even in 2 of 2"
    same = dimension_rows([B, tp_run(6, B.cells)])
    assert all(r.verdict.winner is None for r in same)


def test_rows_exist_for_the_cells_the_runs_share():
    rows = dimension_rows([A, B, S1])
    # A measured 1 and 2, B 1 and 4: only 1 is common; no row for 2 or 4.
    assert {r.params.get("concurrency") for r in rows if r.group == "throughput"} == {1, None}
    # Per figure its tally, then its cells; figures no run measured have no row.
    assert [(r.key, r.scope, r.params.get("input_tokens")) for r in rows
            if r.group == "throughput"] == [
        ("ttft", "tally", None), ("ttft", "cell", 1000), ("ttft", "cell", 4000),
        ("decode", "tally", None), ("decode", "cell", 1000), ("decode", "cell", 4000),
        ("prefill", "tally", None), ("prefill", "cell", 1000), ("prefill", "cell", 4000),
        ("bottleneck", None, None)]
    # The SQL run has no throughput figure, and the sweeps no pass rate.
    assert not any(r.values[2].available for r in rows if r.group == "throughput")
    strict = by_key(rows, "pass_rate", judge="strict")
    assert not strict.values[0].available and strict.values[2].value == pytest.approx(1 / 3)
    assert strict.verdict.code == "only_one" and strict.verdict.params == {"run": 2}
    assert render_row(strict, [A, B, S1]) == "n/a: only #3 measured this"
    # A single sweep gets its own cells (each n/a: nothing to compare with).
    alone = dimension_rows([A])
    assert [r.params["concurrency"] for r in alone if r.key == "prefill" and r.cell] == [
        1, 1, 2, 2]


def test_prefill_change_interval_comes_from_the_cells_bounds():
    C = tp_run(7, [cell(1000, 1, 500.0, 25.0, ttft=2.0), cell(1000, 2, 300.0, 20.0, ttft=3.0,
                                                                  change=-0.4)])
    D = tp_run(8, [cell(1000, 1, 500.0, 25.0, ttft=2.0), cell(1000, 2, 320.0, 20.0, ttft=3.0,
                                                                  change=-0.36)])
    row = by_key(dimension_rows([C, D]), "prefill_change", concurrency=2)
    c = row.values[0]
    # low = 285 / 525 - 1, high = 315 / 475 - 1: wider than either cell's own interval.
    assert c.value == -0.4
    assert (c.low, c.high) == pytest.approx((285 / 525 - 1, 315 / 475 - 1))
    assert row.verdict.code == "within_noise" and row.verdict.params["diff_kind"] == "points"
    assert render_row(row, [C, D]) == "about even (within noise): -40 % vs -36 %"  # C, D


def test_runs_that_share_no_cell_are_not_ranked():
    short = tp_run(30, [cell(512, 1, 800.0, 30.0, ttft=0.2)])
    long = tp_run(31, [cell(4096, 1, 700.0, 28.0, ttft=5.0)])
    rows = dimension_rows([short, long])
    assert not any(r.cell for r in rows)
    ttft = next(r for r in rows if r.key == "ttft")
    assert ttft.scope == "tally" and ttft.verdict.winner is None
    assert render_row(ttft, [short, long]) == "at 1 concurrent: the runs share no cell"
    # Only the cells both measured count: 1000 here, not A's 4000 cell.
    one = tp_run(32, [cell(1000, 1, 600.0, 30.0, ttft=1.5)])
    assert [r.params["input_tokens"] for r in dimension_rows([A, one])
            if r.key == "prefill" and r.cell] == [1000]


def test_figures_without_an_interval_cannot_win():
    imported = tp_run(33, [cell(1000, 1, 9000.0, 30.0, ttft=0.1, estimates=False)])
    one = tp_run(34, [cell(1000, 1, 600.0, 30.0, ttft=1.5)])
    row = by_key(dimension_rows([imported, one]), "prefill", concurrency=1)
    assert row.verdict.code == "no_interval" and row.verdict.winner is None
    assert row.values[0].estimate.method == "none"


def test_bottleneck_is_the_most_telling_server_finding():
    row = by_key(dimension_rows([A, B]), "bottleneck")
    assert row.values[0].text == "concurrency_cap" and row.values[0].detail["cap"] == 2
    assert row.values[1].text == "none"
    assert row.verdict.status == "info" and row.verdict.code == "different_bottlenecks"
    assert render_row(row, [A, B]) == (
        "different bottlenecks: #1 tp first concurrency cap (2 running); #2 none found")


# --------------------------------------------------------------------------- SQL rows


def test_sql_rows_pass_rates_per_tier_effort_and_failure_classes():
    rows = dimension_rows([S1, S2])
    strict = by_key(rows, "pass_rate", judge="strict")
    # Same questions t1, h1 (h2 only in S1): paired on those two, S2 fixes h1, breaks none:
    # one discordant question is no evidence (p = 1).
    assert strict.verdict.method == "mcnemar-exact" and strict.verdict.code == "within_noise"
    assert strict.verdict.params["fixes"] == 1 and strict.verdict.params["breaks"] == 0
    tolerant = by_key(rows, "pass_rate", judge="tolerant")
    assert [v.value for v in tolerant.values] == [pytest.approx(2 / 3), 1.0]
    hard = by_key(rows, "tier_pass_rate", tier="hard")
    assert {k: hard.values[0].detail[k] for k in ("passed", "total", "tolerant_passed")} == {
        "passed": 0, "total": 2, "tolerant_passed": 1}
    steps = by_key(rows, "tier_steps", tier="hard")
    # S1 hard: 2 and 1 steps -> 1.5; S2 hard: one question, 2 steps (no interval).
    assert [v.value for v in steps.values] == [1.5, 2.0]
    assert steps.verdict.code == "no_interval"
    tokens = by_key(rows, "tier_tokens", tier="hard")
    # S1 hard: (1000 + 51 + 3000 + 26 + 2000 + 11) / 2 = 3044.
    assert tokens.values[0].value == pytest.approx(3044.0)
    classes = by_key(rows, "failure_classes")
    assert classes.values[0].detail["classes"] == [("column_names", 1), ("rounding_only", 1)]
    # The strict pass rate is even (one discordant question), so no run "fails least".
    assert classes.values[1].text == "none" and classes.verdict.code == "failures_even"
    assert classes.verdict.winner is None  # informational, not a contest
    assert render_row(classes, [S1, S2]) == (
        "no run fails significantly less (the strict pass rate decides)")
    assert not any(r.group == "throughput" for r in rows)  # no sweep, no speed rows


# --------------------------------------------------------------------------- what differs


def test_settings_differ_lists_only_what_is_not_the_same_everywhere():
    one = info(1, "throughput", settings={"max_num_seqs": 16, "block_size": 16,
                                          "simulator_profile": "fast"})
    two = info(2, "throughput", model="m2", settings={"max_num_seqs": 2, "block_size": 16})
    three = info(3, "sql", settings={"max_num_seqs": 16, "block_size": 16,
                                     "enable_prefix_caching": True})
    assert settings_differ([one, two, three]) == {
        "model": {1: "m", 2: "m2", 3: "m"},
        "enable_prefix_caching": {1: None, 2: None, 3: True},
        "max_num_seqs": {1: 16, 2: 2, 3: 16}}
    assert settings_differ([one, one]) == {} and settings_differ([one]) == {}
    sim = [info(i, "throughput", url=f"http://127.0.0.1:{port}", engine="simulated vllm",
                settings={"simulator_profile": p}) for i, port, p in
           ((1, 40001, "fast"), (2, 40002, "fast-capped"))]
    # The random ports do not differ in what counts: the profiles do.
    assert settings_differ(sim) == {"endpoint": {1: "simulator:fast", 2: "simulator:fast-capped"}}


# --------------------------------------------------------------------------- capacity


TP = tp_run(10, [cell(1000, 1, 500.0, 25.0), cell(4000, 1, 100.0, 5.0),
                 cell(1000, 2, 250.0, 20.0), cell(4000, 2, 50.0, 4.0)])
SQL = sql_run(11, [question("q1", "hard", [(1000, 51), (1000, 26)], True, True, seconds=10.0),
                   question("q2", "easy", [(800, 11)], False, True, seconds=4.0)])


def test_capacity_in_tasks_worked_by_hand():
    cap = capacity(TP, SQL)
    one, two = cap.point(1), cap.point(2)
    # c=1, every prompt nearest to 1000 tokens (500 tok/s prefill, 25 tok/s decode):
    # q1 = 1000/500 + 50/25 + 1000/500 + 25/25 = 7 s; q2 = 800/500 + 10/25 = 2 s; mean 4.5 s.
    assert one.seconds_per_task == pytest.approx(4.5)
    assert one.tasks_per_hour == pytest.approx(800.0)  # 1 x 3600 / 4.5
    assert one.correct_per_hour == pytest.approx({"strict": 400.0, "tolerant": 800.0})
    # c=2 (250 and 20 tok/s): q1 = 4 + 2.5 + 4 + 1.25 = 11.75; q2 = 3.2 + 0.5 = 3.7; mean 7.725.
    assert two.seconds_per_task == pytest.approx(7.725)
    assert two.tasks_per_hour == pytest.approx(2 * 3600 / 7.725)
    # 800 of the 2800 prompt tokens lie below the shortest measured length (1000).
    assert one.extrapolated_share == pytest.approx(800 / 2800)
    assert cap.steps_per_question == 1.5
    assert cap.prompt_tokens_per_step == pytest.approx(2800 / 3)


def test_capacity_reads_the_first_output_length_of_a_prompt_length():
    longer = cell(1000, 1, 50.0, 2.5, out=512)  # a second output length, 10 x slower
    tp = tp_run(15, [cell(1000, 1, 500.0, 25.0), longer])
    assert capacity(tp, SQL).point(1).seconds_per_task == pytest.approx(4.5)


def test_cost_per_correct_answer_per_judge_and_tier():
    costs = {(c.judge, c.tier): c for c in capacity(TP, SQL).costs}
    # All tokens: 1051 + 1026 + 811 = 2888; seconds 14. Strict passed 1, tolerant 2.
    assert costs["strict", "all"].tokens_per_pass == pytest.approx(2888.0)
    assert costs["strict", "all"].seconds_per_pass == pytest.approx(14.0)
    assert costs["tolerant", "all"].tokens_per_pass == pytest.approx(1444.0)
    assert costs["strict", "easy"].passed == 0 and costs["strict", "easy"].tokens_per_pass is None
    assert costs["tolerant", "hard"].seconds_per_pass == pytest.approx(10.0)


def test_a_point_without_decode_says_why_instead_of_guessing():
    instant = tp_run(12, [cell(1000, 1, 9000.0, None), cell(1000, 4, 8000.0, None)])
    point_ = capacity(instant, SQL).point(1)
    assert point_.tasks_per_hour is None and "decode not measured" in point_.reason


def test_pairs_need_the_same_endpoint_and_model():
    other_model = sql_run(13, SQL.questions, model="other")
    other_url = sql_run(14, SQL.questions, url="http://elsewhere:8000/")
    pairs, notes = pair_runs([TP, SQL, other_model, other_url])
    assert [(tp.info.id, s.info.id) for tp, s in pairs] == [(10, 11)]
    assert [(n.code, n.params["run"]) for n in notes] == [("sql_without_sweep", 13),
                                                          ("sql_without_sweep", 14)]
    from desktop_app.report.strings import note_text

    assert "#13" in note_text(notes[0], "en") and "same endpoint and model" in note_text(
        notes[0], "en")
    assert english_runs(note_text(notes[0], "zh"), allowed=("other",)) == []
    same_url_slash = sql_run(15, SQL.questions, url=URL + "/")
    assert pair_runs([TP, same_url_slash])[0]


def test_simulator_runs_pair_on_the_profile_not_the_random_port():
    def on(port, profile):
        return dict(url=f"http://127.0.0.1:{port}", engine="simulated vllm",
                    settings={"simulator_profile": profile}, model="sim/careful")

    tp = tp_run(50, TP.cells, **on(40001, "fast"))
    same_profile = sql_run(51, SQL.questions, **on(40777, "fast"))
    other_profile = sql_run(52, SQL.questions, **on(40001, "fast-capped"))
    pairs, notes = pair_runs([tp, same_profile, other_profile])
    # A new port per start, the same server: paired. The same port, another profile: not.
    assert [(t.info.id, s.info.id) for t, s in pairs] == [(50, 51)]
    assert [(n.code, n.params["run"], n.params["target"]) for n in notes] == [
        ("sql_without_sweep", 52, "simulator:fast-capped")]


def test_verdicts_name_the_winner_per_success_criterion():
    # Config 2: a slower server (half the rates) with an agent that always passes strict.
    slow = tp_run(20, [cell(1000, 1, 250.0, 12.5), cell(1000, 2, 125.0, 8.0)], model="m2")
    careful = sql_run(21, [question("q1", "hard", [(1000, 51), (1000, 26)], True, True),
                           question("q2", "easy", [(800, 11)], True, True)], model="m2")
    caps = [capacity(TP, SQL), capacity(slow, careful)]
    wait, usable, per_hour = capacity_verdicts(caps)
    # Waiting: config 1 takes 4.5 s per task at c=1, config 2 twice that (9 s).
    assert wait.winner == 0 and wait.figures == pytest.approx((4.5, 9.0))
    assert "#10 + #11 wins" in wait.text
    # Usable as they are: strict 50 % vs 100 %.
    assert usable.winner == 1 and usable.figures == (0.5, 1.0)
    # Per hour, strict, at c=2: config 1 = 7200 / 7.725 x 0.5 = 466; config 2: q1 = 1000/125 +
    # 50/8 + 1000/125 + 25/8 = 25.375 s, q2 = 800/125 + 10/8 = 7.65 s, mean 16.5125 s ->
    # 7200 / 16.5125 x 1.0 = 436: the faster server 7 % ahead although its answers fail more,
    # less than MIN_EFFECT on a model without an interval: even, and the PDF bolds nothing.
    assert per_hour.figures == pytest.approx((7200 / 7.725 * 0.5, 7200 / 16.5125))
    assert per_hour.winner is None and per_hour.text.startswith("about even")
    # Two configurations with the same strict pass rate: a tie is never a win.
    twin = sql_run(22, SQL.questions, model="m2")
    _, same, _ = capacity_verdicts([capacity(TP, SQL), capacity(slow, twin)])
    assert same.figures == (0.5, 0.5) and same.winner is None


def test_simulator_personas_pair_with_the_swept_server_unless_their_own_model_was_swept():
    def sim(run):
        i = run.info
        return dataclasses.replace(run, info=dataclasses.replace(i, engine="simulated vllm"))

    careful_tp = sim(tp_run(40, TP.cells, model="sim/careful"))
    server_tp = sim(tp_run(41, TP.cells, model="sim/llama-sim-8b"))
    careful = sim(sql_run(42, SQL.questions, model="sim/careful"))
    seed = sim(sql_run(43, SQL.questions, model="sim/seed-reference"))
    pairs, notes = pair_runs([careful_tp, server_tp, careful, seed])
    # sim/careful was swept itself: that sweep only. sim/seed-reference was not: any sweep of
    # the simulated server at that endpoint stands in (the persona is a script, not weights).
    assert [(tp.info.id, s.info.id) for tp, s in pairs] == [(40, 42), (40, 43), (41, 43)]
    assert notes == []


def test_a_per_request_figure_under_concurrency_needs_35_percent_to_win():
    """Two runs of one server drift apart by up to a third in what one request experiences at
    a concurrency above 1 (docs/COMPARE.md): 20 % there is about even, 20 % at concurrency 1
    and 40 % at 4 are wins, and the reason names the floor that applied."""
    tight = 0.01  # intervals far apart: only the floor decides
    first = tp_run(1, [cell(1024, 1, 1000.0, 100.0, ttft=1.0, spread=tight),
                       cell(1024, 4, 1000.0, 100.0, ttft=1.0, spread=tight),
                       cell(2048, 4, 1000.0, 100.0, ttft=1.0, spread=tight)])
    second = tp_run(2, [cell(1024, 1, 1200.0, 120.0, ttft=1.0, spread=tight),
                        cell(1024, 4, 1200.0, 120.0, ttft=1.0, spread=tight),
                        cell(2048, 4, 1400.0, 140.0, ttft=1.0, spread=tight)])
    rows = dimension_rows([first, second])
    for key in ("decode", "prefill"):
        alone = by_key(rows, key, concurrency=1, input_tokens=1024)
        assert (alone.verdict.code, alone.verdict.winner) == ("win", 1), key
        shared = by_key(rows, key, concurrency=4, input_tokens=1024)
        assert shared.verdict.code == "below_min_effect" and shared.verdict.winner is None
        assert shared.verdict.params["min_effect"] == 0.35
        assert "less than the 35 %" in render_row(shared, [first, second])
        far = by_key(rows, key, concurrency=4, input_tokens=2048)
        assert (far.verdict.code, far.verdict.winner) == ("win", 1), key
