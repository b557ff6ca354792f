"""Hostile local files (#25): FIFOs, devices, huge sparse files, symlink loops and planted
symlinks, damaged or locked results files, impossible imported figures. Each ends in one named
line (exit 2 for bad input, 1 for a results file that failed mid-run), never a hang, a traceback
or gigabytes, and nothing is read or written outside the folder it belongs to. See
docs/RELIABILITY.md, "Bad local input"."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.files import LocalFileError, inside, read_bounded
from desktop_app.core.store import Store, StoreError

# A subprocess for whatever could hang: a test that hung would stop the whole suite.
HANG_S = 60


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "THROUGHLINE_HOME": str(home), "THROUGHLINE_LANG": "en"}
    return subprocess.run([sys.executable, "-m", "desktop_app", *args], capture_output=True,
                          text=True, timeout=HANG_S, env=env)


@pytest.fixture
def specials(tmp_path):
    """A FIFO nobody writes to, a 2 GiB sparse file, a loop of symlinks."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    sparse = tmp_path / "sparse.json"
    with sparse.open("wb") as f:
        f.truncate(2 * 1024 ** 3)
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    return {"fifo": fifo, "sparse": sparse, "loop": tmp_path / "loop-a",
            "device": Path("/dev/zero")}


def test_the_bounded_reader_refuses_what_is_not_a_regular_file_at_once(specials, tmp_path):
    started = time.monotonic()
    codes = {}
    for name, path in specials.items():
        with pytest.raises(LocalFileError) as caught:
            read_bounded(path, 1024 ** 2)
        codes[name] = caught.value.code
    assert codes == {"fifo": "not_regular", "sparse": "too_large", "loop": "symlink_loop",
                     "device": "not_regular"}
    assert time.monotonic() - started < 10  # nothing waited on the FIFO or read the device
    ok = tmp_path / "ok.txt"
    ok.write_bytes(b"x" * 100)
    assert read_bounded(ok, 100) == b"x" * 100
    with pytest.raises(LocalFileError, match="101 bytes, more than the 100"):
        ok.write_bytes(b"x" * 101)
        read_bounded(ok, 100, what="a test file")


def test_inside_refuses_a_symlink_out_of_its_folder(tmp_path):
    folder = tmp_path / "gold"
    folder.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0")
    (folder / "a1.csv").symlink_to(secret)
    (folder / "ok.csv").write_text("a\n1\n")
    with pytest.raises(LocalFileError) as caught:
        inside(folder / "a1.csv", folder)
    assert caught.value.code == "outside_folder" and str(secret) in str(caught.value)
    assert inside(folder / "ok.csv", folder) == (folder / "ok.csv").resolve()
    with pytest.raises(LocalFileError):
        inside(folder / ".." / "secret.txt", folder)


@pytest.mark.parametrize("command", [
    ("import", "{path}"),
    ("questions", "import", "{path}", "--name", "x"),
    ("throughput", "--config", "{path}", "--simulator", "fast"),
])
@pytest.mark.parametrize("kind", ["fifo", "device", "sparse"])
def test_an_input_that_is_no_file_is_one_named_line(specials, tmp_path, command, kind):
    path = specials[kind]
    done = cli("--db", str(tmp_path / "r.db"), *(a.format(path=path) for a in command),
               home=tmp_path / "home")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], done.stderr
    assert {"fifo": "named pipe (FIFO)", "device": "is a device",
            "sparse": "2,147,483,648 bytes, more than"}[kind] in lines[0]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("kind, words", [("fifo", "is not a regular file"),
                                         ("loop", "a loop of symbolic links")])
def test_a_results_file_that_is_a_fifo_or_a_loop_is_refused(specials, tmp_path, kind, words):
    done = cli("--db", str(specials[kind]), "runs", home=tmp_path / "home")
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_planted_gold_symlink_copies_nothing_from_outside(tmp_path, capsys):
    secret = tmp_path / "shadow"
    secret.write_text("id\nroot-password-hash\n")
    gold = tmp_path / "gold"
    gold.mkdir()
    (gold / "a1.csv").symlink_to(secret)  # as a downloaded archive could plant it
    (gold / "a2.sql").symlink_to(secret)
    (gold / "a3.csv").write_text("n\n1\n")
    dbs = tmp_path / "dbs"
    dbs.mkdir()
    with sqlite3.connect(dbs / "shop.sqlite") as conn:
        conn.execute("CREATE TABLE t (n INTEGER)")
    source = tmp_path / "spider2-lite.jsonl"
    source.write_text("".join(json.dumps({"instance_id": i, "db": "shop", "question": "q?"})
                              + "\n" for i in ("a1", "a2", "a3")))
    out = tmp_path / "sets" / "s"
    code = main(["questions", "import", str(source), "--format", "spider2-lite", "--db-dir",
                 str(dbs), "--gold-dir", str(gold), "--out", str(out)])
    said = capsys.readouterr()
    assert code == 0, said.err
    assert said.out.count("leads outside") == 2, said.out  # a1 and a2, each named
    copied = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"root-password-hash" not in copied
    questions = (out / "questions.jsonl").read_text().splitlines()
    assert [json.loads(q)["id"] for q in questions] == ["a3"]


@pytest.mark.parametrize("name", ["../../..", "../escape", "a/b", ".hidden", "-x"])
def test_a_set_name_that_is_no_folder_name_is_refused_before_anything_is_written(
        tmp_path, capsys, name):
    source = tmp_path / "dev.json"
    source.write_text(json.dumps([{"question": "q?", "query": "SELECT 1", "db_id": "shop"}]))
    home = tmp_path / "home"
    os.environ["THROUGHLINE_HOME"] = str(home)
    try:
        code = main(["questions", "import", str(source), "--format", "spider", f"--name={name}"])
    finally:
        del os.environ["THROUGHLINE_HOME"]
    err = capsys.readouterr().err
    assert code == 2 and "throughline questions: --name:" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dev.json"]


def test_a_set_whose_gold_file_leads_outside_it_is_refused(tmp_path):
    from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set

    (tmp_path / "secret.csv").write_text("n\n1\n")
    folder = tmp_path / "sets" / "evil"
    folder.mkdir(parents=True)
    with sqlite3.connect(folder / "db.sqlite") as conn:
        conn.execute("CREATE TABLE t (n INTEGER)")
    (folder / "set.toml").write_text('name = "evil"\ndescription = "x"\n'
                                     '[databases.main]\nfile = "db.sqlite"\n')
    (folder / "questions.jsonl").write_text(json.dumps({
        "id": "q1", "tier": "easy", "text_en": "q?", "gold_sql": "",
        "gold_files": ["../../secret.csv"], "database": "main"}) + "\n")
    with pytest.raises(QuestionSetError, match=r"gold_files: \.\./\.\./secret\.csv: leads outside"):
        load_question_set(folder, sets_dir=[tmp_path / "sets"], cache_dir=tmp_path / "cache",
                          check_gold=False)


def test_a_sweep_file_nested_a_thousand_deep_is_named(tmp_path, capsys):
    sweep = tmp_path / "deep.toml"
    sweep.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    code = main(["--db", str(tmp_path / "r.db"), "throughput", "--config", str(sweep),
                 "--simulator", "fast"])
    assert code == 2 and "nested too deeply" in capsys.readouterr().err


# -- the results file -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A results file with a throughput run and a SQL run of the simulator."""
    path = tmp_path_factory.mktemp("stored") / "good.db"
    home = path.parent / "home"
    for args in (["throughput", "--simulator", "fast", "--input-tokens", "64", "--concurrency",
                  "1,2", "--output-tokens", "8", "--requests", "4"],
                 ["sqleval", "--simulator", "fast", "--ids", "t01,t02"]):
        done = cli("--db", str(path), *args, home=home)
        assert done.returncode == 0, done.stderr
    return path


def _damaged_copy(stored: Path, tmp_path: Path, table: str, column: str) -> Path:
    path = tmp_path / "bad.db"
    with sqlite3.connect(stored) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
        dst.execute(f"UPDATE {table} SET {column} = '{{broken' "  # noqa: S608 - test's own names
                    f"WHERE id = (SELECT min(id) FROM {table})")
    return path


@pytest.mark.parametrize("table, column", [
    ("runs", "config_json"), ("runs", "diagnosis_json"), ("tp_cells", "summary_json"),
    ("sql_questions", "verdicts_json"), ("sql_steps", "reply_json"),
    ("metric_samples", "raw_json")])
def test_one_damaged_value_costs_only_itself_and_is_named(stored, tmp_path, capsys, table,
                                                          column):
    path = _damaged_copy(stored, tmp_path, table, column)
    commands = [["runs"], ["compare", "--runs", "1,2"],
                ["export", "--run", "1", "--format", "json", "--out", str(tmp_path / "e1")],
                ["export", "--run", "2", "--format", "json", "--out", str(tmp_path / "e2")],
                ["report", "--runs", "1,2", "--lang", "en", "--pdf", str(tmp_path / "r.pdf")]]
    warned = 0
    for args in commands:
        code = main(["--db", str(path), *args])
        said = capsys.readouterr()
        assert code == 0, (args, said.err)
        assert "unexpected error" not in said.err
        if "damaged value(s) in the results file were left out" in said.err:
            assert f"{table} row" in said.err and column in said.err, said.err
            warned += 1
    assert warned, f"no command said {table}.{column} was damaged"
    assert (tmp_path / "r.pdf").stat().st_size > 10_000


def test_a_cell_whose_figures_are_damaged_reads_as_incomplete(stored, tmp_path):
    path = _damaged_copy(stored, tmp_path, "tp_cells", "summary_json")
    with Store.open(path) as store:
        first, second = store.cells(1)
    assert (first.status, first.summary) == ("incomplete", None)
    assert "not JSON" in first.error
    assert second.status == "completed" and second.summary


def test_the_damage_warning_is_said_in_chinese(stored, tmp_path, capsys):
    path = _damaged_copy(stored, tmp_path, "runs", "config_json")
    assert main(["--db", str(path), "runs", "--lang", "zh"]) == 0
    assert "警告：结果文件中有 1 个已损坏的值" in capsys.readouterr().err


@pytest.mark.parametrize("table", ["runs", "tp_requests", "sql_steps"])
def test_a_dropped_table_is_named_and_the_file_left_as_it_was(stored, tmp_path, capsys, table):
    path = tmp_path / "dropped.db"
    with sqlite3.connect(stored) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
        dst.execute(f"DROP TABLE {table}")
    before = path.read_bytes()
    assert main(["--db", str(path), "runs"]) == 2
    assert f"is corrupt: its tables {table} are missing" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_a_file_another_process_keeps_locked_is_a_named_store_error(stored, tmp_path):
    path = tmp_path / "locked.db"
    with sqlite3.connect(stored) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
    store = Store.open(path, busy_timeout_s=0.2)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError) as caught:
            store.create_run("throughput", name="x", config={})
        assert getattr(caught.value, "code", None) == "busy"
        assert str(path) in str(caught.value) and "locked by another process" in str(caught.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.close()


def test_a_sweep_whose_file_is_locked_mid_run_ends_in_one_line(tmp_path):
    path = tmp_path / "locked.db"
    Store.open(path).close()
    env = {**os.environ, "THROUGHLINE_HOME": str(tmp_path / "home"), "THROUGHLINE_LANG": "en"}
    sweep = subprocess.Popen(
        [sys.executable, "-m", "desktop_app", "--db", str(path), "throughput", "--simulator",
         "fast", "--input-tokens", "64", "--concurrency", "1,2", "--output-tokens", "64",
         "--requests", "200"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env=env)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until its first cell is stored
            if holder.execute("SELECT count(*) FROM tp_cells").fetchone()[0]:
                break
            time.sleep(0.1)
        holder.execute("BEGIN EXCLUSIVE")
        release = threading.Timer(20, lambda: None)
        release.start()
        _, err = sweep.communicate(timeout=HANG_S)
        release.cancel()
    finally:
        if holder.in_transaction:
            holder.execute("ROLLBACK")
        holder.close()
        if sweep.poll() is None:
            sweep.kill()
    assert sweep.returncode == 1, err
    assert f"results database {path} is locked by another process" in err, err
    assert "unexpected error" not in err and "Traceback" not in err


# -- imported figures -------------------------------------------------------------------------


def _vllm_result(**changes) -> dict:
    doc = {"completed": 10, "failed": 0, "duration": 5.0, "total_input_tokens": 640,
           "total_output_tokens": 1280, "output_throughput": 256.0, "mean_ttft_ms": 20.0,
           "median_ttft_ms": 19.0, "p99_ttft_ms": 30.0, "mean_tpot_ms": 5.0,
           "median_tpot_ms": 5.0, "p99_tpot_ms": 6.0, "mean_itl_ms": 5.0, "median_itl_ms": 5.0,
           "p99_itl_ms": 6.0, "mean_e2el_ms": 600.0, "median_e2el_ms": 600.0,
           "p99_e2el_ms": 700.0, "max_concurrency": 4, "model_id": "m"}
    return {**doc, **changes}


def _detailed(n: int = 3, **lists) -> dict:
    base = {"input_lens": [64] * n, "output_lens": [8] * n, "ttfts": [0.02] * n,
            "itls": [[0.005] * 7] * n, "latencies": [0.06] * n, "errors": [""] * n,
            "start_times": [float(i) for i in range(n)]}
    return _vllm_result(completed=n, **{**base, **lists})


@pytest.mark.parametrize("doc, named", [
    (_vllm_result(completed=10 ** 30), "count is 1000000000000000000000000000000"),
    (_vllm_result(duration=-5), "wall_s is -5.0, negative"),
    (_vllm_result(output_throughput=1e300), "output_tps is 1e+300, more than 1e+09"),
    (_vllm_result(mean_ttft_ms=-20), "ttft_s mean is -0.02, negative"),
    (_vllm_result(total_output_tokens=-1280), "completion_tokens is -1280, negative"),
    (_vllm_result(failed=-3), "failures (vllm_error) is -3, negative"),
    (_detailed(input_lens=[64, 2 ** 70, 64]), "request 2: prompt_tokens is"),
    (_detailed(ttfts=[0.02, -1.0, 0.02]), "request 2: ttft_s is -1.0, negative"),
])
def test_an_impossible_imported_figure_is_refused_naming_it(tmp_path, capsys, doc, named):
    file = tmp_path / "result.json"
    file.write_text(json.dumps(doc))
    db = tmp_path / "r.db"
    assert main(["--db", str(db), "import", str(file)]) == 2
    err = capsys.readouterr().err
    assert named in err and "nothing was imported" in err, err
    with Store.open(db) as store:
        assert store.list_runs() == []


def test_a_float_too_large_for_a_float_is_refused_not_a_traceback(tmp_path, capsys):
    file = tmp_path / "result.json"
    file.write_text(json.dumps(_detailed()).replace('"ttfts": [0.02', '"ttfts": [' + "9" * 400))
    assert main(["--db", str(tmp_path / "r.db"), "import", str(file)]) == 2
    assert "unexpected error" not in capsys.readouterr().err


# -- limits a value could switch off ----------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "1e9"])
@pytest.mark.parametrize("command", ["sql", "judge"])
def test_a_time_limit_that_would_switch_the_interrupt_off_is_refused(stored, capsys, command,
                                                                     value):
    args = (["sql", "--db", "sales-25:main", "--time-limit", value, "SELECT 1"]
            if command == "sql" else
            ["judge", "--db", str(stored), "--gold-sql", "SELECT 1", "--sql", "SELECT 1",
             "--time-limit", value])
    assert main(args) == 2
    assert f"throughline {command}: --time-limit: " in capsys.readouterr().err


def test_max_rows_beyond_any_result_is_refused_naming_the_flag(capsys):
    assert main(["sql", "--db", "sales-25:main", "--max-rows", "9" * 20, "SELECT 1"]) == 2
    assert "--max-rows: 99999999999999999999 must be a number above 0" in capsys.readouterr().err


def test_the_sandbox_itself_refuses_a_nan_time_limit(stored):
    from desktop_app.core.sqleval.sandbox import Sandbox

    with pytest.raises(ValueError, match="time limit: nan"):
        Sandbox(stored, time_limit_s=float("nan"))


def test_judge_cuts_an_8_mb_cell_on_the_terminal_and_keeps_it_whole_in_json(tmp_path, capsys):
    db = tmp_path / "big.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x TEXT)")
        conn.execute("INSERT INTO t VALUES (?)", ("a" * 8_000_000,))
    out = tmp_path / "verdict.json"
    for lang, words in (("en", "… (8,000,001 characters)"), ("zh", "…（共 8,000,001 个字符）")):
        assert main(["judge", "--db", str(db), "--gold-sql", "SELECT x FROM t", "--sql",
                     "SELECT x || 'b' AS x FROM t", "--lang", lang, "--json", str(out)]) == 0
        shown = capsys.readouterr().out
        assert len(shown) < 2_000 and words in shown, shown[:500]
    finding = json.loads(out.read_text())["findings"][0]
    assert len(finding["params"]["got"]) == 8_000_001


def test_a_file_size_limit_met_mid_sweep_is_named_and_the_run_resumable(tmp_path):
    import resource

    path = tmp_path / "small.db"
    env = {**os.environ, "THROUGHLINE_HOME": str(tmp_path / "home"), "THROUGHLINE_LANG": "en"}
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--db", str(path), "throughput", "--simulator",
         "fast", "--input-tokens", "64", "--concurrency", "1,2", "--output-tokens", "64",
         "--requests", "400"], capture_output=True, text=True, timeout=HANG_S, env=env,
        # ulimit -f: 200 KiB, as a quota would stop the file mid-run
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (200 * 1024,) * 2))
    assert done.returncode == 1, done.stderr
    assert (f"results database {path} could not be read or written (a disk error, a quota or "
            "a file-size limit)") in done.stderr
    assert "unexpected error" not in done.stderr and "Traceback" not in done.stderr
    with Store.open(path) as store:
        (run,) = store.list_runs()
        assert run.status in ("interrupted", "failed")
