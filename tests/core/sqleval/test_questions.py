"""Question sets: the documented format loads; every mistake is named by file, line and field."""

from __future__ import annotations

import json
import sqlite3
import sys
import types
from pathlib import Path

import pytest

from desktop_app import paths
from desktop_app.core.sqleval.questions import (
    QuestionSetError,
    list_question_sets,
    load_question_set,
)

GOOD = {
    "id": "q1", "tier": "trivial", "text_en": "How many pets? Return pet_count.",
    "text_zh": "有多少宠物？返回 pet_count。",
    "gold_sql": "SELECT count(*) AS pet_count FROM pets",
    "database": "zoo", "required_columns": ["pet_count"], "rounding": {}, "order_matters": False,
    "glossary": None, "tags": ["count"],
}
SET_TOML = """\
name = "tiny"
description = "A tiny test set"

[databases.zoo]
file = "zoo.sqlite"

[glossary]
"heavy pet" = "A pet weighing more than 10 kg."
"""


def make_zoo(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT, kg REAL)")
    conn.executemany("INSERT INTO pets VALUES (?, ?, ?)", [(1, "Rex", 30.5), (2, "Tom", 4.25)])
    conn.commit()
    conn.close()
    return path


def write_set(folder: Path, records: list, toml: str = SET_TOML) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "set.toml").write_text(toml, encoding="utf-8")
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    (folder / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if not (folder / "zoo.sqlite").exists():
        make_zoo(folder / "zoo.sqlite")
    return folder


def load(folder: Path, **kw):
    return load_question_set(str(folder), sets_dir=folder.parent, cache_dir=folder / "cache", **kw)


def errors_of(folder: Path, **kw) -> str:
    with pytest.raises(QuestionSetError) as info:
        load(folder, **kw)
    return str(info.value)


def test_a_valid_set_loads_with_glossary_resolved(tmp_path):
    heavy = dict(GOOD, id="q2", tier="easy", glossary="heavy pet",
                 text_en="Average weight of heavy pets, 1 decimal, as avg_kg.",
                 gold_sql="SELECT round(avg(kg), 1) AS avg_kg FROM pets WHERE kg > 10",
                 required_columns=["avg_kg"], rounding={"avg_kg": 1})
    folder = write_set(tmp_path / "tiny", [GOOD, "", heavy])
    qset = load(folder)
    assert qset.name == "tiny" and qset.description == "A tiny test set"
    assert qset.databases == {"zoo": (folder / "zoo.sqlite").resolve()}
    assert [q.id for q in qset.questions] == ["q1", "q2"] and qset.skipped == ()
    q1, q2 = qset.questions
    assert q1.text("zh") == GOOD["text_zh"] and q1.required_columns == ("pet_count",)
    assert q1.source == "questions.jsonl:1" and q2.source == "questions.jsonl:3"
    assert q2.glossary == "A pet weighing more than 10 kg." and q2.rounding == {"avg_kg": 1}
    assert qset.glossary == {"heavy pet": "A pet weighing more than 10 kg."}


def test_bundled_names_are_found_in_sets_dir(tmp_path):
    write_set(tmp_path / "tiny", [GOOD])
    qset = load_question_set("tiny", sets_dir=tmp_path, cache_dir=tmp_path / "cache")
    assert qset.path == tmp_path / "tiny"
    assert list_question_sets(tmp_path) == [("tiny", "A tiny test set")]
    with pytest.raises(QuestionSetError, match="no question set there.*sets by name: tiny"):
        load_question_set("nope", sets_dir=tmp_path, cache_dir=tmp_path / "cache")


def test_a_failing_gold_query_is_skipped_with_its_reason(tmp_path):
    bad = dict(GOOD, id="q2", gold_sql="SELECT x FROM pets")
    wrong_names = dict(GOOD, id="q3", gold_sql="SELECT count(*) AS n FROM pets")
    qset = load(write_set(tmp_path / "tiny", [GOOD, bad, wrong_names]))
    assert [q.id for q in qset.questions] == ["q1"]
    reasons = {s.id: (s.source, s.reason) for s in qset.skipped}
    assert reasons["q2"] == ("questions.jsonl:2", "gold SQL failed: no such column: x")
    assert "returns columns (n) but required_columns are (pet_count)" in reasons["q3"][1]
    # Without the check, nothing runs and nothing is skipped.
    assert len(load(tmp_path / "tiny", check_gold=False).questions) == 3


@pytest.mark.parametrize(("line", "expected"), [
    ("{not json", "questions.jsonl:2: not valid JSON: Expecting property name"),
    ("[1, 2]", "questions.jsonl:2: expected a JSON object, got list"),
    (dict(GOOD, id="q2", tier="expert"), "questions.jsonl:2: tier: 'expert' is not one of"),
    ({k: v for k, v in GOOD.items() if k != "gold_sql"} | {"id": "q2"},
     "questions.jsonl:2: gold_sql: missing (required)"),
    (dict(GOOD, id="q2", colour="red"), "questions.jsonl:2: colour: unknown key"),
    (dict(GOOD, id="q2", order_matters="yes"), "questions.jsonl:2: order_matters: must be true"),
    (dict(GOOD, id="q2", required_columns="pet_count"),
     "questions.jsonl:2: required_columns: must"),
    (dict(GOOD, id="q2", rounding={"avg": 2}),
     "questions.jsonl:2: rounding: column 'avg' is not in required_columns"),
    (dict(GOOD, id="q2", rounding={"pet_count": "2"}), "questions.jsonl:2: rounding: must be"),
    (dict(GOOD, id="q2", glossary="cute pet"),
     "questions.jsonl:2: glossary: 'cute pet' is not a term of set.toml's [glossary]"),
    (dict(GOOD, id="q2", database="farm"),
     "questions.jsonl:2: database: 'farm' is not declared in set.toml (declared: zoo)"),
    (dict(GOOD), "questions.jsonl:2: id: duplicate id 'q1' (first on line 1)"),
    (dict(GOOD, id=""), "questions.jsonl:2: id: must be a non-empty string"),
])
def test_bad_records_name_file_line_and_field(tmp_path, line, expected):
    message = errors_of(write_set(tmp_path / "tiny", [GOOD, line]))
    assert expected in message
    assert str(tmp_path / "tiny" / "questions.jsonl") in message


def test_all_problems_are_reported_at_once(tmp_path):
    folder = write_set(tmp_path / "tiny", [dict(GOOD, tier="x"), "{", dict(GOOD, id="q3", tags=3)])
    with pytest.raises(QuestionSetError) as info:
        load(folder)
    assert [e.split(": ", 1)[0].rsplit(":", 1)[1] for e in info.value.errors] == ["1", "2", "3"]


@pytest.mark.parametrize(("toml", "expected"), [
    ('name = "tiny"\n[databases.zoo\nfile = "zoo.sqlite"\n', "set.toml:2: TOML syntax:"),
    ('name = "tiny"\n', "set.toml: databases: declare at least one"),
    ('name = "tiny"\n\n[databases.zoo]\nfile = "gone.sqlite"\n',
     "set.toml:4: databases.zoo.file: no such file:"),
    ('[databases.zoo]\nbuilder = "farm"\nseed = 1\n',
     "set.toml:2: databases.zoo.builder: unknown builder 'farm'"),
    ('[databases.zoo]\nbuilder = "sales"\n',
     "set.toml:1: databases.zoo.seed: a builder needs an integer seed"),
    ('[databases.zoo]\nfile = "zoo.sqlite"\nbuilder = "sales"\nseed = 1\n', "needs exactly one"),
    ('colour = "red"\n[databases.zoo]\nfile = "zoo.sqlite"\n', "set.toml:1: colour: unknown key"),
])
def test_bad_set_toml_names_file_and_line(tmp_path, toml, expected):
    assert expected in errors_of(write_set(tmp_path / "tiny", [GOOD], toml=toml))


def test_non_utf8_files_name_the_byte_offset(tmp_path):
    folder = write_set(tmp_path / "tiny", [GOOD])
    data = (json.dumps(GOOD) + "\n" + json.dumps(dict(GOOD, id="q2"))).encode()
    (folder / "questions.jsonl").write_bytes(data[:-5] + b"\xff" + data[-4:])
    message = errors_of(folder)
    assert f"questions.jsonl:2: not UTF-8 text: byte 0xff at byte offset {len(data) - 5}" in message
    (folder / "set.toml").write_bytes(SET_TOML.encode().replace(b"tiny", b"t\xe9ny"))
    assert "set.toml:1: not UTF-8 text: byte 0xe9 at byte offset 9" in errors_of(folder)


def test_builder_databases_are_built_once_into_the_cache(tmp_path, monkeypatch):
    calls = []

    def build_sales_db(path: Path, seed: int) -> Path:
        calls.append((path, seed))
        make_zoo(path)
        return path

    fake = types.ModuleType("desktop_app.core.sqleval.salesdb")
    fake.build_sales_db = build_sales_db
    monkeypatch.setitem(sys.modules, "desktop_app.core.sqleval.salesdb", fake)
    toml = 'name = "tiny"\n[databases.zoo]\nbuilder = "sales"\nseed = 7\n'
    folder = write_set(tmp_path / "tiny", [GOOD], toml=toml)
    cache = tmp_path / "cache"
    for _ in range(2):
        qset = load_question_set(str(folder), sets_dir=tmp_path, cache_dir=cache)
        assert qset.databases["zoo"] == cache / "tiny-zoo-7.sqlite"
        assert len(qset.questions) == 1
    assert calls == [(cache / "tiny-zoo-7.sqlite", 7)]


def test_a_failed_build_leaves_no_partial_file(tmp_path, monkeypatch):
    def build_sales_db(path: Path, seed: int) -> Path:
        path.write_bytes(b"half")
        raise RuntimeError("disk full")

    fake = types.ModuleType("desktop_app.core.sqleval.salesdb")
    fake.build_sales_db = build_sales_db
    monkeypatch.setitem(sys.modules, "desktop_app.core.sqleval.salesdb", fake)
    toml = 'name = "tiny"\n[databases.zoo]\nbuilder = "sales"\nseed = 7\n'
    folder = write_set(tmp_path / "tiny", [GOOD], toml=toml)
    message = errors_of(folder)
    assert "databases.zoo: building with 'sales' (seed 7) failed: disk full" in message
    assert not (folder / "cache" / "tiny-zoo-7.sqlite").exists()


@pytest.mark.skipif(not (paths.questions_dir() / "sales-25" / "set.toml").exists(),
                    reason="questions/sales-25 is not there yet")
def test_the_bundled_sales_25_set_loads(tmp_path):
    qset = load_question_set("sales-25", sets_dir=paths.questions_dir(), cache_dir=tmp_path)
    assert qset.skipped == ()
    assert len(qset.questions) == 25
    tiers = [q.tier for q in qset.questions]
    assert [tiers.count(t) for t in ("trivial", "easy", "medium", "hard")] == [8, 2, 2, 13]
    assert all(q.text_zh and q.required_columns for q in qset.questions)
    assert ("sales-25", qset.description) in list_question_sets(paths.questions_dir())


@pytest.mark.parametrize(("damage", "zh"), [
    (lambda f: (f / "questions.jsonl").unlink(), "questions.jsonl：文件不存在（应为每行一个 JSON 对象）"),
    (lambda f: (f / "questions.jsonl").write_text("\n", encoding="utf-8"), "：没有题目"),
    (lambda f: (f / "questions.jsonl").write_bytes(b'{"id": "\xff"}\n'),
     "questions.jsonl:1：不是 UTF-8 文本：字节偏移 8 处为字节 0xff"),
])
def test_a_set_file_that_cannot_be_read_is_said_in_chinese(tmp_path, damage, zh):
    from desktop_app.report.errors import error_text
    from tests.lang_check import english_runs

    folder = write_set(tmp_path / "tiny", [GOOD])
    damage(folder)
    with pytest.raises(QuestionSetError) as info:
        load(folder)
    said = error_text(info.value, "zh")
    assert zh in said and english_runs(said) == [], said
