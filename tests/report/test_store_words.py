"""Why a results file cannot be used, in the reader's language: every code the store can give
has English and Chinese words, and a Chinese message about a real unusable file has no English
sentence in it (the path and what the system said stay quoted as they are)."""

from __future__ import annotations

import os
import pickle
import sqlite3
import subprocess
import sys

import pytest

from desktop_app.core.store import Store
from desktop_app.core.store.errors import DETAIL_CODES, STORE_PROBLEMS, StoreUnusable
from desktop_app.report.store_words import WORDS, store_error_text
from tests.lang_check import english_runs


def test_every_code_has_english_and_chinese_words():
    assert set(WORDS["en"]) == set(WORDS["zh"])
    for code in (*STORE_PROBLEMS, *DETAIL_CODES):
        assert WORDS["en"].get(code) and WORDS["zh"].get(code), code


def _unusable(path) -> StoreUnusable:
    with pytest.raises(StoreUnusable) as caught:
        Store.open(path)
    return caught.value


def _files(tmp_path):
    """Results files that are unusable in different ways, as a user could have them."""
    (tmp_path / "folder.db").mkdir()
    (tmp_path / "notes.db").write_text("my notes, not a database\n" * 10)
    (tmp_path / "cut.db").write_bytes(b"SQLite format")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    good = tmp_path / "good.db"
    Store.open(good).close()
    head = good.read_bytes()
    (tmp_path / "short.db").write_bytes(head[:4096])  # header says more pages than this
    newer = tmp_path / "newer.db"
    Store.open(newer).close()
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    os.mkfifo(tmp_path / "pipe.db")  # opening it for its header would wait for a writer
    (tmp_path / "loop.db").symlink_to(tmp_path / "loop2.db")
    (tmp_path / "loop2.db").symlink_to(tmp_path / "loop.db")
    return ["folder.db", "notes.db", "cut.db", "other.db", "newer.db", "short.db", "pipe.db",
            "loop.db"]


def test_a_real_unusable_file_is_said_in_chinese_without_english(tmp_path):
    seen = set()
    for name in _files(tmp_path):
        exc = _unusable(tmp_path / name)
        seen.add(exc.code)
        zh, en = store_error_text(exc, "zh"), store_error_text(exc, "en")
        assert str(tmp_path / name) in zh and "结果数据库" in zh
        assert english_runs(zh) == [], (name, zh)
        assert en == str(exc)  # the English words are the store's own message
    assert {"is_directory", "not_a_database", "truncated", "not_throughline",
            "newer_schema", "not_regular", "cannot_open"} <= seen


def test_what_the_system_said_stays_quoted_as_it_is(tmp_path):
    exc = StoreUnusable(tmp_path / "x.db", "cannot_open", "unable to open database file")
    assert store_error_text(exc, "zh").endswith("无法打开：unable to open database file")


def test_the_error_crosses_a_process_boundary_whole(tmp_path):
    exc = _unusable(tmp_path / "notes.db") if _files(tmp_path) else None
    back = pickle.loads(pickle.dumps(exc))
    assert (back.code, back.detail_code, back.path) == (exc.code, exc.detail_code, exc.path)
    assert store_error_text(back, "zh") == store_error_text(exc, "zh")


def test_the_cli_says_it_in_the_language_asked(tmp_path):
    _files(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--db", str(tmp_path / "newer.db"), "throughput",
         "--lang", "zh", "--base-url", "http://127.0.0.1:9", "--concurrency", "1"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "结果数据库" in done.stderr and "请升级后再打开" in done.stderr, done.stderr
    assert english_runs(done.stderr.split("--db:", 1)[1]) == []
