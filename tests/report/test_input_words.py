"""Input the core refuses is said in the reader's language: in the CLI (--lang, THROUGHLINE_LANG)
and in the window's form errors, with every code the core raises worded in both languages."""

import ast
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.urls import validate_base_url
from desktop_app.core.parsing import INPUT_MESSAGES, InputError, check_range, parse_float_list, parse_int_list
from desktop_app.core.endpoint.server_settings import parse_user_settings
from desktop_app.core.sqleval.runner import EvalConfig
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.report.input_words import FIELDS, WORDS, input_error_text
from tests.lang_check import english_runs

ROOT = Path(__file__).resolve().parents[2]


def _module_codes(path: Path) -> set[str]:
    """The strings of a module that are codes: where it passes a code held in a variable
    (`Phrase(kind)`, the kind looked up in a table), the codes it can hold are among them."""
    return {c.value for c in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(c, ast.Constant) and isinstance(c.value, str)
            and c.value in INPUT_MESSAGES}


def _raised_codes() -> set[str]:
    """Every `code=` given to an InputError anywhere in the product's source."""
    codes = set()
    for path in (ROOT / "desktop_app").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # InputError and the errors that carry its codes (their words are the same).
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                    "InputError", "ExchangeError", "ProfileError", "ResumeError", "FitError", "NothingImported",
                    "FaultSpecError", "SimulatorError", "SimulatorStartError", "WorkerError", "CellRefused",
                    "fail",  # simulator/profiles.py: a profile key refused, by its code
                    "_unknown")):  # exchange/detect.py's ExchangeError for an unknown file
                for kw in node.keywords:
                    if kw.arg == "code":
                        value = kw.value
                        if isinstance(value, ast.Constant):
                            codes.add(value.value)
                        elif isinstance(value, ast.IfExp):  # code="a" if ... else "b"
                            codes |= {value.body.value, value.orelse.value}
            # A part of a message said by its own code: Phrase("why_negative", ...).
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Phrase" \
                    and node.args:
                if isinstance(node.args[0], ast.Constant):
                    codes.add(node.args[0].value)
                else:  # Phrase(kind): a code held in a variable
                    codes |= _module_codes(path)
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "coded"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                codes.add(node.args[0].value)  # QuestionSetError.coded("no_set", ...)
            # A workload's record left out: Skipped(line, "code") / self.skip(line, "code").
            if (isinstance(node, ast.Call) and (getattr(node.func, "id", "") == "Skipped"
                                                or getattr(node.func, "attr", "") == "skip")
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
                codes.add(f"workload_skip_{node.args[1].value}")
            # The command line's own: cli_error(flag, "code", ...) raises "cli_<code>".
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "cli_error"
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
                codes.add(f"cli_{node.args[1].value}")
    # A file refused by core.files (LocalFileError), its code passed on as "file_<code>".
    from desktop_app.core.files import FILE_PROBLEMS

    return codes | {f"file_{c}" for c in FILE_PROBLEMS}


def test_every_code_the_core_raises_has_words_in_both_languages_and_no_word_is_unused():
    raised = _raised_codes()
    assert len(raised) >= 20
    worded = set(WORDS["en"]) - {"error"}
    assert raised - worded == set(), "codes raised without words"
    assert worded - raised == set(), "words no code uses"
    assert set(WORDS["zh"]) == set(WORDS["en"])


def _error(call) -> InputError:
    with pytest.raises(InputError) as caught:
        call()
    return caught.value


CASES = [
    lambda: parse_int_list("512, x", "concurrency"),
    lambda: parse_int_list("", "input tokens"),
    lambda: parse_int_list("0", "output tokens"),
    lambda: parse_int_list("9" * 30, "requests per cell"),
    lambda: parse_int_list("5000", "concurrency", max_value=4096),
    lambda: parse_float_list("abc", "time budget per cell"),
    lambda: parse_float_list("-1", "request rate"),
    lambda: check_range("time limit", float("nan"), 0, 86400, unit="s"),
    lambda: validate_base_url("localhost:8000"),
    lambda: validate_base_url("ftp://host/v1"),
    lambda: SweepConfig(EndpointConfig("http://h", model="m"), input_tokens=(512,),
                        concurrency=(1,), output_tokens=(32,), workers=0).validate(),
    lambda: SweepConfig(EndpointConfig("http://h", model=""), input_tokens=(512,),
                        concurrency=(1,), output_tokens=(32,)).validate(),
    lambda: SweepConfig(EndpointConfig("http://h", model="m"), input_tokens=(512,),
                        concurrency=(1,), output_tokens=(32,), ray="user:pw@host").validate(),
    # The forms' server settings, typed as KEY=VALUE.
    lambda: parse_user_settings("max-num-seqs=2, gpu-memory-utilization"),
    lambda: parse_user_settings("max-num-seqs=2, max_num_seqs=4"),
    lambda: parse_user_settings("=2"),
    # The SQL form: a tool mode, a time limit, whole numbers.
    lambda: EvalConfig(EndpointConfig("http://h", model="m"), tool_mode="json").validate(),
    lambda: EvalConfig(EndpointConfig("http://h", model="m"), time_limit_s=-1.0).validate(),
    lambda: EvalConfig(EndpointConfig("http://h", model="m"), epochs=0).validate(),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_a_refused_input_reads_the_same_in_english_and_wholly_in_chinese(case):
    exc = _error(CASES[case])
    assert input_error_text(exc, "en") == str(exc)  # the English words are the core's message
    zh = input_error_text(exc, "zh")
    assert english_runs(zh) == [], zh
    field = FIELDS["zh"].get(exc.field, exc.field)
    assert zh.startswith(field + "："), zh


def test_the_words_name_the_item_and_the_bounds():
    exc = _error(lambda: parse_int_list("512, x", "concurrency"))
    assert input_error_text(exc, "zh") == "并发数：'x' 不是整数（示例：512、2048、4k）"
    exc = _error(lambda: check_range("--time-limit", -1.0, 0, 86400, unit="s"))
    assert input_error_text(exc, "zh") == "--time-limit：-1 必须是大于 0 且不超过 86400 秒的数字"


def test_an_error_without_a_code_keeps_its_message():
    assert input_error_text(InputError("--x", "an English sentence"), "zh") == "--x: an English sentence"
    assert input_error_text(ValueError("plain"), "zh") == "plain"


def test_the_cli_says_a_bad_flag_in_the_language_asked(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "r.db"))
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["throughput", "--simulator", "fast"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == "throughline throughput: --input-tokens：请给出要测试的提示长度，例如 512,2048", err
    sweep = ["throughput", "--simulator", "fast", "--input-tokens", "512", "--concurrency"]
    assert main([*sweep, "1,x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == "throughline throughput: --concurrency：'x' 不是整数（示例：512、2048、4k）", err
    # A bound SweepConfig checks, said under the flag's name.
    assert main([*sweep, "100001"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("throughline throughput: --concurrency：100001 必须是 1 到 "), err
    assert main([*sweep, "1,x", "--lang", "en"]) == 2
    assert "'x' is not a whole number" in capsys.readouterr().err
    # A bad THROUGHLINE_LANG does not hide the error it came with.
    monkeypatch.setenv("THROUGHLINE_LANG", "fr")
    assert main(["sql", "--db", str(tmp_path / "none.db"), "--time-limit", "nan", "SELECT 1"]) == 2
    assert capsys.readouterr().err.strip()


@pytest.mark.parametrize("name, content, args, expected", [
    ("notes.json", "not json at all", [], "不是 JSON"),
    ("odd.json", '[{"x": 1}]', [], "无法判断格式"),
    ("dev.json", '{"question": "q"}', ["--format", "spider"], "应为题目的 JSON 列表"),
    ("dev.json", '[{"question": "q", "query": "SELECT 1", "db_id": "d"}]',
     ["--format", "spider"], "--db-dir：Spider 需要它"),
    ("dev.json", "[]", ["--format", "spider", "--name", "../x"], "--name：'../x' 不是题集名"),
])
def test_a_refused_question_import_is_said_in_chinese(capsys, monkeypatch, tmp_path, name,
                                                      content, args, expected):
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    assert main(["questions", "import", str(source), "--out", str(tmp_path / "set"),
                 *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert expected in err, err
    assert english_runs(err) == [], err


@pytest.mark.parametrize("make, expected", [
    (lambda d: d / "missing.json", "missing.json：文件不存在"),
    (lambda d: d, "：是文件夹，不是文件"),
])
def test_a_question_source_that_is_no_file_is_said_in_chinese(capsys, monkeypatch, tmp_path,
                                                              make, expected):
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    source = make(tmp_path)
    assert main(["questions", "import", str(source), "--out", str(tmp_path / "set")]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert expected in err, err
    assert english_runs(err) == [], err


@pytest.mark.parametrize("content, expected", [
    ('api_key = "sk-1"\n', "API 密钥不能写在文件里；请用 --api-key-env"),
    ('speed = 3\n', "未知的键（可用："),
    ('concurrency = true\n', '应为整数、整数列表或 "512,4k" 这样的文本，实际是 True'),
    ('warmup = "two"\n', "应为整数，实际是 'two'"),
    ('concurrency = [1,\n', "TOML 语法错误："),
])
def test_a_refused_sweep_file_is_said_in_chinese(capsys, monkeypatch, tmp_path, content,
                                                 expected):
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "r.db"))
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(content, encoding="utf-8")
    assert main(["throughput", "--simulator", "fast", "--config", str(sweep)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert expected in err, err
    said = err.split("（可用：")[0]  # the keys a sweep file knows are names, not words
    if "TOML" not in err:  # tomllib's own description of a syntax error stays as it said it
        assert english_runs(said) == [], err


def test_a_prompt_that_cannot_be_built_reads_in_chinese_and_never_shows_the_password():
    from desktop_app.core.parsing import Phrase
    from desktop_app.core.throughput.prompts import PromptError

    exc = PromptError("prompt_ask_http", target=512, what=Phrase("asker_tokenizer"),
                      url="http://user:hunter2@gpu-box:8000/tokenize", status=500,
                      body="boom")
    assert "hunter2" not in str(exc) and "HTTP 500" in str(exc)
    # The sweep names the field the length came from (throughput/sweep.py).
    refused = InputError("input tokens", code=exc.code, **exc.params)
    assert input_error_text(refused, "en") == str(refused)
    zh = input_error_text(refused, "zh")
    assert "分词器" in zh and "hunter2" not in zh, zh
    assert english_runs(zh) == [], zh


@pytest.mark.parametrize("profile, args, zh, en", [
    ("max_num_seqs = 0\n", [], "max_num_seqs：必须为正数，实际为 0", "max_num_seqs: must be positive, got 0"),
    ("speed = 3\n", [], "speed：未知的键（可用：", "speed: unknown key (known: "),
    ("max_model_len = 9000\nkv_cache_tokens = 4000\n", [], "不得超过 kv_cache_tokens（4000）",
     "must not exceed kv_cache_tokens (4000)"),
    ("", ["--faults", "reset=0.7,http429=0.6"], "故障概率之和为 1.3", "fault probabilities add up to 1.3"),
    ("", ["--faults", "reset=x"], "故障 'reset=x'：概率必须是数字", "fault 'reset=x': probability must be a number"),
    ("", ["--faults", "seed=-1"], "故障选项 'seed=-1'：必须是非负整数", "must be a non-negative integer"),
    ("", ["--faults", "boom=0.1"], "故障 'boom' 未知", "unknown fault 'boom'"),
    ("", ["--port", "70000"], "--port：70000 不是端口号", "--port: 70000 is not a port number"),
])
def test_the_simulators_refusals_are_said_in_the_language_asked(capsys, monkeypatch, tmp_path,
                                                                profile, args, zh, en):
    """`throughline sim`: a profile file, a fault spec or a port refused, in Chinese wholly and in
    the English it said before (the simulator's profile and faults carry codes, #27)."""
    path = tmp_path / "p.toml"
    path.write_text(profile, encoding="utf-8")
    for lang, expected in (("zh", zh), ("en", en)):
        monkeypatch.setenv("THROUGHLINE_LANG", lang)
        assert main(["sim", "--profile", str(path), *args]) == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert expected in err, err
        if lang == "zh":
            assert english_runs(err.split("（可用：")[0], allowed=(str(path),)) == [], err


def test_a_busy_port_and_a_whatif_set_without_a_fit_are_said_in_chinese(capsys, monkeypatch):
    import socket

    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["sim", "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"throughline sim: 127.0.0.1 上的端口 {port} 已被占用", err
    assert main(["whatif", "--set", "max-num-seqs=2", "--input-tokens", "512",
                 "--concurrency", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == "throughline whatif: --set：仅可与 --from-run RUN_ID（拟合的模型）一起使用", err
