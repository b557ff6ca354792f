"""A finding's evidence in words (#30): the Chinese window unfolded it with the core's English
keys ("queued_cells: 1, 3", cells counted from 0)."""

from __future__ import annotations

import ast
from pathlib import Path

from desktop_app.report.evidence_words import EVIDENCE_KEYS, evidence_rows, key_text
from tests.core.throughput.test_diagnosis import diagnose, sweep, vllm_info
from tests.lang_check import english_runs

_CORE = Path(__file__).resolve().parents[2] / "desktop_app" / "core" / "throughput"


def _literal_keys(node: ast.AST) -> set[str]:
    keys = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Dict):
            keys |= {k.value for k in sub.keys
                     if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return keys


def _written_evidence_keys() -> set[str]:
    """Every string key of a dict literal the diagnosis and the checks write as evidence:
    `evidence=` arguments, assignments to a name holding "evidence", and what the functions
    named for evidence return."""
    keys: set[str] = set()
    for path in _CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "evidence":
                keys |= _literal_keys(node.value)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    base = target.value if isinstance(target, ast.Subscript) else target
                    if isinstance(base, ast.Name) and "evidence" in base.id:
                        keys |= _literal_keys(node.value)
            elif isinstance(node, ast.FunctionDef) and "evidence" in node.name:
                keys |= _literal_keys(node)
    return keys


def _all_keys(rows_of: dict) -> set[str]:
    out = set()
    for key, value in rows_of.items():
        out.add(str(key))
        if isinstance(value, dict):
            out |= _all_keys(value)
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, dict):
                    out |= _all_keys(v)
    return out


def _capped_findings():
    cells = sweep("seed-reference", (512, 1024, 2048), (1, 2, 4, 6), metrics_cap=2, kv=0.97)
    return diagnose(cells, vllm_info(), server_settings={"max-num-seqs": 2})


def test_every_key_the_core_writes_as_evidence_has_words():
    written = _written_evidence_keys()
    assert {"queued_cells", "cap", "loop_lag_p99_ms", "prefill_tps_by_length"} <= written
    seen = set().union(*(_all_keys(f.evidence) for f in _capped_findings()))
    named = {k for k in written | seen if not k.isdigit() and "/" not in k}
    assert sorted(named - set(EVIDENCE_KEYS)) == []


def test_the_capped_sweeps_evidence_reads_in_chinese_with_cells_counted_from_one():
    findings = _capped_findings()
    cap = next(f for f in findings if f.code == "concurrency_cap")
    rows = evidence_rows(cap.evidence, "zh")
    lines = []

    def walk(entries):
        for text, children in entries:
            lines.append(text)
            walk(children)

    walk(rows)
    for f in findings:
        walk(evidence_rows(f.evidence, "zh"))
    text = "\n".join(lines)
    assert english_runs(text) == [], text
    assert not any("_" in line.split("：")[0] for line in lines), text
    queued = [i + 1 for i in cap.evidence["queued_cells"]]
    assert f"出现排队的单元：{'、'.join(map(str, queued))}" in lines
    assert "依据：服务器的 /metrics" in lines
    english = [t for t, _ in evidence_rows(cap.evidence, "en")]
    assert f"concurrency cap: {cap.evidence['cap']}" in english


def test_numbers_as_keys_are_named_by_what_they_count():
    assert key_text("3", "en", "by_cell") == "cell 4"
    assert key_text("512", "en", "ttft_s_by_length") == "512 tokens"
    assert key_text("4", "zh", "512/64") == "并发 4"
    assert key_text("512/64", "zh") == "输入 512 / 输出 64"


def test_hostile_evidence_is_shown_in_part():
    deep = {"a": {"b": {"c": {"d": {"e": 1}}}}}
    rows = evidence_rows({"cells": {str(i): i for i in range(500)}, "deep": deep,
                          "text": "x" * 10_000}, "en")
    cells = rows[0]
    assert len(cells[1]) == 51 and cells[1][-1][0] == "... (500 in all)"
    assert all(len(text) < 300 for text, _ in rows)
    assert evidence_rows(["not", "a", "mapping"], "en") == []
