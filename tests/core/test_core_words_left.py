"""Words are not in the core (#27): an exception the core raises carries a code and values,
which report/ puts in the reader's language, not an English sentence.

When this check came in, 196 raise sites in 46 core modules still carried one (their
English reaches a Chinese reader as it is). `LEFT` counts them per module: a module may not
gain one (give the new error a code and its words instead: `InputError(field, code=...)`,
`EndpointError(code=...)`, words in report/), and when one is converted its count here is
lowered, so the list only shrinks. A raise that names its code (`code=`, `detail_code=`) is
not counted: its English is the fallback of a code the reader's language words. Not every one
is for a reader: the simulator's API error
bodies (simulator/validation.py) are a server's answer, and what the SQL sandbox says of a
query is read by the model under test; those may stay English, and stay counted here.
"""

import ast
import re
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "desktop_app" / "core"
# Three or more plain English words in a row: a sentence, not a code or a name.
_SENTENCE = re.compile(r"[A-Za-z][a-z]+(?:[ ,]+[A-Za-z][a-z]+){2,}")

LEFT = {
    "endpoint/client.py": 1,
    "endpoint/http1.py": 10,
    "endpoint/limits.py": 5,
    "engines/__init__.py": 1,
    "exchange/importers/common.py": 1,  # a developer's unknown metric name (KeyError)
    "simulator/personas.py": 1,
    "simulator/responders.py": 1,
    "simulator/validation.py": 16,
    "simulator/virtual.py": 2,  # a simulation that cannot progress: a bug, never input
    "sqleval/agent.py": 3,
    "sqleval/golds.py": 4,
    "sqleval/judge.py": 1,
    "sqleval/judges/__init__.py": 1,
    "sqleval/sandbox.py": 9,
    "stats.py": 1,
    "store/store.py": 1,
    "store/tables.py": 1,
    "store/writer.py": 4,
    "tables.py": 1,
    "throughput/ray_pool.py": 1,  # a clock fit given no round trip: a bug, never input
    # A developer registering a figure wrongly (like an engine), never a user.
    "throughput/figures.py": 2,
    "throughput/servermetrics.py": 1,
    "throughput/sweep.py": 1,
}


def _text(node) -> str:
    """The literal text of a message: a string, an f-string's literal parts, a sum of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(v.value for v in node.values if isinstance(v, ast.Constant))
    if isinstance(node, ast.BinOp):
        return _text(node.left) + " " + _text(node.right)
    return ""


def _coded(call: ast.Call) -> bool:
    """A raise that names its code (`code=` or, for the store's refusals, `detail_code=`): its
    English is the code's fallback, and the reader reads the code's words."""
    return any(k.arg in ("code", "detail_code") for k in call.keywords)


def english_raises() -> dict[str, int]:
    found = {}
    for path in sorted(CORE.rglob("*.py")):
        n = sum(1 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                and not _coded(node.exc)
                and _SENTENCE.search(" ".join(_text(a) for a in node.exc.args)))
        if n:
            found[path.relative_to(CORE).as_posix()] = n
    return found


def test_no_core_module_raises_more_english_sentences_than_it_did():
    found = english_raises()
    more = {m: (n, LEFT.get(m, 0)) for m, n in found.items() if n > LEFT.get(m, 0)}
    assert more == {}, f"new English messages (found, allowed): {more}; give them codes"
    fewer = {m: (found.get(m, 0), n) for m, n in LEFT.items() if found.get(m, 0) < n}
    assert fewer == {}, f"converted (found, listed): {fewer}; lower LEFT to match"


def test_the_check_sees_a_sentence_and_not_a_code():
    tree = ast.parse('raise ValueError(f"{x}: {y}")\nraise InputError("f", code="a_b")\n'
                     'raise ValueError(f"cannot connect to {url}")')
    hits = [n for n in ast.walk(tree) if isinstance(n, ast.Raise)
            and _SENTENCE.search(" ".join(_text(a) for a in n.exc.args))]
    assert len(hits) == 1  # "cannot connect to" is three words; values and a code are not
