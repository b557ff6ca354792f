"""Why a results file cannot be used, in English or Simplified Chinese.

The store raises `StoreUnusable` with a code (`core.store.errors.STORE_PROBLEMS`), the path, and
either what the system or SQLite said (quoted as it is) or a code of what Throughline found
(`DETAIL_CODES`) with its values; the CLI and the window put it in words here. Other store errors
(a write that failed mid-run) carry SQLite's own message, which stays as it is: it is quoted.
"""

from __future__ import annotations

from desktop_app.core.store.errors import PROBLEM_WORDS
from desktop_app.report.strings import lookup

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "unusable": "results database {path} {what}",
        "detail": "{text}: {detail}",
        **PROBLEM_WORDS,  # the store's own English message says the same
        "no_write_permission": "no write permission",
        "no_write_permission_in": "no write permission in {where}",
        "free_bytes": "{free:,} bytes free in {where}",
        "short_file": "only {size:,} bytes",
        "no_sqlite_header": "its first bytes are not SQLite's header",
        "shorter_than_header": "only {size:,} bytes, shorter than its header",
        "shorter_than_pages": "{size:,} bytes where its header says {expected:,}",
        "no_schema_version": "it has no schema version",
        "symlink_loop": "it is a loop of symbolic links",
        "missing_tables": "its tables {tables} are missing",
        "special_file": "it is a {kind}",
        "fifo": "named pipe (FIFO)", "device": "device", "socket": "socket",
        "special": "special file",
        "damaged": "warning: {n} damaged value(s) in the results file were left out "
                   "(not the JSON Throughline wrote): {where}",
        "damaged_row": "{table} row {id}, {column}",
        "missing_run": "no run {id} in {path}",
        "missing_cell": "no cell {id} in {path}",
        "missing_question_row": "no SQL question row {id} in {path}",
        "schema_too_new": "it uses results schema version {found}, but this Throughline only "
                          "knows versions up to {known}. Upgrade to open it.",
    },
    "zh": {
        "unusable": "结果数据库 {path} {what}",
        "detail": "{text}：{detail}",
        "is_directory": "是一个文件夹，不是结果文件",
        "not_regular": "不是普通文件（管道或设备无法保存结果）",
        "not_a_database": "不是 SQLite 数据库（不是 Throughline 结果文件）",
        "truncated": "已被截断（文件不完整）",
        "corrupt": "已损坏",
        "not_throughline": "是 SQLite 文件，但不是 Throughline 结果数据库",
        "newer_schema": "由更新版本的 Throughline 写入",
        "read_only": "无法写入（只读）",
        "disk_full": "无法写入：磁盘已满",
        "busy": "已被另一个进程锁定",
        "io_error": "无法读写（磁盘错误、配额或文件大小限制）",
        "cannot_open": "无法打开",
        "no_write_permission": "没有写入权限",
        "no_write_permission_in": "在 {where} 中没有写入权限",
        "free_bytes": "{where} 仅剩 {free:,} 字节可用空间",
        "short_file": "只有 {size:,} 字节",
        "no_sqlite_header": "文件开头不是 SQLite 的文件头",
        "shorter_than_header": "只有 {size:,} 字节，比文件头还短",
        "shorter_than_pages": "只有 {size:,} 字节，而文件头标明应为 {expected:,} 字节",
        "no_schema_version": "其中没有结构版本号",
        "symlink_loop": "它是符号链接的循环",
        "missing_tables": "缺少数据表 {tables}",
        "special_file": "它是{kind}",
        "fifo": "命名管道（FIFO）", "device": "设备文件", "socket": "套接字", "special": "特殊文件",
        "damaged": "警告：结果文件中有 {n} 个已损坏的值（不是 Throughline 写入的 JSON）被略去：{where}",
        "damaged_row": "{table} 表第 {id} 行的 {column}",
        "missing_run": "{path} 中没有运行 {id}",
        "missing_cell": "{path} 中没有单元 {id}",
        "missing_question_row": "{path} 中没有 SQL 题目行 {id}",
        "schema_too_new": "它使用第 {found} 版结果结构，而此版本的 Throughline 最高只支持第 "
                          "{known} 版。请升级后再打开。",
    },
}


def store_error_text(exc: Exception, lang: str = "en") -> str:
    """A store error in `lang`: an unusable file's code in words, with the path and what the
    system said (quoted as it is), or an id that is not there; any other error's own message."""
    what = getattr(exc, "what", None)
    if what is not None and f"missing_{what}" in WORDS["en"]:
        return lookup(WORDS, lang, f"missing_{what}", id=exc.id, path=exc.path)
    code = getattr(exc, "code", None)
    if code is None or code not in WORDS["en"] or not hasattr(exc, "path"):
        return str(exc)
    text = lookup(WORDS, lang, "unusable", path=exc.path, what=lookup(WORDS, lang, code))
    detail = getattr(exc, "detail", "")
    detail_code = getattr(exc, "detail_code", None)
    if detail_code in WORDS["en"]:
        values = dict(getattr(exc, "values", {}))
        if values.get("kind") in ("fifo", "device", "socket", "special"):
            values["kind"] = lookup(WORDS, lang, values["kind"])
        try:
            detail = lookup(WORDS, lang, detail_code, **values)
        except (KeyError, ValueError):
            pass  # values of a shape these words do not know: the English detail, quoted
    return lookup(WORDS, lang, "detail", text=text, detail=detail) if detail else text


def damaged_text(rows, lang: str = "en", shown: int = 5) -> str:
    """The warning that `rows` (`core.store.DamagedRow`) were read damaged and left out, the
    first `shown` of them named."""
    where = "; ".join(lookup(WORDS, lang, "damaged_row", table=r.table, id=r.row_id,
                             column=r.column) for r in rows[:shown])
    if len(rows) > shown:
        where += " …"
    return lookup(WORDS, lang, "damaged", n=len(rows), where=where)
