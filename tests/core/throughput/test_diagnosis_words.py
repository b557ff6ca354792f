"""The diagnosis in the reader's language (#12): every code the core can emit has English and
Chinese words, a Chinese rendering of real findings leaves no English sentence behind, the
stored form keeps codes and values, and a diagnosis kept as English text before still shows."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pytest

from desktop_app.core.metrics import summarize_cell
from desktop_app.core.throughput.diagnosis import (
    FINDING_CODES,
    PART_CODES,
    SUGGESTION_CODES,
    diagnose,
)
from desktop_app.core.throughput.records import finding_to_json, findings_from_json
from desktop_app.core.throughput.types import ClientLoad, Finding
from desktop_app.report.diagnosis_words import (
    WORDS,
    finding_text,
    findings_text,
    is_stored_text,
    suggestion_text,
)
from desktop_app.report.effect_words import EFFECT_WORDS
from desktop_app.report.words_common import SHARED_WORDS
from tests.core.throughput.test_diagnosis import sweep, vllm_info
from tests.lang_check import english_runs


def _real_findings() -> list[Finding]:
    """Findings of the fixtures tests/core/throughput/test_diagnosis.py uses, between them every code."""
    out = []
    cells = sweep("seed-reference", (512, 1024), (1, 2, 4, 6), metrics_cap=2, kv=0.91)
    out += diagnose(cells, vllm_info(), server_settings={"max-num-seqs": 2,
                                                         "gpu-memory-utilization": 0.9})
    out += diagnose(sweep("seed-reference", (512, 1024), (1, 2, 4, 6)))  # no /metrics
    for engine in ("llamacpp", "sglang", "tgi"):
        out += diagnose(sweep("seed-reference", (512,), (1, 4), metrics_cap=2, kv=0.5),
                        dataclasses.replace(vllm_info(), engine=engine))
    out += diagnose(sweep("seed-reference", (2048, 8192, 32768), (1,), output=16,
                          requests=lambda c: 1))
    cells = sweep("seed-reference", (512,), (1, 2), metrics_cap=2, kv=0.5)
    samples = tuple(dataclasses.replace(s, preemptions=float(min(k, 3)),
                                        kv_cache_usage=0.97 if k == 2 else 0.6)
                    for k, s in enumerate(cells[-1].samples))
    cells[-1] = dataclasses.replace(cells[-1], samples=samples)
    out += diagnose(cells, vllm_info())
    cells = sweep("fast", (512,), (1, 2, 4))
    busy = ClientLoad(loop_lag_p50_ms=4.0, loop_lag_p99_ms=18.0, loop_lag_max_ms=45.0,
                      cpu_percent=97, samples=100)
    idle = dataclasses.replace(busy, cpu_percent=20)
    out += diagnose([dataclasses.replace(c, client_load=busy) for c in cells])
    out += diagnose([dataclasses.replace(c, client_load=idle) for c in cells])
    cells = sweep("fast", (512,), (1, 2))
    ts = list(cells[1].timings)
    for k, cls in enumerate(("timeout", "http_status", "stream_cut", "no_content")):
        ts[k] = dataclasses.replace(ts[k], error_class=cls, first_token_s=None,
                                    last_token_s=None)
    cells[1] = dataclasses.replace(cells[1], timings=tuple(ts), summary=summarize_cell(ts),
                                   token_mismatches=3,
                                   implausible={"usage_mismatch": 2, "no_content": 1})
    cells[0] = dataclasses.replace(cells[0], implausible={"negative_usage": 1,
                                                          "absurd_usage": 1}, resent=2)
    out += diagnose(cells)
    # llama.cpp's server closing kept-alive connections: said in its own terms.
    out += diagnose([dataclasses.replace(c, resent=1) for c in sweep("fast", (512,), (1, 2))],
                    dataclasses.replace(vllm_info(), engine="llamacpp"))
    cells = sweep("fast", (512,), (1, 4), requests=lambda c: 16)
    serial, clock = [], cells[1].started_s
    for t in cells[1].timings:  # sent one after another: c=4 in name only
        serial.append(dataclasses.replace(
            t, sent_s=clock, first_token_s=t.first_token_s - t.sent_s + clock,
            last_token_s=t.last_token_s - t.sent_s + clock))
        clock = serial[-1].last_token_s
    cells[1] = dataclasses.replace(cells[1], timings=tuple(serial))
    out += diagnose(cells)
    cells = sweep("fast", (512, 1024), (1, 2, 4))
    out += diagnose([dataclasses.replace(c, goodput=g)
                     for c, g in zip(cells, (1.0, 0.95, 0.6, 0.5, 0.4, 0.3))])
    # Ray actors' clocks beyond the tolerance, and only the end's measurement failed.
    from tests.core.throughput.test_ray_clocks_finding import BEYOND, _actor, _record
    out += diagnose([], run_config=BEYOND)
    out += diagnose([], run_config={"ray_clocks": [_record([_actor("gpu-a", 0.2, 0.1)],
                                                           end_failed=True)]})
    return out


@pytest.fixture(scope="module")
def findings() -> list[Finding]:
    return _real_findings()


def test_every_code_the_core_can_emit_has_english_and_chinese_words():
    assert set(WORDS["en"]) == set(WORDS["zh"])
    # WORDS joins the findings' words with the predicted effects' and the shared separators:
    # each part is whole in both languages, and none is left out of the one catalogue.
    for part in (EFFECT_WORDS, SHARED_WORDS):
        assert set(part["en"]) == set(part["zh"])
        assert set(part["en"]) <= set(WORDS["en"])
    for code in (*FINDING_CODES, *SUGGESTION_CODES, *PART_CODES):
        for lang in ("en", "zh"):
            assert WORDS[lang].get(code), f"no {lang} words for {code}"


def test_a_new_code_without_words_fails_the_check():
    # What the test above does with a code the core added and the catalogue lacks.
    missing = [c for c in (*FINDING_CODES, "new_finding_code") if c not in WORDS["zh"]]
    assert missing == ["new_finding_code"]


def test_findings_carry_codes_and_values_not_sentences(findings):
    assert {f.code for f in findings} == set(FINDING_CODES)
    for f in findings:
        assert f.message == "" and f.suggestion is None and f.params
        assert f.suggestion_code is None or f.suggestion_code in SUGGESTION_CODES
        # The sub-part codes a finding carries are listed too (so the check above sees them).
        for key in ("how", "kv_cost", "cost"):
            assert f.params.get(key) is None or f.params[key] in PART_CODES, (f.code, key)
        for cls in f.params.get("hint_classes", ()):
            assert f"hint_{cls}" in PART_CODES
        json.dumps(f.params)
        # Kept with the run and read back, the values render the same in both languages.
        back, = findings_from_json([json.loads(json.dumps(finding_to_json(f)))])
        assert back == f
        for lang in ("en", "zh"):
            assert finding_text(back, lang) == finding_text(f, lang)
            assert suggestion_text(back, lang) == suggestion_text(f, lang)


def test_chinese_findings_hold_no_english_sentence(findings):
    for f in findings:
        zh = finding_text(f, "zh")
        assert zh != finding_text(f, "en") and zh != f.code
        assert english_runs(zh) == [], (f.code, zh)
        suggestion = suggestion_text(f, "zh")
        assert (suggestion is None) == (f.suggestion_code is None)
        if suggestion is not None:
            assert english_runs(suggestion) == [], (f.suggestion_code, suggestion)
    text = findings_text(findings, "zh")
    assert text.startswith("诊断：") and english_runs(text) == []
    assert findings_text([], "zh") == "诊断：未发现明显问题。"


def test_the_chinese_words_keep_numbers_metric_names_and_flags(findings):
    cap = next(f for f in findings if f.code == "concurrency_cap"
               and f.params["metric"] == "vllm:num_requests_running")
    zh = finding_text(cap, "zh")
    assert "vllm:num_requests_running" in zh and "max-num-seqs=2" in zh
    assert f"{cap.params['queue_share']['share'] * 100:.0f} %" in zh
    assert "max-num-seqs" in suggestion_text(cap, "zh")
    llama = next(f for f in findings if f.code == "concurrency_cap"
                 and f.params["knob"] == "--parallel")
    assert "--parallel（槽位数）" in suggestion_text(llama, "zh")
    assert "--parallel (slots)" in suggestion_text(llama, "en")


def test_a_diagnosis_kept_as_english_text_still_shows():
    """Runs stored before #12 kept `message` and `suggestion` as English sentences."""
    stored = [{"code": "concurrency_cap", "severity": "problem",
               "message": "Requests queue: the server ran at most 2 requests at once while up "
                          "to 4 waited (vllm:num_requests_running plateau at 2).",
               "evidence": {"cap": 2, "source": "metrics"},
               "suggestion": "Raising max-num-seqs lets more requests run at once."},
              {"code": "ttft_linear", "severity": "info",
               "message": "TTFT grows about linearly with prompt length.", "evidence": {},
               "suggestion": None}]
    cap, linear = findings_from_json(stored)
    assert is_stored_text(cap) and cap.evidence["cap"] == 2
    for lang in ("en", "zh"):
        assert finding_text(cap, lang) == stored[0]["message"]
        assert suggestion_text(cap, lang) == stored[0]["suggestion"]
        assert finding_text(linear, lang) == stored[1]["message"]
        assert suggestion_text(linear, lang) is None
    assert "1. [问题] Requests queue" in findings_text([cap, linear], "zh")
    # Kept again, it stays the stored text.
    assert finding_to_json(cap)["message"] == stored[0]["message"]


def test_the_sweep_command_prints_the_diagnosis_in_its_language(findings, capsys, tmp_path,
                                                                 monkeypatch):
    from desktop_app.cli.throughput import print_sweep

    cells = sweep("fast", (512,), (1, 2))
    result = SimpleNamespace(cells=cells, config=SimpleNamespace(find_max=None),
                             findings=[f for f in findings if f.code == "concurrency_cap"][:1],
                             reply_chars_per_token=None, replies_counted=0)
    print_sweep(result, None, "zh")
    out = capsys.readouterr().out
    assert "诊断：\n1. [问题] 请求在排队" in out and "   建议：调大 max-num-seqs" in out
    monkeypatch.setenv("THROUGHLINE_LANG", "en")
    print_sweep(result, None)
    assert "Diagnosis:\n1. [problem] Requests queue" in capsys.readouterr().out


def test_throughput_and_whatif_print_chinese_with_lang_zh(tmp_path, capsys, monkeypatch):
    from desktop_app.cli import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("THROUGHLINE_LANG", raising=False)
    db = str(tmp_path / "r.db")
    assert main(["--db", db, "throughput", "--simulator", "fast-capped", "--input-tokens",
                 "512,1024", "--concurrency", "1,4", "--output-tokens", "32",
                 "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    diagnosis = out[out.index("诊断："):]
    assert "请求在排队" in diagnosis and english_runs(diagnosis) == [], diagnosis
    # whatif reads the language from $THROUGHLINE_LANG (its parser has no --lang yet).
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["--db", db, "whatif", "--from-run", "1", "--set", "max_num_seqs=8"]) == 0
    out = capsys.readouterr().out
    assert "已将引擎模型拟合到运行 1" in out and "假如 max_num_seqs=8" in out
    assert english_runs(out) == [], out


def test_the_sweeps_cell_table_speaks_chinese_and_stays_aligned():
    from desktop_app.core.tables import display_width
    from desktop_app.report.diagnosis_words import CELL_TABLE, cell_table_words
    from desktop_app.report.sweep_table_words import table_headers

    assert set(CELL_TABLE["en"]) == set(CELL_TABLE["zh"])
    w = cell_table_words("zh")
    assert english_runs(" ".join(table_headers("zh")) + " " + w["client_bound"]) == []
    # A CJK character takes two columns: the widths count it so.
    assert display_width("输入") == 4 and display_width("input") == 5
