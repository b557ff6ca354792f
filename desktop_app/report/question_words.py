"""The words of question-set imports and checks, in English and Simplified Chinese.

The core reports an import's skipped records and warnings (`importers.ImportNote`) and a
check's problems (`golds.GoldProblem`) as codes and values; the CLI (`throughline questions`)
and the GUI (the Import... dialog) render them here, in the reader's language. Quoted values
(SQLite's messages, file and database names) stay as they are.
"""

from __future__ import annotations

from desktop_app.report.strings import lookup

WORDS = {
    "en": {
        "bad_json": "not valid JSON: {msg}",
        "not_object": "expected a JSON object",
        "missing": "missing or empty: {fields}",
        "db_not_found": "database '{db}' not found in {folder} (as {db}/{db}.sqlite or "
                        "{db}.sqlite)",
        "no_gold": "no gold: no SQL",
        "no_gold_files": "no gold: no SQL and no result file in --gold-dir",
        "db_unreadable": "database '{db}' cannot be opened: {error}",
        "gold_failed_sql": "gold SQL failed: {error}",
        "gold_failed": "{error}",
        "alternatives_left_out": "{n} of {total} accepted answers left out: {error}",
        "gold_degenerate_empty": "the {gold} returns no rows: any answer with nothing in it "
                                 "passes",
        "gold_degenerate_null_only": "the {gold} returns only NULLs: any answer with nothing "
                                     "in it passes",
        "document_missing": "external knowledge '{name}' not found in documents/ beside the "
                            "file; imported without it",
        "gold_sql": "gold SQL",
        "gold_alt": "alternative gold SQL {n}",
        # check_set's problems
        "check_gold_failed": "{id} ({source}): a gold cannot be used: {detail}",
        "check_gold_empty": "{id} ({source}): the {gold} returns no rows: any empty answer "
                            "passes",
        "check_gold_null_only": "{id} ({source}): the {gold} returns only NULLs: an answer of "
                                "NULLs passes",
        "check_columns_differ": "{id} ({source}): the {gold} returns columns ({columns}), the "
                                "question requires ({required})",
    },
    "zh": {
        "bad_json": "不是有效的 JSON：{msg}",
        "not_object": "应为 JSON 对象",
        "missing": "缺失或为空：{fields}",
        "db_not_found": "在 {folder} 中找不到数据库 '{db}'（应为 {db}/{db}.sqlite 或 {db}.sqlite）",
        "no_gold": "没有标准答案：没有 SQL",
        "no_gold_files": "没有标准答案：没有 SQL，--gold-dir 中也没有结果文件",
        "db_unreadable": "无法打开数据库 '{db}'：{error}",
        "gold_failed_sql": "标准 SQL 执行失败：{error}",
        "gold_failed": "{error}",
        "alternatives_left_out": "{total} 个可接受答案中有 {n} 个未导入：{error}",
        "gold_degenerate_empty": "{gold} 没有返回任何行：任何空答案都会通过",
        "gold_degenerate_null_only": "{gold} 只返回 NULL：任何空答案都会通过",
        "document_missing": "在文件旁的 documents/ 中找不到外部知识 '{name}'；已在没有它的情况下导入",
        "gold_sql": "标准 SQL",
        "gold_alt": "备选标准 SQL {n}",
        "check_gold_failed": "{id}（{source}）：标准答案无法使用：{detail}",
        "check_gold_empty": "{id}（{source}）：{gold} 没有返回任何行：任何空答案都会通过",
        "check_gold_null_only": "{id}（{source}）：{gold} 只返回 NULL：全是 NULL 的答案都会通过",
        "check_columns_differ": "{id}（{source}）：{gold} 返回的列为 ({columns})，题目要求 "
                                "({required})",
    },
}


def _w(lang: str, entry: str, /, **values) -> str:
    return lookup(WORDS, lang, entry, **values)


def gold_label(label, lang: str) -> str:
    """An accepted answer's name: ("sql",), ("alt", n), ("file", name), or a `golds.Gold`
    label ("gold SQL", "alternative gold SQL 2", a file name)."""
    if isinstance(label, (tuple, list)):
        kind = label[0]
        if kind == "sql":
            return _w(lang, "gold_sql")
        if kind == "alt":
            return _w(lang, "gold_alt", n=label[1])
        return str(label[1])
    if label == "gold SQL":
        return _w(lang, "gold_sql")
    if str(label).startswith("alternative gold SQL "):
        return _w(lang, "gold_alt", n=str(label).rsplit(" ", 1)[1])
    return str(label)


def note_text(note, lang: str = "en", db_folder: str = "--db-dir") -> str:
    """One `ImportNote` as a line: "<where>: <why>". `db_folder` names the databases folder
    as the reader gave it (the CLI's flag; the window's field label)."""
    p = dict(note.params)
    if note.code == "db_not_found":
        p.setdefault("folder", db_folder)
    code = note.code
    if code == "no_gold" and p.get("files"):
        code = "no_gold_files"
    elif code == "gold_failed" and p.get("sql"):
        code = "gold_failed_sql"
    elif code == "gold_degenerate":
        code = f"gold_degenerate_{p.get('kind')}"
        p["gold"] = gold_label(p.get("gold"), lang)
    return f"{note.where}: {_w(lang, code, **p)}"


def problem_text(problem, lang: str = "en") -> str:
    """One `GoldProblem` of `golds.check_set` as a line."""
    return _w(lang, f"check_{problem.code}", id=problem.question_id, source=problem.source,
              detail=problem.detail, gold=gold_label(problem.detail, lang),
              columns=", ".join(problem.columns), required=", ".join(problem.required))
