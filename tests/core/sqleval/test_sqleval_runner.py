"""The evaluation runner: storing, cancelling, re-judging, exporting; and the real pieces together."""

import asyncio
import json
import sqlite3

import httpx
import pytest

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.export import eval_to_json
from desktop_app.core.sqleval.runner import EvalConfig, rejudge, run_eval
from desktop_app.core.store import Store
from desktop_app.report.judge_words import tier_table

QUESTIONS = [
    {"id": "t01", "tier": "trivial", "text_en": "How many sales rows? Column: n.",
     "gold_sql": "SELECT COUNT(*) AS n FROM sales", "database": "main",
     "required_columns": ["n"]},
    {"id": "h01", "tier": "hard", "text_en": "Average sale per region, 2 decimals? Columns: "
     "region, avg_amount.", "gold_sql": "SELECT region, ROUND(AVG(amount), 2) AS avg_amount "
     "FROM sales GROUP BY region ORDER BY region", "database": "main",
     "required_columns": ["region", "avg_amount"], "rounding": {"avg_amount": 2},
     "order_matters": True},
]
# What the scripted model submits per question: t01 right, h01 without its ROUND.
ANSWERS = {"t01": QUESTIONS[0]["gold_sql"],
           "h01": "SELECT region, AVG(amount) AS avg_amount FROM sales GROUP BY region "
                  "ORDER BY region"}


@pytest.fixture
def question_set(tmp_path):
    folder = tmp_path / "mini"
    folder.mkdir()
    with sqlite3.connect(folder / "shop.sqlite") as conn:
        conn.execute("CREATE TABLE sales (region TEXT, amount REAL)")
        conn.executemany("INSERT INTO sales VALUES (?, ?)",
                         [("north", 10.0), ("north", 5.333), ("south", 7.0)])
    conn.close()
    (folder / "set.toml").write_text('name = "mini"\ndescription = "a tiny shop"\n'
                                     '[databases.main]\nfile = "shop.sqlite"\n', encoding="utf-8")
    (folder / "questions.jsonl").write_text(
        "\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return folder


class Endpoint:
    """A scripted endpoint: /v1/models, 404 for probes, and a model that runs one query of the
    question's answer and then submits it."""

    def __init__(self, delay_s=0.0):
        self.delay_s = delay_s
        self.chat_calls = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "scripted"}]})
        if request.url.path != "/v1/chat/completions":
            return httpx.Response(404)
        self.chat_calls += 1
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        body = json.loads(request.content)
        first = body["messages"][1]["content"]
        qid = next(q["id"] for q in QUESTIONS if first.startswith(q["text_en"]))
        done = sum(m["role"] == "assistant" for m in body["messages"])
        name = "run_sql" if done == 0 else "submit_answer"
        call = {"id": f"c{done}", "type": "function",
                "function": {"name": name, "arguments": json.dumps({"sql": ANSWERS[qid]})}}
        return httpx.Response(200, json={
            "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]},
                         "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 20}})

    def client(self):
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))


def _config(folder, **kw):
    return EvalConfig(EndpointConfig("http://model.test", model="scripted"),
                      questions=str(folder), **kw)


async def _run(folder, tmp_path, store=None, endpoint=None, progress=None, **kw):
    endpoint = endpoint or Endpoint()
    async with endpoint.client() as client:
        return await run_eval(_config(folder, **kw), store, progress, sets_dir=tmp_path,
                              cache_dir=tmp_path / "cache", client=client)


@pytest.mark.asyncio
async def test_a_run_stores_every_question_and_step_and_exports_them(question_set, tmp_path):
    seen = []
    with Store.open(tmp_path / "r.db") as store:
        result = await _run(question_set, tmp_path, store, progress=seen.append)
        assert store.get_run(result.run_id).status == "completed"
        rows = {r["question_id"]: r for r in store.sql_questions(result.run_id)}
        assert set(rows) == {"t01", "h01"}
        for row in rows.values():
            assert row["status"] == "completed" and row["steps"] == 2
            assert row["prompt_tokens"] == 600 and row["stop_reason"] == "submitted"
            steps = store.sql_steps(row["id"])
            assert [s["tool_name"] for s in steps] == ["run_sql", "submit_answer"]
            assert steps[1]["tool_args_json"][0]["arguments"] == json.dumps(
                {"sql": ANSWERS[row["question_id"]]})
        assert "7.6665" in store.sql_steps(rows["h01"]["id"])[0]["tool_result_json"][0]["result"]
        h01 = rows["h01"]
        assert h01["failure_class"] == "rounding_only"
        assert h01["verdicts_json"]["verdicts"]["strict"]["passed"] is False
        assert h01["verdicts_json"]["verdicts"]["tolerant"]["passed"] is True
        assert h01["verdicts_json"]["counterfactual"]["failing"] == ["strict"]
        assert h01["result_json"]["columns"] == ["region", "avg_amount"]
        assert rows["t01"]["failure_class"] is None
    assert (result.summary["strict"].passed, result.summary["tolerant"].passed) == (1, 2)
    assert result.summary["strict"].by_tier == {"trivial": (1, 1), "hard": (0, 1)}
    assert result.tiers["hard"].mean_steps == 2 and not result.epochs
    assert seen[0].phase == "loading" and seen[-1].phase == "done"
    assert any(p.step is not None for p in seen)
    data = eval_to_json(result)
    assert data["summary"]["strict"] == {"passed": 1, "total": 2, "by_tier": {
        "trivial": {"passed": 1, "total": 1}, "hard": {"passed": 0, "total": 1}}}
    item = next(i for i in data["items"] if i["id"] == "h01")
    assert item["verdicts"]["tolerant"]["passed"] and item["steps"] == 2
    assert {"counterfactual", "findings", "stop_reason", "final_sql", "epoch",
            "prompt_tokens", "completion_tokens", "seconds"} <= set(item)
    assert "simulated" not in data
    json.dumps(data)
    table = tier_table(result)
    assert "trivial" in table and "1/1 100%" in table and "0/1 0%" in table


@pytest.mark.asyncio
async def test_epochs_report_the_spread_of_the_pass_rate(question_set, tmp_path):
    result = await _run(question_set, tmp_path, epochs=2, concurrency=2, judges=("strict",))
    assert len(result.items) == 4 and set(result.summary) == {"strict"}
    spread = result.epochs["strict"]
    assert spread.rates == (0.5, 0.5) and spread.std == 0.0
    assert "over 2 epochs" in tier_table(result)


@pytest.mark.asyncio
async def test_cancelling_marks_the_run_and_the_question_cancelled(question_set, tmp_path):
    started = asyncio.Event()

    def progress(p):
        if p.step is not None:
            started.set()

    with Store.open(tmp_path / "r.db") as store:
        task = asyncio.create_task(_run(question_set, tmp_path, store, Endpoint(delay_s=0.3),
                                        progress))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        run = store.list_runs(kind="sql")[0]
        assert run.status == "cancelled"
        rows = store.sql_questions(run.id)
        assert rows and rows[-1]["status"] == "cancelled" and rows[-1]["steps"] >= 1
        assert len(store.sql_steps(rows[0]["id"])) >= 1


@pytest.mark.asyncio
async def test_rejudge_changes_verdicts_without_any_http_request(question_set, tmp_path,
                                                                 monkeypatch):
    with Store.open(tmp_path / "r.db") as store:
        result = await _run(question_set, tmp_path, store)

        def no_http(*_a, **_k):
            raise AssertionError("re-judging must not call the network")

        monkeypatch.setattr(httpx.AsyncClient, "send", no_http)
        monkeypatch.setattr(httpx.Client, "send", no_http)
        again = await rejudge(store, result.run_id, modes=("strict", "tolerant"), tolerance=0.0,
                              sets_dir=tmp_path, cache_dir=tmp_path / "cache")
        assert again.rejudged and again.summary["strict"].passed == 1
        h01 = next(r for r in store.sql_questions(result.run_id) if r["question_id"] == "h01")
        stored = h01["verdicts_json"]
        assert stored["rejudged"] is True and stored["tolerance"] == 0.0
        assert h01["steps"] == 2  # the agent's record is left as it was
        with pytest.raises(InputError):
            await rejudge(store, 999, sets_dir=tmp_path, cache_dir=tmp_path / "cache")


def test_bad_configurations_name_the_field(question_set):
    for kw, field in (({"tiers": ("impossible",)}, "tiers"), ({"max_steps": 0}, "max steps"),
                      ({"strategies": ("magic",)}, "strategies"), ({"tolerance": -1}, "tolerance"),
                      ({"tool_mode": "xml"}, "tool mode"), ({"language": "fr"}, "language")):
        with pytest.raises(InputError) as info:
            _config(question_set, **kw).validate()
        assert info.value.field == field


@pytest.mark.asyncio
async def test_the_seed_reference_persona_reproduces_the_seed_on_the_bundled_set(tmp_path):
    """The real pieces together: bundled set, sandbox, judges, the simulator's persona."""
    config = EvalConfig(EndpointConfig("http://x", model="sim/seed-reference"),
                        tiers=("trivial", "easy", "medium"), concurrency=6)
    with start_simulator("instant") as sim, Store.open(tmp_path / "r.db") as store:
        config = EvalConfig(**{**config.__dict__,
                               "endpoint": EndpointConfig(sim.url, model="sim/seed-reference")})
        result = await asyncio.wait_for(run_eval(
            config, store, sets_dir=paths.questions_dir(), cache_dir=tmp_path / "db"), 60)
    strict, tolerant = result.summary["strict"], result.summary["tolerant"]
    assert strict.by_tier == {"trivial": (8, 8), "easy": (1, 2), "medium": (0, 2)}
    assert tolerant.passed == tolerant.total == 12
    assert eval_to_json(result)["simulated"] is True


def test_the_cli_names_the_flag_at_fault():
    from desktop_app.cli import build_parser
    from desktop_app.cli import sqleval as cli_sqleval

    parser = build_parser()
    with pytest.raises(InputError) as info:
        cli_sqleval.run_sqleval(parser.parse_args(["sqleval"]))
    assert info.value.field == "--base-url"
    for flags, field in ((["--tiers", "hard,bogus"], "--tiers"), (["--max-steps", "0"],
                         "--max-steps"), (["--strategy", "magic"], "--strategy")):
        args = parser.parse_args(["sqleval", "--base-url", "http://x.test", *flags])
        with pytest.raises(InputError) as info:
            cli_sqleval.build_config(args, args.base_url)
        assert info.value.field == field
    args = parser.parse_args(["rejudge", "7", "--judge", "strict", "--tolerance", "0.01"])
    assert (args.run_id, args.judge, args.tolerance) == (7, "strict", 0.01)
