"""The PDF's failed questions say the judges' verdicts, failure classes and reasons in the
report's language (#12): real runs of the built-in simulator's personas, no English sentence in
the Chinese section, and the English one as it always read."""

import asyncio
import html
import re

import pytest

from desktop_app import paths
from desktop_app.core.compare import compare
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.report.sections import failed_questions
from tests.lang_check import english_runs

QUESTIONS = ("t01", "e02", "m01", "h01", "h02", "h03")


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    folder = tmp_path_factory.mktemp("failed")

    async def fill(store, url):
        ids = []
        for model in ("sim/careful", "sim/seed-reference"):
            config = EvalConfig(EndpointConfig(url, model=model), question_ids=QUESTIONS,
                                concurrency=3, name="甲" if model == "sim/careful" else "乙")
            result = await run_eval(config, store, sets_dir=paths.questions_dir(),
                                    cache_dir=folder / "dbs")
            ids.append(result.run_id)
        return ids

    with Store.open(folder / "r.db") as store:
        with start_simulator("instant") as sim:
            ids = asyncio.run(fill(store, sim.url))
        return compare(store, ids)


def _text(section: str) -> str:
    section = re.sub(r"<br/>|</p>", "\n", section)
    return html.unescape(re.sub(r"<[^>]+>", "", section))


def test_failed_questions_read_in_chinese(comparison):
    text = _text(failed_questions(comparison, "zh"))
    lines = [line for line in text.splitlines() if line.strip()]
    verdicts = [line for line in lines if line.startswith("判定：")]
    reasons = [line for line in lines if line.startswith("原因：")]
    assert verdicts and len(verdicts) == len(reasons)
    assert "判定：严格未通过，容差和完整通过：仅取整不同（avg_list_price）" in lines
    assert any("类型：仅取整不同" in line for line in lines)
    assert any("类型：列名错误" in line for line in lines)
    for line in lines:
        assert english_runs(line, allowed=("sim/careful", "sim/seed-reference")) == [], line


def test_failed_questions_read_in_english_as_before(comparison):
    text = _text(failed_questions(comparison, "en"))
    assert ("verdicts: fails strict, passes tolerant and full: only rounding differs in "
            "avg_list_price") in text
    assert "class: rounding_only" in text and "class: column_names" in text
    assert "why: Only rounding differs in avg_list_price. ROUND(x, 2) missing on " in text
