"""Importers: Spider/BIRD dev.json and defog sql-eval CSVs become loadable question sets."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from desktop_app.core.sqleval.importers import (
    NothingImported,
    alternatives,
    detect_format,
    has_top_level_order_by,
    import_questions,
)
from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set
from desktop_app.report.question_words import note_text


def make_db(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE singer (singer_id INT, name TEXT, country TEXT, age INT)")
    conn.executemany("INSERT INTO singer VALUES (?, ?, ?, ?)", [
        (1, "Ana", "France", 30), (2, "Bo", "Japan", 41), (3, "Cy", "France", 25)])
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def spider(tmp_path):
    databases = tmp_path / "database"
    make_db(databases / "concert" / "concert.sqlite")
    records = [
        {"db_id": "concert", "question": "How many singers are there?",
         "query": "SELECT count(*) FROM singer", "difficulty": "easy"},
        {"db_id": "concert", "question": "Names of singers, youngest first.",
         "query": "SELECT name FROM singer ORDER BY age", "difficulty": "extra"},
        {"db_id": "concert", "question": "Singers from France?",
         "query": "SELECT name, country FROM singer WHERE country = 'France'"},
        {"db_id": "concert", "question": "A broken gold", "query": "SELECT nope FROM singer",
         "difficulty": "medium"},
    ]
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps(records), encoding="utf-8")
    return dev, databases


def load(folder: Path):
    return load_question_set(str(folder), sets_dir=folder.parent, cache_dir=folder / "cache")


def test_spider_import_writes_a_loadable_set(spider, tmp_path):
    dev, databases = spider
    assert detect_format(dev) == "spider"
    report = import_questions(dev, tmp_path / "spider-dev", db_dir=databases, name="spider")
    qset = load(report.out_dir)
    assert qset.databases == {"concert": (databases / "concert" / "concert.sqlite").resolve()}
    q1, q2, q3 = qset.questions
    assert [q.id for q in qset.questions] == ["spider-0001", "spider-0002", "spider-0003"]
    assert (q1.tier, q2.tier, q3.tier) == ("trivial", "hard", "medium")  # easy, extra, none
    assert q1.required_columns == ("count(*)",) and q3.required_columns == ("name", "country")
    assert q2.order_matters and not q1.order_matters and q1.rounding == {}
    assert q1.text_en == "How many singers are there?" and q1.glossary is None
    # The broken gold is left out at import, with SQLite's reason on one line.
    assert report.imported == 3 and qset.skipped == ()
    assert [note_text(n) for n in report.skipped] == [
        "dev.json: record 4: gold SQL failed: no such column: nope"]
    assert note_text(report.skipped[0], "zh") == (
        "dev.json: record 4: 标准 SQL 执行失败：no such column: nope")
    # Public sets do not name their columns: runs default to the judges that need no names,
    # and the model is told what the database is, never where it lives on this machine.
    assert not qset.asks_columns
    assert str(tmp_path) not in qset.database_note("concert")
    assert "concert" in qset.database_note("concert")


def test_bird_import_maps_difficulty_and_evidence(tmp_path):
    databases = tmp_path / "dev_databases"
    make_db(databases / "music" / "music.sqlite")
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps([
        {"db_id": "music", "question": "Average age of French singers?",
         "evidence": "French refers to country = 'France'", "difficulty": "challenging",
         "SQL": "SELECT avg(age) FROM singer WHERE country = 'France'"},
        {"db_id": "music", "question": "Oldest singer?", "difficulty": "simple", "evidence": "",
         "SQL": "SELECT name FROM singer ORDER BY age DESC LIMIT 1"},
    ]), encoding="utf-8")
    assert detect_format(dev) == "bird"
    qset = load(import_questions(dev, tmp_path / "bird", db_dir=databases, name="bird",
                                 limit=5).out_dir)
    q1, q2 = qset.questions
    assert (q1.tier, q2.tier) == ("hard", "easy")
    assert q1.glossary == "French refers to country = 'France'"
    assert q1.text_en == (
        "Average age of French singers?\n\nHint: French refers to country = 'France'")
    assert qset.glossary == {"bird-0001": "French refers to country = 'France'"}
    assert q2.glossary is None and q2.tags == ("simple",)


def test_spider_limit_and_input_errors(spider, tmp_path):
    dev, databases = spider
    two = import_questions(dev, tmp_path / "two", db_dir=databases, name="s", limit=2)
    assert len(load(two.out_dir).questions) == 2
    # The same folder again is refused: nothing the user has is overwritten.
    with pytest.raises(QuestionSetError, match=r"--out: .*two already exists"):
        import_questions(dev, tmp_path / "two", db_dir=databases, name="s")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(NothingImported, match=r"no question could be imported \(4 records") as e:
        import_questions(dev, tmp_path / "x", db_dir=tmp_path / "elsewhere", name="s")
    assert note_text(e.value.report.skipped[0]) == (
        "dev.json: record 1: database 'concert' not found in --db-dir (as concert/"
        "concert.sqlite or concert.sqlite)")
    assert not (tmp_path / "x").exists()
    bad = tmp_path / "bad.json"
    bad.write_text('[{"db_id": "concert", "question": "q"}, {"db_id": "concert", "question": '
                   '"n", "query": "SELECT count(*) AS n FROM singer"}, 7]', encoding="utf-8")
    report = import_questions(bad, tmp_path / "y", format="spider", db_dir=databases, name="s")
    assert report.imported == 1
    assert [note_text(n) for n in report.skipped] == [
        "bad.json: record 1: no gold: no SQL", "bad.json: record 3: expected a JSON object"]
    bad.write_text('[\n{"db_id": ', encoding="utf-8")
    with pytest.raises(QuestionSetError, match=r"bad.json:2: not valid JSON"):
        import_questions(bad, tmp_path / "x", format="spider", db_dir=databases, name="s")


def write_csv(path: Path, rows: list[dict], fields=("question", "query", "db_name",
                                                     "query_category", "instructions")) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fields))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_defog_csv_import(tmp_path):
    db = make_db(tmp_path / "concert.sqlite")
    path = write_csv(tmp_path / "questions.csv", [
        {"question": "Which singers are over 28?", "db_name": "concert",
         "query": "SELECT {singer_id,name} FROM singer WHERE age > 28 ORDER BY age;"
                  "SELECT name FROM singer WHERE age > 28",
         "query_category": "where", "instructions": "Age is in years."},
        {"question": "Singers per country", "db_name": "concert", "query_category": "group_by",
         "query": "SELECT country, COUNT(*) AS n FROM singer GROUP BY country",
         "instructions": ""},
        {"question": "Names in upper case", "db_name": "concert", "query_category": "postgres",
         "query": "SELECT name::TEXT AS upper_name FROM singer", "instructions": ""},
    ])
    qset = load(import_questions(path, tmp_path / "defog", db_dir=db, name="defog").out_dir)
    q1, q2, q3 = qset.questions
    assert q1.gold_sql == "SELECT singer_id FROM singer WHERE age > 28 ORDER BY age"
    # Every alternative the cell lists is accepted, not only the first.
    assert q1.gold_alternatives == ("SELECT name FROM singer WHERE age > 28 ORDER BY age",
                                    "SELECT singer_id, name FROM singer WHERE age > 28 "
                                    "ORDER BY age",
                                    "SELECT name FROM singer WHERE age > 28")
    assert q1.order_matters and q1.required_columns == ("singer_id",)
    assert q1.glossary == "Age is in years." and q1.tags == ("where", "concert")
    assert q2.required_columns == ("country", "n") and q2.tier == "medium"
    # PostgreSQL syntax is transpiled for SQLite when the gold would not run as written.
    assert "::" not in q3.gold_sql and q3.required_columns == ("upper_name",)


def test_defog_csv_errors_name_file_and_line(tmp_path):
    db = make_db(tmp_path / "concert.sqlite")
    path = write_csv(tmp_path / "q.csv", [{"question": "x", "query": "SELECT 1"}],
                     fields=("question", "query"))
    with pytest.raises(QuestionSetError, match=r"q.csv:1: missing column\(s\): db_name"):
        import_questions(path, tmp_path / "out", db_dir=db, name="d")
    path = write_csv(tmp_path / "q.csv", [
        {"question": "ok", "query": "SELECT 1", "db_name": "c", "query_category": "x"},
        {"question": "", "query": "SELECT 1", "db_name": "c", "query_category": "x"},
        {"question": "other", "query": "SELECT 1", "db_name": "elsewhere",
         "query_category": "x"}])
    report = import_questions(path, tmp_path / "out", db_dir=db, db_name="c", name="d")
    assert report.imported == 1 and report.other_databases == 1
    assert [note_text(n) for n in report.skipped] == ["q.csv:3: missing or empty: question"]
    with pytest.raises(QuestionSetError, match="--db-dir: no such folder"):
        import_questions(path, tmp_path / "out2", db_dir=tmp_path / "gone.sqlite", name="d")


def test_helpers():
    assert alternatives("SELECT {a, b} FROM t WHERE x = ';'; SELECT c FROM t") == [
        "SELECT a FROM t WHERE x = ';'", "SELECT b FROM t WHERE x = ';'",
        "SELECT a, b FROM t WHERE x = ';'", "SELECT c FROM t"]
    # As defog's evaluator expands them: every non-empty subset, and GROUP BY {} takes it.
    assert alternatives("SELECT {p.id, p.name}, COUNT(*) AS n FROM p GROUP BY {} "
                        "ORDER BY n") == [
        "SELECT p.id, COUNT(*) AS n FROM p GROUP BY p.id ORDER BY n",
        "SELECT p.name, COUNT(*) AS n FROM p GROUP BY p.name ORDER BY n",
        "SELECT p.id, p.name, COUNT(*) AS n FROM p GROUP BY p.id, p.name ORDER BY n"]
    assert len(alternatives("SELECT {a,b,c,d,e} FROM t")) == 16  # 31 subsets, capped
    assert has_top_level_order_by("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1")
    assert not has_top_level_order_by("SELECT * FROM (SELECT a FROM t ORDER BY a)")
    assert has_top_level_order_by("WITH x AS (SELECT 1 AS a) SELECT a FROM x ORDER BY a")


def test_the_import_command_names_a_bad_files_path_once(tmp_path, capsys):
    """#28: "q.csv: q.csv:1: missing column(s)": the command put the path before the core's
    own "path:line"."""
    from desktop_app.cli import main

    db = make_db(tmp_path / "concert.sqlite")
    path = write_csv(tmp_path / "questions_gen_x.csv", [{"question": "x", "query": "SELECT 1"}],
                     fields=("question", "query"))
    assert main(["questions", "import", str(path), "--db-dir", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count(str(path)) == 1, err
    assert f"{path}:1: missing column(s): db_name" in err
