"""Importers: turn public text-to-SQL sets into Throughline question-set folders.

- Spider / BIRD: a `dev.json` list of {"question", "query" (Spider) or "SQL" (BIRD), "db_id",
  optional "difficulty", optional "evidence" (BIRD)}, databases at
  `<database_dir>/<db_id>/<db_id>.sqlite`.
- defog sql-eval: a CSV with `question`, `query`, `db_name`, `query_category` and optional
  `instructions`, all on one SQLite database.

Each importer writes `<out_dir>/set.toml` and `<out_dir>/questions.jsonl` in the format of
docs/QUESTION-SETS.md and returns `out_dir`. `required_columns` come from running the gold query
in the sandbox; a gold that fails is written anyway and shows up, with SQLite's reason, in the
loaded set's `skipped`. Input errors are reported as "file:record: why". The databases are
referenced in place, by absolute path: they are large (BIRD's are gigabytes), the user already has
them, and copying would double the disk use.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import sqlglot
from sqlglot import exp

from desktop_app.core.sqleval.questions import QUESTIONS_FILE, SET_FILE, QuestionSetError
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError, split_statements

# Spider's four hardness levels and BIRD's three difficulties, onto our four tiers.
DIFFICULTY_TO_TIER = {
    "easy": "trivial", "medium": "easy", "hard": "medium", "extra": "hard",  # Spider
    "simple": "easy", "moderate": "medium", "challenging": "hard",  # BIRD
}
DEFAULT_TIER = "medium"


def import_spider(
    dev_json: Path, database_dir: Path, out_dir: Path, *, name: str, limit: int | None = None
) -> Path:
    """Import a Spider- or BIRD-style `dev.json` (at most `limit` questions) into `out_dir`.

    Ids are "<name>-0001" in file order; BIRD's "evidence" becomes the question's glossary entry
    and is appended to its text. Raises QuestionSetError naming the file and record on bad
    input. Each gold query runs once (5 s limit), so importing 1,500 questions takes a while.
    """
    dev_json = Path(dev_json)
    try:
        records = json.loads(dev_json.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionSetError(f"{dev_json}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise QuestionSetError(f"{dev_json}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    if not isinstance(records, list):
        raise QuestionSetError(f"{dev_json}: expected a JSON list of questions")
    if limit is not None:
        records = records[: max(0, limit)]
    rows = []
    for index, record in enumerate(records):
        where = f"{dev_json}: record {index}"
        if not isinstance(record, dict):
            raise QuestionSetError(f"{where}: expected an object")
        sql = record.get("query", record.get("SQL"))
        missing = [k for k, v in (("question", record.get("question")), ("query/SQL", sql),
                                  ("db_id", record.get("db_id"))) if not isinstance(v, str)]
        if missing:
            raise QuestionSetError(f"{where}: missing or not a string: {', '.join(missing)}")
        if not record["question"].strip() or not sql.strip():  # the set would not load
            raise QuestionSetError(f"{where}: empty question or query")
        difficulty = str(record.get("difficulty") or "").lower()
        rows.append({
            "where": where,
            "question": record["question"].strip(),
            "sql": sql.strip(),
            "db": record["db_id"],
            "tier": DIFFICULTY_TO_TIER.get(difficulty, DEFAULT_TIER),
            "evidence": str(record.get("evidence") or "").strip(),
            "tags": [difficulty] if difficulty else [],
        })
    db_paths = {}
    for db_id in sorted({r["db"] for r in rows}):
        path = Path(database_dir) / db_id / f"{db_id}.sqlite"
        if not path.is_file():
            first = next(r["where"] for r in rows if r["db"] == db_id)
            raise QuestionSetError(f"{first}: db_id {db_id!r}: no database at {path}")
        db_paths[db_id] = path
    return _write_set(out_dir, name, f"Imported from {dev_json}", db_paths, rows, prefix=name)


def import_defog_csv(csv_path: Path, db_path: Path, out_dir: Path, *, name: str) -> Path:
    """Import a defog sql-eval CSV whose questions run on the SQLite file `db_path`.

    `instructions` become the question's glossary entry (and follow the question text);
    `query_category` becomes a tag. Raises QuestionSetError naming the file and line.
    """
    csv_path, db_path = Path(csv_path), Path(db_path)
    if not db_path.is_file():
        raise QuestionSetError(f"{db_path}: no such database file")
    try:
        with csv_path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = set(reader.fieldnames or ())
            missing = {"question", "query", "db_name", "query_category"} - header
            if missing:
                names = ", ".join(sorted(missing))
                raise QuestionSetError(f"{csv_path}:1: missing column(s): {names}")
            rows = []
            for record in reader:
                where = f"{csv_path}:{reader.line_num}"
                question, query = (record.get("question") or "").strip(), record.get("query") or ""
                if not question or not query.strip():
                    raise QuestionSetError(f"{where}: empty question or query")
                category = (record.get("query_category") or "").strip()
                rows.append({
                    "where": where,
                    "question": question,
                    "sql": first_alternative(query),
                    "db": "db",
                    "tier": DEFAULT_TIER,  # defog gives categories, not difficulties
                    "dialect": "postgres",
                    "evidence": (record.get("instructions") or "").strip(),
                    "tags": [t for t in (category, record.get("db_name", "").strip()) if t],
                })
    except UnicodeDecodeError as exc:
        raise QuestionSetError(f"{csv_path}: not UTF-8 (byte offset {exc.start})") from None
    except (OSError, csv.Error) as exc:
        raise QuestionSetError(f"{csv_path}: cannot be read: {exc}") from None
    return _write_set(out_dir, name, f"Imported from {csv_path}", {"db": db_path}, rows,
                      prefix=name)


def first_alternative(query: str) -> str:
    """The first of a defog gold query's alternatives.

    defog lists several acceptable golds in one cell, separated by ";" or written with
    "{a,b}" choices (e.g. "SELECT {id,name} FROM t"); its own harness accepts any of them. We
    judge against one gold, so we take the first statement and the first choice of each brace
    group; an answer matching another alternative may then fail the strict judge.
    """
    statement = next(iter(split_statements(query)), query.strip())
    out, i = [], 0
    while i < len(statement):
        if statement[i] == "{":
            end = statement.find("}", i)
            if end > 0:
                out.append(statement[i + 1 : end].split(",")[0].strip())
                i = end + 1
                continue
        out.append(statement[i])
        i += 1
    return "".join(out)


def has_top_level_order_by(sql: str) -> bool:
    """Whether the query's outermost SELECT (or set operation) has an ORDER BY (via sqlglot)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return " order by " in " ".join(sql.lower().split())  # unparseable: best guess
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


def _run_gold(sandbox: Sandbox, sql: str, dialect: str | None) -> tuple[str, list[str]]:
    """The gold SQL to store and its result's column names.

    A gold that fails is still written, with no required columns: loading the set then puts it
    in `skipped` with SQLite's reason, which tells the user more than a refused import would.
    A gold in another dialect (defog's are PostgreSQL) is tried once more transpiled by sqlglot.
    """
    try:
        return sql, list(sandbox.run(sql).columns)
    except SandboxError:
        if not dialect:
            return sql, []
    try:
        translated = sqlglot.transpile(sql, read=dialect, write="sqlite")[0]
        return translated, list(sandbox.run(translated).columns)
    except (sqlglot.errors.SqlglotError, SandboxError, IndexError):
        return sql, []


def _toml_str(value: str) -> str:
    # JSON string escapes are TOML basic-string escapes, except DEL which TOML wants escaped.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _write_set(out_dir: Path, name: str, description: str, db_paths: dict[str, Path],
               rows: list[dict], *, prefix: str) -> Path:
    out_dir = Path(out_dir)
    glossary: dict[str, str] = {}
    lines = []
    sandboxes = {key: Sandbox(path) for key, path in db_paths.items()}
    try:
        for number, row in enumerate(rows, start=1):
            qid = f"{prefix}-{number:04d}"
            sql, columns = _run_gold(sandboxes[row["db"]], row["sql"], row.get("dialect"))
            if len(set(columns)) != len(columns):
                columns = []  # e.g. "SELECT T1.name, T2.name": no unique names to require
            text = row["question"]
            if row["evidence"]:
                glossary[qid] = row["evidence"]
                text = f"{text}\n\nHint: {row['evidence']}"
            lines.append(json.dumps({
                "id": qid, "tier": row["tier"], "text_en": text, "text_zh": "",
                "gold_sql": sql, "database": row["db"],
                "required_columns": columns, "rounding": {},
                "order_matters": has_top_level_order_by(sql),
                "glossary": qid if row["evidence"] else None, "tags": row["tags"],
            }, ensure_ascii=False))
    finally:
        for sandbox in sandboxes.values():
            sandbox.close()
    if not lines:
        raise QuestionSetError(f"{description}: no questions to import")
    toml = [f"name = {_toml_str(name)}", f"description = {_toml_str(description)}", ""]
    for key, path in db_paths.items():
        toml += [f"[databases.{_toml_str(key)}]", f"file = {_toml_str(str(path.resolve()))}", ""]
    if glossary:
        toml.append("[glossary]")
        toml += [f"{_toml_str(term)} = {_toml_str(text)}" for term, text in glossary.items()]
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / SET_FILE).write_text("\n".join(toml) + "\n", encoding="utf-8")
    (out_dir / QUESTIONS_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out_dir
