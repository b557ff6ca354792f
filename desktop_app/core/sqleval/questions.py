"""Question sets: find, read and validate a `<set>/set.toml` + `<set>/questions.jsonl` folder.

The format is documented in docs/QUESTION-SETS.md. Every problem is reported as
"file:line: field: why" (all of them at once, not just the first), so a hand-edited set can be
fixed in one pass. Databases are either files in (or beside) the set, or built from code with a
seed into a cache folder the caller chooses. With `check_gold`, every gold query runs through the
sandbox and a question whose gold fails is set aside in `QuestionSet.skipped`, never dropped
silently.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from desktop_app.core.files import LocalFileError, inside, read_bounded
from desktop_app.core.sqleval.types import TIERS, Question, QuestionSet, SkippedQuestion

SET_FILE = "set.toml"
QUESTIONS_FILE = "questions.jsonl"
BUILDERS = ("sales",)
_REQUIRED_KEYS = ("id", "tier", "text_en", "gold_sql", "database")
_OPTIONAL_KEYS = (
    "text_zh", "required_columns", "rounding", "order_matters", "glossary", "tags",
    "gold_alternatives", "gold_files", "evaluation",
)
# The keys of a record's `evaluation` (its benchmark's own parameters, see types.Question).
_EVALUATION_KEYS = ("condition_cols", "ignore_order")
# Formats a set may say it was imported from (importers.FORMATS; not imported from there:
# this module does not need the importers).
BENCHMARKS = ("spider", "bird", "spider2-lite", "defog")
SetDirs = Path | str | tuple | list  # one folder of sets, or several searched in order
_MAX_ERRORS_SHOWN = 25
MAX_SET_FILE_BYTES = 256 * 1024 * 1024  # set.toml or questions.jsonl; what an import may write


class QuestionSetError(ValueError):
    """A question set that cannot be used; `errors` lists every "file:line: field: why"."""

    code = ""  # with `params`: one problem an InputError code words (`coded`)
    params: dict = {}

    @classmethod
    def coded(cls, code: str, **params) -> QuestionSetError:
        from desktop_app.core.parsing import INPUT_MESSAGES

        exc = cls(INPUT_MESSAGES[code].format(**params))
        exc.code, exc.params = code, params
        return exc

    def __init__(self, errors: list[str] | str) -> None:
        self.errors = [errors] if isinstance(errors, str) else list(errors)
        shown = self.errors[:_MAX_ERRORS_SHOWN]
        more = len(self.errors) - len(shown)
        super().__init__("\n".join(shown + ([f"... and {more} more"] if more > 0 else [])))


def _dirs(sets_dir: SetDirs) -> list[Path]:
    return [Path(d) for d in sets_dir] if isinstance(sets_dir, (tuple, list)) else [Path(sets_dir)]


def list_question_sets(sets_dir: SetDirs) -> list[tuple[str, str]]:
    """(folder name, description) of every set folder in `sets_dir` (one folder or several:
    the bundled sets, then the user's imported ones), sorted by name; a name found twice is
    listed once, from the first folder (the one `find_set_dir` uses).

    A set whose set.toml cannot be read is still listed, its description saying why.
    """
    found = []
    folders: dict = {}
    for base in _dirs(sets_dir):
        if base.is_dir():
            for folder in base.iterdir():
                folders.setdefault(folder.name, folder)
    for _, folder in sorted(folders.items()):
        if not (folder / SET_FILE).is_file():
            continue
        try:
            meta, _ = _read_toml(folder / SET_FILE)
            description = str(meta.get("description", ""))
        except QuestionSetError as exc:
            description = f"(cannot be read: {exc.errors[0]})"
        found.append((folder.name, description))
    return found


def find_set_dir(name_or_path: str | Path, sets_dir: SetDirs) -> Path:
    """The folder of a set given by path, or by name (looked up in each of `sets_dir`)."""
    candidate = Path(name_or_path).expanduser()
    if candidate.is_file() and candidate.name == SET_FILE:
        return candidate.parent
    if (candidate / SET_FILE).is_file():
        return candidate
    for base in _dirs(sets_dir):
        named = base / str(name_or_path)
        if (named / SET_FILE).is_file():
            return named
    names = ", ".join(name for name, _ in list_question_sets(sets_dir)) or "none"
    raise QuestionSetError.coded("no_set", name=name_or_path, file=SET_FILE, names=names)


def load_question_set(
    name_or_path: str | Path, *, sets_dir: SetDirs, cache_dir: Path, check_gold: bool = True
) -> QuestionSet:
    """Load and validate a question set; build its seeded databases into `cache_dir` if needed.

    Raises QuestionSetError listing every problem as "file:line: field: why". With
    `check_gold`, each gold query runs in the sandbox (5 s limit); failures go to `skipped`.
    Building the sales database takes a few seconds the first time; later loads reuse it.
    """
    set_dir = find_set_dir(name_or_path, sets_dir)
    meta, toml_text = _read_toml(set_dir / SET_FILE)
    name, description, db_specs, glossary = _parse_set_meta(meta, toml_text, set_dir)
    questions = _parse_questions(set_dir / QUESTIONS_FILE, set(db_specs), glossary, set_dir)
    databases = {
        key: _resolve_database(spec, name, key, set_dir, Path(cache_dir))
        for key, spec in db_specs.items()
    }
    skipped: list[SkippedQuestion] = []
    if check_gold:
        questions, skipped = _check_gold(questions, databases)
    return QuestionSet(
        name=name,
        description=description,
        path=set_dir,
        databases=databases,
        questions=tuple(questions),
        skipped=tuple(skipped),
        glossary=dict(glossary),
        database_notes={key: str(spec.get("description") or "").strip()
                        for key, spec in db_specs.items()},
        asks_columns=meta.get("asks_columns", True),
        benchmark=meta.get("benchmark", ""),
    )


# -- set.toml ---------------------------------------------------------------------------------


def _decode(path: Path) -> str:
    try:
        data = read_bounded(path, MAX_SET_FILE_BYTES, what="a question set's file")
    except LocalFileError as exc:
        raise QuestionSetError.coded("qs_file", path=path, problem=exc.phrase()) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise QuestionSetError.coded("qs_set_not_utf8", path=path, line=line,
                                     byte=data[exc.start], offset=exc.start) from None


def _read_toml(path: Path) -> tuple[dict, str]:
    text = _decode(path)
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        if where:
            line, col = where.groups()
            raise QuestionSetError(
                f"{path}:{line}: TOML syntax: {message} (column {col})"
            ) from None
        raise QuestionSetError(f"{path}: TOML syntax: {message}") from None


def _line_of(text: str, field: str) -> int:
    """Best-effort line (1-based; 0 = not found) of a dotted TOML field such as
    "databases.sales.seed": its `key =` line, else its table's header, else its parent's."""
    where: dict[str, int] = {}
    table = ""
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            table = stripped.strip("[]").replace('"', "").replace(" ", "")
            where.setdefault(table, lineno)
        elif "=" in stripped and not stripped.startswith("#"):
            key = stripped.split("=", 1)[0].strip().replace('"', "")
            where.setdefault(f"{table}.{key}" if table else key, lineno)
    parts = field.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in where:
            return where[".".join(parts[:n])]
    return 0


def _parse_set_meta(meta: dict, text: str, set_dir: Path):
    path = set_dir / SET_FILE
    errors: list[str] = []

    def err(field: str, why: str) -> None:
        line = _line_of(text, field)
        shown = field if field.isprintable() else repr(field)  # a quoted key may hold a "\n"
        errors.append(f"{path}:{line}: {shown}: {why}" if line else f"{path}: {shown}: {why}")

    for key in sorted(set(meta) - {"name", "description", "databases", "glossary",
                                   "asks_columns", "benchmark"}):
        err(key, "unknown key (expected name, description, asks_columns, benchmark, "
            "[databases.*], [glossary])")
    if not isinstance(meta.get("asks_columns", True), bool):
        err("asks_columns", "must be true or false")
    if meta.get("benchmark", "") not in ("", *BENCHMARKS):
        err("benchmark", f"{meta['benchmark']!r} is not one of {', '.join(BENCHMARKS)}")
    name = meta.get("name", set_dir.name)
    if not isinstance(name, str) or not name.strip():
        err("name", "must be a non-empty string")
    description = meta.get("description", "")
    if not isinstance(description, str):
        err("description", "must be a string")
    glossary = meta.get("glossary", {})
    if not isinstance(glossary, dict) or not all(
        isinstance(v, str) for v in glossary.values()
    ):
        err("glossary", "must be a table of term = \"definition\" strings")
        glossary = {}
    databases = meta.get("databases")
    if not isinstance(databases, dict) or not databases:
        err("databases", "declare at least one [databases.<key>] table")
        databases = {}
    specs: dict[str, dict] = {}
    for key, spec in databases.items():
        field = f"databases.{key}"
        if not isinstance(spec, dict):
            err(field, "must be a table with `file` or `builder` + `seed`")
            continue
        extra = sorted(set(spec) - {"file", "builder", "seed", "description"})
        if extra:
            err(field, f"unknown key(s) {', '.join(extra)} (expected file, or builder + seed)")
        if ("file" in spec) == ("builder" in spec):
            err(field, "needs exactly one of `file = \"...\"` or `builder = \"...\"` + `seed`")
        elif "file" in spec and not isinstance(spec["file"], str):
            err(f"{field}.file", "must be a path string")
        elif "builder" in spec:
            if spec["builder"] not in BUILDERS:
                err(f"{field}.builder", f"unknown builder {spec['builder']!r} (known: "
                    f"{', '.join(BUILDERS)})")
            if not isinstance(spec.get("seed"), int) or isinstance(spec.get("seed"), bool):
                err(f"{field}.seed", "a builder needs an integer seed")
        if not isinstance(spec.get("description", ""), str):
            err(f"{field}.description", "must be a string")
        if "file" in spec and isinstance(spec["file"], str):
            file = (set_dir / spec["file"]).resolve()
            if not file.is_file():
                err(f"{field}.file", f"no such file: {file}")
        specs[key] = spec
    if errors:
        raise QuestionSetError(errors)
    return name, description, specs, glossary


def _resolve_database(spec: dict, set_name: str, key: str, set_dir: Path, cache_dir: Path) -> Path:
    if "file" in spec:
        return (set_dir / spec["file"]).resolve()
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", set_name)
    target = cache_dir / f"{safe}-{key}-{spec['seed']}.sqlite"
    if target.is_file():
        return target
    # Imported here so this module loads even where the builder is missing or broken.
    from desktop_app.core.sqleval.salesdb import build_sales_db

    cache_dir.mkdir(parents=True, exist_ok=True)
    try:
        return Path(build_sales_db(target, spec["seed"]))
    except Exception as exc:
        target.unlink(missing_ok=True)  # never leave a half-built file to be reused later
        raise QuestionSetError(
            f"{set_dir / SET_FILE}: databases.{key}: building with {spec['builder']!r} "
            f"(seed {spec['seed']}) failed: {exc}"
        ) from exc


# -- questions.jsonl --------------------------------------------------------------------------


def _parse_questions(path: Path, databases: set[str], glossary: dict[str, str],
                     set_dir: Path) -> list[Question]:
    if not path.is_file():
        raise QuestionSetError.coded("qs_set_file_missing", path=path)
    text = _decode(path)
    errors: list[str] = []
    questions: list[Question] = []
    first_line: dict[str, int] = {}
    # Lines end at "\n" only: str.splitlines() would also cut at U+2028, U+0085, \x1c ...,
    # which JSON allows raw inside strings (and json.dumps(ensure_ascii=False) writes).
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})")
            continue
        except RecursionError:
            errors.append(f"{where}: not valid JSON: nested too deeply")
            continue
        if not isinstance(obj, dict):
            errors.append(f"{where}: expected a JSON object, got {type(obj).__name__}")
            continue
        problems = _check_record(obj, databases, glossary, set_dir)
        qid = obj.get("id")
        if isinstance(qid, str) and qid in first_line:
            problems.append(f"id: duplicate id {qid!r} (first on line {first_line[qid]})")
        elif isinstance(qid, str):
            first_line[qid] = lineno
        if problems:
            errors += [f"{where}: {p}" for p in problems]
            continue
        questions.append(
            Question(
                id=obj["id"],
                tier=obj["tier"],
                text_en=obj["text_en"],
                text_zh=obj.get("text_zh", ""),
                gold_sql=obj["gold_sql"],
                database=obj["database"],
                required_columns=tuple(obj.get("required_columns", ())),
                rounding=dict(obj.get("rounding", {})),
                order_matters=obj.get("order_matters", False),
                glossary=glossary[obj["glossary"]] if obj.get("glossary") else None,
                tags=tuple(obj.get("tags", ())),
                source=f"{path.name}:{lineno}",
                gold_alternatives=tuple(obj.get("gold_alternatives", ())),
                gold_files=tuple(str((set_dir / f).resolve()) for f in obj.get("gold_files", ())),
                evaluation=dict(obj.get("evaluation", {})),
            )
        )
    if errors:
        raise QuestionSetError(errors)
    if not questions:
        raise QuestionSetError.coded("qs_set_file_empty", path=path)
    return questions


def _is_str_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _check_record(obj: dict, databases: set[str], glossary: dict[str, str],
                  set_dir: Path) -> list[str]:
    """The problems of one questions.jsonl record, each "field: why"."""
    problems = [f"{k}: missing (required)" for k in _REQUIRED_KEYS if k not in obj]
    known = ", ".join(_REQUIRED_KEYS + _OPTIONAL_KEYS)
    problems += [  # a key is quoted when it could break the one-line message
        f"{k if k.isprintable() else repr(k)}: unknown key (known: {known})"
        for k in obj if k not in _REQUIRED_KEYS + _OPTIONAL_KEYS
    ]
    for key in ("id", "text_en", "database"):
        if key in obj and (not isinstance(obj[key], str) or not obj[key].strip()):
            problems.append(f"{key}: must be a non-empty string")
    others = obj.get("gold_alternatives") or obj.get("gold_files")
    if "gold_sql" in obj and (not isinstance(obj["gold_sql"], str)
                              or not (obj["gold_sql"].strip() or others)):
        problems.append("gold_sql: must be a non-empty string (it may be empty only when "
                        "gold_alternatives or gold_files give the accepted answers)")
    for key in ("gold_alternatives", "gold_files"):
        if key in obj and not _is_str_list(obj[key]):
            problems.append(f"{key}: must be a list of non-empty strings")
    if _is_str_list(obj.get("gold_files")):
        for file in obj["gold_files"]:
            try:  # a downloaded set's "../../etc/shadow" or planted symlink reads nothing
                inside(set_dir / file, set_dir)
            except LocalFileError as exc:
                problems.append(f"gold_files: {file}: {exc}")
                continue
            if not (set_dir / file).is_file():
                problems.append(f"gold_files: no such file: {(set_dir / file).resolve()}")
    if "text_zh" in obj and not isinstance(obj["text_zh"], str):
        problems.append("text_zh: must be a string")
    if "tier" in obj and obj["tier"] not in TIERS:
        problems.append(f"tier: {obj['tier']!r} is not one of {', '.join(TIERS)}")
    if isinstance(obj.get("database"), str) and obj["database"] not in databases:
        problems.append(
            f"database: {obj['database']!r} is not declared in set.toml "
            f"(declared: {', '.join(sorted(databases))})"
        )
    columns = obj.get("required_columns", [])
    if not _is_str_list(columns):
        problems.append("required_columns: must be a list of non-empty strings")
        columns = []
    elif len(set(columns)) != len(columns):
        problems.append("required_columns: a column is named twice")
    rounding = obj.get("rounding", {})
    if not isinstance(rounding, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in rounding.values()
    ):
        problems.append('rounding: must be an object of column: decimals (e.g. {"avg": 2})')
    else:
        for col in rounding:
            if col not in columns:
                problems.append(f"rounding: column {col!r} is not in required_columns")
    if "order_matters" in obj and not isinstance(obj["order_matters"], bool):
        problems.append("order_matters: must be true or false")
    term = obj.get("glossary")
    if term is not None and (not isinstance(term, str) or term not in glossary):
        known_terms = ", ".join(sorted(glossary)) or "none"
        problems.append(f"glossary: {term!r} is not a term of set.toml's [glossary] "
                        f"(terms: {known_terms})")
    if "tags" in obj and not _is_str_list(obj["tags"]):
        problems.append("tags: must be a list of strings")
    problems += _evaluation_problems(obj.get("evaluation", {}), obj.get("gold_files"))
    return problems


def _is_index_list(value) -> bool:
    return isinstance(value, list) and len(value) <= 1000 and all(
        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 10_000 for i in value)


def _evaluation_problems(evaluation, gold_files) -> list[str]:
    """The problems of a record's `evaluation` (its benchmark's parameters)."""
    if not isinstance(evaluation, dict):
        return ["evaluation: must be an object such as {\"condition_cols\": [[0, 2]], "
                "\"ignore_order\": true}"]
    problems = [f"evaluation: {k if k.isprintable() else repr(k)}: unknown key (known: "
                f"{', '.join(_EVALUATION_KEYS)})" for k in evaluation if k not in _EVALUATION_KEYS]
    if "ignore_order" in evaluation and not isinstance(evaluation["ignore_order"], bool):
        problems.append("evaluation: ignore_order: must be true or false")
    cols = evaluation.get("condition_cols", [])
    if not (isinstance(cols, list) and all(_is_index_list(c) for c in cols)):
        problems.append("evaluation: condition_cols: must be a list holding, per gold file, a "
                        "list of column indexes counted from 0 (e.g. [[0, 2]])")
    elif cols and isinstance(gold_files, list) and len(cols) != max(1, len(gold_files)):
        problems.append(f"evaluation: condition_cols: {len(cols)} lists for "
                        f"{len(gold_files)} gold files (one list per gold file)")
    return problems


def _check_gold(questions: list[Question], databases: dict[str, Path]):
    """Read every accepted answer once; a question whose gold fails (or names other columns
    than its required_columns) is skipped, with the reason."""
    # Imported here: golds imports the judge, which the set format does not need.
    from desktop_app.core.sqleval.golds import check_set

    problems = {p.question_id: p for p in check_set(databases, questions).problems
                if p.code in ("gold_failed", "columns_differ")}
    kept: list[Question] = []
    skipped: list[SkippedQuestion] = []
    for q in questions:
        problem = problems.get(q.id)
        if problem is None:
            kept.append(q)
        elif problem.code == "gold_failed":
            skipped.append(SkippedQuestion(q.id, q.source, problem.detail))
        else:
            skipped.append(SkippedQuestion(
                q.id, q.source, f"gold SQL returns columns ({', '.join(problem.columns)}) but "
                f"required_columns are ({', '.join(problem.required)})"))
    return kept, skipped
