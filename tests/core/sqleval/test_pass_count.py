"""A pass rate has one definition: passed of the questions a judge judged. A question a judge did
not judge (one the judge cannot take, as an imported set without column names for strict) is not
a failure, in the JSON export's summary as in every view's count."""

from desktop_app.core.sqleval.export import summarize
from tests.core.compare.test_compare import question, sql_run


def test_a_judge_that_did_not_judge_a_question_does_not_count_it_as_failed():
    # q1 judged by both; q2 by strict only (tolerant=None: no tolerant verdict), in two tiers.
    run = sql_run(1, [question("q1", "easy", [(10, 5)], True, True),
                      question("q2", "hard", [(10, 5)], False)])
    summary, _tiers, _spread = summarize([q.item() for q in run.questions],
                                         ("strict", "tolerant"))
    assert (summary["strict"].passed, summary["strict"].total) == (1, 2)
    assert (summary["tolerant"].passed, summary["tolerant"].total) == (1, 1)  # was 1 of 2
    assert summary["tolerant"].by_tier == {"easy": (1, 1)}  # no hard question judged
    count = run.pass_count("tolerant")
    assert (count.passed, count.judged) == (summary["tolerant"].passed,
                                            summary["tolerant"].total)


def test_epochs_spread_rests_on_judged_questions_only():
    run = sql_run(1, [question("q1", "easy", [(10, 5)], True, True, epoch=0),
                      question("q2", "easy", [(10, 5)], False, epoch=0),
                      question("q1", "easy", [(10, 5)], True, False, epoch=1),
                      question("q2", "easy", [(10, 5)], True, epoch=1)])
    _summary, _tiers, spread = summarize([q.item() for q in run.questions],
                                         ("strict", "tolerant"))
    assert spread["tolerant"].rates == (1.0, 0.0)  # q2 never judged by tolerant
    assert spread["strict"].rates == (0.5, 1.0)
