"""The simulated SQL personas (`sim/careful`, `sim/seed-reference`) answer through real tool calls.

Each test drives a persona over HTTP against the built-in simulator with a minimal tool loop of
its own (a plain read-only sqlite3 connection runs the tools), the way the SQL-agent harness
does, and checks what a user of the harness would see: which SQL is submitted, what it returns
compared with the gold SQL, and how many steps and tokens it took. A small hand-made sales set
covers the behaviours; the bundled sales-25 set is checked too once it exists.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import tomllib
from collections import Counter
from pathlib import Path

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator import personas, responders
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.sqleval.types import TIERS
from desktop_app.paths import questions_dir

CHAT = "/v1/chat/completions"
SALES_DIR = questions_dir() / "sales-25"
TOOL_NAMES = ("list_tables", "describe_table", "run_sql", "submit_answer")
TOOLS = [{"type": "function", "function": {
    "name": name, "description": f"the {name} tool",
    "parameters": {"type": "object", "properties": (
        {"table": {"type": "string"}} if name == "describe_table"
        else {} if name == "list_tables" else {"sql": {"type": "string"}})}}}
    for name in TOOL_NAMES]
# About the size of a real harness's instructions with its tool schemas (the stand-in schemas
# above are short), so the token figures below are comparable with the seeds'.
SYSTEM = ("You are a careful data analyst answering questions about a SQLite database. "
          "Use the tools to look at the tables, try queries, and submit one final query with "
          "submit_answer. Name the output columns exactly as the question asks, round where it "
          "asks, and order rows only when it asks. ") * 12

# --- a small sales set in the sales-25 format ---------------------------------------------------
FAKE_DB = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, region TEXT);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, category TEXT, price REAL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, order_date TEXT,
                     channel TEXT, discount REAL);
CREATE TABLE order_items (order_id INTEGER, product_id INTEGER, qty INTEGER, unit_price REAL);
"""
FAKE_QUESTIONS = [
    {"id": "t01", "tier": "trivial", "text_en": "How many customers are there? Return n.",
     "text_zh": "有多少客户？返回 n。", "gold_sql": "SELECT COUNT(*) AS n FROM customers",
     "required_columns": ["n"], "rounding": {}},
    {"id": "e02", "tier": "easy",
     "text_en": "Average product price per category as category, avg_price rounded to 2.",
     "text_zh": "每个类别的平均价格，返回 category, avg_price，保留两位小数。",
     "gold_sql": "SELECT category, ROUND(AVG(price), 2) AS avg_price FROM products "
                 "GROUP BY category ORDER BY category",
     "required_columns": ["category", "avg_price"], "rounding": {"avg_price": 2}},
    {"id": "h01", "tier": "hard",
     "text_en": "Net revenue per region after order discounts: region, net_revenue (2 dp).",
     "text_zh": "按地区计算折扣后的净收入：region, net_revenue（两位小数）。",
     "gold_sql": "WITH lines AS (SELECT o.id, c.region, i.qty * i.unit_price * (1 - o.discount) "
                 "AS net FROM orders o JOIN customers c ON c.id = o.customer_id "
                 "JOIN order_items i ON i.order_id = o.id) SELECT region, "
                 "ROUND(SUM(net), 2) AS net_revenue FROM lines GROUP BY region ORDER BY region",
     "required_columns": ["region", "net_revenue"], "rounding": {"net_revenue": 2}},
    {"id": "h02", "tier": "hard",
     "text_en": "Quarter-over-quarter order growth per region: region, quarter, orders, "
                "prev_orders.",
     "text_zh": "每个地区订单数的环比：region, quarter, orders, prev_orders。",
     "gold_sql": "WITH q AS (SELECT c.region, (CAST(strftime('%m', o.order_date) AS INTEGER) "
                 "+ 2) / 3 AS quarter, COUNT(*) AS orders FROM orders o JOIN customers c "
                 "ON c.id = o.customer_id GROUP BY 1, 2) SELECT region, quarter, orders, "
                 "LAG(orders) OVER (PARTITION BY region ORDER BY quarter) AS prev_orders "
                 "FROM q ORDER BY region, quarter",
     "required_columns": ["region", "quarter", "orders", "prev_orders"], "rounding": {}},
    {"id": "h03", "tier": "hard",
     "text_en": "Share of orders from the online channel per region: region, online_share "
                "(2 dp).",
     "text_zh": "每个地区线上渠道订单占比：region, online_share（两位小数）。",
     "gold_sql": "SELECT c.region, ROUND(AVG(CASE WHEN o.channel IN ('web', 'app') THEN 1.0 "
                 "ELSE 0 END), 2) AS online_share FROM orders o JOIN customers c "
                 "ON c.id = o.customer_id GROUP BY c.region ORDER BY c.region",
     "required_columns": ["region", "online_share"], "rounding": {"online_share": 2}},
]


def _fill(conn: sqlite3.Connection) -> None:
    conn.executescript(FAKE_DB)
    regions, channels = ["north", "south", "east"], ["web", "app", "store", "online-partner"]
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?)",
                     [(i, f"c{i}", regions[i % 3]) for i in range(1, 31)])
    conn.executemany("INSERT INTO products VALUES (?, ?, ?, ?)",
                     [(i, f"p{i}", "abc"[i % 3], 3.3337 * i + 0.1234) for i in range(1, 13)])
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
                     [(i, 1 + i * 7 % 30, f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
                       channels[i * 5 % 4], (i % 4) * 0.0333) for i in range(1, 121)])
    conn.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?)",
                     [(1 + i % 120, 1 + i % 12, 1 + i % 5, 2.117 * (1 + i % 9))
                      for i in range(400)])
    conn.commit()


# The personas, serving the hand-made set under ids of their own (the real ids keep sales-25).
CAREFUL, SEED_REFERENCE = "sim/test-careful", "sim/test-seed-reference"
FAKE_MODELS = {CAREFUL: "careful", SEED_REFERENCE: "seed-reference"}


@pytest.fixture(scope="module")
def fake_set(tmp_path_factory) -> tuple[Path, list[dict]]:
    """(sales database, questions) of the hand-made set, with the personas reading them."""
    folder = tmp_path_factory.mktemp("fake-sales")
    db = folder / "sales.sqlite"
    with sqlite3.connect(db) as conn:
        _fill(conn)
    conn.close()
    path = folder / "questions.jsonl"
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in FAKE_QUESTIONS),
                    encoding="utf-8")
    book = personas.QuestionBook(path)
    for model, style in FAKE_MODELS.items():
        responders.register(model, personas.SqlPersona(style, book))
    yield db, FAKE_QUESTIONS
    for model in FAKE_MODELS:
        responders.unregister(model)


@pytest.fixture(scope="module")
def sim():
    with serve_in_thread(load_profile("instant")) as server, \
            httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


# --- a minimal agent loop -----------------------------------------------------------------------
def _table(conn: sqlite3.Connection, sql: str, limit: int = 20) -> str:
    cur = conn.execute(sql)
    cols = [d[0] for d in cur.description]
    rows = cur.fetchall()
    shown = "\n".join(" | ".join(map(str, r)) for r in rows[:limit])
    more = f"\n(showing {limit} of {len(rows)} rows)" if len(rows) > limit else ""
    return f"columns: {', '.join(cols)}\n{shown}\n{len(rows)} rows{more}"


def _tool(conn: sqlite3.Connection, name: str, args: dict) -> str:
    try:
        if name == "list_tables":
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                "ORDER BY name").fetchall()
            return "\n".join(r[0] for r in rows)
        if name == "describe_table":
            (schema,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                                     (args["table"],)).fetchone()
            return schema + "\n" + _table(conn, f'SELECT * FROM "{args["table"]}" LIMIT 3')
        return _table(conn, args["sql"])
    except (sqlite3.Error, TypeError) as exc:
        return f"Error: {exc}"


def run_agent(client: httpx.Client, model: str, db: Path, question: dict, *,
              language: str = "en", feedback: str | None = None, tools: bool = True,
              max_steps: int = 25) -> dict:
    """Run one question: {"submitted": [sql, ...], "steps", "prompt", "completion", "calls",
    "results", "contents"} (tool names, tool results and reasoning texts, one per call).

    `feedback`: after the first submission, send it as the submit's tool result and go on
    (the validate-retry strategy); otherwise the first submission ends the loop.
    """
    text = question["text_zh"] if language == "zh" else question["text_en"]
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
    out = {"submitted": [], "steps": 0, "prompt": 0, "completion": 0, "calls": [],
           "results": [], "contents": []}
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        for _ in range(max_steps):
            body = {"model": model, "messages": messages, "max_tokens": 2000}
            if tools:
                body["tools"] = TOOLS
            reply = client.post(CHAT, json=body)
            assert reply.status_code == 200, reply.text
            data = reply.json()
            out["steps"] += 1
            out["prompt"] += data["usage"]["prompt_tokens"]
            out["completion"] += data["usage"]["completion_tokens"]
            msg = data["choices"][0]["message"]
            messages.append(msg)
            calls = msg.get("tool_calls") or []
            if not calls:
                out["text"] = msg.get("content") or ""
                return out
            assert data["choices"][0]["finish_reason"] == "tool_calls" and len(calls) == 1
            call = calls[0]["function"]
            args = json.loads(call["arguments"])
            out["calls"].append(call["name"])
            out["contents"].append(msg.get("content") or "")
            if call["name"] == "submit_answer":
                out["submitted"].append(args["sql"])
                if feedback is None or len(out["submitted"]) > 1:
                    return out
                result = feedback
            else:
                result = _tool(conn, call["name"], args)
            out["results"].append(result)
            messages.append({"role": "tool", "tool_call_id": calls[0]["id"], "content": result})
        return out
    finally:
        conn.close()


def _rows(db: Path, sql: str) -> tuple[list[str], list[tuple]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cur = conn.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()
    finally:
        conn.close()


def _rounded(rows: list[tuple], cols: list[str], rounding: dict) -> list[tuple]:
    return [tuple(round(v, rounding[c]) if c in rounding and isinstance(v, float) else v
                  for c, v in zip(cols, r)) for r in rows]


def _compare(db: Path, question: dict, sql: str) -> str:
    """"equal" | "rounding" (equal once the question's rounding is applied) | "structure"."""
    gold_cols, gold = _rows(db, question["gold_sql"])
    cols, rows = _rows(db, sql)
    if cols != gold_cols or len(rows) != len(gold):
        return "structure"
    if [tuple(map(str, r)) for r in rows] == [tuple(map(str, r)) for r in gold]:
        return "equal"
    rounding = question.get("rounding") or {}
    if _rounded(rows, cols, rounding) == _rounded(gold, cols, rounding):
        return "rounding"
    return "structure"


# --- the hand-made set ------------------------------------------------------------------------
def test_careful_submits_gold_after_looking(sim, fake_set):
    db, questions = fake_set
    for q in questions:
        run = run_agent(sim, CAREFUL, db, q)
        assert run["submitted"] == [q["gold_sql"]]
        assert run["calls"] == ["list_tables", "describe_table", "run_sql", "submit_answer"]


def test_seed_reference_mistakes(sim, fake_set):
    db, questions = fake_set
    by_id = {q["id"]: q for q in questions}
    verdicts = {}
    for q in questions:
        run = run_agent(sim, SEED_REFERENCE, db, q)
        (sql,) = run["submitted"]
        assert "ROUND" not in sql.upper()
        verdicts[q["id"]] = _compare(db, q, sql)
    assert verdicts == {"t01": "equal", "e02": "rounding", "h01": "structure",
                        "h02": "structure", "h03": "structure"}
    h01 = run_agent(sim, SEED_REFERENCE, db, by_id["h01"])["submitted"][0]
    assert _rows(db, h01)[0] == ["region", "netRevenue"]  # right values, wrong name
    h02 = run_agent(sim, SEED_REFERENCE, db, by_id["h02"])["submitted"][0]
    cols, rows = _rows(db, h02)
    assert rows == [] and cols != by_id["h02"]["required_columns"]
    h03 = run_agent(sim, SEED_REFERENCE, db, by_id["h03"])["submitted"][0]
    assert "%online%" in h03 and _rows(db, h03)[0] == ["region", "online_share"]


def test_seed_reference_effort_by_tier(sim, fake_set):
    db, questions = fake_set
    by_id = {q["id"]: q for q in questions}
    assert run_agent(sim, SEED_REFERENCE, db, by_id["t01"])["calls"] == [
        "run_sql", "submit_answer"]
    h01 = run_agent(sim, SEED_REFERENCE, db, by_id["h01"])
    assert h01["steps"] == 17 and h01["calls"][-1] == "submit_answer"
    assert 35_000 < h01["prompt"] + h01["completion"] < 70_000
    h02 = run_agent(sim, SEED_REFERENCE, db, by_id["h02"])
    assert h02["steps"] == 6  # including a failed query fixed on the next step


def test_failed_query_is_fixed_on_the_next_step(sim, fake_set):
    db, questions = fake_set
    q = next(q for q in questions if q["id"] == "h02")
    run = run_agent(sim, SEED_REFERENCE, db, q)
    failed = [i for i, r in enumerate(run["results"]) if r.startswith("Error:")]
    assert len(failed) == 1  # the harness shows the error, the persona reads it and fixes it
    i = failed[0]
    assert run["calls"][i:] == ["run_sql", "run_sql", "submit_answer"]
    assert run["contents"][i + 1].startswith("That failed (Error: no such table")


def test_validate_retry_adds_the_round_it_was_told_about(sim, fake_set):
    db, questions = fake_set
    q = next(q for q in questions if q["id"] == "e02")
    told = "Validation: the question asks to round avg_price to 2 decimals. Submit again."
    run = run_agent(sim, SEED_REFERENCE, db, q, feedback=told)
    assert len(run["submitted"]) == 2
    assert _compare(db, q, run["submitted"][0]) == "rounding"
    assert _compare(db, q, run["submitted"][1]) == "equal"
    careful = run_agent(sim, CAREFUL, db, q, feedback=told)
    assert careful["submitted"] == [q["gold_sql"]] * 2
    # structural mistakes stay: told about rounding, h01 still has the wrong names
    h01 = next(q for q in questions if q["id"] == "h01")
    run = run_agent(sim, SEED_REFERENCE, db, h01, feedback=told)
    assert _compare(db, h01, run["submitted"][1]) == "structure"


def test_chinese_text_and_text_mode(sim, fake_set):
    db, questions = fake_set
    q = next(q for q in questions if q["id"] == "e02")
    run = run_agent(sim, CAREFUL, db, q, language="zh")
    assert run["submitted"] == [q["gold_sql"]]
    text = run_agent(sim, SEED_REFERENCE, db, q, tools=False)
    assert text["steps"] == 1 and not text["calls"]
    sql = text["text"].split("```sql", 1)[1].split("```", 1)[0]
    assert _compare(db, q, sql) == "rounding"


def test_unknown_question_gets_a_polite_text_answer(sim, fake_set):
    db, _ = fake_set
    q = {"text_en": "What is the airspeed of an unladen swallow?", "text_zh": ""}
    run = run_agent(sim, CAREFUL, db, q)
    assert run["steps"] == 1 and not run["submitted"] and "recognise" in run["text"]


def test_strategy_text_after_the_question_is_fine(sim, fake_set):
    db, questions = fake_set
    q = dict(questions[0])
    q["text_en"] += "\n\nGlossary: a customer is anyone with an account."
    run = run_agent(sim, CAREFUL, db, q)
    assert run["submitted"] == [questions[0]["gold_sql"]]


def test_personas_are_listed_as_simulated(sim, fake_set):
    models = {m["id"]: m for m in sim.get("/v1/models").json()["data"]}
    for name in (*personas.PERSONAS, *FAKE_MODELS):
        assert models[name]["owned_by"] == responders.OWNED_BY and models[name]["simulated"]


# --- the bundled sales-25 set -----------------------------------------------------------------
def _sales_db(tmp_path: Path) -> Path:
    salesdb = pytest.importorskip("desktop_app.core.sqleval.salesdb")
    config = tomllib.loads((SALES_DIR / "set.toml").read_text(encoding="utf-8"))
    spec = next(iter(config["databases"].values()))
    return salesdb.build_sales_db(tmp_path / "s.sqlite", spec["seed"])


@pytest.fixture(scope="module")
def sales(tmp_path_factory) -> tuple[Path, list[dict]]:
    if not (SALES_DIR / "questions.jsonl").exists() or not (SALES_DIR / "set.toml").exists():
        pytest.skip("questions/sales-25 is not there yet")
    db = _sales_db(tmp_path_factory.mktemp("sales"))
    lines = (SALES_DIR / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return db, [json.loads(line) for line in lines if line.strip()]


def test_sales25_careful_passes_everything(sim, sales):
    db, questions = sales
    for q in questions:
        run = run_agent(sim, personas.CAREFUL, db, q)
        assert run["submitted"] == [q["gold_sql"]], q["id"]


def test_sales25_seed_reference_matches_the_seeds(sim, sales):
    db, questions = sales
    strict, tolerant = Counter(), Counter()
    steps: dict[str, list[int]] = {t: [] for t in TIERS}
    tokens: dict[str, list[int]] = {t: [] for t in TIERS}
    for q in questions:
        run = run_agent(sim, personas.SEED_REFERENCE, db, q)
        (sql,) = run["submitted"]
        verdict = _compare(db, q, sql)
        expected = ("equal" if q["id"] in {f"t0{i}" for i in range(1, 9)} | {"e01"}
                    else "structure" if q["id"] in {"h01", "h02", "h03"} else "rounding")
        assert verdict == expected, (q["id"], sql)
        strict[q["tier"]] += verdict == "equal"
        tolerant[q["tier"]] += verdict != "structure"
        steps[q["tier"]].append(run["steps"])
        tokens[q["tier"]].append(run["prompt"] + run["completion"])
    assert {t: strict[t] for t in TIERS} == {"trivial": 8, "easy": 1, "medium": 0, "hard": 0}
    assert sum(tolerant.values()) == 22
    assert set(steps["trivial"] + steps["easy"]) == {2}
    assert 6.0 <= sum(steps["hard"]) / len(steps["hard"]) <= 6.2
    assert max(steps["hard"]) == 17
    assert 35_000 < max(tokens["hard"]) < 70_000


# The seeds' effort figures (seed 001, section 4.5's table; seed 000, section 4.1): trivial/easy
# about 2 steps and "约 2.2k + 0.2k" tokens a question (prompt + completion, one figure for the
# two tiers together), hard 6.1 steps on average, the worst 17 steps / 55.5k tokens. Within
# +-15 %, the calibration test's tolerance.
SEED_TRIVIAL_EASY_PROMPT, SEED_TRIVIAL_EASY_COMPLETION, SEED_WORST_HARD = 2200, 200, 55_500


def _within(value: float, target: float) -> bool:
    return 0.85 * target <= value <= 1.15 * target


def test_sales25_seed_reference_spends_the_seeds_tokens(tmp_path):
    """Through the real harness (its system prompt and tool schemas, which the server counts
    as prompt tokens like vLLM), not the minimal loop above."""
    if not (SALES_DIR / "questions.jsonl").exists():
        pytest.skip("questions/sales-25 is not there yet")
    with start_simulator("instant") as sim:
        config = EvalConfig(EndpointConfig(sim.url, model=personas.SEED_REFERENCE),
                            concurrency=6)
        result = asyncio.run(asyncio.wait_for(run_eval(
            config, None, sets_dir=questions_dir(), cache_dir=tmp_path / "db"), 120))
    easy = [o for o in result.outcomes if o.tier in ("trivial", "easy")]
    prompt = sum(o.prompt_tokens for o in easy) / len(easy)
    completion = sum(o.completion_tokens for o in easy) / len(easy)
    assert {len(o.steps) for o in easy} == {2}
    assert _within(prompt, SEED_TRIVIAL_EASY_PROMPT), prompt
    assert _within(completion, SEED_TRIVIAL_EASY_COMPLETION), completion
    hard = [o for o in result.outcomes if o.tier == "hard"]
    worst = max(hard, key=lambda o: len(o.steps))
    assert len(worst.steps) == 17
    assert _within(worst.prompt_tokens + worst.completion_tokens, SEED_WORST_HARD)
    assert 6.0 <= sum(len(o.steps) for o in hard) / len(hard) <= 6.2


def test_seed_reference_habits_on_another_sets_golds():
    """On a set other than sales-25 the seeds' habits apply to the set's own golds (#28):
    ROUND dropped, a medium question's computed columns renamed, a hard one's filter reversed,
    each on every other question by the id's hash; an answer made from a result file is kept."""
    import zlib

    persona = personas.SqlPersona("seed-reference", personas.QuestionBook(Path("/nonexistent")))
    ids = [f"spider-dev-{n:04d}" for n in range(12)]
    even = [i for i in ids if zlib.crc32(i.encode()) % 2 == 0]
    odd = [i for i in ids if i not in even]
    assert even and odd
    gold = "SELECT country, ROUND(AVG(age), 1) AS mean_age FROM singer WHERE age > 20 GROUP BY 1"
    for qid in ids:
        for tier in ("easy", "medium", "hard"):
            q = {"id": qid, "tier": tier, "gold_sql": gold, "_set": "spider-dev"}
            sql = persona.answer_sql(q)
            assert "ROUND" not in sql.upper()
            assert ("meanAge" in sql or "mean_age_value" in sql) == (tier == "medium"
                                                                     and qid in even)
            assert ("age <= 20" in sql) == (tier == "hard" and qid in even)
    q = {"id": even[0], "tier": "hard", "gold_sql": "", "gold_files": [], "_set": "x",
         "gold_alternatives": ["SELECT 1 AS n WHERE 1 = 1"]}
    assert "1 <> 1" in persona.answer_sql(q)  # an alternative is a gold SQL too
