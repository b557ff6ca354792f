"""After an export: buttons that open the file written, or the folder it is in."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)


def open_path(path: Path) -> bool:
    """Open a file or folder with the system's application for it; False when the desktop
    has none (Qt then only prints "Unable to detect a launcher" to the terminal)."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


def written_folder(paths: Sequence[Path]) -> Path | None:
    """The folder holding everything written: a file's folder, or the common one of many."""
    if not paths:
        return None
    if len(paths) == 1:
        return Path(paths[0]).parent
    return Path(os.path.commonpath([str(Path(p).parent) for p in paths]))


class OpenResultBar(QWidget):
    """A line with "Open file" (when one file was written) and "Open folder"; hidden until
    `show_paths` is called. `text`, when given, is shown before the buttons."""

    def __init__(self, parent: QWidget | None = None, *, closable: bool = False) -> None:
        super().__init__(parent)
        self.file: Path | None = None
        self.folder: Path | None = None
        self.label = QLabel()
        self.label.hide()
        self.open_file_button = QPushButton(self.tr("Open file"))
        self.open_folder_button = QPushButton(self.tr("Open folder"))
        self.open_file_button.clicked.connect(self._on_open_file_clicked)
        self.open_folder_button.clicked.connect(self._on_open_folder_clicked)
        # Where nothing on this desktop opens the path, the bar says so and offers the path
        # to copy (the buttons did nothing, silently).
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #9a5b00;")
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problem.hide()
        self.copy_button = QPushButton(self.tr("Copy path"))
        self.copy_button.clicked.connect(self._on_copy_clicked)
        self.copy_button.hide()
        self._failed: Path | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        layout = QHBoxLayout()
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        outer.addLayout(layout)
        problem_row = QHBoxLayout()
        problem_row.setContentsMargins(0, 0, 0, 0)
        problem_row.addWidget(self.problem, 1)
        problem_row.addWidget(self.copy_button)
        outer.addLayout(problem_row)
        layout.addWidget(self.label)
        layout.addWidget(self.open_file_button)
        layout.addWidget(self.open_folder_button)
        self.close_button: QToolButton | None = None
        if closable:
            self.close_button = QToolButton()
            self.close_button.setText("✕")
            self.close_button.setAutoRaise(True)
            self.close_button.setToolTip(self.tr("Dismiss"))
            self.close_button.clicked.connect(self.hide)
            layout.addWidget(self.close_button)
        self.hide()

    def show_paths(self, paths: Sequence[Path], text: str = "") -> None:
        """Offer to open what was written (`paths`: the files; a single one can be opened)."""
        paths = [Path(p) for p in paths]
        self.file = paths[0] if len(paths) == 1 else None
        self.folder = written_folder(paths)
        self.label.setText(text)
        self.label.setVisible(bool(text))
        self.open_file_button.setVisible(self.file is not None)
        self.open_folder_button.setVisible(self.folder is not None)
        self.setToolTip(str(self.file or self.folder or ""))
        self._set_problem(None)
        self.setVisible(self.folder is not None)

    def _on_open_file_clicked(self) -> None:
        if self.file is not None:
            self._open(self.file)

    def _on_open_folder_clicked(self) -> None:
        if self.folder is not None:
            self._open(self.folder)

    def _open(self, path: Path) -> None:
        self._set_problem(None if open_path(path) else path)

    def _set_problem(self, path: Path | None) -> None:
        self._failed = path
        if path is not None:
            self.problem.setText(self.tr(
                "Nothing on this desktop opens it (no program is set for files or folders): "
                "{path}").format(path=path))
        self.problem.setVisible(path is not None)
        self.copy_button.setVisible(path is not None)

    def _on_copy_clicked(self) -> None:
        if self._failed is not None:
            QGuiApplication.clipboard().setText(str(self._failed))
