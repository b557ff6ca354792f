"""The Import... dialog of the SQL Agent page: a public question set in, with what was left out.

It calls the same `importers.import_questions` as `throughline questions import`, in a worker
thread (the golds run there), and lists every record skipped and every warning. Until Import
succeeds nothing is written; on success `imported` carries the new set's folder.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app import paths
from desktop_app.core.sqleval.importers import (
    FORMAT_NAMES,
    FORMATS,
    NothingImported,
    default_name,
    detect_format,
    import_questions,
)
from desktop_app.core.sqleval.questions import QuestionSetError
from desktop_app.gui.i18n import report_language
from desktop_app.report.question_words import note_text
from desktop_app.report.errors import error_text

log = logging.getLogger(__name__)


class ImportQuestionsDialog(QDialog):
    """Choose a source file, its databases (and gold results), a name; Import runs it."""

    imported = Signal(str)  # the new set's folder

    def __init__(self, parent: QWidget | None = None, *, sets_dir: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Import a question set"))
        self.sets_dir = sets_dir or paths.user_questions_dir()
        self.task: asyncio.Task | None = None
        self.source_edit = QLineEdit()
        self.source_edit.setPlaceholderText(self.tr("dev.json, spider2-lite.jsonl or a defog "
                                                    ".csv"))
        self.format_combo = QComboBox()
        self.format_combo.addItem(self.tr("detect from the file"), "auto")
        for fmt in FORMATS:
            self.format_combo.addItem(FORMAT_NAMES[fmt], fmt)
        self.db_edit = QLineEdit()
        self.db_edit.setPlaceholderText(self.tr("folder of <db>/<db>.sqlite or <db>.sqlite"))
        self.gold_edit = QLineEdit()
        self.gold_edit.setPlaceholderText(self.tr("Spider2-lite: folder of <id>_a.csv, ..."))
        self.db_name_edit = QLineEdit()
        self.db_name_edit.setPlaceholderText(self.tr("defog: only this db_name"))
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("from the file's name"))
        form = QFormLayout()
        form.addRow(self.tr("Questions file"), self._with_browse(self.source_edit, "file"))
        form.addRow(self.tr("Format"), self.format_combo)
        form.addRow(self.tr("Databases"), self._with_browse(self.db_edit, "dir"))
        form.addRow(self.tr("Gold results"), self._with_browse(self.gold_edit, "dir"))
        form.addRow(self.tr("Database name"), self.db_name_edit)
        form.addRow(self.tr("Set name"), self.name_edit)
        self.where_label = QLabel(self.tr("Imported sets are kept in {folder}.").format(
            folder=self.sets_dir))
        self.where_label.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setPlaceholderText(self.tr("What was imported, and every record left out "
                                               "with the reason, shows here."))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.import_button = self.buttons.addButton(self.tr("Import"),
                                                    QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.clicked.connect(self._on_import_clicked)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.where_label)
        layout.addWidget(self.progress)
        layout.addWidget(self.report, 1)
        layout.addWidget(self.buttons)
        self.resize(720, 520)

    def _with_browse(self, edit: QLineEdit, kind: str) -> QWidget:
        button = QPushButton(self.tr("Browse..."))
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(edit, 1)
        box.addWidget(button)

        def browse() -> None:
            if kind == "file":
                chosen, _ = QFileDialog.getOpenFileName(
                    self, self.tr("Questions file"), edit.text(),
                    self.tr("Question sets (*.json *.jsonl *.csv);;All files (*)"))
            else:
                chosen = QFileDialog.getExistingDirectory(self, self.tr("Folder"), edit.text())
            if chosen:
                edit.setText(chosen)

        button.clicked.connect(browse)
        return row

    def _path(self, edit: QLineEdit) -> Path | None:
        text = edit.text().strip()
        return Path(text).expanduser() if text else None

    def _on_import_clicked(self) -> None:
        source = self._path(self.source_edit)
        if source is None or not source.is_file():
            self.report.setPlainText(self.tr("Questions file: choose an existing file."))
            self.source_edit.setFocus()
            return
        self.task = asyncio.ensure_future(self._import(source))

    async def _import(self, source: Path) -> None:
        loop = asyncio.get_running_loop()
        fmt = str(self.format_combo.currentData())
        db_name = self.db_name_edit.text().strip() or None
        self.import_button.setEnabled(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)

        def on_progress(done: int, total: int) -> None:
            loop.call_soon_threadsafe(self._show_progress, done, total)

        # Read in the GUI thread: no widget is touched from the worker.
        typed_name = self.name_edit.text().strip()
        db_dir, gold_dir, sets_dir = self._path(self.db_edit), self._path(self.gold_edit), \
            self.sets_dir

        def work():
            chosen = detect_format(source) if fmt == "auto" else fmt
            name = typed_name or default_name(source, chosen, db_name)
            return import_questions(source, sets_dir / name, format=chosen, db_dir=db_dir,
                                    gold_dir=gold_dir, db_name=db_name, name=name,
                                    on_progress=on_progress)

        try:
            report = await asyncio.to_thread(work)
        except NothingImported as exc:
            self.report.setPlainText("\n".join(
                [self.tr("Nothing was imported:\n{error}").format(
                    error=self._refusal(exc))]
                + self._notes(exc.report)))
            return
        except QuestionSetError as exc:
            self.report.setPlainText(self.tr("Nothing was imported:\n{error}").format(
                error=self._refusal(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - shown, logged, the dialog stays usable
            log.exception("importing %s", source)
            self.report.setPlainText(self.tr("Nothing was imported: {error}").format(
                error=exc))
            return
        finally:
            try:
                self.import_button.setEnabled(True)
                self.progress.setVisible(False)
            except RuntimeError:  # the dialog closed meanwhile
                return
        lines = [self.tr("Imported {n} questions as the set {name} ({folder}).").format(
            n=report.imported, name=report.name, folder=report.out_dir),
            self.tr("Databases: {names}").format(names=", ".join(report.databases))]
        if report.other_databases:
            lines.append((self.tr("1 row for another database left out.")
                          if report.other_databases == 1 else
                          self.tr("{n} rows for other databases left out.")).format(
                n=report.other_databases))
        lines += self._notes(report)
        lines.append(self.tr("The questions do not name their output columns or rounding: "
                             "runs of this set are judged by full, column names ignored."))
        self.report.setPlainText("\n".join(lines))
        self.imported.emit(str(report.out_dir))

    def _refusal(self, exc: Exception) -> str:
        """The core's refusal in the UI's language, naming this dialog's fields where the
        command line's would name its flags."""
        params = getattr(exc, "params", None)
        if isinstance(params, dict):
            fields = {"format_flag": self.tr("the Format field"),
                      "db_flag": self.tr("Databases")}
            exc.params = {**params, **{k: v for k, v in fields.items() if k in params}}
        return error_text(exc, report_language())

    def _notes(self, report) -> list[str]:
        """The records skipped and the warnings, in the UI's language."""
        lang = report_language()
        lines = []
        if report.skipped:
            lines.append(self.tr("Skipped {n} records:").format(n=len(report.skipped)))
            folder = self.tr("the Databases folder")
            lines += [f"  {note_text(n, lang, folder)}" for n in report.skipped]
        if report.warnings:
            lines.append(self.tr("Warnings ({n}):").format(n=len(report.warnings)))
            lines += [f"  {note_text(n, lang)}" for n in report.warnings]
        return lines

    def _show_progress(self, done: int, total: int) -> None:
        try:
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)
        except RuntimeError:  # closed
            pass
