"""The What-if panel of the Throughput page: the engine model fitted to a sweep (`core.fit`),
its settings as fields, how well it fits, the predicted curves over the measured ones and the
change per cell.

The fit and the predictions run in `WhatifController` (a process, a thread); this widget only
shows what it reports. A field takes what `throughline whatif --set` takes, parsed by the same
core function (`core.fit.parse_changes`); an empty field keeps the fitted value.
"""

from __future__ import annotations

import math
from collections import defaultdict

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

import pyqtgraph as pg  # after PySide6, so it binds to it

from desktop_app.report.fmt import change
from desktop_app.core.fit import CHANGEABLE, CellWhatif, FitParam, parse_changes
from desktop_app.core.parsing import InputError
from desktop_app.gui.i18n import report_language
from desktop_app.report.input_words import input_error_text
from desktop_app.gui.controllers.throughput import FittedRun, WhatifController
from desktop_app.gui.widgets.fields import ERROR_STYLE, add_checked_field
from desktop_app.gui.widgets.live_chart import PALETTE, tick_label
from desktop_app.gui.widgets.chart_titles import set_fitted_title

_ERROR_STYLE = ERROR_STYLE
_FIGURES = (  # chart key, title, how a cell summary gives it, y units
    ("ttft", "TTFT p50", lambda s: s.ttft_s and s.ttft_s.p50, "s"),
    ("prefill", "Prefill tok/s", lambda s: s.prefill_tps and s.prefill_tps.mean, None),
    ("decode", "Decode tok/s", lambda s: s.decode_tps and s.decode_tps.mean, None),
)


def _change(before: float | None, after: float | None) -> str:
    if not before or after is None:
        return "-"
    return change(after / before - 1, "")


def _pct(value: float | None) -> str:
    return "-" if value is None else change(value, "")


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


class WhatifPanel(QWidget):
    """A fitted sweep: settings to change, the fit's goodness and unidentified parameters, the
    measured (solid) and predicted (dashed) curves, and the change per cell."""

    def __init__(self, controller: WhatifController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._run: tuple[int, object] | None = None  # (run id, ThroughputRun or None)
        self._fitted_id: int | None = None
        self._edits: dict[str, QLineEdit] = {}
        self._errors: dict[str, QLabel] = {}
        self._predicted: dict[tuple[str, int], list[float]] = {}

        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()  # shown, moving, while the controller fits or predicts
        self.status_label = QLabel(self.tr(
            "No sweep yet: finish one, or open one from the Runs page."))
        self.status_label.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.progress)
        top.addWidget(self.status_label, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._build_side())
        splitter.addWidget(self._build_results())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([290, 800])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

        controller.busy_changed.connect(self._on_controller_busy_changed)
        controller.fitted.connect(self._on_controller_fitted)
        controller.predicted.connect(self._on_controller_predicted)
        controller.failed.connect(self._on_controller_failed)
        self._update_buttons()

    # ---- building

    def _build_side(self) -> QWidget:
        box = QGroupBox(self.tr("Engine settings"))
        form = QFormLayout(box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        tips = {
            "max_num_seqs": self.tr("requests the server runs at once (--parallel on "
                                    "llama.cpp, --max-running-requests on SGLang)"),
            "max_num_batched_tokens": self.tr("tokens one engine step may take (chunked "
                                              "prefill budget; --ubatch-size on llama.cpp)"),
            "kv_capacity": self.tr("KV cache in tokens, or a factor of the fitted one: x1.5"),
        }
        for key in CHANGEABLE:
            edit = QLineEdit()
            edit.setToolTip(tips[key])
            edit.textChanged.connect(self._on_field_changed)
            edit.returnPressed.connect(self._on_predict_clicked)
            self._edits[key], self._errors[key] = edit, add_checked_field(form, key, edit)
        self.predict_button = QPushButton(self.tr("Predict"))
        self.predict_button.clicked.connect(self._on_predict_clicked)
        self.suggest_button = QPushButton()
        self.suggest_button.clicked.connect(self._on_suggest_clicked)
        self.suggest_button.hide()
        form.addRow(self.predict_button)
        form.addRow(self.suggest_button)

        fit_box = QGroupBox(self.tr("How well the model fits"))
        fit_layout = QVBoxLayout(fit_box)
        self.fit_label = QLabel("-")
        self.fit_label.setWordWrap(True)
        self.fit_label.setTextFormat(Qt.TextFormat.RichText)
        self.params_label = QLabel()
        self.params_label.setWordWrap(True)
        self.params_label.setTextFormat(Qt.TextFormat.RichText)
        fit_layout.addWidget(self.fit_label)
        fit_layout.addWidget(self.params_label)

        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(0, 0, 4, 0)
        column.addWidget(box)
        column.addWidget(fit_box)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(inner)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(250)
        return scroll

    def _build_results(self) -> QWidget:
        self.charts: dict[str, pg.PlotWidget] = {}
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        titles = {"ttft": "TTFT p50", "prefill": self.tr("Prefill tok/s per request"),
                  "decode": self.tr("Decode tok/s per request")}
        for i, (key, _title, _get, units) in enumerate(_FIGURES):
            plot = pg.PlotWidget(background="w")
            set_fitted_title(plot, titles[key], point_size=9)
            plot.setLabel("bottom", self.tr("concurrency"))
            plot.setLabel("left", "TTFT" if key == "ttft" else "tok/s", units=units)
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.setLogMode(x=True, y=False)
            plot.setMenuEnabled(False)
            plot.getAxis("bottom").enableAutoSIPrefix(False)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTextPen("#333")
                plot.getAxis(axis).setPen("#888")
            plot.addLegend(offset=(4, 2), labelTextColor="#222",
                           brush=pg.mkBrush(255, 255, 255, 200), colCount=3)
            plot.setMinimumSize(180, 150)
            grid.addWidget(plot, 0, i)
            self.charts[key] = plot
        self.legend_note = QLabel(self.tr(
            "Solid: measured. Dashed: predicted by the fitted model with the settings on the "
            "left (simulated in virtual time). One line per prompt length (tokens)."))
        self.legend_note.setWordWrap(True)
        self.legend_note.setStyleSheet("color: #555;")
        # The three charts keep a readable width and scroll sideways in a narrow window: at
        # 1024 px they shrank their titles to "T" and held the window 1,304 px wide.
        row = QWidget()
        row.setLayout(grid)
        row_scroll = QScrollArea()
        row_scroll.setWidget(row)
        row_scroll.setWidgetResizable(True)
        row_scroll.setFrameShape(QFrame.Shape.NoFrame)
        row_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        row_scroll.setMinimumSize(200, row.minimumSizeHint().height())
        self.charts_scroll = row_scroll
        charts = QWidget()
        column = QVBoxLayout(charts)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(row_scroll, 1)
        column.addWidget(self.legend_note)
        # Said beside a prediction resting on a batch the sweep never ran (Fit.extrapolated_batch).
        self.extrapolated_label = QLabel()
        self.extrapolated_label.setWordWrap(True)
        self.extrapolated_label.setStyleSheet("color: #a04000;")
        self.extrapolated_label.hide()
        column.addWidget(self.extrapolated_label)

        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        headers = [self.tr("input"), self.tr("load"), self.tr("fit TTFT"),
                   self.tr("fit prefill"), self.tr("fit decode"), "TTFT p50 s", "",
                   "Prefill tok/s", "", "Decode tok/s", "", self.tr("Output tok/s"), ""]
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        tip = self.tr("fitted model against measured: predicted / measured - 1")
        for col in (2, 3, 4):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        for col in (5, 7, 9, 11):
            self.table.horizontalHeaderItem(col).setToolTip(self.tr(
                "the fitted model as measured -> with the settings changed"))
        for col in (6, 8, 10, 12):
            self.table.setHorizontalHeaderItem(col, QTableWidgetItem(self.tr("change")))

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(charts)
        splitter.addWidget(self.table)
        splitter.setSizes([300, 220])
        return splitter

    # ---- what to fit

    def set_run(self, run_id: int | None, stored: object | None = None) -> None:
        """Fit sweep `run_id` (`stored`: its ThroughputRun, when read already) the next time
        the panel is shown, or now if it is; None clears the panel."""
        if run_id is None:
            self._run, self._fitted_id = None, None
            self._show_nothing()
            return
        if run_id == self._fitted_id and stored is None:
            return
        self._run, self._fitted_id = (run_id, stored), None
        self._show_nothing()
        self.status_label.setText(self.tr(
            "Run {run}: open this tab to fit the engine model to it.").format(run=run_id))
        if self.isVisible():
            self._fit_now()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._run is not None and self._fitted_id is None:
            self._fit_now()

    def _fit_now(self) -> None:
        run_id, stored = self._run
        self._fitted_id = run_id
        self.status_label.setStyleSheet("")
        self.status_label.setText(self.tr(
            "Fitting the engine model to run {run}: every cell is simulated in virtual "
            "time...").format(run=run_id))
        self.controller.fit_run(run_id, stored)

    def _show_nothing(self) -> None:
        for plot in self.charts.values():
            plot.clear()
        self.table.setRowCount(0)
        self.fit_label.setText("-")
        self.params_label.clear()
        self.suggest_button.hide()

    # ---- fields

    def changes(self) -> tuple[dict, dict[str, str]]:
        """The fields parsed as `--set` parses them: (changes, error by field key)."""
        changes: dict = {}
        errors: dict[str, str] = {}
        for key, edit in self._edits.items():
            text = edit.text().strip()
            if not text:
                continue
            try:
                changes.update(parse_changes([f"{key}={text}"]))
            except InputError as exc:  # said under the field's own name
                errors[key] = input_error_text(
                    InputError(key, code=exc.code, **exc.params), report_language())
        return changes, errors

    def _on_field_changed(self, *_args) -> None:
        _changes, errors = self.changes()
        for key, label in self._errors.items():
            label.setText(errors.get(key, ""))
            label.setVisible(key in errors)
        self._update_buttons()

    def _update_buttons(self) -> None:
        _changes, errors = self.changes()
        self.predict_button.setEnabled(self.controller.current is not None and not errors)

    def _on_predict_clicked(self) -> None:
        changes, errors = self.changes()
        if errors or self.controller.current is None:
            return
        self._last_changes = changes
        self.controller.predict(changes)

    def _on_suggest_clicked(self) -> None:
        fitted = self.controller.current
        if fitted is None:
            return
        for key, value in fitted.suggested.items():
            if key in self._edits:
                self._edits[key].setText(f"{value:g}")
        self._on_predict_clicked()

    # ---- what the controller says

    def _on_controller_busy_changed(self, busy: bool) -> None:
        self.progress.setRange(0, 0 if busy else 1)
        self.progress.setVisible(busy)
        self._update_buttons()

    def _on_controller_failed(self, message: str) -> None:
        self.status_label.setText(self.tr("The model cannot be fitted to this run: {reason}")
                                  .format(reason=message))
        self.status_label.setStyleSheet(_ERROR_STYLE)

    def _on_controller_fitted(self, fitted: FittedRun) -> None:
        fit = fitted.fit
        self.status_label.setStyleSheet("")
        self.status_label.setText(self.tr(
            "Run {run}: {name}, {cells} cells fitted. Predicted figures are simulated in "
            "virtual time.").format(run=fitted.run_id, name=fitted.name,
                                    cells=len(fitted.cells)))
        values = {p.name: p for p in fit.params}
        for key, name in (("max_num_seqs", "max_num_seqs"),
                          ("max_num_batched_tokens", "max_num_batched_tokens"),
                          ("kv_capacity", "kv_cache_tokens")):
            param = values.get(name)
            self._edits[key].setPlaceholderText(
                self.tr("as fitted: {value}").format(value=self._value(param))
                if param else "")
        self.fit_label.setText(self.tr(
            "Worst cell error (predicted / measured - 1): TTFT p50 {ttft}, prefill {prefill}, "
            "decode {decode}.").format(ttft=_pct(fit.worst("ttft")),
                                       prefill=_pct(fit.worst("prefill")),
                                       decode=_pct(fit.worst("decode"))))
        self.params_label.setText("<br/>".join(self._param_line(p) for p in fit.params))
        if fitted.suggested:
            what = ", ".join(f"{k}={v:g}" for k, v in fitted.suggested.items())
            self.suggest_button.setText(self.tr("Suggested: {change}").format(change=what))
            self.suggest_button.setToolTip(self.tr(
                "What the diagnosis suggests for this run: fill the fields with it and predict"))
            self.suggest_button.show()
        else:
            self.suggest_button.hide()
        self._update_buttons()

    def _value(self, param: FitParam) -> str:
        if math.isinf(param.value) or (param.code == "kv_never_reached"):
            return self.tr("unlimited")
        if param.name.endswith("_s") and not param.name.endswith("_per_s"):  # seconds
            return f"{param.value * 1000:.3g} ms"
        return f"{param.value:,.0f}" if abs(param.value) >= 100 else f"{param.value:.3g}"

    def _param_line(self, param: FitParam) -> str:
        sources = {"server": self.tr("reported by the server"), "sweep": self.tr("from the sweep"),
                   "fit": self.tr("fitted"), "assumed": self.tr("assumed")}
        notes = {
            "queue_cap": self.tr("the diagnosis saw requests queue behind this many"),
            "no_queue": self.tr("no queue was seen: at least the largest concurrency run; a "
                                "sweep at higher concurrency would identify it"),
            "vllm_default": self.tr("not reported by the server: vLLM's default"),
            "kv_never_reached": self.tr(
                "not identified: the server did not report it and the sweep never filled it "
                "(at most {tokens} tokens held at once); longer prompts at higher concurrency "
                "would identify it").format(tokens=f"{param.held_tokens or 0:,}"),
            "needs_lengths": self.tr(
                "not identified: needs three prompt lengths or more at concurrency 1 whose "
                "TTFT grows faster than the length; taken as no slowdown"),
        }
        line = f"<b>{param.name}</b> = {self._value(param)} ({sources.get(param.source, '')})"
        if param.code in notes:
            color = "#8a5a00" if param.source == "assumed" else "#555"
            line += f'<br/><span style="color:{color}">{notes[param.code]}</span>'
        return line

    def _on_controller_predicted(self, cells: list[CellWhatif]) -> None:
        fitted = self.controller.current
        self._plot(cells)
        beyond = (fitted.fit.extrapolated_batch(getattr(self, "_last_changes", {}))
                  if fitted else None)
        self.extrapolated_label.setVisible(beyond is not None)
        if beyond is not None:
            self.extrapolated_label.setText(self.tr(
                "Extrapolated: the sweep measured batches of at most {n} requests, so the decode "
                "cost of larger batches is the fitted line carried past what was measured "
                "(docs/WHATIF.md says how well that held on llama.cpp).").format(n=beyond))
        errors = {(e.input_tokens, e.concurrency): e for e in fitted.fit.errors} if fitted else {}
        self.table.setRowCount(len(cells))
        for row, c in enumerate(cells):
            e = errors.get((c.input_tokens, c.concurrency))
            texts = [str(c.input_tokens), f"c={c.concurrency}",
                     _pct(e and e.ttft), _pct(e and e.prefill), _pct(e and e.decode)]
            for _key, _title, get, _units in _FIGURES:
                b, a = get(c.before), get(c.after)
                texts += [f"{_num(b)} -> {_num(a)}", _change(b, a)]
            b, a = c.before.output_tps, c.after.output_tps
            texts += [f"{_num(b)} -> {_num(a)}", _change(b, a)]
            for col, text in enumerate(texts):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()

    def _plot(self, cells: list[CellWhatif]) -> None:
        first_out = cells[0].output_tokens if cells else None
        by_length: dict[int, list[CellWhatif]] = defaultdict(list)
        for c in cells:
            if c.output_tokens == first_out:
                by_length[c.input_tokens].append(c)
        loads = sorted({c.concurrency for c in cells})
        ticks = [(math.log10(v), tick_label(v)) for v in loads]
        self._predicted: dict[tuple[str, int], list[float]] = {}
        for key, _title, get, _units in _FIGURES:
            plot = self.charts[key]
            plot.clear()
            plot.getAxis("bottom").setTicks([ticks, []] if ticks else None)
            for n, length in enumerate(sorted(by_length)):
                points = sorted(by_length[length], key=lambda c: c.concurrency)
                color = pg.mkColor(PALETTE[n % len(PALETTE)])
                xs = [c.concurrency for c in points]
                measured = [get(c.measured) for c in points]
                after = [get(c.after) for c in points]
                shown = [(x, y) for x, y in zip(xs, measured) if y is not None]
                plot.plot([x for x, _ in shown], [y for _, y in shown],
                          pen=pg.mkPen(color, width=2), symbol="o", symbolSize=7,
                          symbolBrush=color, symbolPen="w", name=tick_label(length))
                shown = [(x, y) for x, y in zip(xs, after) if y is not None]
                self._predicted[(key, length)] = [y for _, y in shown]
                plot.plot([x for x, _ in shown], [y for _, y in shown],
                          pen=pg.mkPen(color, width=2, style=Qt.PenStyle.DashLine))

    def predicted_points(self, chart: str, length: int) -> list[float]:
        """The predicted (dashed) y values chart `chart` ("ttft", "prefill", "decode") shows
        for prompt length `length`, by concurrency."""
        return list(self._predicted.get((chart, length), []))
