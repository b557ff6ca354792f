"""Importers: turn public text-to-SQL sets into Throughline question-set folders in one call.

Formats (`FORMATS`; `detect_format` picks one from the file):
- spider: a `dev.json` list of {"question", "query", "db_id", optional "difficulty"};
- bird: the same with "SQL" for the query and "evidence" (a hint the question depends on);
- spider2-lite: JSONL of {"instance_id", "db", "question", "external_knowledge"}, no SQL: the
  accepted answers are result files `<instance_id>.csv` or `<instance_id>_a.csv`, `_b.csv`, ...
  in `gold_dir` (or its `exec_result/`), plus `<instance_id>.sql` where one exists (`sql/`);
  `external_knowledge` names a document read from `documents/` or `resource/documents/` beside
  the JSONL; the evaluator's standard `spider2lite_eval.jsonl` in `gold_dir` gives each
  instance's `condition_cols` and `ignore_order`, kept with the question for the spider2
  judge;
- defog: a sql-eval CSV of `question`, `query`, `db_name`, `query_category`, optional
  `instructions`, filtered by `db_name`; a query cell lists alternative golds (";" between
  statements, "{a,b}" choices expanded as defog's evaluator does), every one of which is
  accepted.

Databases are found in `db_dir`, in Spider's `<db>/<db>.sqlite` layout or flat (`<db>.sqlite`,
`.db`), and referenced in place by absolute path (BIRD's are gigabytes; the user already has
them). Every gold runs once: a record whose gold cannot run, or whose database or gold is
missing, is skipped with one line saying why (`ImportReport.skipped`); golds that return no
rows or only NULLs are imported with a warning. Public sets do not name output columns or
rounding, so the set says `asks_columns = false` and its runs default to the full judge with
names ignored. The set's and databases' descriptions (what the model is told) name the source
and the database, never a path of this machine. A file that cannot be read at all raises
QuestionSetError naming it (and the line, or record).
"""

from __future__ import annotations

import csv
import itertools
import json
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlglot
from sqlglot import exp

from desktop_app.core.files import LocalFileError, inside, read_bounded
from desktop_app.core.sqleval.golds import GoldError, degenerate, read_gold_csv
from desktop_app.core.sqleval.questions import QUESTIONS_FILE, SET_FILE, QuestionSetError
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError, split_statements
from desktop_app.core.sqleval.types import QueryResult

FORMATS = ("spider", "bird", "spider2-lite", "defog")
FORMAT_NAMES = {"spider": "Spider", "bird": "BIRD", "spider2-lite": "Spider2-lite",
                "defog": "defog sql-eval"}
# Spider's four hardness levels and BIRD's three difficulties, onto our four tiers.
DIFFICULTY_TO_TIER = {
    "easy": "trivial", "medium": "easy", "hard": "medium", "extra": "hard",  # Spider
    "simple": "easy", "moderate": "medium", "challenging": "hard",  # BIRD
}
DEFAULT_TIER = "medium"
MAX_ALTERNATIVES = 16  # brace choices multiply; defog's own cells hold a handful
MAX_SOURCE_BYTES = 256 * 1024 * 1024
MAX_EVIDENCE_CHARS = 20_000


# Why a record was skipped (ImportNote.code) and its params:
SKIP_CODES = (
    "bad_json",  # msg: the parser's message
    "not_object",
    "missing",  # fields: the empty or missing fields, comma-separated
    "db_not_found",  # db
    "no_gold",  # files: True when result files were looked for (Spider2-lite)
    "db_unreadable",  # db, error
    "gold_failed",  # error: SQLite's message, or the result file's problem
)
# What was imported with a warning:
WARNING_CODES = (
    "alternatives_left_out",  # n of total accepted answers did not run; error: the first's
    "gold_degenerate",  # gold: ("sql",) / ("alt", n) / ("file", name); kind: empty | null_only
    "document_missing",  # name: the external-knowledge document not found
)


@dataclass(frozen=True)
class ImportNote:
    """One record skipped, or imported with a warning: where ("dev.json: record 12",
    "spider2-lite.jsonl:3", or a question id), a code of SKIP_CODES / WARNING_CODES and its
    params. The words are the reader's language's (`report.question_words`)."""

    where: str
    code: str
    params: dict = field(default_factory=dict, hash=False)


@dataclass
class ImportReport:
    """What an import did: where the set is, how many questions it holds, a note per record
    left out and per warning."""

    out_dir: Path
    name: str
    format: str
    imported: int = 0
    skipped: list[ImportNote] = field(default_factory=list)
    warnings: list[ImportNote] = field(default_factory=list)
    databases: list[str] = field(default_factory=list)
    other_databases: int = 0  # defog rows left out by `db_name`


class NothingImported(QuestionSetError):
    """No record could be imported; `report.skipped` says why for each."""

    def __init__(self, report: ImportReport, *, code: str, **params) -> None:
        from desktop_app.core.parsing import INPUT_MESSAGES

        super().__init__(INPUT_MESSAGES[code].format(**params))
        self.report, self.code, self.params = report, code, params


@dataclass
class _Record:
    where: str
    question: str
    db: str
    qid: str = ""
    sqls: list[str] = field(default_factory=list)
    gold_files: list[Path] = field(default_factory=list)
    gold_dir: Path | None = None  # where gold_files must stay (a symlink out of it is refused)
    tier: str = DEFAULT_TIER
    evidence: str = ""
    tags: list[str] = field(default_factory=list)
    dialect: str | None = None
    problem: tuple[str, dict] | None = None  # why it cannot be imported, found while reading
    # Its place in the source (1-based, as the skipped lines count it; BIRD's question_id): the
    # question's id, so a record keeps its id when others are skipped or a database is added.
    number: int | None = None
    evaluation: dict = field(default_factory=dict)  # the benchmark's parameters (Question's)


def detect_format(source: Path) -> str:
    """The format of `source` from its name and first record; raises QuestionSetError."""
    source = Path(source)
    if source.suffix.lower() == ".csv":
        return "defog"
    text = _read_text(source)
    if source.suffix.lower() == ".jsonl" or text.lstrip().startswith("{"):
        first = next((line for line in text.splitlines() if line.strip()), "")
        try:
            record = json.loads(first)
        except (json.JSONDecodeError, RecursionError):
            record = None
        if isinstance(record, dict) and "instance_id" in record:
            return "spider2-lite"
        raise QuestionSetError.coded("qs_not_spider2", source=source, format_flag="--format")
    try:
        records = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise QuestionSetError.coded("qs_not_json", source=source, format_flag="--format") from None
    head = records[0] if isinstance(records, list) and records else None
    if isinstance(head, dict) and ("SQL" in head or "evidence" in head):
        return "bird"
    if isinstance(head, dict) and "query" in head:
        return "spider"
    raise QuestionSetError.coded("qs_unknown_format", source=source, format_flag="--format")


def import_questions(
    source: Path, out_dir: Path, *, format: str = "auto", db_dir: Path | None = None,
    gold_dir: Path | None = None, db_name: str | None = None, name: str | None = None,
    limit: int | None = None, on_progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Import `source` into a new set folder `out_dir` and say what was left out and why.

    `db_dir` holds the databases (for defog, a SQLite file also works); `gold_dir` the gold
    result files (Spider2-lite); `db_name` filters defog's rows; at most `limit` records are
    read. `on_progress(done, total)` follows the gold runs. Raises QuestionSetError when
    `source` cannot be read, `out_dir` already holds a set, or nothing could be imported.
    """
    source = Path(source)
    if name is not None:
        check_set_name(name)
    fmt = detect_format(source) if format == "auto" else format
    if fmt not in FORMATS:
        raise QuestionSetError.coded("qs_format", item=repr(format),
                                     choices=", ".join(("auto", *FORMATS)))
    out_dir = Path(out_dir)
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise QuestionSetError.coded("qs_out_not_empty", path=out_dir)
    name = name or default_name(source, fmt, db_name)
    report = ImportReport(out_dir, name, fmt)
    if fmt in ("spider", "bird"):
        records = _read_spider(source, fmt)
    elif fmt == "spider2-lite":
        records = _read_spider2(source, gold_dir, report)
    else:
        records = _read_defog(source, db_name, report)
    if limit is not None:
        records = records[: max(0, limit)]
    databases = _find_databases(records, db_dir, fmt, report)
    rows = _run_golds(records, databases, name, report, on_progress)
    if not rows:
        raise NothingImported(report, code="qs_nothing_imported", source=source,
                              n=len(report.skipped))
    _write_set(out_dir, name, fmt, databases, rows)
    report.imported = len(rows)
    report.databases = sorted({r["database"] for r in rows})
    return report


# --- reading each format -----------------------------------------------------------------------


def _read_text(path: Path) -> str:
    try:
        return read_bounded(path, MAX_SOURCE_BYTES, what="an import").decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuestionSetError.coded("qs_not_utf8", path=path, offset=exc.start) from None
    except LocalFileError as exc:
        raise QuestionSetError.coded("qs_file", path=path, problem=exc.phrase()) from None


def _text(value) -> str:
    return value.strip() if isinstance(value, str) else ""


def _read_spider(source: Path, fmt: str) -> list[_Record]:
    try:
        records = json.loads(_read_text(source))
    except json.JSONDecodeError as exc:
        raise QuestionSetError.coded("qs_json_invalid", source=source, line=exc.lineno,
                                     detail=exc.msg) from None
    except RecursionError:
        raise QuestionSetError.coded("qs_json_too_deep", source=source) from None
    if not isinstance(records, list):
        raise QuestionSetError.coded("qs_not_a_list", source=source)
    out = []
    for index, record in enumerate(records, start=1):  # counted as a reader counts them
        where = f"{source.name}: record {index}"
        if not isinstance(record, dict):
            out.append(_Record(where, "", "", problem=("not_object", {})))
            continue
        sql = (record.get("SQL", record.get("query")) if fmt == "bird"
               else record.get("query", record.get("SQL")))
        difficulty = _text(record.get("difficulty")).lower()
        bird_id = record.get("question_id") if fmt == "bird" else None
        number = bird_id if type(bird_id) is int and 0 <= bird_id < 10**7 else index
        out.append(_Record(
            where, _text(record.get("question")), _text(record.get("db_id")), number=number,
            sqls=[sql.strip()] if isinstance(sql, str) and sql.strip() else [],
            tier=DIFFICULTY_TO_TIER.get(difficulty, DEFAULT_TIER),
            evidence=_text(record.get("evidence"))[:MAX_EVIDENCE_CHARS],
            tags=[difficulty] if difficulty else []))
    return out


def _gold_files_for(instance: str, gold_dir: Path | None
                    ) -> tuple[list[Path], list[str], str | None]:
    """Spider2's result files and SQL for one instance: `<id>.csv`, `<id>_a.csv`, ... and
    `<id>.sql`, in `gold_dir` or its `exec_result/` and `sql/` folders; and why a gold SQL file
    could not be read (a symlink out of `gold_dir`, a FIFO), or None."""
    if gold_dir is None or not re.fullmatch(r"[A-Za-z0-9_.-]+", instance):
        return [], [], None
    files: list[Path] = []
    sqls: list[str] = []
    for folder in (gold_dir, gold_dir / "exec_result"):
        if folder.is_dir():
            files += sorted(p for p in folder.glob(f"{instance}*.csv")
                            if re.fullmatch(rf"{re.escape(instance)}(_[a-z0-9]+)?\.csv", p.name))
    for folder in (gold_dir, gold_dir / "sql"):
        path = folder / f"{instance}.sql"
        if path.exists() or path.is_symlink():
            try:
                inside(path, gold_dir)
                sqls.append(_read_text(path).strip())
            except (LocalFileError, QuestionSetError) as exc:
                return files, [], f"{path.name}: {exc}"
    return files, [s for s in sqls if s], None


def _document(source: Path, name: str) -> str | None:
    if not re.fullmatch(r"[^/\\]+", name) or name in (".", ".."):
        return None
    for folder in (source.parent / "documents", source.parent / "resource" / "documents"):
        if (folder / name).is_file():
            try:
                inside(folder / name, folder)
            except LocalFileError:
                return None  # said as document_missing: nothing outside the folder is read
            return _read_text(folder / name).strip()[:MAX_EVIDENCE_CHARS]
    return None


EVAL_STANDARD = "spider2lite_eval.jsonl"  # Spider2-lite's evaluation standard, in its gold/


def _eval_standard(gold_dir: Path | None, report: ImportReport) -> dict[str, dict]:
    """instance_id -> its record of the evaluator's standard file, when `gold_dir` has one."""
    path = gold_dir / EVAL_STANDARD if gold_dir else None
    if path is None or not path.is_file():
        return {}
    standard = {}
    for lineno, line in enumerate(_read_text(path).split("\n"), start=1):
        try:
            record = json.loads(line) if line.strip() else None
        except (json.JSONDecodeError, RecursionError) as exc:
            report.warnings.append(ImportNote(f"{path.name}:{lineno}", "bad_json",
                                              {"msg": getattr(exc, "msg", "nested too deeply")}))
            continue
        if isinstance(record, dict) and isinstance(record.get("instance_id"), str):
            standard[record["instance_id"]] = record
    return standard


def _indexes(value) -> list[int] | None:
    if isinstance(value, list) and all(isinstance(i, int) and not isinstance(i, bool)
                                       and 0 <= i < 10_000 for i in value):
        return list(value)
    return None


def spider2_evaluation(standard: dict, n_files: int) -> dict:
    """A question's `evaluation` from its record of the standard file: `condition_cols` as one
    list per gold file, spread the way the evaluator's `compare_multi_pandas_table` spreads
    them (one flat list serves every file; none means every column)."""
    raw = standard.get("condition_cols")
    n = max(1, n_files)
    if raw in (None, [], [[]], [None]):
        lists = []
    elif _indexes(raw) is not None:
        lists = [_indexes(raw)] * n
    elif isinstance(raw, list) and all(_indexes(c) is not None for c in raw):
        lists = [_indexes(c) for c in raw][:n]
        lists += [[] for _ in range(n - len(lists))]
    else:
        lists = []
    out: dict = {"condition_cols": lists} if any(lists) else {}
    if isinstance(standard.get("ignore_order"), bool):
        out["ignore_order"] = standard["ignore_order"]
    return out


def _read_spider2(source: Path, gold_dir: Path | None, report: ImportReport) -> list[_Record]:
    out = []
    gold_dir = Path(gold_dir) if gold_dir else None
    standard = _eval_standard(gold_dir, report)
    for lineno, line in enumerate(_read_text(source).split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source.name}:{lineno}"
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            report.skipped.append(ImportNote(where, "bad_json",
                                             {"msg": getattr(exc, "msg", "nested too deeply")}))
            continue
        if not isinstance(record, dict):
            report.skipped.append(ImportNote(where, "not_object"))
            continue
        instance = _text(record.get("instance_id"))
        files, sqls, unreadable = _gold_files_for(instance, gold_dir)
        evidence = ""
        knowledge = _text(record.get("external_knowledge"))
        if knowledge:
            evidence = _document(source, knowledge) or ""
            if not evidence:
                report.warnings.append(ImportNote(f"{where}: {instance}", "document_missing",
                                                  {"name": knowledge}))
        out.append(_Record(where, _text(record.get("question")), _text(record.get("db")),
                           qid=instance, sqls=sqls, gold_files=files, gold_dir=gold_dir,
                           evidence=evidence, tags=["spider2-lite"],
                           evaluation=spider2_evaluation(standard.get(instance, {}), len(files)),
                           problem=("missing", {"fields": "instance_id"}) if not instance
                           else ("gold_failed", {"error": unreadable}) if unreadable
                           else None))
    return out


def _read_defog(source: Path, db_name: str | None, report: ImportReport) -> list[_Record]:
    import io

    reader = csv.DictReader(io.StringIO(_read_text(source), newline=""))
    try:
        header = set(reader.fieldnames or ())
        missing = {"question", "query", "db_name"} - header
        if missing:
            raise QuestionSetError.coded("qs_missing_columns", source=source,
                                             columns=", ".join(sorted(missing)))
        out = []
        for number, record in enumerate(reader, start=1):
            where = f"{source.name}:{reader.line_num}"
            db = _text(record.get("db_name"))
            if db_name and db != db_name:
                report.other_databases += 1
                continue
            category = _text(record.get("query_category"))
            out.append(_Record(
                where, _text(record.get("question")), db, sqls=alternatives(
                    record.get("query") or ""), dialect="postgres", number=number,
                evidence=_text(record.get("instructions"))[:MAX_EVIDENCE_CHARS],
                tags=[t for t in (category, db) if t]))
    except csv.Error as exc:
        raise QuestionSetError(f"{source}:{reader.line_num}: {exc}") from None
    if db_name and not out:
        raise QuestionSetError.coded("qs_no_db_name", source=source, db_name=repr(db_name))
    return out


def alternatives(query: str) -> list[str]:
    """Every gold a defog query cell accepts, as defog's own evaluator expands it
    (`get_all_minimal_queries` in defog-ai/sql-eval): each ";"-separated statement; in each,
    its first "{a,b}" stands for every non-empty subset of the choices in order ("a", "b",
    "a, b"), and a "GROUP BY {}" after it takes the same subset. At most MAX_ALTERNATIVES in
    all, in order. (Single choices alone, as before, left every "GROUP BY {}" empty: all 20
    such records of questions_gen_postgres.csv were skipped with SQLite's syntax errors.)"""
    out: list[str] = []
    for statement in split_statements(query) or [query.strip()]:
        match = re.search(r"\{([^{}]*)\}", statement)
        if match is None or not match.group(1).strip():
            candidates = [statement]
        else:
            options = [c.strip() for c in match.group(1).split(",") if c.strip()]
            left, right = statement[:match.start()], statement[match.end():]
            subsets = itertools.chain.from_iterable(
                itertools.combinations(options, r) for r in range(1, len(options) + 1))
            candidates = []
            for subset in itertools.islice(subsets, MAX_ALTERNATIVES):
                columns = ", ".join(subset)
                candidates.append(left + columns + right.replace("GROUP BY {}",
                                                                 f"GROUP BY {columns}"))
        for candidate in candidates:
            sql = candidate.strip()
            if sql and sql not in out:
                out.append(sql)
    return out[:MAX_ALTERNATIVES]


def check_set_name(name: str) -> None:
    """QuestionSetError naming --name unless `name` is one folder's name of letters, digits,
    '.', '_' and '-' (a name becomes the set's folder: "../../x" would write outside it)."""
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}", name or ""):
        raise QuestionSetError.coded("qs_bad_name", item=repr(name[:100]))


def default_name(source: Path, fmt: str, db_name: str | None) -> str:
    """The set name an import gets unless one is given: the file's stem (and defog's db)."""
    stem = source.stem if fmt != "spider2-lite" else "spider2-lite"
    base = f"{stem}-{db_name}" if db_name else stem
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-.") or fmt


# --- databases and golds -----------------------------------------------------------------------


def _db_file(db_dir: Path, db: str) -> Path | None:
    if not re.fullmatch(r"[A-Za-z0-9_. -]+", db) or db.strip(".") == "":
        return None
    for path in (db_dir / db / f"{db}.sqlite", db_dir / f"{db}.sqlite", db_dir / f"{db}.db",
                 db_dir / db / f"{db}.db"):
        if path.is_file():
            return path.resolve()
    return None


def _find_databases(records: list[_Record], db_dir: Path | None, fmt: str,
                    report: ImportReport) -> dict[str, Path]:
    if db_dir is None:
        raise QuestionSetError.coded("qs_need_db_dir", db_flag="--db-dir",
                                     format=FORMAT_NAMES[fmt])
    db_dir = Path(db_dir).expanduser()
    if db_dir.is_file():  # one SQLite file for every record (defog's single database)
        return {r.db: db_dir.resolve() for r in records if r.db}
    if not db_dir.is_dir():
        raise QuestionSetError.coded("qs_no_db_dir", db_flag="--db-dir", path=db_dir)
    found = {}
    for db in sorted({r.db for r in records if r.db}):
        path = _db_file(db_dir, db)
        if path is not None:
            found[db] = path
    return found


def _run_golds(records: list[_Record], databases: dict[str, Path], name: str,
               report: ImportReport, on_progress) -> list[dict]:
    rows: list[dict] = []
    taken: set[str] = set()  # the ids given so far
    boxes: dict[str, Sandbox] = {}
    try:
        for done, record in enumerate(records, start=1):
            if on_progress is not None:
                on_progress(done - 1, len(records))
            row = _one(record, databases, boxes, name, len(rows) + 1, report, taken)
            if row is not None:
                rows.append(row)
                taken.add(row["id"])
        if on_progress is not None:
            on_progress(len(records), len(records))
    finally:
        for box in boxes.values():
            box.close()
    return rows


def _one(record: _Record, databases: dict[str, Path], boxes: dict[str, Sandbox], name: str,
         number: int, report: ImportReport, taken: set[str]) -> dict | None:
    def skip(code: str, **params) -> dict | None:  # None: the record is not imported
        report.skipped.append(ImportNote(record.where, code, params))
        return None

    missing = [k for k, v in (("question", record.question), ("database", record.db)) if not v]
    if record.problem:
        return skip(record.problem[0], **record.problem[1])
    if missing:
        return skip("missing", fields=", ".join(missing))
    if record.db not in databases:
        return skip("db_not_found", db=record.db)
    if not record.sqls and not record.gold_files:
        return skip("no_gold", files=report.format == "spider2-lite")
    if record.db not in boxes:
        try:
            boxes[record.db] = Sandbox(databases[record.db], time_limit_s=10.0)
        except (OSError, SandboxError) as exc:
            return skip("db_unreadable", db=record.db, error=str(exc))
    box = boxes[record.db]
    qid = record.qid or f"{name}-{number if record.number is None else record.number:04d}"
    n, base = 1, qid
    while qid in taken:  # two records naming the same question_id: the later one apart
        n += 1
        qid = f"{base}-{n}"
    sqls: list[str] = []
    results: list[tuple[tuple, QueryResult]] = []
    errors: list[str] = []
    for sql in record.sqls:
        ran = _run_gold(box, sql, record.dialect)
        if isinstance(ran, str):
            errors.append(ran)
        else:
            sqls.append(ran[0])
            results.append((("sql",) if len(sqls) == 1 else ("alt", len(sqls) - 1), ran[1]))
    for path in record.gold_files:
        try:
            results.append((("file", path.name), read_gold_csv(path, folder=record.gold_dir)))
        except GoldError as exc:
            errors.append(str(exc))
    if not results:
        return skip("gold_failed", error=errors[0], sql=bool(record.sqls))
    if errors:
        report.warnings.append(ImportNote(qid, "alternatives_left_out", {
            "n": len(errors), "total": len(errors) + len(results), "error": errors[0]}))
    for label, result in results:
        kind = degenerate(result)
        if kind is not None:
            report.warnings.append(ImportNote(qid, "gold_degenerate",
                                              {"gold": label, "kind": kind}))
    columns = list(results[0][1].columns) if sqls else []
    if len({c.lower() for c in columns}) != len(columns):
        columns = []  # e.g. "SELECT T1.name, T2.name": no unique names to require
    text = record.question
    if record.evidence:
        text = f"{text}\n\nHint: {record.evidence}"
    read = {label for label, _ in results}
    kept = [i for i, p in enumerate(record.gold_files) if ("file", p.name) in read]
    evaluation = dict(record.evaluation)
    if evaluation.get("condition_cols"):  # one list per gold file kept (the first for a SQL)
        lists = evaluation["condition_cols"]
        evaluation["condition_cols"] = [lists[i] for i in kept] if kept else lists[:1]
    return {
        "id": qid, "tier": record.tier, "text_en": text, "text_zh": "",
        "gold_sql": sqls[0] if sqls else "", "database": record.db,
        "required_columns": columns, "rounding": {},
        "order_matters": bool(sqls) and has_top_level_order_by(sqls[0]),
        "glossary": qid if record.evidence else None, "tags": record.tags,
        "gold_alternatives": sqls[1:],
        "gold_files": [str(record.gold_files[i]) for i in kept],
        **({"evaluation": evaluation} if evaluation else {}),
        "_evidence": record.evidence,
    }


def _run_gold(sandbox: Sandbox, sql: str, dialect: str | None):
    """(the SQL to store, its result), or SQLite's error text. A gold in another dialect
    (defog's are PostgreSQL) is tried once more transpiled by sqlglot."""
    try:
        return sql, sandbox.run(sql)
    except SandboxError as exc:
        error = str(exc)
    if dialect:
        try:
            translated = sqlglot.transpile(sql, read=dialect, write="sqlite")[0]
            return translated, sandbox.run(translated)
        except (sqlglot.errors.SqlglotError, SandboxError, IndexError):
            pass
    return error


def has_top_level_order_by(sql: str) -> bool:
    """Whether the query's outermost SELECT (or set operation) has an ORDER BY (via sqlglot)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return " order by " in " ".join(sql.lower().split())  # unparseable: best guess
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


# --- writing the set ---------------------------------------------------------------------------


def _toml_str(value: str) -> str:
    # JSON string escapes are TOML basic-string escapes, except DEL which TOML wants escaped.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _write_set(out_dir: Path, name: str, fmt: str, databases: dict[str, Path],
               rows: list[dict]) -> None:
    """Write set.toml, questions.jsonl and the gold files into `out_dir`, all or nothing."""
    used = sorted({r["database"] for r in rows})
    source = FORMAT_NAMES[fmt]
    description = (f"{len(rows)} questions imported from {source} on the "
                   f"{', '.join(used)} database{'s' if len(used) > 1 else ''} (SQLite). The "
                   "questions do not name their output columns or rounding.")
    toml = [f"name = {_toml_str(name)}", f"description = {_toml_str(description)}",
            "asks_columns = false", f"benchmark = {_toml_str(fmt)}", ""]
    for key in used:
        toml += [f"[databases.{_toml_str(key)}]",
                 f"file = {_toml_str(str(databases[key]))}",
                 f"description = {_toml_str(f'The {key} database from {source} (SQLite).')}", ""]
    glossary = {r["id"]: r["_evidence"] for r in rows if r["_evidence"]}
    if glossary:
        toml.append("[glossary]")
        toml += [f"{_toml_str(term)} = {_toml_str(text)}" for term, text in glossary.items()]
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-", dir=out_dir.parent))
    try:
        lines = []
        for row in rows:
            copied = []
            for file in row["gold_files"]:
                # Copied into the set: small, and the set then travels as one folder.
                target = Path("gold") / Path(file).name
                (staging / "gold").mkdir(exist_ok=True)
                shutil.copyfile(file, staging / target)
                copied.append(target.as_posix())
            record = {k: v for k, v in row.items() if not k.startswith("_")}
            record["gold_files"] = copied
            lines.append(json.dumps(record, ensure_ascii=False))
        (staging / SET_FILE).write_text("\n".join(toml) + "\n", encoding="utf-8")
        (staging / QUESTIONS_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
        if out_dir.is_dir() and not any(out_dir.iterdir()):
            out_dir.rmdir()
        staging.rename(out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
