"""Scripted SQL-agent personas of the built-in simulator: `sim/careful` and `sim/seed-reference`.

They answer any question set they can read through real tool calls (the bundled sets, the
user's imported ones, and set folders the simulator was started with, `--questions DIR`), so
the SQL-agent harness, the judges and the GUI can be exercised end to end without a model, on
an imported public set too. Everything they
say is scripted and labelled simulated (they are listed by `/v1/models` with owned_by
"throughline-simulator", like every simulator model); never report their scores as a model's.

How a persona answers one request (it is stateless: everything comes from the messages):

* It identifies the question by finding a question's `text_en` or `text_zh` inside the FIRST
  user message (the harness sends exactly `Question.text(language)` there, maybe followed by
  strategy text). An unknown question gets a polite text answer and no tool call.
* It counts the assistant messages so far and takes the next action of its script for that
  question: one tool call per step (`list_tables`, `describe_table`, `run_sql`,
  `submit_answer`), each with a sentence of reasoning as `content`, as real models write.
* `sim/careful`: list_tables -> describe_table (the gold SQL's main table) -> run_sql(gold) ->
  submit_answer(gold): every question passes every judge.
  On a question whose only accepted answers are result files (Spider2's `local055_a.csv`),
  it submits a query that returns the first file's rows (`WITH answer(...) AS (VALUES ...)`).
* On any other set, `sim/seed-reference` applies the seeds' habits to the set's own golds: it
  drops every ROUND the gold SQL has (rounding_only findings); on every other medium question
  it renames the computed output columns (column-name findings for strict; full, names ignored,
  passes it); on every other hard question it reverses the outer query's first filter (a
  wrong filter: wrong values or rows). Which questions is a hash of the id, the same each run.
* `sim/seed-reference` replays the seeds' reference run of the 25 questions of sales-25:
  it drops every ROUND(x, n) of the gold SQL (sqlglot), so the rounded questions fail strict and
  pass tolerant; h01 misnames the discount query's output columns, h02 returns 0 rows under
  wrong names (a quarter filter that matches nothing), h03 reads "online channel" as "a channel
  whose name contains 'online'" instead of the glossary's definition. Expected: 9/25 strict
  (trivial 8/8, easy 1/2, medium 0/2, hard 0/13), 22/25 tolerant. Effort follows the seeds:
  trivial/easy 2 steps (run_sql, submit), medium 3, hard 6.1 on average with exploratory
  describe/run_sql calls and a failed query fixed on the next step; h01 takes 17 steps. Through
  the real harness (whose tool schemas the simulator counts as prompt, like vLLM) that is about
  2.0k prompt + 0.2k completion tokens a trivial/easy question and 55.5k for h01, the seeds'
  2.2k + 0.2k and 55.5k: the reasoning sentences and the exploration's sample rows are sized
  for it (tests/core/simulator/test_personas.py checks it).
* Retry: called again after it submitted (the harness's validate-retry sent feedback as the
  submit's tool result or as a user message), `sim/careful` resubmits the gold SQL and
  `sim/seed-reference` puts back the ROUND on every required column the feedback names (all
  of them when the feedback speaks of rounding without naming one). Its structural mistakes
  stay: so validate-retry lifts it from 9/25 to at most 22/25 strict, never to 25/25.
  After three submissions it stops calling tools and restates its SQL in a ```sql block.
* Text mode (no `tools`, or `tool_choice` "none"): one reply holding a fenced ```sql block.
  This is also how they answer the layered strategy's fast path: `sim/careful` the gold,
  `sim/seed-reference` the same faulty SQL it would submit (ROUND dropped, h01-h03's faults).

A set's questions.jsonl is read at first use (and again when it changes), one JSON object per
line; only `id`, `tier`, `text_en`, `text_zh`, `gold_sql`, `gold_alternatives`, `gold_files`,
`database`, `required_columns` and `rounding` are used. A question found in several sets is
taken from the set whose database the request's system message names, then from the set named
with --questions, the user's imported sets, then the bundled ones.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.simulator import misbehaving, responders
from desktop_app.core.simulator.responders import Plan, ResponderContext, ToolCall

CAREFUL = "sim/careful"
SEED_REFERENCE = "sim/seed-reference"
PERSONAS = (CAREFUL, SEED_REFERENCE)
SET_NAME = "sales-25"
MAX_SUBMITS = 3  # submissions before the persona gives up calling tools

# Steps (model calls) per question for sim/seed-reference. Hard: 79 steps over h01..h13 is the
# seeds' 6.1 on average, with h01 the worst at 17 (about 55k tokens there).
TIER_STEPS = {"trivial": 2, "easy": 2, "medium": 3}
HARD_STEPS = {"h01": 17, "h02": 6, "h03": 6, "h04": 4, "h05": 5, "h06": 5, "h07": 5, "h08": 5,
              "h09": 5, "h10": 5, "h11": 5, "h12": 5, "h13": 6}
FAILED_QUERY_MIN_STEPS = 6  # hard scripts this long include a failed query fixed on retry

# SQL keywords a misspelt table name must not become (it would be a syntax error instead).
_KEYWORDS = {"order", "group", "index", "table", "check", "case", "key", "view", "limit", "value",
             "values", "select", "where", "from", "join", "column", "default", "match", "union",
             "set", "end", "transaction", "trigger", "offset", "row", "rows", "range", "filter"}
_ROUNDING_WORDS = re.compile(r"round|decimal|四舍五入|小数", re.IGNORECASE)


@dataclass(frozen=True)
class Action:
    """One scripted step: a sentence of reasoning and one tool call (`args` as a dict)."""

    content: str
    tool: str
    args: dict


# --- the question file ---------------------------------------------------------------------
class QuestionBook:
    """The questions a persona knows, read from a questions.jsonl at first use (thread-safe).

    A missing file makes every question unknown; the file is read again when its mtime changes,
    so a simulator started before the set existed picks it up.
    """

    def __init__(self, path: Path, set_name: str = SET_NAME) -> None:
        # A book given one file plays the seeds' script on it (h01-h03's faults by id); the
        # shelf names each set by its folder, and only sales-25 gets that script.
        self.path = path
        self.set_name = set_name
        self._lock = threading.Lock()
        self._mtime: float | None = None
        self._questions: list[dict] = []

    def questions(self) -> list[dict]:
        """The questions as parsed JSON objects (blank, malformed and gold-less lines skipped)."""
        with self._lock:
            try:
                mtime = self.path.stat().st_mtime
            except OSError:
                return []
            if mtime != self._mtime:
                rows = []
                for line in self.path.read_text(encoding="utf-8").splitlines():
                    try:
                        row = json.loads(line) if line.strip() else None
                    except ValueError:
                        continue  # the set's loader reports bad lines; a persona skips them
                    if isinstance(row, dict) and (row.get("gold_sql") or row.get(
                            "gold_alternatives") or row.get("gold_files")):
                        rows.append({**row, "_set": self.set_name, "_dir": str(self.path.parent)})
                self._questions, self._mtime = rows, mtime
            return self._questions

    def find(self, first_user_text: str, context: str = "") -> dict | None:
        """The question whose English or Chinese text occurs in `first_user_text` (the longest
        such text wins, so a question quoted inside another's text cannot be mistaken; on a
        tie, the one whose database `context`, the system message, names)."""
        return _best(self.questions(), first_user_text, context)


def _best(questions, first_user_text: str, context: str) -> dict | None:
    best, best_key = None, (0, False)
    for q in questions:
        named = bool(q.get("database")) and str(q["database"]) in context
        for key in ("text_en", "text_zh"):
            text = (q.get(key) or "").strip()
            if text and (len(text), named) > best_key and text in first_user_text:
                best, best_key = q, (len(text), named)
    return best


class Shelf:
    """Every question set a persona can answer: the set folders in `folders()` (called at each
    lookup, so a set imported while the simulator runs is found), earlier folders first."""

    def __init__(self, folders) -> None:
        self._folders = folders
        self._books: dict[Path, QuestionBook] = {}
        self._lock = threading.Lock()

    def books(self) -> list[QuestionBook]:
        found = []
        for folder in self._folders():
            path = Path(folder) / "questions.jsonl"
            with self._lock:
                book = self._books.setdefault(path, QuestionBook(path, path.parent.name))
            found.append(book)
        return found

    def questions(self) -> list[dict]:
        return [q for book in self.books() for q in book.questions()]

    def find(self, first_user_text: str, context: str = "") -> dict | None:
        """As QuestionBook.find, over every set (the earliest folder wins a full tie)."""
        return _best(self.questions(), first_user_text, context)


_EXTRA_SETS: list[Path] = []  # set folders named when the simulator started (--questions)


def add_question_sets(folders) -> None:
    """Make the personas of this process answer the sets in `folders` too (first)."""
    for folder in folders:
        folder = Path(folder).expanduser().resolve()
        if folder not in _EXTRA_SETS:
            _EXTRA_SETS.append(folder)


def _set_folders() -> list[Path]:
    """The named sets, then every set folder of the user's imported sets and the bundled ones."""
    from desktop_app.paths import question_set_dirs  # late: keeps this import cheap

    bundled, user = question_set_dirs()
    folders = list(_EXTRA_SETS)
    for base in (user, bundled):
        try:
            folders += sorted(p for p in base.iterdir() if (p / "questions.jsonl").is_file())
        except OSError:
            continue  # no imported sets yet
    return folders


# --- SQL rewrites (sqlglot, SQLite dialect) ------------------------------------------------
# sqlglot is imported inside the functions: it costs a quarter of a second, and a simulator
# that never serves a persona should start without it.
def _parse(sql: str):
    import sqlglot
    return sqlglot.parse_one(sql, read="sqlite")


def _out(tree) -> str:
    return tree.sql(dialect="sqlite", pretty=True)


def _output_name(node) -> str | None:
    """The output column a node feeds: the alias of the projection it sits in, if any."""
    from sqlglot import exp
    while node.parent is not None and not isinstance(node.parent, exp.Select):
        if isinstance(node.parent, exp.Alias):
            return node.parent.alias
        node = node.parent
    return node.alias_or_name if node.parent is not None else None


@functools.lru_cache(maxsize=512)  # pure; a persona asks again at every step
def round_only(gold_sql: str, keep: frozenset[str]) -> str:
    """The gold SQL with every ROUND(x, n) replaced by x, except those feeding a column in
    `keep`. When every ROUND feeds a kept column the gold text is returned unchanged."""
    from sqlglot import exp
    tree = _parse(gold_sql)
    rounds = list(tree.find_all(exp.Round))
    if all(_output_name(r) in keep for r in rounds):
        return gold_sql
    for r in rounds:
        if _output_name(r) not in keep:
            r.replace(r.this)
    return _out(tree)


def _misname(name: str) -> str:
    """A plausible wrong name for an output column (differs even ignoring case)."""
    parts = [p for p in name.split("_") if p]
    if len(parts) > 1:
        return parts[0].lower() + "".join(p.capitalize() for p in parts[1:])
    return f"{name}_value"


@functools.lru_cache(maxsize=512)
def rename_outputs(sql: str) -> str:
    """The query with the outermost SELECT's computed columns given other names (all columns
    when none is computed): the seeds' "right logic, wrong column names". An ORDER BY naming
    a renamed column follows the new name."""
    from sqlglot import exp
    tree = _parse(sql)
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    projections = list(select.expressions)
    computed = [p for p in projections if not isinstance(p.unalias(), exp.Column)]
    renamed = {}
    for p in computed or projections:
        old = p.alias_or_name or "value"
        renamed[old] = _misname(old)
        p.replace(exp.alias_(p.unalias(), renamed[old], quoted=False))
    order = select.args.get("order")
    for col in list(order.find_all(exp.Column)) if order else []:
        if not col.table and col.name in renamed:
            col.replace(exp.column(renamed[col.name]))
    return _out(tree)


@functools.lru_cache(maxsize=512)
def empty_quarter_filter(sql: str) -> str:
    """The query's rows filtered on a quarter that does not exist (quarter 0): no rows.

    The filter applies to the finished rows (the query is wrapped), so it cannot change what a
    window or a GROUP BY sees; without a quarter column it is a condition that never holds.
    """
    from sqlglot import exp
    tree = _parse(sql)
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    quarter = next((p.alias_or_name for p in select.expressions
                    if re.search(r"quarter|qtr", p.alias_or_name, re.IGNORECASE)), None)
    wrapped = exp.select("*").from_(exp.paren(tree).as_("answer"))
    return _out(wrapped.where(f'"{quarter}" = 0' if quarter else "0 = 1"))


@functools.lru_cache(maxsize=512)
def misread_channel(sql: str) -> str:
    """The query with its channel condition (a channel column compared with literals) replaced
    by "the channel's name contains 'online'", the seeds' misread glossary definition;
    unchanged when it has no such condition."""
    from sqlglot import exp
    tree = _parse(sql)
    for cond in list(tree.find_all(exp.In, exp.EQ, exp.NEQ, exp.Like)):
        col = cond.this
        literals = cond.expressions if isinstance(cond, exp.In) else [cond.expression]
        if not isinstance(col, exp.Column) or not literals or not all(
                isinstance(v, exp.Literal) for v in literals):
            continue
        if re.search(r"channel|online", col.name, re.IGNORECASE):
            # The name, not the type or code the definition is about: "Online Catalog
            # Hotline" is a phone channel, and the web store's name has no "online" in it.
            name = re.sub(r"_(type|code|id|kind)$", "_name", col.name, flags=re.IGNORECASE)
            lowered = exp.Lower(this=exp.column(name, table=col.table or None))
            cond.replace(exp.Like(this=lowered, expression=exp.Literal.string("%online%")))
            return _out(tree)
    return sql


@functools.lru_cache(maxsize=512)
def tables_of(sql: str) -> tuple[str, ...]:
    """The real tables a query reads (not its CTEs), in order of first appearance in the text."""
    from sqlglot import exp
    tree = _parse(sql)
    ctes = {c.alias for c in tree.find_all(exp.CTE)}
    names = {t.name for t in tree.find_all(exp.Table) if t.name and t.name not in ctes}
    pos = {n: (m.start() if (m := re.search(rf"\b{re.escape(n)}\b", sql)) else len(sql))
           for n in names}
    return tuple(sorted(names, key=lambda n: (pos[n], n)))


@functools.lru_cache(maxsize=512)
def _cte_bodies(sql: str) -> tuple[tuple[str, str], ...]:
    """(name, SELECT) of each CTE that reads real tables only, so it runs on its own."""
    from sqlglot import exp
    tree = _parse(sql)
    ctes = list(tree.find_all(exp.CTE))
    names = {c.alias for c in ctes}
    return tuple((c.alias, _out(c.this)) for c in ctes
                 if not any(t.name in names for t in c.this.find_all(exp.Table)))


@functools.lru_cache(maxsize=512)
def _wrong_table(sql: str, table: str, known: tuple[str, ...]) -> str:
    """The query with `table` misspelled (singular/plural), which SQLite rejects."""
    from sqlglot import exp
    wrong = table[:-1] if table.endswith("s") else table + "s"
    if wrong in known or wrong.lower() in _KEYWORDS:  # "order" would be a syntax error
        wrong = table + "_tbl"
    tree = _parse(sql)
    for t in tree.find_all(exp.Table):
        if t.name == table:
            t.set("this", exp.to_identifier(wrong))
    return _out(tree)


_FLIPPED = {"EQ": "NEQ", "NEQ": "EQ", "GT": "LTE", "LTE": "GT", "LT": "GTE", "GTE": "LT"}


@functools.lru_cache(maxsize=512)
def wrong_filter(sql: str) -> str:
    """The query with its outer WHERE's first comparison reversed (= becomes <>, > becomes
    <=): a wrong filter. Without one, a condition that never holds on the finished rows."""
    from sqlglot import exp
    tree = _parse(sql)
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    where = select.args.get("where") if select is not None else None
    for cond in where.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE) if where else ():
        flipped = getattr(exp, _FLIPPED[type(cond).__name__])
        cond.replace(flipped(this=cond.this, expression=cond.expression))
        return _out(tree)
    return _out(exp.select("*").from_(exp.paren(tree).as_("answer")).where("0 = 1"))


def _habits(q: dict, sql: str) -> str:
    """seed-reference on a set other than sales-25: its ROUNDs already dropped in `sql`;
    every other medium question renamed, every other hard one filtered wrongly (by the id's
    hash, the same each run); an answer made from a result file (no gold SQL) is left as is."""
    if not any((q.get("gold_sql") or "").strip() or s for s in q.get("gold_alternatives") or [""]):
        return sql
    even = zlib.crc32(str(q.get("id", "")).encode()) % 2 == 0
    if q.get("tier") == "medium" and even:
        return rename_outputs(sql)
    if q.get("tier") == "hard" and even:
        return wrong_filter(sql)
    return sql


def gold_of(q: dict) -> str:
    """The accepted answer a persona works from: the gold SQL, else the first alternative, else
    a query returning the first gold file's rows."""
    sqls = [q.get("gold_sql") or "", *(q.get("gold_alternatives") or [])]
    sql = next((s for s in sqls if isinstance(s, str) and s.strip()), "")
    if sql or not q.get("gold_files"):
        return sql
    return values_query(str(Path(q.get("_dir", ".")) / q["gold_files"][0]), q.get("_dir", "."))


MAX_VALUES_ROWS = 5_000  # a gold file larger than this is answered with its first rows


@functools.lru_cache(maxsize=64)
def values_query(path: str, folder: str) -> str:
    """SELECT returning a gold result file's rows under its header's names."""
    from desktop_app.core.sqleval.golds import GoldError, read_gold_csv

    try:
        gold = read_gold_csv(Path(path), max_rows=MAX_VALUES_ROWS, folder=Path(folder))
    except GoldError:
        return "SELECT NULL AS answer WHERE 0"  # unreadable: an answer that fails, not a crash

    def literal(v) -> str:
        if v is None:
            return "NULL"
        if isinstance(v, (int, float)):
            return repr(v)
        return "'" + str(v).replace("'", "''") + "'"

    names = ", ".join('"' + c.replace('"', '""') + '"' for c in gold.columns)
    if not gold.rows:
        nulls = ", ".join(f"NULL AS {n}" for n in names.split(", "))
        return f"SELECT {nulls} WHERE 0"
    rows = ",\n  ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in gold.rows)
    return f"WITH answer({names}) AS (VALUES\n  {rows})\nSELECT * FROM answer"


# --- the personas --------------------------------------------------------------------------
class SqlPersona:
    """A scripted SQL agent served as a simulator model; a `Responder` (`persona(body, ctx)`).

    `style` is "careful" or "seed-reference" (see the module docstring); `book` holds the
    questions it recognises.
    """

    def __init__(self, style: str, book: QuestionBook | Shelf) -> None:
        if style not in ("careful", "seed-reference"):
            raise ValueError(f"unknown persona style {style!r}")
        self.style = style
        self.book = book

    def __call__(self, body: dict, ctx: ResponderContext) -> Plan:
        from sqlglot.errors import SqlglotError
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        system = "\n".join(_content_text(m) for m in messages if m.get("role") == "system")
        q = self.book.find(_first_user_text(messages), system)
        if q is None:
            return Plan(text="I'm sorry, I don't recognise this question, so I cannot answer "
                        "it with a query. (simulated persona: it answers the questions of the "
                        "sets it can read, the bundled ones, the imported ones and a set folder "
                        "the simulator was started with)", finish_reason="stop")
        offered = _offered_tools(body)
        try:
            return self._reply(q, messages, offered)
        except SqlglotError:  # sqlglot cannot read this gold SQL: submit it as it is
            if "submit_answer" not in offered:
                return Plan(text=f"```sql\n{gold_of(q)}\n```")
            call = ToolCall("submit_answer", json.dumps({"sql": gold_of(q)}))
            return Plan(text="Submitting my query.", tool_calls=(call,),
                        finish_reason="tool_calls")

    def _reply(self, q: dict, messages: list[dict], offered: set[str]) -> Plan:
        """The next step for question `q` given the conversation so far."""
        submitted = [i for i, m in enumerate(messages)
                     if m.get("role") == "assistant" and _submitted_sql(m) is not None]
        told = self.told_columns(q, _text_after(messages, submitted[0])) if submitted else set()
        answer = self.answer_sql(q, told)
        if "submit_answer" not in offered or len(submitted) >= MAX_SUBMITS:
            final = _sentence(q, "final", tables_of(gold_of(q)))
            return Plan(text=f"{final}\n\n```sql\n{answer}\n```", finish_reason="stop")
        if submitted:
            action = Action("Thanks for the feedback; I'm submitting the corrected query."
                            if told else "I checked the query again; submitting it.",
                            "submit_answer", {"sql": answer})
        else:
            script = [a for a in self.script(q, answer) if a.tool in offered]
            done = sum(1 for m in messages if m.get("role") == "assistant")
            action = script[min(done, len(script) - 1)]
            error = _last_tool_error(messages)
            if error and action.tool in ("run_sql", "submit_answer"):
                action = Action(f"That failed ({error}); fixing the query and running it "
                                "again.", action.tool, action.args)
        call = ToolCall(action.tool, json.dumps(action.args, ensure_ascii=False))
        return Plan(text=action.content, tool_calls=(call,), finish_reason="tool_calls")

    # -- what it answers
    def answer_sql(self, q: dict, told: frozenset[str] | set[str] = frozenset()) -> str:
        """The SQL this persona submits for question `q`, after feedback naming `told`
        rounded columns (empty on the first submission)."""
        gold = gold_of(q)
        if self.style == "careful":
            return gold
        rounding = set((q.get("rounding") or {}).keys())
        sql = gold if rounding and rounding <= set(told) else round_only(gold, frozenset(told))
        qid = q.get("id")
        if q.get("_set", SET_NAME) != SET_NAME:
            return _habits(q, sql)
        if qid == "h01":
            return rename_outputs(sql)
        if qid == "h02":
            return empty_quarter_filter(rename_outputs(sql))
        if qid == "h03":
            return misread_channel(sql)
        return sql

    def told_columns(self, q: dict, feedback: str) -> set[str]:
        """The rounded columns whose ROUND the feedback asks for (careful: all of them).

        seed-reference reads the feedback line by line: a line speaking of rounding names the
        columns to round (all of them when it names none); a column merely listed, say in a
        complaint about column names, is not a request to round it.
        """
        rounding = list((q.get("rounding") or {}).keys())
        if self.style == "careful":
            return set(rounding)
        told: set[str] = set()
        for line in re.split(r"[\n;]", feedback):
            if _ROUNDING_WORDS.search(line):
                named = {c for c in rounding if re.search(rf"\b{re.escape(c)}\b", line)}
                told |= named or set(rounding)
        return told

    def script(self, q: dict, answer: str) -> list[Action]:
        """Every step of the first attempt, the last one being submit_answer(answer)."""
        tables = tables_of(gold_of(q)) or ("?",)
        main = tables[0]
        run = Action(_sentence(q, "run", tables), "run_sql", {"sql": answer})
        submit = Action(_sentence(q, "submit", tables), "submit_answer", {"sql": answer})
        if self.style == "careful":
            look = [Action("Let me first see which tables the database has, so that I query "
                           "the right ones.", "list_tables", {})]
            if main != "?":  # a query over result values reads no table
                look.append(Action(f"The question is mostly about {main}; I'll check its "
                                   "columns and a few sample rows before writing the query.",
                                   "describe_table", {"table": main}))
            return [*look, run, submit]
        tier, qid = q.get("tier", "hard"), q.get("id", "")
        n = TIER_STEPS.get(tier) or HARD_STEPS.get(qid) or 4 + zlib.crc32(qid.encode()) % 3
        pool = _exploration(gold_of(q), tables)
        if n >= FAILED_QUERY_MIN_STEPS:
            failed = Action("I think I have all the pieces now: the joins, the filters and the "
                            "aggregation. Let me run the full query.", "run_sql",
                            {"sql": _wrong_table(answer, main, tables)})
            return [*pool[:n - 3], failed, run, submit]
        return [*pool[:max(0, n - 2)], run, submit]


def _exploration(gold: str, tables: tuple[str, ...]) -> list[Action]:
    """Exploratory steps in the order a model takes them, padded to any length."""
    pool = [Action("This needs several tables. Let me first see which tables the database "
                   "has and how they are named.", "list_tables", {})]
    pool += [Action(f"I need the columns of {t} and a few sample rows, to see how it joins "
                    "with the other tables.", "describe_table", {"table": t}) for t in tables]
    pool += [Action(f"Let me look at more rows of {t} to see how the values are stored "
                    "(dates, codes, percentages).", "run_sql",
                    {"sql": f"SELECT * FROM {t} LIMIT 10"}) for t in tables]
    pool += [Action(f"Before the final query, let me check the intermediate result of "
                    f"{name} on its own: the numbers should look plausible.", "run_sql",
                    {"sql": body}) for name, body in _cte_bodies(gold)]
    pool += [Action(f"How many rows does {t} hold? That tells me whether a join multiplies "
                    "rows.", "run_sql", {"sql": f"SELECT COUNT(*) AS n FROM {t}"})
             for t in tables]
    while len(pool) < 20:
        t = tables[len(pool) % len(tables)]
        pool.append(Action(f"I'm not sure the join on {t} keeps every row; checking its row "
                           "count again.", "run_sql", {"sql": f"SELECT COUNT(*) AS n FROM {t}"}))
    return pool


def _sentence(q: dict, kind: str, tables: tuple[str, ...] = ()) -> str:
    """A sentence of reasoning, as real models write around their tool calls."""
    cols = ", ".join(q.get("required_columns") or []) or "the required columns"
    where = " and ".join(tables) or "the tables"
    if kind == "run":
        return (f"The question asks for {cols}. The data is in {where}, so I'll compute it "
                "there and name the output columns as asked. Running the query first to "
                "check the result before I submit anything: the row count, the column names "
                "and a few values.")
    if kind == "submit":
        return (f"The result has the columns {cols} and the values look plausible, so this "
                "query answers the question. The rows and their order are what it asks for. "
                "Submitting it.")
    return (f"The question asks for {cols}; the data is in {where}. Here is my final query, "
            "which returns exactly those columns.")


# --- reading the conversation ----------------------------------------------------------------
def _content_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _first_user_text(messages: list[dict]) -> str:
    return next((_content_text(m) for m in messages if m.get("role") == "user"), "")


def _offered_tools(body: dict) -> set[str]:
    if body.get("tool_choice") == "none":
        return set()
    return {name for t in body.get("tools") or [] if isinstance(t, dict)
            and isinstance(name := (t.get("function") or {}).get("name"), str)}


def _submitted_sql(message: dict) -> str | None:
    """The SQL an assistant message submitted (a submit_answer call or a ```sql block)."""
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {} if isinstance(call, dict) else {}
        if fn.get("name") == "submit_answer":
            return str(fn.get("arguments") or "")
    match = re.search(r"```sql\s*(.*?)```", _content_text(message), re.DOTALL | re.IGNORECASE)
    return match.group(1) if match else None


def _text_after(messages: list[dict], index: int) -> str:
    """The harness's words after message `index` (tool results and user messages)."""
    return "\n".join(_content_text(m) for m in messages[index + 1:]
                     if m.get("role") in ("tool", "user"))


def _last_tool_error(messages: list[dict]) -> str | None:
    """The first line of the last tool result when it reports an error, else None."""
    if not messages or messages[-1].get("role") != "tool":
        return None
    text = _content_text(messages[-1]).strip()
    if not text.lower().startswith("error"):
        return None
    return text.splitlines()[0][:120]


def register_personas(questions_path: Path | None = None) -> None:
    """Serve `sim/careful` and `sim/seed-reference` in every simulator of this process.

    `questions_path` is the one questions.jsonl they know; by default they know every set
    they can read (`_set_folders`). Files are read at first use, so registering costs nothing.
    """
    book = QuestionBook(questions_path) if questions_path is not None else Shelf(_set_folders)
    responders.register(CAREFUL, SqlPersona("careful", book))
    responders.register(SEED_REFERENCE, SqlPersona("seed-reference", book))


register_personas()  # at import: the simulator's state module imports this one
misbehaving.register_misbehaving()  # sim/mute, sim/looper ...: models a harness must survive
