"""Every command's --help in Chinese (#27): each help text the commands give argparse has its
Chinese in report/cli_help_words.HELP_ZH (argparse's own words are cli_words.ARGPARSE_ZH),
no entry there is stale, and `throughline --lang zh <command> --help` leaves no English
sentence, wrapped to the terminal's columns (a Han character is two)."""

import argparse

import pytest

from desktop_app.cli import COMMANDS, build_parser, localise_argparse, main
from desktop_app.cli.help_format import columns, wrap_wide
from desktop_app.report.cli_help_words import HELP_ZH, help_texts
from desktop_app.report.cli_words import ARGPARSE_ZH
from tests.lang_check import english_runs


# Lists of names the user types as they are (judges, strategies), not words.
CODE_LISTS = ("strict,tolerant,full,test-suite,bird,spider2",
              "format-guard,examples,glossary,validate-retry,layered")


def _english_texts() -> set[str]:
    # argparse's own words are looked up when the parser is built: in English, as a command
    # run earlier in this process with --lang zh may have left them Chinese.
    localise_argparse("en")
    parser = build_parser()
    return {text for obj, attr in help_texts(parser)
            if isinstance(text := getattr(obj, attr, None), str) and text != argparse.SUPPRESS}


def test_every_help_text_has_chinese_and_every_entry_is_used():
    texts = _english_texts()
    assert sorted(t for t in texts if t not in HELP_ZH and t not in ARGPARSE_ZH) == []
    assert sorted(set(HELP_ZH) - texts) == []


@pytest.mark.parametrize("command", [c.rstrip("_") for c in COMMANDS] + [None])
def test_help_reads_in_chinese_and_fits_the_terminal(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        main(["--lang", "zh", *([command] if command else []), "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    examples = out.find("throughline demo --out demo")  # the top page's examples keep lines
    wrapped = out[:examples] if examples >= 0 else out
    described = wrapped.split("\n\n", 1)[1]  # after the usage lines: argparse's syntax
    assert english_runs(described, allowed=CODE_LISTS) == [], command
    assert max(columns(line) for line in wrapped.splitlines()) <= 80, command


def test_a_long_chinese_line_is_wrapped_by_columns_and_never_inside_an_option():
    lines = wrap_wide("每个单元的秒数上限：届时仍在途的请求被截断 --time-budget 与 "
                      "max(4 x 并发数, 8) 个请求", 20)
    assert all(columns(line) <= 20 for line in lines)
    assert any("--time-budget" in line for line in lines)  # kept whole
    assert "".join(lines).replace(" ", "") == ("每个单元的秒数上限：届时仍在途的请求被截断"
                                               "--time-budget与max(4x并发数,8)个请求")
