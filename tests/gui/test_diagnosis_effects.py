"""The diagnosis pane shows a suggestion's predicted effect (#15) on a line of its own beneath
the suggestion, and a suggestion the model withdraws as the sentence saying so."""

from PySide6.QtCore import Qt

from desktop_app.core.throughput.diagnosis import diagnose
from desktop_app.gui.widgets.diagnosis import DiagnosisView
from desktop_app.report.diagnosis_words import effect_text, findings_text, suggestion_parts
from tests.core.throughput.test_diagnosis import sweep, vllm_info
from tests.core.throughput.test_effects import fast_capped_findings
from tests.lang_check import english_runs


def _children(view, code):
    for i in range(view.tree.topLevelItemCount()):
        item = view.tree.topLevelItem(i)
        if item.data(0, Qt.ItemDataRole.UserRole) == code:
            return [item.child(k).text(0) for k in range(item.childCount())]
    raise AssertionError(code)


def test_the_pane_shows_the_predicted_effect_beneath_the_suggestion(qtbot):
    findings = fast_capped_findings()
    view = DiagnosisView(lang="zh")
    qtbot.addWidget(view)
    view.set_findings(findings)
    cap = next(f for f in findings if f.code == "concurrency_cap")
    children = _children(view, "concurrency_cap")
    suggestion, effect = suggestion_parts(cap, "zh")
    assert effect.startswith("将 max-num-seqs 调到 4（按本次运行拟合的模型）：")
    assert any(suggestion in c for c in children) and effect in children
    # Withdrawn: the suggestion itself says the model predicts no gain, with no effect line.
    drop = next(f for f in findings if f.code == "prefill_drop_under_concurrency")
    rows = _children(view, "prefill_drop_under_concurrency")
    assert any(c.endswith(suggestion_parts(drop, "zh")[0]) for c in rows)
    assert suggestion_parts(drop, "zh")[0].startswith("保持 max-num-batched-tokens 为 2048")
    assert effect_text(drop, "zh") not in rows
    text = view.toPlainText()
    assert text == findings_text(findings, "zh") and english_runs(text) == []


def test_a_run_without_predictions_shows_its_suggestions_as_before(qtbot):
    cells = sweep("fast-capped", (512, 1024), (1, 4), metrics_cap=2, kv=0.2)
    findings = diagnose(cells, vllm_info(), server_settings={"max-num-seqs": 2})
    view = DiagnosisView(lang="en")
    qtbot.addWidget(view)
    view.set_findings(findings)
    children = _children(view, "concurrency_cap")
    assert children[-2].startswith("Suggestion: Raising max-num-seqs lets more requests")
    assert not any("model fitted to this run" in c for c in children)
