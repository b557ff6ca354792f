"""The Inspector says the judges' verdicts, the line across judges, the findings and why the
loop stopped in the UI's language (#12): in Chinese no English sentence is left."""

import re

import pytest
from PySide6.QtCore import QLocale

from desktop_app.report.judge_words import ENGLISH
from tests.gui.test_inspector_page import _open, _rejudge, page, stored_run  # noqa: F401
from tests.lang_check import english_runs


@pytest.fixture
def chinese():
    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    yield
    QLocale.setDefault(before)


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_m01_reads_in_chinese(qtbot, page, stored_run, chinese):  # noqa: F811
    _db, _cache, run_id, rows, _steps = stored_run
    _open(qtbot, page, run_id, rows["m01"]["id"])
    assert page.verdict_labels["strict"].text() == "严格：未通过"
    assert page.verdict_labels["tolerant"].text().startswith("容差：通过")
    assert page.counterfactual.text() == "严格未通过，容差和完整通过：仅取整不同（net_revenue）"
    findings = _plain(page.findings.text())
    assert "缺少 ROUND(x, 2)" in findings and "net_revenue" in findings
    assert "得到 87495.951，应为 87495.95" in findings
    for text in (page.counterfactual.text(), findings):
        assert english_runs(text) == [], text
    assert "已提交" in page.status.text()  # the stop reason in words
    listed = [page.question_list.itemText(i) for i in range(page.question_list.count())]
    assert any(t.startswith("m01 · medium · 严格 未通过，容差 通过") for t in listed), listed
    # A re-judge says its new verdicts in Chinese too.
    _rejudge(qtbot, page, "1e-6")
    assert page.counterfactual.text().startswith("严格未通过")


def test_m01_reads_in_english_as_before(qtbot, page, stored_run):  # noqa: F811
    _db, _cache, run_id, rows, _steps = stored_run
    _open(qtbot, page, run_id, rows["m01"]["id"])
    assert page.verdict_labels["strict"].text() == "strict: FAIL"
    line = ENGLISH.headline(page.detail.counterfactual)
    assert page.counterfactual.text() == line[:1].upper() + line[1:]
    assert "stopped: submitted" in page.status.text()
