"""The PDF's diagnosis section in the report's language (#12): findings rendered from their
codes and values; a run diagnosed before keeps its English text, and the Chinese report says
that text is quoted as it was."""

from html import unescape
from types import SimpleNamespace

from desktop_app.core.throughput.records import findings_from_json
from desktop_app.report.diagnosis_words import finding_text, suggestion_text
from desktop_app.report.sections import diagnosis
from desktop_app.report.strings import text
from tests.core.throughput.test_diagnosis import diagnose, sweep, vllm_info
from tests.lang_check import english_runs


def _comp(*runs):
    return SimpleNamespace(throughput=[
        SimpleNamespace(info=SimpleNamespace(label=f"#{i} sweep"), diagnosis_error=None,
                        findings=tuple(findings)) for i, findings in enumerate(runs, 1)])


def test_the_chinese_section_renders_the_findings_in_chinese():
    cells = sweep("seed-reference", (512, 1024), (1, 2, 4, 6), metrics_cap=2, kv=0.91)
    findings = diagnose(cells, vllm_info(), server_settings={"max-num-seqs": 2})
    html = unescape(diagnosis(_comp(findings), "zh"))
    for f in findings:
        assert finding_text(f, "zh") in html
        if suggestion_text(f, "zh"):
            assert suggestion_text(f, "zh") in html
    assert text("zh", "english_only") not in html
    body = html[html.index("<ol>"):]
    assert english_runs(body.replace("<br/>", " ").replace("<li>", " ")) == []
    assert finding_text(findings[0], "en") in unescape(diagnosis(_comp(findings), "en"))


def test_an_old_run_keeps_its_english_text_and_the_note_says_so():
    old = findings_from_json([{"code": "concurrency_cap", "severity": "problem",
                               "message": "Requests queue: the server ran at most 2 requests "
                                          "at once.", "evidence": {"cap": 2},
                               "suggestion": "Raising max-num-seqs lets more run."}])
    html = unescape(diagnosis(_comp(old), "zh"))
    assert "Requests queue: the server ran at most 2 requests at once." in html
    assert "Raising max-num-seqs lets more run." in html
    assert text("zh", "english_only") in html
