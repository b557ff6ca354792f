"""One glossary of metric names (docs/GLOSSARY.md, written from `report.strings.TERMS`), and
the report's words naming each metric as the glossary does, in English and in Chinese."""

import re
from pathlib import Path

from desktop_app.core.metrics import DEFINITIONS
from desktop_app.report import strings, verdicts
from desktop_app.report.strings import TERMS, glossary_markdown, term

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "GLOSSARY.md"


def test_the_glossary_document_is_the_one_the_code_writes():
    assert GLOSSARY.read_text(encoding="utf-8") == glossary_markdown(), (
        "docs/GLOSSARY.md is out of date: write it again with "
        "`python -c 'from desktop_app.report.strings import glossary_markdown as g; "
        "open(\"docs/GLOSSARY.md\", \"w\").write(g())'`")


def test_every_core_metric_is_in_the_glossary_with_the_cores_definition():
    assert set(DEFINITIONS) <= set(TERMS)
    for key, words in DEFINITIONS.items():
        assert strings.definition("en", key) == words  # one home: core/metrics.py
        assert strings.definition("zh", key) and strings.definition("zh", key) != words


def _glossary_names(column: int) -> set[str]:
    rows = [line.split(" | ") for line in GLOSSARY.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")]
    return {row[column].strip() for row in rows}


# The report's words that name a metric, and the glossary term each one names.
_NAMED = {"col_prefill": "prefill_tps", "col_decode": "decode_tps", "col_ttft": "ttft_s",
          "col_s_task": "seconds_per_task", "col_tasks_h": "tasks_per_hour",
          "col_correct_h": "correct_per_hour", "col_tokens_pass": "tokens_per_pass",
          "chart_prefill": "prefill_tps", "chart_decode": "decode_tps", "chart_ttft": "ttft_s",
          "series_kv": "kv_cache", "series_running": "running", "series_waiting": "waiting"}


def test_the_pdfs_metric_names_are_the_glossarys_in_each_language():
    zh_names = _glossary_names(2)
    for key, name in _NAMED.items():
        for lang in ("en", "zh"):
            assert term(lang, name) in strings.text(lang, key, judge="x"), (lang, key)
        assert term("zh", name) in zh_names
    for lang, catalogues in (("en", (strings.EN, verdicts.EN)), ("zh", (strings.ZH, verdicts.ZH))):
        for catalogue in catalogues:
            for key, words in catalogue.items():
                if key.startswith("def_"):
                    continue  # definitions spell the stored fields (prefill_tps) on purpose
                # One name per language: "Prefill"/"Decode" as the glossary writes them, never
                # "prefill tok/s" in a table and 预填充 in a chart.
                assert not re.search(r"(?<![\w/])(prefill|decode) tok/s", words), (lang, key)
                if lang == "zh":
                    assert not re.search(r"预填充|解码|首字", words), (key, words)
                    assert not re.search(r"(?<![\w/])(prefill|decode)(?![\w])", words), key


def test_every_word_of_the_glossary_and_the_capacity_reasons_has_chinese():
    from importlib import import_module

    from tests.lang_check import english_runs

    capacity = import_module("desktop_app.core.compare.capacity")  # the package's function

    for key in TERMS:
        assert english_runs(f"{term('zh', key)} {strings.definition('zh', key)}") == [], key
    # Why a capacity point has no figures: a code per reason (core/compare/capacity.py).
    codes = set(re.findall(r'reason_code="(\w+)"', Path(capacity.__file__).read_text()))
    assert codes == {"no_steps", "no_prefill", "no_decode", "no_time", "not_swept"}
    for code in codes:
        assert english_runs(strings.text("zh", f"cap_reason_{code}")) == [], code
        assert strings.text("en", f"cap_reason_{code}") != strings.text("zh", f"cap_reason_{code}")


def test_every_chinese_catalogue_and_the_window_use_the_glossarys_metric_names():
    # The diagnosis, the judges' words and the window's translation name Prefill and Decode as
    # the tables do: a reader never meets 预填充 in one place and Prefill in another.
    from pathlib import Path

    from desktop_app.report import diagnosis_words, judge_words, question_words

    texts = {"diagnosis_words": str(diagnosis_words.WORDS["zh"]),
             "question_words": str(question_words.WORDS["zh"]),
             "judge_words": Path(judge_words.__file__).read_text(encoding="utf-8"),
             "throughline_zh_CN.ts": (Path(__file__).resolve().parents[2] / "resources"
                                      / "translations" / "throughline_zh_CN.ts"
                                      ).read_text(encoding="utf-8")}
    for name, text in texts.items():
        assert not re.findall(r".{0,12}(?:预填充|解码).{0,12}", text), name
