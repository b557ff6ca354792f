"""Bad input everywhere a user types or loads something, with Hypothesis.

The property, for every parser of user input: whatever the text or the file holds, it either
gives a valid value or raises the module's own error type (InputError, ValueError("base URL:
..."), FaultSpecError, ProfileError, QuestionSetError, ExchangeError) with a one-line message
naming the field, or the file and line; never another exception. Files that are not UTF-8 are
tried on every loader.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import os
import sqlite3
import string
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from desktop_app.core.endpoint.profiles import EndpointProfile, load_profiles, save_profiles
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.endpoint.urls import validate_base_url
from desktop_app.core.parsing import InputError, parse_float_list, parse_int_list
from desktop_app.core.simulator.engine import Profile
from desktop_app.core.simulator.faults import KINDS, PARAMS, FaultSpecError, parse_faults
from desktop_app.core.simulator.profiles import ProfileError, parse_profile
from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set

# On CI the examples are derandomized, so a run there never fails on an input nobody saw
# before; on a developer's machine each run tries new ones (and .hypothesis/ keeps failures).
_CI = bool(os.environ.get("CI"))
SETTINGS = settings(max_examples=200, deadline=None, derandomize=_CI,
                    suppress_health_check=[HealthCheck.too_slow])
FILES = settings(max_examples=100, deadline=None, derandomize=_CI,
                 suppress_health_check=[HealthCheck.too_slow])

# Text a user could type or paste: anything, plus the characters parsers trip over.
awkward = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(
    list(",; \t\n\r\x00\x0b\x0c\x1c\x85\u2028\u2029\u3000\ufeff") + ["１", "٣", "²", "½"]))
numbers = st.one_of(
    st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=True).map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-0", "0x10", "1_000", "4k", "4K", "4kk",
                     "k", "9" * 5000, "1e-400", "٣", "１２"]))


def one_line(message: str) -> bool:
    return bool(message) and "\n" not in message and "\r" not in message


# --------------------------------------------------------------------------- lists


def _check_ints(text: str, lo: int, hi: int | None) -> None:
    try:
        values = parse_int_list(text, "concurrency", min_value=lo, max_value=hi)
    except InputError as exc:
        assert exc.field == "concurrency" and str(exc).startswith("concurrency: ")
        assert one_line(str(exc)) and len(str(exc)) < 300
        return
    assert values and len(set(values)) == len(values)
    assert all(isinstance(v, int) and v >= lo and (hi is None or v <= hi) for v in values)


@SETTINGS
@given(st.one_of(awkward, st.lists(numbers).map(",".join)), st.integers(0, 4),
       st.none() | st.integers(1, 10**6))
@example("9" * 5000, 1, None)  # more digits than Python turns into an int by default
@example("1\u20282", 1, None)
def test_int_lists_parse_or_name_the_field(text, lo, hi):
    _check_ints(text, lo, hi)


@SETTINGS
@given(st.lists(st.integers(1, 10**9), min_size=1), st.sampled_from([",", ", ", " ", ",\t"]))
def test_int_lists_round_trip(values, sep):
    assert parse_int_list(sep.join(map(str, values)), "x") == list(dict.fromkeys(values))


@SETTINGS
@given(st.one_of(awkward, st.lists(numbers).map(" ".join)), st.sampled_from([0.0, 0.5]))
@example("1e400", 0.0)
@example("nan, 1", 0.0)
def test_float_lists_parse_or_name_the_field(text, lo):
    try:
        values = parse_float_list(text, "request rate", min_value=lo)
    except InputError as exc:
        assert exc.field == "request rate" and one_line(str(exc)) and len(str(exc)) < 300
        return
    assert values and all(math.isfinite(v) and v > lo for v in values)


@SETTINGS
@given(st.lists(st.floats(min_value=1e-9, max_value=1e12), min_size=1))
def test_float_lists_round_trip(values):
    assert parse_float_list(",".join(map(repr, values)), "x") == list(dict.fromkeys(values))


# --------------------------------------------------------------------------- URLs


hosts = st.one_of(st.sampled_from(["localhost", "127.0.0.1", "[::1]", "gpu-01.lan", "", "[::1",
                                   "exa mple", "a\x00b", "\x80", "%zz", "[zz]", "a@b", "ü.de"]),
                  st.text(max_size=12))
ports = st.one_of(st.just(""), st.integers(-5, 70000).map(lambda p: f":{p}"),
                  st.text(max_size=6).map(lambda p: f":{p}"))
urls = st.builds(lambda s, h, p, rest: f"{s}{h}{p}{rest}",
                 st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "", "http:/",
                                  "http:///"]),
                 hosts, ports,
                 st.sampled_from(["", "/", "/v1", "/v1/", "?x=1", "#f", "/a b", "/\u00e9"]))


@SETTINGS
@given(st.one_of(urls, awkward))
@example("http://[::1")
@example("http://\x80")
@example("http://a\x00b:8000")
def test_a_base_url_is_usable_or_refused_in_words(text):
    try:
        url = validate_base_url(text)
    except ValueError as exc:
        assert str(exc).startswith("base URL: ") and one_line(str(exc)), repr(exc)
        return
    # Whatever is accepted must be something the HTTP client can send requests to.
    config = EndpointConfig(url)
    parsed = httpx.URL(config.v1_url + "/models")
    assert parsed.scheme in ("http", "https") and parsed.host
    assert not url.endswith("/") and url == url.strip()


# --------------------------------------------------------------------------- fault specs


fault_items = st.builds(
    lambda name, sep, value: f"{name}{sep}{value}",
    st.sampled_from([*KINDS, *PARAMS, "bogus", "", "RESET", " seed "]),
    st.sampled_from(["=", "", "==", " = "]), st.one_of(numbers, st.text(max_size=5)))


@SETTINGS
@given(st.one_of(awkward, st.lists(fault_items, max_size=6).map(",".join)))
@example("seed=1e400")
@example("seed=nan")
@example("after=inf")
@example("stall_s=nan")
@example("retry_after=inf")
@example("seed=12345678901234567890123")
def test_fault_specs_parse_or_name_the_item(text):
    try:
        spec = parse_faults(text)
    except FaultSpecError as exc:
        assert one_line(str(exc)) and "fault" in str(exc), repr(exc)
        return
    assert all(k in KINDS and 0 <= p <= 1 for k, p in spec.probabilities.items())
    assert sum(spec.probabilities.values()) <= 1 + 1e-9
    assert spec.seed is None or (isinstance(spec.seed, int) and spec.seed >= 0)
    assert isinstance(spec.after_tokens, int) and spec.after_tokens >= 0
    for value in (spec.retry_after_s, spec.stall_s):
        assert math.isfinite(value) and value >= 0
    assert parse_faults(spec.describe()) == spec  # what /version shows parses back the same


@SETTINGS
@given(st.integers(0, 10**30))
def test_a_seed_is_taken_exactly_as_typed(seed):
    assert parse_faults(f"reset=0.1,seed={seed}").seed == seed


# --------------------------------------------------------------------------- simulator profiles


FIELDS = {f.name: f for f in dataclasses.fields(Profile)}
toml_scalars = st.one_of(
    st.integers(-10, 10**12), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(), st.text(max_size=8))


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else ("inf" if value == math.inf else
                                             "-inf" if value == -math.inf else repr(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


def toml_doc(data: dict) -> str:
    return "".join(f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}\n"
                   for k, v in data.items())


profile_docs = st.dictionaries(
    st.sampled_from(sorted(FIELDS)) | st.text(max_size=6),
    toml_scalars | st.lists(toml_scalars, max_size=2), max_size=6).map(toml_doc)


@SETTINGS
@given(st.one_of(profile_docs, awkward, st.binary(max_size=200).map(lambda b: b.decode(
    "utf-8", "replace"))))
@example("prefill_tokens_per_s = nan\n")
@example("step_overhead_s = inf\n")
@example('max_model_len = 10\nkv_cache_tokens = 5\n')
def test_simulator_profiles_load_or_name_file_key_and_line(text):
    path = Path("/profiles/mine.toml")
    _check_profile(text.encode("utf-8"), path)


def test_a_profile_error_names_the_line_of_a_quoted_key_too():
    text = 'description = "mine"\n"max_num_seqs" = 0\n'
    with pytest.raises(ProfileError, match=r"^/p/mine\.toml:2: max_num_seqs: must be positive"):
        parse_profile(text.encode(), Path("/p/mine.toml"))


@SETTINGS
@given(st.binary(max_size=300))
def test_simulator_profile_bytes_load_or_name_the_file(data):
    _check_profile(data, Path("/profiles/raw.toml"))


def _check_profile(data: bytes, path: Path) -> None:
    try:
        profile = parse_profile(data, path)
    except ProfileError as exc:
        message = str(exc)
        assert message.startswith(f"{path}") and one_line(message), repr(message)
        if message.startswith(f"{path}:") and message[len(str(path)) + 1:][:1].isdigit():
            line = int(message[len(str(path)) + 1:].split(":", 1)[0])
            assert 1 <= line <= data.count(b"\n") + 1
        return
    for name, f in FIELDS.items():
        value = getattr(profile, name)
        if f.type in ("float", float):
            assert not math.isnan(value) and value >= 0, (name, value)
            if name != "prefill_ctx_slowdown_tokens":
                assert math.isfinite(value), (name, value)
        elif f.type in ("int", int):
            assert isinstance(value, int) and not isinstance(value, bool)
        else:
            assert isinstance(value, str)
    assert 0 < profile.max_model_len <= profile.kv_cache_tokens


# --------------------------------------------------------------------------- question sets


record_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=6),
                          st.lists(st.text(max_size=3), max_size=2),
                          st.dictionaries(st.text(max_size=3), st.integers(-1, 3), max_size=2))
GOOD = {"id": "q1", "tier": "easy", "text_en": "How many?", "gold_sql": "SELECT 1 AS n",
        "database": "main", "required_columns": ["n"]}
records = st.one_of(
    st.just(GOOD),
    st.builds(lambda base, extra: {**base, **extra}, st.just(GOOD),
              st.dictionaries(st.sampled_from(sorted(GOOD) + ["rounding", "order_matters",
                                                              "glossary", "tags", "text_zh",
                                                              "unknown"]),
                              record_values, max_size=3)),
    st.dictionaries(st.text(max_size=4), record_values, max_size=3))
lines = st.one_of(records.map(lambda r: json.dumps(r, ensure_ascii=False)),
                  st.text(max_size=20), st.sampled_from(["", "   ", "[1, 2]", "{", "null",
                                                         '{"id": "q\u2028x"}', "[" * 5000]))


@pytest.fixture(scope="module")
def set_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("qset")
    sqlite3.connect(folder / "main.sqlite").close()
    (folder / "set.toml").write_text('name = "fuzz"\n[databases.main]\nfile = "main.sqlite"\n'
                                     '[glossary]\nchannel = "how it was sold"\n',
                                     encoding="utf-8")
    return folder


@FILES
@given(st.lists(lines, max_size=6), st.sampled_from(["\n", "\r\n"]))
@example(['{"id": "a", "tier": "easy", "text_en": "Line\u2028break?", "gold_sql": "SELECT 1", '
          '"database": "main"}'], "\n")
@example(["[" * 5000], "\n")
@example(['{"\\n": null}'], "\n")
def test_question_files_load_or_name_file_and_line(set_dir, file_lines, newline):
    path = set_dir / "questions.jsonl"
    path.write_text(newline.join(file_lines), encoding="utf-8", newline="")
    physical = path.read_bytes().split(b"\n")
    try:
        qset = load_question_set(set_dir, sets_dir=set_dir.parent, cache_dir=set_dir,
                                 check_gold=False)
    except QuestionSetError as exc:
        for error in exc.errors:
            assert error.startswith(f"{path}") and one_line(error), repr(error)
            head, _, rest = error[len(str(path)):].partition(": ")
            if head:  # ":<line>": the line exists and is not blank
                line = int(head.lstrip(":"))
                assert physical[line - 1].strip(), (line, error)
        return
    assert qset.questions
    for q in qset.questions:  # the source names the physical line the question is on
        line = int(q.source.rsplit(":", 1)[1])
        assert json.loads(physical[line - 1])["id"] == q.id


set_docs = st.dictionaries(
    st.sampled_from(["name", "description", "databases", "glossary", "other"])
    | st.text(max_size=3),
    st.one_of(toml_scalars, st.dictionaries(st.sampled_from(["main", "x"]) | st.text(max_size=2),
                                            st.one_of(
        toml_scalars, st.dictionaries(st.sampled_from(["file", "builder", "seed", "bad"]),
                                      toml_scalars | st.just("main.sqlite"), max_size=3)),
        max_size=2)), max_size=4)


def toml_tables(data: dict) -> str:
    """A TOML document with nested tables as inline tables (enough for set.toml)."""
    def value(v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        return toml_value(v)
    return "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in data.items())


@FILES
@given(st.one_of(set_docs.map(toml_tables), st.text(max_size=40)))
@example('"a\\nb" = 1\n[databases.main]\nfile = "main.sqlite"\n')
@example('[databases."m\\nx"]\nfile = 3\n')
def test_set_files_load_or_name_the_file(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("set")
    sqlite3.connect(folder / "main.sqlite").close()
    (folder / "questions.jsonl").write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    (folder / "set.toml").write_text(text, encoding="utf-8")
    try:
        load_question_set(folder, sets_dir=folder.parent, cache_dir=folder, check_gold=False)
    except QuestionSetError as exc:
        assert all(e.startswith(str(folder)) and one_line(e) for e in exc.errors), exc.errors


spider_records = st.lists(st.one_of(
    st.fixed_dictionaries({"question": st.text(max_size=30), "query": st.sampled_from(
        ["SELECT 1 AS n", "SELECT nope", "SELECT 1; DROP TABLE t", ""]),
        "db_id": st.just("shop")}, optional={"difficulty": record_values,
                                             "evidence": st.text(max_size=10)}),
    st.dictionaries(st.sampled_from(["question", "query", "SQL", "db_id", "x"]), record_values,
                    max_size=3)), max_size=4)


@FILES
@given(spider_records)
@example([{"question": "Sales\u2028by region\x85?", "query": "SELECT 1 AS n", "db_id": "shop"}])
@example([{"question": "   ", "query": "SELECT 1 AS n", "db_id": "shop"}])
def test_an_imported_set_loads_back_with_the_same_questions(tmp_path_factory, records):
    """Import a Spider-style dev.json: it is refused naming the record, or the set it writes
    loads back with every question's text as it was (the round trip a user relies on)."""
    from desktop_app.core.sqleval.importers import import_questions
    from desktop_app.report.question_words import note_text

    root = tmp_path_factory.mktemp("spider")
    (root / "db" / "shop").mkdir(parents=True)
    sqlite3.connect(root / "db" / "shop" / "shop.sqlite").close()
    dev = root / "dev.json"
    dev.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    try:
        report = import_questions(dev, root / "out", format="spider", db_dir=root / "db",
                                  name="fuzz")
    except QuestionSetError as exc:
        assert all(dev.name in e and one_line(e) for e in exc.errors), exc.errors
        return
    lines = [note_text(n, lang) for n in report.skipped for lang in ("en", "zh")]
    assert all(line.startswith("dev.json: record ") and one_line(line) for line in lines), lines
    qset = load_question_set(report.out_dir, sets_dir=root, cache_dir=root, check_gold=False)
    assert len(qset.questions) + len(report.skipped) == len(records)
    kept = [r for i, r in enumerate(records, start=1)
            if not any(n.where == f"dev.json: record {i}" for n in report.skipped)]
    for q, r in zip(qset.questions, kept):  # evidence, if any, follows as a hint
        assert q.text_en.split("\n\nHint: ")[0] == r["question"].strip()


# --------------------------------------------------------------------------- sweep files


SWEEP_KEYS = ["base_url", "model", "api", "input_tokens", "output_tokens", "concurrency",
              "request_rates", "requests_per_cell", "warmup", "cell_time_budget_s",
              "unique_prompts", "scrape_metrics", "ttft_target_s", "tpot_target_s", "name",
              "verify_tls", "metrics_interval_s", "api_key", "bogus"]
sweep_values = st.one_of(toml_scalars, st.lists(toml_scalars, max_size=3),
                         st.sampled_from(["http://127.0.0.1:9", "chat", "completions", "4k",
                                          [64, 128], [1, 2], 0.5]))


@FILES
@given(st.dictionaries(st.sampled_from(SWEEP_KEYS), sweep_values, max_size=5))
@example({"input_tokens": [64], "warmup": "two"})
@example({"input_tokens": [64], "base_url": 5})
@example({"input_tokens": [64], "api": "grpc"})
@example({"input_tokens": [64], "requests_per_cell": 1.5})
def test_a_sweep_file_runs_or_is_refused_in_one_line(tmp_path_factory, data):
    """`throughline throughput --config FILE` against a closed port: whatever the file holds,
    exit status 2 and one line naming what is wrong (a flag, the file's key or the endpoint)."""
    from desktop_app.cli import main

    path = tmp_path_factory.mktemp("sweep") / "sweep.toml"
    path.write_text(toml_doc(data), encoding="utf-8")
    argv = ["throughput", "--config", str(path), "--no-store"]
    if "base_url" not in data:
        argv += ["--base-url", "http://127.0.0.1:9"]
    with contextlib.redirect_stderr(io.StringIO()) as stderr:
        status = main(argv)
    err = stderr.getvalue()
    assert status == 2 and err.startswith("throughline throughput: "), err
    assert err.count("\n") == 1, err


# --------------------------------------------------------------------------- endpoint profiles


json_docs = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["profiles", "name", "base_url", "model", "engine", "version"])
        | st.text(max_size=3), inner, max_size=4), max_leaves=12)


@FILES
@given(st.one_of(json_docs.map(json.dumps), st.text(max_size=30)))
@example(json.dumps({"profiles": [{"name": "a", "base_url": "http://x"}, {"name": "a ",
                                                                        "base_url": "y"}]}))
def test_endpoint_profile_files_never_break_the_app(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("cfg") / "endpoints.json"
    path.write_text(text, encoding="utf-8")
    loaded = load_profiles(path)
    assert all(isinstance(p.name, str) and p.name.strip() and isinstance(p.base_url, str)
               for p in loaded.profiles)
    assert len({p.name for p in loaded.profiles}) == len(loaded.profiles)
    if loaded.problem is not None:
        assert "endpoints.json" in loaded.problem and one_line(loaded.problem)
        assert loaded.backup is not None and loaded.backup.read_bytes() == path.read_bytes()


names = st.text(alphabet=string.printable + "éü中", min_size=1, max_size=10).filter(str.strip)


@FILES
@given(st.lists(st.builds(EndpointProfile, names.map(str.strip), st.text(max_size=10),
                          st.text(max_size=5), st.text(max_size=5)),
                unique_by=lambda p: p.name, max_size=4))
def test_endpoint_profiles_round_trip(tmp_path_factory, profiles):
    path = tmp_path_factory.mktemp("cfg") / "endpoints.json"
    save_profiles(path, profiles)
    loaded = load_profiles(path)
    assert loaded.problem is None and list(loaded.profiles) == profiles


# --------------------------------------------------------------------------- not UTF-8


LATIN1 = "name = \"caf\xe9\"\n".encode("latin-1")  # a file saved in the wrong encoding


def test_every_file_loader_names_a_file_that_is_not_utf8(tmp_path):
    from desktop_app.core.exchange.detect import detect_and_read
    from desktop_app.core.exchange.errors import ExchangeError
    from desktop_app.core.simulator.profiles import load_profile
    from desktop_app.core.sqleval.importers import import_questions
    from desktop_app.core.throughput.config import load_sweep_toml

    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"# ok\n" + LATIN1)
    with pytest.raises(ProfileError, match=r"bad\.toml:2: not UTF-8"):
        load_profile(str(bad))
    with pytest.raises(InputError, match=r"bad\.toml: not UTF-8"):
        load_sweep_toml(bad)
    # A question set: set.toml, then questions.jsonl, each named with the line.
    qset = tmp_path / "qset"
    qset.mkdir()
    sqlite3.connect(qset / "main.sqlite").close()
    (qset / "set.toml").write_bytes(b"# ok\n" + LATIN1)
    with pytest.raises(QuestionSetError, match=r"set\.toml:2: not UTF-8"):
        load_question_set(qset, sets_dir=tmp_path, cache_dir=tmp_path, check_gold=False)
    (qset / "set.toml").write_text('[databases.main]\nfile = "main.sqlite"\n', encoding="utf-8")
    (qset / "questions.jsonl").write_bytes(json.dumps(GOOD).encode() + b"\n" + LATIN1)
    with pytest.raises(QuestionSetError, match=r"questions\.jsonl:2: not UTF-8"):
        load_question_set(qset, sets_dir=tmp_path, cache_dir=tmp_path, check_gold=False)
    # Importers of public sets and of other tools' results.
    dev = tmp_path / "dev.json"
    dev.write_bytes(b'[{"question": "caf\xe9"}]')
    with pytest.raises(QuestionSetError, match=r"dev\.json"):
        import_questions(dev, tmp_path / "out", format="spider", db_dir=tmp_path, name="x")
    csv_file = tmp_path / "q.csv"
    csv_file.write_bytes(b"question,query,db_name,query_category\ncaf\xe9,SELECT 1,x,y\n")
    sqlite3.connect(tmp_path / "x.sqlite").close()
    with pytest.raises(QuestionSetError, match=r"q\.csv: not UTF-8"):
        import_questions(csv_file, tmp_path / "out2", db_dir=tmp_path / "x.sqlite", name="x")
    result = tmp_path / "profile_export_aiperf.json"
    result.write_bytes(b'{"a": 1}\n' + LATIN1)
    with pytest.raises(ExchangeError, match=r"line 2: not UTF-8"):
        detect_and_read(result)
    # Saved endpoints: not an error the app dies of; the file is kept aside and named.
    endpoints = tmp_path / "endpoints.json"
    endpoints.write_bytes(LATIN1)
    loaded = load_profiles(endpoints)
    assert loaded.profiles == () and "endpoints.json" in loaded.problem
    assert loaded.backup.read_bytes() == LATIN1


@FILES
@given(st.binary(max_size=200) | json_docs.map(lambda d: json.dumps(d).encode()))
def test_imported_result_files_load_or_name_the_file(tmp_path_factory, data):
    from desktop_app.core.exchange.detect import detect_and_read
    from desktop_app.core.exchange.errors import ExchangeError

    path = tmp_path_factory.mktemp("imp") / "results.json"
    path.write_bytes(data)
    try:
        detect_and_read(path)
    except ExchangeError as exc:
        assert str(exc).startswith(str(path)) and one_line(str(exc)), repr(exc)


def test_imported_result_files_with_odd_keys_or_deep_nesting(tmp_path):
    from desktop_app.core.exchange.detect import detect_and_read
    from desktop_app.core.exchange.errors import ExchangeError

    for name, data in (("keys.json", b'{"a\\nb": 1}'), ("deep.json", b"[" * 100_000)):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ExchangeError) as info:
            detect_and_read(path)
        assert one_line(str(info.value))
