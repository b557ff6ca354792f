"""The judges are registered descriptors: a judge added as one module is listed by the CLI,
judges every answer, is stored, exported and compared like the built-in three (#27)."""

import asyncio
import csv
import shutil
import subprocess

import pytest

from desktop_app import paths
from desktop_app.core.compare import dimension_rows
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.judges import all_judges, judge_names
from desktop_app.core.sqleval.records import load_eval
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from tests.toy_judge import toy_judge


def test_the_built_in_judges_strictest_first():
    assert judge_names()[:3] == ("strict", "tolerant", "full")
    spec = {j.name: j for j in all_judges()}
    assert spec["strict"].names == "exact" and not spec["strict"].uses_tolerance
    assert [j.name for j in all_judges() if j.names_optional] == ["full"]


def test_a_judge_module_is_listed_by_the_cli(tmp_path, capsys):
    from desktop_app.cli import main

    with toy_judge(tmp_path):
        for command in ("judge", "sqleval", "rejudge"):
            with pytest.raises(SystemExit):
                main([command, "--help"])
            assert "rowcount" in capsys.readouterr().out, command
        assert "rowcount" not in judge_names()[:3]
    assert "rowcount" not in judge_names()


def test_a_judge_module_judges_stores_exports_and_compares(tmp_path, qapp):
    from desktop_app.core.exchange import export_run
    from desktop_app.report import write_comparison_pdf
    from desktop_app.report.verdicts import row_label

    ids = ("t01", "e01", "e02", "m01")
    with toy_judge(tmp_path), start_simulator("instant") as sim, \
            Store.open(tmp_path / "r.db") as store:
        run_ids = []
        for model in ("sim/careful", "sim/seed-reference"):
            config = EvalConfig(EndpointConfig(sim.url, model=model), question_ids=ids,
                                concurrency=4)
            result = asyncio.run(asyncio.wait_for(run_eval(
                config, store, sets_dir=paths.questions_dir(), cache_dir=tmp_path / "db"), 60))
            # Summarised with the others: every answer here has the gold's shape.
            assert result.summary["rowcount"].passed == len(ids)
            run_ids.append(result.run_id)
        runs = [load_eval(store, run_id) for run_id in run_ids]
        assert runs[1].judges[-1] == "rowcount"
        assert runs[1].pass_count("rowcount").passed == len(ids)
        assert runs[1].pass_count("strict").passed < len(ids)  # the persona drops ROUNDs
        rows = dimension_rows(runs)
        pass_rows = [r.params.get("judge") for r in rows if r.key == "pass_rate"]
        assert pass_rows == ["strict", "tolerant", "full", "rowcount"]
        toy_row = next(r for r in rows if r.params.get("judge") == "rowcount")
        # No words written for it yet: the comparison names it by its code, in either language.
        assert "rowcount" in row_label(toy_row, "en") and "rowcount" in row_label(toy_row, "zh")
        pdf = write_comparison_pdf(store, run_ids, tmp_path / "toy.pdf", "en")
        written = export_run(store, run_ids[1], "csv", tmp_path / "out")
    questions = next(p for p in written if "question" in p.name)
    with questions.open(encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert "passed_rowcount" in header
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                              check=True).stdout
        assert "rowcount" in text
