"""Capacity in tasks, measured (#29, part 4): a stored replay of a SQL run's conversations
against each configuration's server is set beside the capacity model, decides "most usable
answers per hour" on its noise, adds a row per number of agents and counts in the
structured-tasks scenario; the PDF shows measured beside modelled in English and Chinese."""

import shutil
import subprocess

import pytest

from desktop_app.cli import main
from desktop_app.core.compare import compare
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from tests.core.sim_helpers import record_eval


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    """Two configurations, `fast` (16 slots) and `fast-capped` (2): a sweep and a SQL run on
    each, and run 1's conversations replayed at 4 agents against both."""
    db = tmp_path_factory.mktemp("measured") / "r.db"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("THROUGHLINE_DB", str(db))
        with start_simulator("fast") as fast, start_simulator("fast-capped") as capped:
            for sim in (fast, capped):
                record_eval(db, sim.url, "m01,m02,h01,h02", "--model", "sim/careful",
                            "--concurrency", "4")
            sweeps = []
            for sim in (fast, capped):
                assert main(["throughput", "--base-url", sim.url, "--input-tokens", "1k",
                             "--output-tokens", "32", "--concurrency", "1,4", "--requests",
                             "8", "--warmup", "0"]) == 0
                with Store.open(db) as store:
                    sweeps.append(store.list_runs(kind="throughput", limit=1)[0].id)
            for sim, sweep in zip((fast, capped), sweeps):
                assert main(["throughput", "--base-url", sim.url, "--replay-eval", "1",
                             "--sessions", "4", "--beside-sweep", str(sweep)]) == 0
    return db, sweeps


def test_the_replay_is_set_beside_the_model_and_decides_usable_answers_per_hour(configs):
    db, (fast, capped) = configs
    with Store.open(db) as store:
        comp = compare(store, [fast, capped, 1, 2])
        replays = [r.id for r in store.list_runs(kind="replay")]
    assert len(comp.capacities) == 2 and len(replays) == 2
    by_sweep = {c.throughput_id: c for c in comp.capacities}
    for cap in comp.capacities:
        # Every configuration replayed the same conversations (run 1's), at 4 agents.
        assert cap.replayed_sql == 1 and cap.replay_id in replays
        assert [p.concurrency for p in cap.points if p.measured] == [4]
        assert all(p.tasks_per_hour is not None for p in cap.points)  # the model beside it
    four = {s: by_sweep[s].point(4).measured for s in (fast, capped)}
    assert four[capped].high < four[fast].low, four  # 16 slots finish more than 2, clearly
    usable = next(v for v in comp.verdicts if v.criterion == "usable_per_hour")
    assert usable.source == "measured" and usable.sessions == (4, 4)
    # Both passed 4 of 4: tasks per hour apart, but a pass rate of four questions is known
    # only to [49-100 %], so the usable answers per hour overlap and no winner is named
    # (the model, without noise, would name one).
    assert [c.strict_passed for c in comp.capacities] == [(4, 4), (4, 4)]
    assert usable.winner is None and usable.text.startswith("about even"), usable.text
    row = next(r for r in comp.rows if r.key == "replay_tasks_per_hour"
               and r.params["sessions"] == 4)
    runs = [r.info.id for r in comp.runs]
    assert row.verdict.significant and runs[row.verdict.winner] == fast
    # Both replayed run 1's four conversations: decided task by task, and said so.
    assert (row.verdict.method, row.verdict.params["paired"]) == ("bootstrap-paired", 4)
    assert row.verdict.params["ratio_low"] > 1.1, row.verdict.params
    from desktop_app.report.verdicts import render_row

    said = render_row(row, comp.runs)
    assert "the same 4 tasks on both" in said and said.startswith(f"#{fast} "), said
    assert "同样的 4 个任务" in render_row(row, comp.runs, "zh")
    tasks = next(s for s in comp.scenarios if s.key == "structured_tasks")
    assert runs[tasks.leader] == fast and any(f.key == "tasks_per_hour" for f in tasks.figures)


def test_a_comparison_of_the_sweeps_alone_has_the_measured_rows(configs, capsys, monkeypatch):
    """No SQL run asked for: the replays of each sweep's server still give the row. A replay
    asked for whose server no compared sweep measured is said to be left out."""
    db, (fast, capped) = configs
    with Store.open(db) as store:
        comp = compare(store, [fast, capped])
        replays = {r.config["beside_sweep"]: r.id for r in store.list_runs(kind="replay")}
        alone = compare(store, [fast, replays[capped]])
    assert [r.params["sessions"] for r in comp.rows if r.key == "replay_tasks_per_hour"] == [4]
    assert comp.capacities == () and comp.notes == ()
    assert [(n.code, n.params) for n in alone.notes] == [("replay_unused",
                                                          {"run": replays[capped]})]
    monkeypatch.setenv("THROUGHLINE_DB", str(db))
    assert main(["runs", "--kind", "replay"]) == 0
    listed = capsys.readouterr().out
    assert listed.count("4 agent(s) ") == 2 and "tasks/h" in listed, listed


def _text(pdf) -> str:
    out = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    return "".join(out.split())


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext is not installed")
def test_the_pdf_shows_measured_beside_modelled_in_both_languages(configs, tmp_path, qapp):
    from desktop_app.report import write_comparison_pdf

    db, (fast, capped) = configs
    with Store.open(db) as store:
        en = _text(write_comparison_pdf(store, [fast, capped, 1, 2], tmp_path / "en.pdf", "en"))
        zh = _text(write_comparison_pdf(store, [fast, capped, 1, 2], tmp_path / "zh.pdf", "zh"))
    for words in ("Tasksperhourmeasured(replay)", "strict-correctanswersperhourmeasuredby",
                  "Structuredtasks(passrate,tasksperhourmeasuredbyreplay)",
                  "moretasksperhour(replay)"):
        assert words in en, words
    for words in ("实测每小时任务数（回放）", "回放实测：4个智能体时每小时", "每小时任务数多"):
        assert words in zh, words
    assert "replay" not in zh.replace("--replay-eval", "")


def test_the_command_line_comparison_has_the_capacity_section(configs, capsys, monkeypatch,
                                                             tmp_path):
    """`throughline compare` prints (and `--json` writes) what the PDF's capacity section
    shows: the model beside the measured figure, and the verdict per criterion."""
    import json

    db, (fast, capped) = configs
    monkeypatch.setenv("THROUGHLINE_DB", str(db))
    ids = f"{fast},{capped},1,2"
    assert main(["compare", "--runs", ids]) == 0
    out = capsys.readouterr().out
    assert "Capacity in tasks (the model; measured by replay where one exists)" in out
    assert "- Most usable answers per hour (strict): about even: " in out
    assert "Users don't wait" in out  # plain text, not the PDF's escaped HTML
    assert main(["compare", "--runs", ids, "--lang", "zh"]) == 0
    assert "按任务计的容量（模型；有回放时附实测）" in capsys.readouterr().out
    path = tmp_path / "c.json"
    assert main(["compare", "--runs", ids, "--json", str(path)]) == 0
    capacity = json.loads(path.read_text(encoding="utf-8"))["capacity"]
    measured = [p["measured_tasks_per_hour"] for c in capacity["configurations"]
                for p in c["points"] if p["concurrency"] == 4]
    assert all(m["low"] <= m["value"] <= m["high"] for m in measured) and len(measured) == 2
    assert [c["source"] for c in capacity["criteria"]] == ["model", "model", "measured"]


def test_replays_of_different_conversations_are_not_set_against_each_other(configs):
    """Other tasks are other work: the row names no server and the usable-per-hour
    criterion goes back to the model."""
    import dataclasses

    from desktop_app.core.compare.capacity import capacity, capacity_verdicts
    from desktop_app.core.compare.dimensions import replay_rows
    from desktop_app.core.compare.load import load_run
    from desktop_app.core.compare.session import measured_replays
    from desktop_app.report.verdicts import render_row

    db, (fast, capped) = configs
    with Store.open(db) as store:
        sweeps = [load_run(store, fast), load_run(store, capped)]
        sqls = [load_run(store, 1), load_run(store, 2)]
        found = measured_replays(store, sweeps)
    other = [found[0], dataclasses.replace(found[1], sql_run=2)]
    (row,) = replay_rows(sweeps, other)
    assert (row.verdict.code, row.verdict.winner) == ("different_tasks", None)
    assert "#1, #2" in render_row(row, sweeps) and "#1, #2" in render_row(row, sweeps, "zh")
    caps = [capacity(tp, sql, m) for tp, sql, m in zip(sweeps, sqls, other)]
    usable = next(v for v in capacity_verdicts(caps) if v.criterion == "usable_per_hour")
    assert usable.source == "model"
