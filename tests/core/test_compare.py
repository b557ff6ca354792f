"""The comparison's dimension rows, verdicts, n/a handling and the capacity arithmetic, on
summaries built by hand (expected figures worked out by hand in the comments)."""

import pytest

from desktop_app.core.compare import (
    CellPoint,
    QuestionRow,
    RunInfo,
    SqlRun,
    StepTokens,
    ThroughputRun,
    capacity,
    capacity_verdicts,
    dimension_rows,
    pair_runs,
)
from desktop_app.core.sqleval.export import JudgeSummary, TierStats
from desktop_app.core.throughput.types import Finding

URL = "http://gpu-box:8000"


def info(run_id, kind, model="m", url=URL, name=""):
    return RunInfo(run_id, kind, name, url, model, "vllm", "completed", "2026-12-01T10:00:00",
                   "2026-12-01T10:05:00", {})


def cell(n, c, prefill, decode, ttft=None, change=None):
    return CellPoint(n, c, 64, 8, 8, ttft, prefill, decode, change, None)


def tp_run(run_id, cells, model="m", findings=(), url=URL):
    return ThroughputRun(info(run_id, "throughput", model, url), tuple(cells), (),
                         tuple(findings))


def question(qid, tier, steps, strict, tolerant, seconds=1.0, failure=None):
    return QuestionRow(qid, tier, 0, f"text {qid}", "", {"strict": strict, "tolerant": tolerant},
                       failure, (), (), "", tuple(StepTokens(p, k, 0.1) for p, k in steps),
                       len(steps), sum(p for p, _ in steps), sum(k for _, k in steps), seconds)


def sql_run(run_id, questions, model="m", url=URL):
    """A SqlRun whose summary is counted from `questions` the way summarize would."""
    summary = {}
    for judge in ("strict", "tolerant"):
        by_tier = {}
        for q in questions:
            ok, n = by_tier.get(q.tier, (0, 0))
            by_tier[q.tier] = (ok + q.passed[judge], n + 1)
        summary[judge] = JudgeSummary(judge, sum(q.passed[judge] for q in questions),
                                      len(questions), by_tier)
    tiers = {}
    for tier in ("trivial", "easy", "medium", "hard"):
        qs = [q for q in questions if q.tier == tier]
        if qs:
            tiers[tier] = TierStats(tier, len(qs), sum(q.step_count for q in qs) / len(qs),
                                    sum(q.prompt_tokens for q in qs) / len(qs),
                                    sum(q.completion_tokens for q in qs) / len(qs), 1.0)
    return SqlRun(info(run_id, "sql", model, url), ("strict", "tolerant"), 1e-6, summary, tiers,
                  tuple(questions))


def by_key(rows, key, **params):
    return next(r for r in rows if r.key == key and all(r.params.get(k) == v
                                                        for k, v in params.items()))


# --------------------------------------------------------------------------- dimension rows


A = tp_run(1, [cell(1000, 1, 500.0, 25.0, ttft=2.0), cell(4000, 1, 400.0, 20.0, ttft=10.0),
               cell(1000, 2, 325.0, 18.0, change=-0.35), cell(4000, 2, 240.0, 15.0,
                                                                change=-0.40)],
           findings=[Finding("ttft_linear", "info", "linear"),
                     Finding("concurrency_cap", "problem", "queue", {"cap": 2})])
B = tp_run(2, [cell(1000, 1, 600.0, 30.0, ttft=1.5), cell(4000, 1, 600.0, 30.0, ttft=6.0),
               cell(1000, 4, 300.0, 12.0, change=-0.5),
               cell(4000, 4, 300.0, 10.0, ttft=20.0, change=-0.5)])
S1 = sql_run(3, [question("t1", "trivial", [(1000, 51)], True, True),
                 question("h1", "hard", [(1000, 51), (3000, 26)], False, True,
                          failure="rounding_only"),
                 question("h2", "hard", [(2000, 11)], False, False, failure="column_names")])
S2 = sql_run(4, [question("t1", "trivial", [(500, 11)], True, True),
                 question("h1", "hard", [(800, 11), (900, 11)], True, True)])


def test_throughput_rows_compare_the_runs_and_say_who_wins_by_how_much():
    rows = dimension_rows([A, B, S1])
    prefill = by_key(rows, "prefill_c1")
    # A: mean of 500 and 400 = 450; B: 600. B is 600 / 450 - 1 = 33 % faster.
    assert [v.value for v in prefill.values[:2]] == [450.0, 600.0]
    assert prefill.verdict.status == "win" and prefill.verdict.winner == 1
    assert prefill.verdict.diff == pytest.approx(600 / 450 - 1)
    assert "#2 wins" in prefill.verdict.text and "33 %" in prefill.verdict.text
    detail = prefill.values[0].detail
    assert detail["min"] == 400.0 and detail["max_tokens"] == 1000
    ttft = by_key(rows, "ttft_longest")
    # The longest length both measured at 1 concurrent is 4000: A 10 s, B 6 s (lower wins).
    assert [v.value for v in ttft.values[:2]] == [10.0, 6.0] and ttft.verdict.winner == 1
    # Beside it, the TTFT at the run's highest concurrency, where that cell has one.
    assert "top_ttft_s" not in ttft.values[0].detail
    assert ttft.values[1].detail == {"tokens": 4000, "top_concurrency": 4, "top_ttft_s": 20.0,
                                     "lengths_differ": False}


def test_a_run_without_a_dimension_is_na_never_guessed():
    rows = dimension_rows([A, B, S1])
    c2 = by_key(rows, "prefill_change", concurrency=2)
    c4 = by_key(rows, "prefill_change", concurrency=4)
    # Concurrency 2 only in A (mean of -0.35 and -0.40), 4 only in B.
    assert c2.values[0].value == pytest.approx(-0.375) and not c2.values[1].available
    assert c2.verdict.status == "n/a" and "only #1" in c2.verdict.text
    assert not c4.values[0].available and c4.values[1].value == -0.5
    # The SQL run has no throughput figure at all, and the sweeps no pass rate.
    assert not any(r.values[2].available for r in rows
                   if r.key in ("prefill_c1", "decode_c1", "ttft_longest", "bottleneck"))
    strict = by_key(rows, "pass_rate", judge="strict")
    assert not strict.values[0].available and strict.values[2].value == pytest.approx(1 / 3)
    assert strict.verdict.status == "n/a"


def test_bottleneck_is_the_most_telling_server_finding():
    rows = dimension_rows([A, B])
    row = by_key(rows, "bottleneck")
    assert row.values[0].text == "concurrency_cap" and row.values[0].detail["cap"] == 2
    assert row.values[1].text == "none"
    assert row.verdict.status == "info" and "different" in row.verdict.text


def test_sql_rows_pass_rates_per_tier_effort_and_failure_classes():
    rows = dimension_rows([S1, S2])
    strict = by_key(rows, "pass_rate", judge="strict")
    # S1 passes 1 of 3 strict, S2 2 of 2: S2 wins by 100 - 33 = 67 points.
    assert strict.verdict.winner == 1 and strict.verdict.diff_kind == "points"
    assert "67 points" in strict.verdict.text
    tolerant = by_key(rows, "pass_rate", judge="tolerant")
    assert [v.value for v in tolerant.values] == [pytest.approx(2 / 3), 1.0]
    hard = by_key(rows, "tier_pass_rate", tier="hard")
    assert hard.values[0].detail == {"passed": 0, "total": 2, "tolerant_passed": 1}
    steps = by_key(rows, "tier_steps", tier="hard")
    # S1 hard: 2 and 1 steps -> 1.5; S2 hard: 2 steps. Fewer steps win.
    assert [v.value for v in steps.values] == [1.5, 2.0] and steps.verdict.winner == 0
    tokens = by_key(rows, "tier_tokens", tier="hard")
    # S1 hard: (1000 + 51 + 3000 + 26 + 2000 + 11) / 2 = 3044.
    assert tokens.values[0].value == pytest.approx(3044.0)
    classes = by_key(rows, "failure_classes")
    assert classes.values[0].detail["classes"] == [("column_names", 1), ("rounding_only", 1)]
    assert classes.values[1].text == "none" and classes.verdict.winner == 1
    assert not any(r.key == "prefill_c1" for r in rows)  # no sweep, no speed rows


def test_equal_figures_are_a_tie():
    rows = dimension_rows([B, tp_run(5, B.cells)])
    assert by_key(rows, "prefill_c1").verdict.status == "tie"


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
    point = capacity(instant, SQL).point(1)
    assert point.tasks_per_hour is None and "decode not measured" in point.reason


def test_pairs_need_the_same_endpoint_and_model():
    other_model = sql_run(13, SQL.questions, model="other")
    other_url = sql_run(14, SQL.questions, url="http://elsewhere:8000/")
    pairs, notes = pair_runs([TP, SQL, other_model, other_url])
    assert [(tp.info.id, s.info.id) for tp, s in pairs] == [(10, 11)]
    assert len(notes) == 2 and "#13" in notes[0] and "same endpoint and model" in notes[0]
    same_url_slash = sql_run(15, SQL.questions, url=URL + "/")
    assert pair_runs([TP, same_url_slash])[0]


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
    # 7200 / 16.5125 x 1.0 = 436. The faster server wins here although its answers fail more.
    assert per_hour.figures == pytest.approx((7200 / 7.725 * 0.5, 7200 / 16.5125))
    assert per_hour.winner == 0


def test_figures_at_different_prompt_lengths_are_not_ranked():
    short = tp_run(30, [cell(512, 1, 800.0, 30.0, ttft=0.2)])
    long = tp_run(31, [cell(4096, 1, 700.0, 28.0, ttft=5.0)])
    rows = dimension_rows([short, long])
    ttft = by_key(rows, "ttft_longest")
    assert [v.detail["tokens"] for v in ttft.values] == [512, 4096]
    assert ttft.verdict.status == "n/a" and "different prompt lengths" in ttft.verdict.text
    assert by_key(rows, "prefill_c1").verdict.status == "n/a"


def test_simulator_personas_pair_with_the_swept_server_unless_their_own_model_was_swept():
    def sim(run):
        i = run.info
        return type(run)(**{**run.__dict__, "info": RunInfo(
            i.id, i.kind, i.name, i.endpoint, i.model, "simulated vllm", i.status,
            i.started_at, i.ended_at, i.config)})

    careful_tp = sim(tp_run(40, TP.cells, model="sim/careful"))
    server_tp = sim(tp_run(41, TP.cells, model="sim/llama-sim-8b"))
    careful = sim(sql_run(42, SQL.questions, model="sim/careful"))
    seed = sim(sql_run(43, SQL.questions, model="sim/seed-reference"))
    pairs, notes = pair_runs([careful_tp, server_tp, careful, seed])
    # sim/careful was swept itself: that sweep only. sim/seed-reference was not: any sweep of
    # the simulated server at that endpoint stands in (the persona is a script, not weights).
    assert [(tp.info.id, s.info.id) for tp, s in pairs] == [(40, 42), (40, 43), (41, 43)]
    assert notes == []
