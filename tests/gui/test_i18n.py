"""English and Simplified Chinese: the translation is complete and current, the app shows it,
the language setting is kept, and Chinese has a font to be drawn with."""

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QSettings, QTranslator
from PySide6.QtWidgets import QFormLayout, QLabel, QMessageBox

from desktop_app.gui import i18n
from desktop_app.gui.context import AppContext
from desktop_app.gui.main_window import PAGES, MainWindow
from desktop_app.gui.settings import KEY_LANGUAGE, Settings

ROOT = Path(__file__).resolve().parents[2]
TS = i18n.ts_file("zh_CN")
LUPDATE = ROOT / ".venv" / "bin" / "pyside6-lupdate"
PLACEHOLDER = re.compile(r"\{[a-z_]+\}|%[vmn]")


def _settings(tmp_path: Path) -> Settings:
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


def _messages(path: Path) -> dict[tuple[str, str], ET.Element]:
    root = ET.parse(path).getroot()
    return {(ctx.findtext("name"), m.findtext("source")): m.find("translation")
            for ctx in root.iter("context") for m in ctx.iter("message")}


@pytest.fixture
def chinese(qapp):
    """The app's translators for zh_CN installed for one test, removed after it."""
    translators = i18n.install_translators(qapp, "zh_CN")
    assert translators, "the zh_CN translation could not be loaded"
    yield
    i18n.remove_translators(qapp, translators)


def test_every_message_has_a_chinese_translation_with_the_same_placeholders():
    messages = _messages(TS)
    assert len(messages) > 300
    for (context, source), translation in messages.items():
        text = "".join(translation.itertext())
        state = translation.get("type")
        assert state is None, f"{context}: {source!r} is {state}"
        assert text.strip(), f"{context}: {source!r} has no translation"
        assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), (
            f"{context}: {source!r} -> {text!r}: placeholders differ")


def test_the_translation_source_is_up_to_date_with_the_code(tmp_path):
    """lupdate over desktop_app/gui finds no string the .ts lacks, and none it no longer has
    (run it as the failure says to update the .ts, then translate what is new)."""
    if not LUPDATE.exists():
        pytest.skip("pyside6-lupdate is not in .venv (run make setup)")
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    sources = sorted(str(p) for p in (ROOT / "desktop_app" / "gui").rglob("*.py"))
    subprocess.run([str(LUPDATE), *sources, "-ts", str(copy), "-no-obsolete", "-locations",
                    "none", "-silent"], check=True, timeout=60)
    before, after = set(_messages(TS)), set(_messages(copy))
    hint = ("update it: .venv/bin/pyside6-lupdate $(find desktop_app/gui -name '*.py') -ts "
            f"{TS.relative_to(ROOT)} -no-obsolete -locations none, then translate")
    assert not after - before, f"strings missing from the .ts ({hint}): {sorted(after - before)}"
    assert not before - after, f"strings no longer in the code ({hint}): {sorted(before - after)}"


def test_the_window_speaks_chinese_in_its_sidebar_titles_and_forms(qtbot, qt_loop, tmp_path,
                                                                   chinese):
    window = MainWindow(_settings(tmp_path))
    qtbot.addWidget(window)
    titles = [window.sidebar.item(i).text().split("\t")[0] for i in range(len(PAGES))]
    assert titles == ["端点", "吞吐量", "SQL 智能体", "运行记录", "检查器"]
    heading = window.pages["Runs"].findChild(QLabel, "pageTitle")
    assert heading.text() == "运行记录"
    assert window.job_label.text() == "没有正在运行的任务"
    assert PAGES[0].title == "Endpoints"  # pages are still found by their English title

    from desktop_app.gui.pages.throughput import ThroughputPage

    page = ThroughputPage(AppContext(tmp_path / "r.db"), _settings(tmp_path))
    qtbot.addWidget(page)
    form = page.input_tokens.parentWidget().layout()
    assert isinstance(form, QFormLayout)
    labels = [form.itemAt(row, QFormLayout.ItemRole.LabelRole) for row in range(form.rowCount())]
    texts = [item.widget().text() for item in labels if item is not None and item.widget()]
    assert "提示长度（token）" in texts
    assert page.start_button.text() == "开始"
    assert page.endpoint_label.text() == "没有端点：请在“端点”页选择一个端点。"
    header = page.model.headerData(0, page.table.horizontalHeader().orientation())
    assert header == "输入"


def test_english_is_the_source_text(qtbot, tmp_path):
    window = MainWindow(_settings(tmp_path))
    qtbot.addWidget(window)
    assert window.sidebar.item(0).text().split("\t")[0] == "Endpoints"


def test_the_language_chosen_in_the_menu_is_kept(qtbot, tmp_path, monkeypatch):
    window = MainWindow(_settings(tmp_path))
    qtbot.addWidget(window)
    assert window.language_actions["system"].isChecked()  # the default follows the system
    window.language_actions["zh_CN"].trigger()
    assert "starts again" in window.statusBar().currentMessage()
    # The change offers a restart; "Later" keeps the window open and restarts nothing.
    restarted = []
    monkeypatch.setattr("desktop_app.gui.main_window.restart_app", lambda: restarted.append(1))
    assert window.restart_box.isVisible()
    window.restart_box.button(QMessageBox.StandardButton.No).click()
    assert not restarted
    window.language_actions["en"].trigger()
    window.restart_box.button(QMessageBox.StandardButton.Yes).click()
    assert restarted
    window.language_actions["zh_CN"].trigger()
    window.restart_box.button(QMessageBox.StandardButton.No).click()

    again = MainWindow(_settings(tmp_path))  # a fresh QSettings on the same file
    qtbot.addWidget(again)
    assert _settings(tmp_path).text_value(KEY_LANGUAGE) == "zh_CN"
    assert again.language_actions["zh_CN"].isChecked()
    assert not again.language_actions["system"].isChecked()


@pytest.mark.parametrize(("choice", "system", "shown"), [
    ("system", "zh_CN", "zh_CN"), ("system", "zh_TW", "zh_CN"), ("system", "en_US", "en"),
    ("system", "de_DE", "en"), ("en", "zh_CN", "en"), ("zh_CN", "en_US", "zh_CN"),
    (None, "zh_CN", "zh_CN"), ("klingon", "en_GB", "en"),
])
def test_the_system_choice_follows_the_locale(choice, system, shown):
    assert i18n.resolve_language(choice, system) == shown


def test_a_missing_qm_is_compiled_into_the_cache_once(tmp_path, monkeypatch, qapp):
    ts = tmp_path / "src" / TS.name
    ts.parent.mkdir()
    shutil.copy(TS, ts)  # no .qm beside it, as after a plain pip install
    monkeypatch.setattr(i18n, "ts_file", lambda language: ts)
    cache = tmp_path / "cache"
    qm = i18n.qm_file("zh_CN", cache)
    assert qm == cache / "throughline_zh_CN.qm" and qm.is_file()
    made = qm.stat().st_mtime_ns
    assert i18n.qm_file("zh_CN", cache) == qm and qm.stat().st_mtime_ns == made
    translator = QTranslator()
    assert translator.load(str(qm))
    assert translator.translate("MainWindow", "Endpoints") == "端点"


def test_a_frozen_build_uses_its_shipped_qm_without_the_source(tmp_path, monkeypatch, qapp):
    # The bundle holds the compiled .qm alone, and no lrelease to make one.
    shipped = tmp_path / "translations"
    shipped.mkdir()
    qm = i18n.qm_file("zh_CN", tmp_path / "cache")
    shutil.copy(qm, shipped / qm.name)
    monkeypatch.setattr(i18n, "ts_file", lambda language: shipped / TS.name)
    monkeypatch.setattr(i18n, "_lrelease", lambda: None)
    assert i18n.qm_file("zh_CN", tmp_path / "cache2") == shipped / qm.name


def test_chinese_has_a_font_and_the_app_falls_back_to_it(qapp):
    family = i18n.cjk_family()
    assert family, "no font with Chinese glyphs (install fonts-wqy-microhei)"
    before = qapp.font()
    try:
        assert i18n.use_cjk_fallback(qapp) == family
        assert family in qapp.font().families()  # pyqtgraph's text takes the app font
    finally:
        qapp.setFont(before)


def test_the_translated_text_reaches_qt_translate(chinese):
    assert QCoreApplication.translate("RunStatus", "completed") == "已完成"
    assert i18n.status_text("cancelled") == "已取消"


def test_starting_in_chinese_sets_translators_locale_and_font(qapp):
    locale, font = QLocale(), qapp.font()
    language, translators = i18n.setup_language(qapp, "zh_CN")
    try:
        assert language == "zh_CN"
        assert QCoreApplication.translate("MainWindow", "Runs") == "运行记录"
        assert QLocale().language() == QLocale.Language.Chinese  # the PDF report follows it
        assert i18n.cjk_family() in qapp.font().families()
    finally:
        i18n.remove_translators(qapp, translators)
        QLocale.setDefault(locale)
        qapp.setFont(font)
    assert QCoreApplication.translate("MainWindow", "Runs") == "Runs"


@pytest.fixture
def chinese_locale(chinese):
    """Chinese translators and the Chinese locale, which the core's words follow (report_language)."""
    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    yield
    QLocale.setDefault(before)


def test_a_form_error_the_core_raises_reads_in_chinese(qtbot, qt_loop, tmp_path, chinese_locale):
    from desktop_app.gui.pages.endpoints import EndpointsPage
    from desktop_app.gui.pages.throughput import ThroughputPage

    page = ThroughputPage(AppContext(tmp_path / "r.db"), _settings(tmp_path))
    qtbot.addWidget(page)
    page.concurrency.setText("1, x")
    assert page._errors["concurrency"].text() == "并发数：'x' 不是整数（示例：512、2048、4k）"
    page.concurrency.setText("1")
    page.requests_per_cell.setText("0")
    assert page._errors["requests per cell"].text() == "每个单元的请求数：'0' 小于最小值 1"

    from desktop_app.gui.secrets import ApiKeys
    from tests.gui.test_endpoints_page import MemoryKeyring

    endpoints = EndpointsPage(AppContext(tmp_path / "r.db"), settings=_settings(tmp_path),
                              profiles_path=tmp_path / "endpoints.json",
                              api_keys=ApiKeys(MemoryKeyring()))
    qtbot.addWidget(endpoints)
    try:
        endpoints.url_edit.setText("localhost:8000")
        assert endpoints._check_url() is None
        assert endpoints.url_error.text() == (
            "基础 URL：'localhost:8000' 缺少协议：请以 http:// 或 https:// 开头")
    finally:
        endpoints.shutdown()


def test_the_same_form_error_reads_in_english(qtbot, qt_loop, tmp_path):
    from desktop_app.gui.pages.throughput import ThroughputPage

    page = ThroughputPage(AppContext(tmp_path / "r.db"), _settings(tmp_path))
    qtbot.addWidget(page)
    page.concurrency.setText("1, x")
    assert page._errors["concurrency"].text() == (
        "concurrency: 'x' is not a whole number (examples: 512, 2048, 4k)")


def test_a_load_reads_as_the_pdf_says_it_in_the_chinese_window(qtbot, qt_loop, tmp_path,
                                                               chinese_locale):
    """One home for a cell's load: the window's cell table, the diagnosis and the PDF say 负载未知
    for an imported cell that records no load (the cell table said "load unknown")."""
    from desktop_app.core.exchange import import_file
    from desktop_app.core.store import Store
    from desktop_app.gui.pages.throughput import ThroughputPage
    from desktop_app.report.diagnosis_words import cell_text

    imports = ROOT / "tests" / "core" / "data" / "imports"
    db = tmp_path / "results.db"
    with Store.open(db) as store:
        run_id = import_file(store, imports / "profile_export_aiperf.csv")
    page = ThroughputPage(AppContext(db), _settings(tmp_path))
    qtbot.addWidget(page)
    page.load_run(run_id)
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=10000)
    assert page.model.index(0, 1).data() == "负载未知"
    assert cell_text({"input_tokens": 1, "output_tokens": 2}, "zh").endswith("负载未知")


def test_one_is_said_in_the_singular_in_english_and_in_chinese(qtbot, chinese):
    """"1 steps", "1 rows", "Wrote 1 file(s)" (#30): each count has a singular sentence."""
    from desktop_app.core.sqleval.types import QueryResult
    from desktop_app.gui.widgets.result_diff import _title as result_heading

    one = QueryResult(("a",), ((1,),), total_rows=1)
    assert result_heading("Expected", one, "").endswith(": 1 行")


def test_one_row_reads_as_one_row_in_english(qtbot):
    from desktop_app.core.sqleval.types import QueryResult
    from desktop_app.gui.widgets.result_diff import _title as result_heading

    one = QueryResult(("a",), ((1,),), total_rows=1)
    two = QueryResult(("a",), ((1,), (2,)), total_rows=2)
    assert result_heading("Expected", one, "").endswith(": 1 row")
    assert result_heading("Expected", two, "").endswith(": 2 rows")


def test_the_import_dialog_names_its_own_field_not_the_cli_flag(qtbot, tmp_path):
    from desktop_app.core.sqleval.importers import ImportNote, ImportReport
    from desktop_app.gui.widgets.import_dialog import ImportQuestionsDialog

    dialog = ImportQuestionsDialog(sets_dir=tmp_path)
    qtbot.addWidget(dialog)
    report = ImportReport(tmp_path, "s", "spider",
                          skipped=[ImportNote("dev.json: record 1", "db_not_found",
                                              {"db": "concert"})])
    lines = dialog._notes(report)
    assert lines[1] == ("  dev.json: record 1: database 'concert' not found in the Databases "
                        "folder (as concert/concert.sqlite or concert.sqlite)")
    assert "--db-dir" not in "\n".join(lines)


def test_the_comparison_chart_and_the_judge_note_have_no_english_in_chinese(qtbot, chinese):
    """#30: the comparison chart read '(ktokens)' (pyqtgraph's SI prefix on 'tokens') and the
    judge note named full, strict and tolerant where the boxes above say 完整, 严格, 容差."""
    from desktop_app.gui.widgets.comparison import ComparisonView

    view = ComparisonView()
    qtbot.addWidget(view)
    axis = view.plot.getAxis("bottom")
    assert axis.labelString().count("提示长度（token）") == 1
    assert "ktokens" not in axis.labelString()
    for (context, source), translation in _messages(TS).items():
        text = "".join(translation.itertext())
        if "strict" in source and "tolerant" in source and "{" not in source:
            assert not re.search(r"\b(strict|tolerant|full)\b", text), (context, text)


def test_the_import_dialog_says_a_refused_file_in_chinese(qtbot, qt_loop, chinese_locale,
                                                          tmp_path):
    """The core's refusal of a question file reached the Chinese dialog in English."""
    from desktop_app.gui.widgets.import_dialog import ImportQuestionsDialog
    from tests.lang_check import english_runs

    source = tmp_path / "notes.json"
    source.write_text("not json at all", encoding="utf-8")
    dialog = ImportQuestionsDialog(sets_dir=tmp_path / "sets")
    qtbot.addWidget(dialog)
    dialog.source_edit.setText(str(source))
    dialog._on_import_clicked()
    qtbot.waitUntil(lambda: dialog.task.done(), timeout=10_000)
    text = dialog.report.toPlainText()
    assert "不是 JSON；请用 “格式”一栏 指明格式" in text, text  # its field, not the flag
    assert english_runs(text) == [], text
