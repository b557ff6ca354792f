"""The diagnosis pane: a sweep's findings in the order the core's `diagnose` gives them
(severity, then importance), one line each (its first sentence) with the severity's colour and
icon; the rest of the message, the suggestion (with the effect the model fitted to the run
predicts for it, when the run has one) and the figures behind it fold out beneath, so a long
finding never pushes the next one out of sight. The words are `report/diagnosis_words.py`'s,
in the UI's language."""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.throughput.types import Finding
from desktop_app.gui.i18n import report_language, translate
from desktop_app.report.diagnosis_words import finding_text, findings_text, suggestion_parts
from desktop_app.report.evidence_words import evidence_rows

SEVERITY_COLORS = {"problem": QColor("#b3261e"), "warning": QColor("#9a5b00"),
                   "info": QColor("#3465a4")}
SEVERITY_ICONS = {"problem": QStyle.StandardPixmap.SP_MessageBoxCritical,
                  "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
                  "info": QStyle.StandardPixmap.SP_MessageBoxInformation}
SEVERITY_NAMES = {"problem": QT_TRANSLATE_NOOP("DiagnosisView", "Problem"),
                  "warning": QT_TRANSLATE_NOOP("DiagnosisView", "Warning"),
                  "info": QT_TRANSLATE_NOOP("DiagnosisView", "Info")}
# The end of the first sentence: ". " before a capital or a bracket ("e.g. vLLM" and "2.5 s"
# do not end one), or a Chinese full stop before more text.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|(?<=。)\s*(?=\S)")


def headline(message: str) -> tuple[str, str]:
    """A finding's message as (its first sentence, the rest)."""
    parts = _SENTENCE_END.split(message.strip(), maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def _add_evidence(parent: QTreeWidgetItem, entries: list[tuple[str, list]]) -> None:
    for text, children in entries:
        _add_evidence(QTreeWidgetItem(parent, [text]), children)


class _WrapDelegate(QStyledItemDelegate):
    """Rows as tall as their text wrapped to the width the view gives them: QTreeView's own
    word wrap keeps every row one line high (the text was cut instead)."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self._tree = tree

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        base = super().sizeHint(option, index)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        depth, parent = 1, index.parent()
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        icon = opt.decorationSize.width() + 8 if not opt.icon.isNull() else 0
        width = max(self._tree.viewport().width() - self._tree.indentation() * depth - icon - 12,
                    80)
        text = opt.fontMetrics.boundingRect(QRect(0, 0, width, 1_000_000),
                                            int(Qt.TextFlag.TextWordWrap), opt.text)
        return QSize(base.width(), max(base.height(), text.height() + 6))


class _WrappingTree(QTreeWidget):
    """A tree whose rows are laid out again when its width changes (their heights follow)."""

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()


class DiagnosisView(QWidget):
    """The findings of a sweep as a list of headlines whose details fold out (click a
    headline, or its arrow). `toPlainText()` gives the diagnosis as the CLI prints it."""

    def __init__(self, parent: QWidget | None = None, lang: str | None = None) -> None:
        super().__init__(parent)
        self._lang = lang  # None: the UI's language when findings are shown
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #5b5f66;")
        self.note.hide()
        self.tree = _WrappingTree()
        self.tree.setItemDelegate(_WrapDelegate(self.tree))
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        # Each line wraps to the pane's width, so a suggestion and its predicted effect read
        # whole (they ended in "..." even at 1600 px): the one column takes the viewport's
        # width and nothing is elided.
        self.tree.setWordWrap(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.tree.header().setStretchLastSection(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.setUniformRowHeights(False)
        self.tree.setRootIsDecorated(True)
        self.tree.setExpandsOnDoubleClick(False)
        self.tree.itemClicked.connect(self._on_tree_item_clicked)
        self.placeholder = QLabel(self.tr("The diagnosis appears when a sweep finishes."))
        self.placeholder.setStyleSheet("color: #5b5f66;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.tree, 1)
        self.findings: tuple[Finding, ...] = ()
        self.lang = lang or "en"
        self._text = ""
        self.clear()

    def clear(self) -> None:
        self.findings = ()
        self._text = ""
        self.tree.clear()
        self.note.clear()
        self.note.hide()
        self.tree.hide()
        self.placeholder.show()

    def set_findings(self, findings: Sequence[Finding] | None, note: str = "") -> None:
        """Show `findings` in their order (the core's: severity, then importance), with `note`
        above them; None shows only the note (a diagnosis that could not be made)."""
        self.clear()
        self.findings = tuple(findings or ())
        self.lang = self._lang or report_language()
        text = findings_text(self.findings, self.lang) if findings is not None else ""
        self._text = f"{note}\n\n{text}" if note and text else (note or text)
        if note:
            self.note.setText(note)
            self.note.show()
        if findings is None:
            return
        self.placeholder.hide()
        self.tree.show()
        if not self.findings:
            item = QTreeWidgetItem([self.tr("Nothing stands out.")])
            item.setIcon(0, self.style().standardIcon(
                QStyle.StandardPixmap.SP_DialogApplyButton))
            self.tree.addTopLevelItem(item)
            return
        for finding in self.findings:
            self.tree.addTopLevelItem(self._item(finding))

    def toPlainText(self) -> str:  # noqa: N802 - the QPlainTextEdit it replaces named it so
        """The diagnosis as text (the note, then the findings as `findings_text` numbers
        them)."""
        return self._text

    def headlines(self) -> list[str]:
        """The top-level lines as shown, in order."""
        return [self.tree.topLevelItem(i).text(0) for i in range(self.tree.topLevelItemCount())]

    def _item(self, finding: Finding) -> QTreeWidgetItem:
        message = finding_text(finding, self.lang)
        first, rest = headline(message)
        severity = translate("DiagnosisView", SEVERITY_NAMES.get(finding.severity,
                                                                 finding.severity))
        colon = "：" if self.lang == "zh" else ": "  # a full-width colon after Chinese words
        item = QTreeWidgetItem([f"{severity}{colon}{first}"])
        item.setData(0, Qt.ItemDataRole.UserRole, finding.code)
        color = SEVERITY_COLORS.get(finding.severity, QColor("#333333"))
        item.setForeground(0, QBrush(color))
        if finding.severity == "problem":
            font = item.font(0)
            font.setBold(True)
            item.setFont(0, font)
        icon = SEVERITY_ICONS.get(finding.severity)
        if icon is not None:
            item.setIcon(0, self.style().standardIcon(icon))
        item.setToolTip(0, message)
        details = []
        if rest:
            details.append(rest)
        # The effect the model fitted to the run predicts gets a line of its own under the
        # suggestion (a suggestion it withdraws says so itself).
        suggestion, effect = suggestion_parts(finding, self.lang)
        if suggestion:
            details.append(self.tr("Suggestion: {text}").format(text=suggestion))
        if effect:
            details.append(effect)
        for text in details:
            QTreeWidgetItem(item, [text])
        lines = evidence_rows(finding.evidence, self.lang)
        if lines:
            evidence = QTreeWidgetItem(item, [self.tr("Evidence ({code})").format(
                code=finding.code)])
            _add_evidence(evidence, lines)
        return item

    def _on_tree_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.childCount():
            item.setExpanded(not item.isExpanded())
