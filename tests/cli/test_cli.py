"""The `throughline` command as a user meets it: version, help, and one clear line on bad input."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app import __version__
from desktop_app.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env_drop: tuple[str, ...] = (), **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in env_drop}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", "desktop_app", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
    )


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out.strip()
    # What a bug report needs: ours, Qt's and PySide6's, Python's.
    assert re.fullmatch(rf"throughline {re.escape(__version__)} \(Qt 6\.\d+\.\d+, PySide6 "
                        r"6\.\d+\.\d+, Python 3\.\d+\.\d+, .+\)", out), out
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("sim", "whatif", "runs", "profiles"):
        assert command in out


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("throughline")
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert result.stdout.startswith(f"throughline {__version__} (Qt ")


def test_gui_without_display_says_so_in_one_line():
    result = run_cli(env_drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "no display" in lines[0] and "throughline sim" in lines[0]


@pytest.mark.parametrize(
    "args, field",
    [
        (["whatif", "--profile", "fast", "--concurrency", "1,two"], "--concurrency: 'two'"),
        (["whatif", "--profile", "fast", "--input-tokens", "0"], "--input-tokens: '0'"),
        (["whatif", "--profile", "no-such-profile"], "unknown simulator profile 'no-such-profile'"),
        (["sim", "--profile", "no-such-profile"], "unknown simulator profile 'no-such-profile'"),
        (["sim", "--port", "70000"], "--port"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line_naming_the_field(capsys, args, field):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert field in err


def test_malformed_profile_file_names_key_and_line(tmp_path, capsys):
    bad = tmp_path / "mine.toml"
    bad.write_text('description = "x"\nmax_num_seqs = "two"\n')
    assert main(["sim", "--profile", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{bad}:2: max_num_seqs: must be an integer" in err


def test_profiles_lists_the_bundled_ones(capsys):
    assert main(["profiles"]) == 0
    out = capsys.readouterr().out
    for name in ("instant", "fast", "seed-reference"):
        assert name in out


def test_profile_whose_cache_cannot_hold_one_request_is_refused(tmp_path, capsys):
    bad = tmp_path / "tiny.toml"
    bad.write_text("max_model_len = 8192\nkv_cache_tokens = 4096\n")
    assert main(["whatif", "--profile", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1: max_model_len" in err and "could never be scheduled" in err


def test_sim_with_a_bad_fault_spec_says_which_item(capsys):
    assert main(["sim", "--faults", "reset=0.1,explode=0.2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "explode" in err


def test_sim_on_a_port_in_use_says_so(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["sim", "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"port {port}" in err and "in use" in err


def test_judge_and_sql_keep_their_database_apart_from_the_results_store(tmp_path, monkeypatch):
    import sqlite3

    db = tmp_path / "data.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
        conn.execute("INSERT INTO t VALUES (1), (2)")
    conn.close()
    store = tmp_path / "results.db"
    monkeypatch.setenv("THROUGHLINE_DB", str(store))
    assert main(["judge", "--db", str(db), "--gold-sql", "SELECT x FROM t",
                 "--sql", "SELECT x FROM t", "--json", str(tmp_path / "j.json")]) == 0
    assert main(["sql", "--db", str(db), "SELECT COUNT(*) FROM t"]) == 0
    assert os.environ["THROUGHLINE_DB"] == str(store)


def test_runs_lists_in_chinese_with_throughline_lang(tmp_path, capsys, monkeypatch):
    from desktop_app.core.store import Store

    db = tmp_path / "r.db"
    with Store.open(db) as store:
        store.create_run("throughput", name="A", endpoint_url="http://x/v1", model="m",
                         engine="vllm", config={})
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["--db", str(db), "runs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["编号", "类型", "状态"] and "吞吐测试" in out
    assert main(["--db", str(db), "runs", "--lang", "en"]) == 0
    assert capsys.readouterr().out.split()[:2] == ["id", "kind"]


# What each command needs besides the global options, to parse.
_REQUIRED = {"whatif": [], "throughput": ["--simulator", "fast"], "resume": ["7"],
             "sqleval": ["--simulator", "fast"], "rejudge": ["7"],
             "sql": ["--db", "x.sqlite", "SELECT 1"],
             "judge": ["--db", "x.sqlite", "--gold-sql", "SELECT 1", "--sql", "SELECT 1"],
             "demo": ["--out", "d"], "export": ["--run", "7", "--format", "csv", "--out", "o"],
             "import": ["f.json"], "report": ["--runs", "1,2", "--pdf", "x.pdf"],
             "compare": ["--runs", "1,2"], "questions": ["list"], "profiles": [], "runs": [],
             "sim": [], "gui": []}


def _commands() -> list[str]:
    import argparse

    from desktop_app.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_every_command_is_in_the_table_of_required_arguments():
    assert _commands() == sorted(_REQUIRED)


@pytest.mark.parametrize("command", sorted(_REQUIRED))
def test_db_and_lang_work_before_and_after_every_command(command):
    """`throughline runs --db X` once failed with "unrecognized arguments" (only compare and
    report took both places). sql and judge keep their own --db (the database they query)."""
    from desktop_app.cli import build_parser

    argv = [command, *_REQUIRED[command]]
    if command == "questions":  # a subcommand of its own: the options go after it too
        argv = ["questions", "list"]
    own_db = command in ("sql", "judge")
    lang = "zh" if command != "gui" else "zh_CN"
    before = build_parser().parse_args(["--db", "r.db", "--lang", "zh", *argv])
    assert (before.db, before.lang) == ("r.db", "zh")
    after = build_parser().parse_args([*argv, "--lang", lang]
                                      + ([] if own_db else ["--db", "after.db"]))
    assert after.lang == lang and after.db == (None if own_db else "after.db")
    both = build_parser().parse_args(["--db", "r.db", "--lang", "en", *argv, "--lang", lang]
                                     + ([] if own_db else ["--db", "after.db"]))
    assert both.lang == lang and both.db == ("r.db" if own_db else "after.db")  # after wins


def test_global_options_after_the_command_reach_the_store_and_the_words(tmp_path, capsys,
                                                                          monkeypatch):
    from desktop_app.core.store import Store

    monkeypatch.delenv("THROUGHLINE_LANG", raising=False)
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "elsewhere.db"))
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        store.create_run("throughput", name="after-the-command", endpoint_url="http://x/v1",
                         model="m", engine="vllm", config={})
    assert main(["runs", "--db", str(db), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "after-the-command" in out and out.split()[:2] == ["编号", "类型"]
    assert main(["whatif", "--input-tokens", "512", "--concurrency", "1", "--output-tokens",
                 "8", "--requests", "2", "--db", str(db)]) == 0
    assert "512" in capsys.readouterr().out
