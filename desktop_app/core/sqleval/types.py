"""The records the question sets, the sandbox, the judges, the agent loop and the GUI share.

Frozen dataclasses only; the modules beside this one produce them. Times are seconds, tokens
are counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Tier = Literal["trivial", "easy", "medium", "hard"]
TIERS: tuple[Tier, ...] = ("trivial", "easy", "medium", "hard")
# A judge's name ("strict", "tolerant", "full", ...): the judges are registered in judges/.
JudgeMode = str

# Why a question's agent loop ended.
STOP_REASONS = (
    "submitted",  # the model called submit_answer (or gave a fenced sql block in text mode)
    "step_budget",  # max steps reached without an answer
    "token_budget",  # max tokens (prompt + completion, summed over steps) reached
    "time_budget",  # wall time per question reached
    "no_answer",  # the model stopped (finish_reason stop) without submitting
    "output_budget",  # replies kept hitting max_tokens without a tool call or an answer
    "unknown_tool",  # the model kept calling tools that do not exist
    "bad_arguments",  # the model kept sending invalid tool arguments (bad JSON, missing sql)
    "repeated_call",  # the model kept making the very same call
    "endpoint_error",  # the endpoint failed and retries (if any) did not help
    "cancelled",  # the run was cancelled
)

# Named findings a judge can report (codes are stable: the GUI, exports and tests use them).
FINDING_CODES = (
    "sql_error", "timeout", "step_budget", "no_answer", "empty_result", "row_count",
    "column_count", "column_names", "order_only", "duplicates_only", "rounding_only",
    "value_mismatch", "missing_round", "alias_differs", "window_frame", "refused",
    "degenerate_gold",  # on a pass: the gold returned no rows or only NULLs
    "matched_alternative",  # on a pass: the answer matched an accepted answer other than the first
    "no_alternative_matched",  # on a fail with several accepted answers: none matched
    "truncated_comparison",  # the verdict compared only the first rows of a result too large
    "official_mismatch",  # a benchmark's own rule (spider2, bird, test-suite) failed the answer
)

# Prompt strategies (the seeds' "quality first" knobs), each a toggle stored with the run.
STRATEGIES = ("format-guard", "examples", "glossary", "validate-retry", "layered")
# Which path answered a question under the layered strategy (QuestionOutcome.path).
LAYERED_PATHS = ("fast", "loop")
LAYERED_ROUTES = ("validate", "always-loop")  # and "tier:<tier>,<tier>", see parse_layered_route


@dataclass(frozen=True)
class Question:
    """One evaluation question.

    `required_columns` are the output column names the question asks for, in order;
    `rounding` maps a required column to the decimals the question asks for (ROUND(x, n));
    `order_matters` is True when the question asks for an order (then the gold SQL orders).
    `glossary` is the business-glossary entry the question depends on, if any. `database` is the
    key of the set's database the question runs on. `source` says where it was loaded from
    ("questions.jsonl:12") for messages. A question may accept several answers: the result of
    `gold_sql` (empty when the set gives only result files), of each of `gold_alternatives`,
    and each CSV in `gold_files` (absolute paths once loaded); an answer passes when it matches
    any of them (`golds.py`).
    """

    id: str
    tier: Tier
    text_en: str
    gold_sql: str
    database: str
    text_zh: str = ""
    required_columns: tuple[str, ...] = ()
    rounding: dict[str, int] = field(default_factory=dict)
    order_matters: bool = False
    glossary: str | None = None
    tags: tuple[str, ...] = ()
    source: str = ""
    gold_alternatives: tuple[str, ...] = ()
    gold_files: tuple[str, ...] = ()
    # The benchmark's own evaluation parameters, as its evaluator reads them: Spider2's
    # "condition_cols" (one list of gold column indexes per gold file, in `gold_files` order;
    # empty: every column) and "ignore_order".
    evaluation: dict = field(default_factory=dict)

    def text(self, language: str = "en") -> str:
        """The question in `language` ("en" or "zh"), falling back to English."""
        return self.text_zh if language == "zh" and self.text_zh else self.text_en


@dataclass(frozen=True)
class SkippedQuestion:
    """A question that could not be used, and why (shown to the user, never silently dropped)."""

    id: str
    source: str
    reason: str


@dataclass(frozen=True)
class QuestionSet:
    """A loaded, validated question set. `databases` maps a key to a SQLite file and
    `database_notes` a key to what that database is (set.toml's `description`), the sentence the
    model's prompt gets. `asks_columns` is False when the questions do not name their output
    columns or rounding (most public sets): runs then default to the full judge, names ignored.
    `benchmark` names the public set it was imported from ("spider2-lite"): runs then also
    summarise that benchmark's official rule (`judges.default_judges`).
    """

    name: str
    description: str
    path: Path
    databases: dict[str, Path]
    questions: tuple[Question, ...]
    skipped: tuple[SkippedQuestion, ...] = ()
    glossary: dict[str, str] = field(default_factory=dict)  # term -> business definition
    database_notes: dict[str, str] = field(default_factory=dict)
    asks_columns: bool = True
    benchmark: str = ""  # the public set it was imported from (importers.FORMATS), if any

    def database_note(self, key: str) -> str:
        """What the model is told the database is: its own description, else the set's."""
        return self.database_notes.get(key) or self.description


@dataclass(frozen=True)
class QueryResult:
    """What a query returned through the sandbox.

    `rows` holds at most the sandbox's row cap (values as SQLite returned them); `total_rows` is
    the full count when known (None when counting was cut short); `truncated` says the rows are
    incomplete. `elapsed_s` is the query's wall time.
    """

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    total_rows: int | None
    truncated: bool = False
    elapsed_s: float = 0.0


@dataclass(frozen=True)
class JudgeFinding:
    """One named finding: a FINDING_CODES `code` and the values its words need (`params`:
    column names, got/expected values as `shown` text, counts, the rounding digits, a `form`
    when a code has several wordings). The core holds no words: `report/judge_words.py` renders
    a finding in English or Chinese. `cells` lists the cells involved as (row, column,
    expected, actual) tuples (row is 0-based; expected/actual as strings), possibly empty.
    `stored_text` is the English sentence a verdict stored before findings carried params
    (shown as is when `params` is empty); new findings leave it empty."""

    code: str
    params: dict = field(default_factory=dict, hash=False)
    cells: tuple[tuple[int, str, str, str], ...] = ()
    stored_text: str = ""


@dataclass(frozen=True)
class Verdict:
    """One judge's verdict on one answer: passed or not, and why, in named findings."""

    judge: JudgeMode
    passed: bool
    findings: tuple[JudgeFinding, ...] = ()
    tolerance: float | None = None


@dataclass(frozen=True)
class Headline:
    """The counterfactual across judges, as values: the judges that failed and passed (in
    the judges' order) and `reason`, the first finding of the most lenient failing judge (None
    when every judge passed or it recorded none). Words: `report/judge_words.py`
    ("fails strict, passes tolerant and full: only rounding differs in avg_price").
    `stored_text` is the English line a verdict stored before headlines were values;
    `export.headline_line` is the compact form plain-text exports write."""

    failing: tuple[str, ...] = ()
    passing: tuple[str, ...] = ()
    reason: JudgeFinding | None = None
    stored_text: str = ""

    @property
    def code(self) -> str:
        """"passes_all", "fails_all" or "fails_some"."""
        if not self.failing:
            return "passes_all"
        return "fails_some" if self.passing else "fails_all"


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call the model made in a step, and the result exactly as the model saw it."""

    call_id: str
    name: str
    arguments: str  # the raw JSON text the model sent
    result: str  # what was sent back to the model (after truncation)
    result_truncated: bool = False
    error: str | None = None  # invalid JSON, unknown tool, SQL error text, refused


@dataclass(frozen=True)
class AgentStep:
    """One model call of the agent loop and what the harness did with its reply."""

    index: int
    request_messages: int  # how many messages were sent (the full list is rebuildable)
    new_messages: tuple[dict, ...]  # the messages added since the previous step
    reply: dict  # the assistant message as received
    tool_calls: tuple[ToolCallRecord, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    error: str | None = None
    finish_reason: str | None = None


@dataclass(frozen=True)
class QuestionOutcome:
    """A question's full run (one epoch): every step, the final SQL, its result, the verdicts."""

    question_id: str
    tier: Tier
    epoch: int
    steps: tuple[AgentStep, ...]
    stop_reason: str
    final_sql: str | None
    result: QueryResult | None
    result_error: str | None  # the final SQL's error or refusal, if it failed
    verdicts: dict[str, Verdict]
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    simulated: bool = False
    # The layered strategy only: "fast" (the one-shot answer passed the harness's checks) or
    # "loop" (the tool loop answered), and why that path ("validated", "validation failed:
    # ...", "structured: tier hard", "always-loop"). None for the other strategies.
    path: str | None = None
    route_reason: str | None = None
