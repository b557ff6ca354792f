"""What judging one answer costs: the final query through the Sandbox, then judge_all (strict,
tolerant, full), for results of 10, 1,000 and 10,000 rows.

Builds a throwaway SQLite table (id, region, price) in a temp folder; the gold query and the
answer select the same rows. Two answers per size: an exact match (the common case of a correct
answer: every judge is one list comparison) and the same rows without the ROUND the question asks
for (every price differs from the gold until it is rounded: full rounds the whole column as SQLite
does, asking SQLite itself for the ~1 % of prices at a tie, and strict's failing verdict carries
the sqlglot explanation). The judge caches SQLite's answers per value; the cache is emptied
before every repeat, so each repeat costs what judging a new answer costs. Times are wall milliseconds per answer, median
and p99 over `--repeats` runs; the query, the three judges and the sqlglot explanation (only
computed when a judge fails: `judge_all(..., final_sql=...)` adds it) are timed separately.

    .venv/bin/python bench/judge_overhead.py [--repeats 200] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.sqleval.explain import explain_sql  # noqa: E402
from desktop_app.core.sqleval import rounding as rounding_module  # noqa: E402
from desktop_app.core.sqleval.judge import judge_all  # noqa: E402
from desktop_app.core.sqleval.sandbox import Sandbox  # noqa: E402
from desktop_app.core.sqleval.types import Question  # noqa: E402

SIZES = (10, 1_000, 10_000)
GOLD = "SELECT id, region, ROUND(price, 2) AS price FROM sales WHERE id <= {n} ORDER BY id"
ANSWERS = {
    "exact": GOLD,
    "no ROUND": "SELECT id, region, price FROM sales WHERE id <= {n} ORDER BY id",
}


def build_db(path: Path, rows: int) -> None:
    """A `sales` table of `rows` rows with prices of four decimals (seeded)."""
    rng = random.Random(7)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT, price REAL)")
        conn.executemany("INSERT INTO sales VALUES (?, ?, ?)", [
            (i, rng.choice(("east", "west", "north", "south")), rng.randint(100, 999_999) / 1e4)
            for i in range(1, rows + 1)])
    conn.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(box: Sandbox, n: int, answer: str, repeats: int) -> dict:
    gold_sql = GOLD.format(n=n)
    sql = ANSWERS[answer].format(n=n)
    question = Question(id="bench", tier="easy", text_en="bench", gold_sql=gold_sql,
                        database="sales", required_columns=("id", "region", "price"),
                        rounding={"price": 2}, order_matters=True)
    gold = box.run(gold_sql)
    times: dict[str, list[float]] = {"query": [], "judge": [], "explain": []}
    verdicts = None
    for _ in range(repeats):
        rounding_module._ROUNDED.clear()  # a new answer: no rounding cached
        t0 = time.perf_counter()
        actual = box.run(sql)
        t1 = time.perf_counter()
        verdicts = judge_all(question, gold, actual)
        t2 = time.perf_counter()
        if not all(v.passed for v in verdicts.values()):
            explain_sql(sql, question)
        t3 = time.perf_counter()
        times["query"].append((t1 - t0) * 1e3)
        times["judge"].append((t2 - t1) * 1e3)
        times["explain"].append((t3 - t2) * 1e3)
    out = {"rows": n, "answer": answer, "passed": {m: v.passed for m, v in verdicts.items()}}
    for part, values in times.items():
        out[f"{part}_median_ms"] = statistics.median(values)
        out[f"{part}_p99_ms"] = percentile(values, 0.99)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--json", type=Path, metavar="OUT")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite"
        build_db(db, max(SIZES))
        with Sandbox(db) as box:
            for n in SIZES:
                for answer in ANSWERS:
                    rows.append(measure(box, n, answer, args.repeats))
    print("| rows | answer | query median / p99 ms | judge_all median / p99 ms | "
          "explain median / p99 ms | verdicts |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        verdicts = " ".join(f"{m} {'pass' if ok else 'FAIL'}" for m, ok in r["passed"].items())
        cells = " | ".join(f"{r[f'{p}_median_ms']:.3f} / {r[f'{p}_p99_ms']:.3f}"
                           for p in ("query", "judge", "explain"))
        print(f"| {r['rows']:,} | {r['answer']} | {cells} | {verdicts} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
