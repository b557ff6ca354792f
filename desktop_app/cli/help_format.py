"""argparse's help wrapped by terminal columns: a Han character takes two (textwrap counts
one, so Chinese help ran past the terminal's edge), and a run of Latin text (an option, a
path, a number) is never broken. No words here: report/cli_help_words holds the Chinese."""

from __future__ import annotations

import argparse
import re
import unicodedata

__all__ = ["WideHelpFormatter", "WideRawDescriptionFormatter", "columns", "wrap_wide"]

# A run of Latin text (an option, a path, a number) is never broken; a Han character or a
# full-width mark may end a line after it.
_PIECE = re.compile(r"\s+|[\x21-\x7e]+|.")


def columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def wrap_wide(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` terminal columns, a Han character counting two
    (textwrap counts one, so Chinese help ran past the terminal's edge)."""
    lines, line, used = [], "", 0
    for piece in _PIECE.findall(" ".join(text.split())):
        size = columns(piece)
        if piece.isspace():
            if line:
                line, used = line + " ", used + 1
            continue
        if line and used + size > width:
            lines.append(line.rstrip())
            line, used = "", 0
        line, used = line + piece, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines


class WideHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, wrapping by terminal columns (`wrap_wide`)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_wide(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap_wide(text, width - len(indent)))


class WideRawDescriptionFormatter(argparse.RawDescriptionHelpFormatter):
    """For the top page: a text of several lines (the examples) keeps its lines, a one-line
    text (the description) and each argument's help are wrapped by terminal columns."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_wide(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text.strip():
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap_wide(text, width - len(indent)))


