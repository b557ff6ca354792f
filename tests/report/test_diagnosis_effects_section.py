"""The PDF's diagnosis section carries each suggestion's predicted effect (#15), in the
report's language, and a withdrawn suggestion as the sentence saying why."""

from html import unescape
from types import SimpleNamespace

from desktop_app.report.diagnosis_words import suggestion_parts
from desktop_app.report.sections import diagnosis
from tests.core.throughput.test_effects import fast_capped_findings
from tests.lang_check import english_runs


def _comp(findings):
    return SimpleNamespace(throughput=[SimpleNamespace(
        info=SimpleNamespace(label="#1 capped"), diagnosis_error=None, findings=findings)])


def test_the_section_states_the_predicted_effects_in_both_languages():
    findings = fast_capped_findings()
    cap = next(f for f in findings if f.code == "concurrency_cap")
    drop = next(f for f in findings if f.code == "prefill_drop_under_concurrency")
    for lang in ("en", "zh"):
        html = unescape(diagnosis(_comp(findings), lang))
        suggestion, effect = suggestion_parts(cap, lang)
        assert f"{suggestion}<br/>{effect}" in html
        assert suggestion_parts(drop, lang)[0] in html
    html = unescape(diagnosis(_comp(findings), "en"))
    assert "Raising max-num-seqs to 4 (model fitted to this run): at 512 tokens x 4" in html
    assert "Leave max-num-batched-tokens at 2048" in html
    body = unescape(diagnosis(_comp(findings), "zh"))
    body = body[body.index("<ol>"):].replace("<br/>", " ").replace("<li>", " ")
    assert english_runs(body) == []
