"""A read-only view of SQL text with syntax highlighting (keywords, strings, numbers, comments)."""

from __future__ import annotations

import re

from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QWidget

# The words a reader scans for; SQLite's full keyword list would colour column names like "key".
KEYWORDS = (
    "select", "from", "where", "group", "by", "order", "having", "limit", "offset", "join",
    "inner", "left", "right", "full", "outer", "cross", "on", "using", "as", "and", "or", "not",
    "in", "is", "null", "like", "glob", "between", "exists", "case", "when", "then", "else",
    "end", "distinct", "all", "union", "intersect", "except", "with", "recursive", "asc", "desc",
    "over", "partition", "rows", "range", "unbounded", "preceding", "following", "current",
    "row", "cast", "values", "filter", "window", "nulls", "first", "last", "explain", "pragma",
    "insert", "update", "delete", "into", "set", "create", "table", "view", "index", "drop",
    "alter", "attach", "true", "false",
)
FUNCTIONS = (
    "round", "sum", "avg", "count", "min", "max", "total", "abs", "coalesce", "ifnull",
    "nullif", "substr", "substring", "length", "lower", "upper", "trim", "replace", "printf",
    "strftime", "date", "datetime", "julianday", "lag", "lead", "row_number", "rank",
    "dense_rank", "ntile", "first_value", "last_value", "group_concat", "iif", "instr",
)

KEYWORD_COLOR = QColor("#1f4fbf")
FUNCTION_COLOR = QColor("#7a3e9d")
STRING_COLOR = QColor("#a3412a")
NUMBER_COLOR = QColor("#0b7a5c")
COMMENT_COLOR = QColor("#7c8088")


def _format(color: QColor, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(color)
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


class SqlHighlighter(QSyntaxHighlighter):
    """Colours SQL keywords, function names, 'strings', numbers and -- or /* */ comments."""

    _WORDS = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*\b")
    _NUMBER = re.compile(r"(?<![\w.])(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)\b")
    _STRING = re.compile(r"'(?:[^']|'')*'?")
    _LINE_COMMENT = re.compile(r"--[^\n]*")
    _IN_COMMENT = 1  # block state: inside /* ... */

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._keyword = _format(KEYWORD_COLOR, bold=True)
        self._function = _format(FUNCTION_COLOR)
        self._string = _format(STRING_COLOR)
        self._number = _format(NUMBER_COLOR)
        self._comment = _format(COMMENT_COLOR, italic=True)
        self._keywords = frozenset(KEYWORDS)
        self._functions = frozenset(FUNCTIONS)

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        for match in self._WORDS.finditer(text):
            word = match.group().lower()
            if word in self._keywords:
                self.setFormat(match.start(), len(match.group()), self._keyword)
            elif word in self._functions:
                self.setFormat(match.start(), len(match.group()), self._function)
        for match in self._NUMBER.finditer(text):
            self.setFormat(match.start(), len(match.group()), self._number)
        # Strings and comments last: they override whatever matched inside them.
        for match in self._STRING.finditer(text):
            self.setFormat(match.start(), len(match.group()), self._string)
        for match in self._LINE_COMMENT.finditer(text):
            if not self._inside_string(text, match.start()):
                self.setFormat(match.start(), len(text) - match.start(), self._comment)
        self._block_comments(text)

    def _inside_string(self, text: str, position: int) -> bool:
        return any(m.start() < position < m.end() for m in self._STRING.finditer(text))

    def _block_comments(self, text: str) -> None:
        self.setCurrentBlockState(0)
        if self.previousBlockState() == self._IN_COMMENT:
            start, search_from = 0, 0
        else:
            start = text.find("/*")
            search_from = start + 2
        while start >= 0:
            end = text.find("*/", search_from)
            if end < 0:
                self.setCurrentBlockState(self._IN_COMMENT)
                self.setFormat(start, len(text) - start, self._comment)
                return
            self.setFormat(start, end + 2 - start, self._comment)
            start = text.find("/*", end + 2)
            search_from = start + 2


class SqlView(QPlainTextEdit):
    """Read-only, monospaced, highlighted SQL; optionally as tall as its text (up to a limit)."""

    def __init__(self, sql: str = "", *, fit_lines: int | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.highlighter = SqlHighlighter(self.document())
        self._fit_lines = fit_lines
        self.set_sql(sql)

    def set_sql(self, sql: str | None) -> None:
        """Show `sql` (None shows nothing)."""
        self.setPlainText(sql or "")
        if self._fit_lines is not None:
            self._fit()

    def sql(self) -> str:
        return self.toPlainText()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._fit_lines is not None:
            self._fit()  # the width decides how many lines the wrapped text takes

    def _fit(self) -> None:
        # QPlainTextDocumentLayout reports its height in (wrapped) lines.
        lines = int(self.document().documentLayout().documentSize().height()) or 1
        shown = max(1, min(lines, self._fit_lines or lines))
        margins = self.contentsMargins()
        height = (self.fontMetrics().lineSpacing() * shown + 2 * self.document().documentMargin()
                  + margins.top() + margins.bottom() + 2)
        if self.height() != int(height):
            self.setFixedHeight(int(height))
