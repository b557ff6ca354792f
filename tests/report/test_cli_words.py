"""The command line in the reader's language (#27): with THROUGHLINE_LANG=zh every error a
mistyped command line, a missing run or an unreachable endpoint gets, and the lines a job
prints as it starts and ends, are Chinese; in English they read as before. One catalogue
(report/cli_words.py) holds the CLI's own words, every entry used and in both languages."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.store import Store
from desktop_app.report.cli_words import ARGPARSE_ZH, SECTIONS
from tests.lang_check import english_runs

ROOT = Path(__file__).resolve().parents[2]


def test_every_entry_has_chinese_and_is_used_by_a_command():
    source = "\n".join(p.read_text(encoding="utf-8")
                       for p in (ROOT / "desktop_app" / "cli").glob("*.py"))
    words = (ROOT / "desktop_app" / "report" / "cli_words.py").read_text(encoding="utf-8")
    source += words[words.index("def engine_text"):]  # its helpers, not its entries
    for name, section in SECTIONS.items():
        assert set(section["zh"]) == set(section["en"]), name
        unused = [k for k in section["en"] if f'"{k}"' not in source]
        assert unused == [], (name, unused)
    # Each of argparse's messages is one argparse really says (a typo would never match).
    argparse_source = Path(argparse.__file__).read_text(encoding="utf-8")
    assert [m for m in ARGPARSE_ZH if repr(m) not in argparse_source
            and f'"{m}"' not in argparse_source] == []


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """`throughline ARGS` in `lang`, on a results file with one SQL-less store: (exit, stderr)."""
    db = tmp_path / "results.db"
    Store.open(db).close()
    monkeypatch.setenv("THROUGHLINE_DB", str(db))

    def run(lang: str, *args: str) -> tuple[int, str]:
        monkeypatch.setenv("THROUGHLINE_LANG", lang)
        monkeypatch.setenv("THROUGHLINE_DB", str(db))  # --db sets it for the process
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's own errors
            code = exc.code
        return code, capsys.readouterr().err.strip()

    run.db, run.tmp = db, tmp_path
    return run


def _mistakes(tmp: Path, db: Path) -> list[tuple[str, ...]]:
    return [
        ("bogus",),
        ("compare",),
        ("runs", "--nope"),
        ("compare", "--runs", "1,x"),
        ("compare", "--runs", "1,2", "--db", str(tmp / "none.db")),
        ("compare", "--runs", "1,2"),
        ("report", "--runs", "1,2", "--pdf", str(tmp / "out.txt")),
        ("throughput", "--input-tokens", "256", "--concurrency", "1"),
        ("throughput", "--base-url", "http://127.0.0.1:9", "--input-tokens", "256",
         "--concurrency", "1"),
        ("throughput", "--base-url", "http://a b", "--input-tokens", "256", "--concurrency", "1"),
        ("rejudge", "99"),
        ("export", "--run", "99", "--format", "csv", "--out", str(tmp / "out")),
        ("whatif", "--from-run", "99"),
        ("resume", "99", "--simulator", "fast"),
        ("throughput", "--simulator", "nope", "--input-tokens", "64", "--concurrency", "1"),
        ("whatif", "--profile", "nope", "--input-tokens", "1k", "--concurrency", "1"),
        ("sim", "--profile", "nope"),
        ("sqleval", "--base-url", "http://127.0.0.1:9", "--questions", "nope"),
        ("sqleval", "--base-url", "http://127.0.0.1:9", "--questions", "sales-25",
         "--judge", "nope"),
        ("rejudge", "99", "--tolerance", "-1"),
        ("sql", "--db", str(tmp / "nope.sqlite"), "SELECT 1"),
        ("import", str(tmp / "nothere.json")),
        ("import", str(_written(tmp / "cut.json", '{"x":'))),
        ("judge", "--db", str(tmp / "nope.sqlite"), "--sql", "SELECT 1", "--gold-sql", "SELECT 1"),
        ("judge", "--db", str(db), "--sql", "SELECT 1", "--gold-sql", "SELECT 1", "--round", "a=b"),
        ("judge", "--db", str(db), "--sql", "SELECT 1", "--gold-sql", "SELECT 1",
         "--tolerance", "-1"),
        ("whatif", "--set", "max-num-seqs=2", "--input-tokens", "64", "--concurrency", "1"),
        ("sim", "--port", "70000"),
        ("whatif", "--input-tokens", "1000000", "--concurrency", "1"),
    ]


def _written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_every_mistake_is_said_in_chinese_and_in_english_as_before(cli):
    english, chinese = {}, {}
    for args in _mistakes(cli.tmp, cli.db):
        code, en = cli("en", *args)
        assert code == 2, (args, en)
        english[args] = en
        code, zh = cli("zh", *args)
        assert code == 2, (args, zh)
        line = zh.splitlines()[-1]
        # Paths, URLs, flags and what the system said (quoted) stay as they are.
        # ...and names that are codes: the simulator's profiles, the judges.
        codes = ("fast, fast-capped, instant, seed-reference",
                 "strict, tolerant, full, test-suite, bird, spider2")
        assert english_runs(line, allowed=(str(cli.tmp), *codes)) == [], (args, line)
        assert re.search(r"[\u4e00-\u9fff]", line), (args, line)
        chinese[args] = line
    said = {args: en.splitlines()[-1] for args, en in english.items()}
    assert "invalid choice: 'bogus'" in said[("bogus",)]
    assert "cannot connect to http://127.0.0.1:9/v1/models" in said[_mistakes(cli.tmp, cli.db)[8]]
    assert said[("rejudge", "99")].endswith(f"run: no run 99 in {cli.db}")
    assert said[("rejudge", "99", "--tolerance", "-1")].endswith(
        "--tolerance: -1.0 must be a number >= 0")
    assert "无法连接到 http://127.0.0.1:9/v1/models" in chinese[_mistakes(cli.tmp, cli.db)[8]]


def test_a_job_says_what_it_started_and_stored_in_chinese(cli):
    code, err = cli("zh", "throughput", "--simulator", "instant", "--input-tokens", "64",
                    "--concurrency", "1", "--output-tokens", "4", "--requests", "2")
    assert code == 0, err
    lines = err.splitlines()
    assert any(line.startswith("已启动内置模拟端点（配置 instant）") for line in lines), err
    endpoint = next(line for line in lines if line.startswith("端点 http://"))
    assert "模拟的 vllm" in endpoint and "分词器 vllm" in endpoint, endpoint
    assert all(english_runs(line) == [] for line in lines), err
    code, err = cli("en", "throughput", "--simulator", "instant", "--input-tokens", "64",
                    "--concurrency", "1", "--output-tokens", "4", "--requests", "2")
    assert code == 0 and "Endpoint http://" in err and ": simulated vllm " in err, err
