"""The diagnosis pane in the reader's language (#12): findings as codes and values shown in
Chinese, headline = the first sentence, the suggestion folded beneath; an old run's English
text shown as kept."""

from desktop_app.core.throughput.records import findings_from_json
from desktop_app.gui.widgets.diagnosis import DiagnosisView, headline
from desktop_app.report.diagnosis_words import finding_text, suggestion_text
from tests.core.throughput.test_diagnosis import diagnose, sweep, vllm_info
from tests.lang_check import english_runs


def test_the_pane_shows_the_findings_in_chinese(qtbot):
    cells = sweep("seed-reference", (512, 1024), (1, 2, 4, 6), metrics_cap=2, kv=0.91)
    findings = diagnose(cells, vllm_info(), server_settings={"max-num-seqs": 2})
    view = DiagnosisView(lang="zh")
    qtbot.addWidget(view)
    view.set_findings(findings)
    cap = view.tree.topLevelItem(0)
    first, rest = headline(finding_text(findings[0], "zh"))
    assert first.startswith("请求在排队") and first.endswith("。") and rest
    assert cap.text(0).endswith(first)
    children = [cap.child(i).text(0) for i in range(cap.childCount())]
    assert children[0] == rest
    assert suggestion_text(findings[0], "zh") in children[1]
    text = view.toPlainText()
    assert text.startswith("诊断：") and english_runs(text) == []
    # A run diagnosed before #12 kept English sentences: shown as they were.
    old, = findings_from_json([{"code": "ttft_linear", "severity": "info",
                                "message": "TTFT grows about linearly. It is expected.",
                                "evidence": {}, "suggestion": None}])
    view.set_findings([old])
    assert view.headlines()[0].endswith("TTFT grows about linearly.")


def test_a_long_suggestion_wraps_to_the_pane_and_evidence_unfolds_as_rows(qtbot):
    """The suggestion and its predicted effect read whole in the window (they ended in "..."
    even at 1600 px), and a mapping in the evidence is rows, not raw JSON."""
    cells = sweep("seed-reference", (512, 1024), (1, 2, 4, 6), metrics_cap=2, kv=0.91)
    findings = diagnose(cells, vllm_info(), server_settings={"max-num-seqs": 2})
    view = DiagnosisView(lang="en")
    qtbot.addWidget(view)
    view.resize(520, 700)
    view.show()
    view.set_findings(findings)
    view.tree.expandAll()
    cap = view.tree.topLevelItem(0)
    suggestion = cap.child(1)
    assert len(suggestion.text(0)) > 150  # several lines at this width
    qtbot.waitUntil(lambda: view.tree.visualItemRect(suggestion).height()
                    >= 3 * view.tree.fontMetrics().height(), timeout=3000)
    one_line = view.tree.visualItemRect(suggestion).height()
    view.resize(1400, 700)  # wider: the same text takes fewer lines
    qtbot.waitUntil(lambda: view.tree.visualItemRect(suggestion).height() < one_line,
                    timeout=3000)
    evidence = cap.child(cap.childCount() - 1)
    rows = [evidence.child(i).text(0) for i in range(evidence.childCount())]
    assert rows and not any("{" in row for row in rows), rows
