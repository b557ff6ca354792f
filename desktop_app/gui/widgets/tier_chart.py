"""Bar charts of a SQL evaluation by tier: pass rate per judge, mean tokens, mean steps."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

import pyqtgraph as pg  # after PySide6, so it binds to it

from desktop_app.core.runs import PassCount
from desktop_app.core.sqleval.judges import default_judges, in_judge_order, judge_names
from desktop_app.core.sqleval.types import TIERS
from desktop_app.gui.models.questions import QuestionRow, rows_pass_count, tier_effort
from desktop_app.gui.widgets.chart_titles import set_fitted_title

JUDGE_COLORS = {"strict": "#b3261e", "tolerant": "#e8a317", "full": "#1b7f3b"}
_MORE_COLORS = ("#6a3d9a", "#1f78b4", "#b15928", "#33a02c", "#fb9a99")  # judges added later


def judge_color(judge: str) -> str:
    """A judge's colour: the built-in ones' own, then the others' by their place."""
    if judge in JUDGE_COLORS:
        return JUDGE_COLORS[judge]
    others = [j for j in judge_names() if j not in JUDGE_COLORS]
    index = others.index(judge) if judge in others else len(others)
    return _MORE_COLORS[index % len(_MORE_COLORS)]
_EFFORT_COLOR = "#3465a4"
REDRAW_MS = 100  # about 10 Hz: rows arrive in bursts, the chart follows on a clock
PASS_RANGE_TOP = 116  # room above a 100 % bar for its count label
LABEL_POINT_SIZE = 7


def _plot(title: str, left: str) -> pg.PlotWidget:  # title: already translated
    plot = pg.PlotWidget(background="w")
    set_fitted_title(plot, title)
    if left:
        plot.setLabel("left", left)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.showGrid(y=True, alpha=0.25)
    axis = plot.getAxis("bottom")
    axis.setTicks([list(enumerate(TIERS))])
    for name in ("left", "bottom"):
        plot.getAxis(name).setTextPen("#333")
        plot.getAxis(name).setPen("#888")
    plot.setXRange(-0.6, len(TIERS) - 0.4, padding=0)
    return plot


class TierChart(QWidget):
    """Three bar charts by tier: pass rate (%) for each judge side by side (passed / judged:
    questions a stopped run never finished are not failures), mean tokens and mean steps per
    judged question. Feed it rows with `set_rows`; it redraws at most 10 times a second."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.judges: tuple[str, ...] = default_judges(True)
        every = self.judges
        self._rows: list[QuestionRow] = []
        self._dirty = False
        # The judges' colours go in a line above: a legend inside the plot would hide bars,
        # and a long plot title would make the plot wider than its share.
        self.key_label = QLabel()
        self.pass_plot = _plot(self.tr("Pass rate (%)"), "")
        self.pass_plot.setYRange(0, PASS_RANGE_TOP, padding=0)
        # "passed/judged" above each pass-rate bar (above the axis for a bar of zero height).
        self.count_labels: list[pg.TextItem] = []
        self.token_plot = _plot(self.tr("Mean tokens"), "")
        self.step_plot = _plot(self.tr("Mean steps"), "")
        width = 0.8 / len(every)
        self.pass_bars: dict[str, pg.BarGraphItem] = {}
        self._offsets: dict[str, float] = {}  # each judge's bar beside the others in a tier
        for i, judge in enumerate(every):
            bars = pg.BarGraphItem(x=[], height=[], width=width, brush=judge_color(judge),
                                   pen=None)
            self.pass_plot.addItem(bars)
            self.pass_bars[judge] = bars
            self._offsets[judge] = (i - (len(every) - 1) / 2) * width
        self.token_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=_EFFORT_COLOR, pen=None)
        self.step_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=_EFFORT_COLOR, pen=None)
        self.token_plot.addItem(self.token_bars)
        self.step_plot.addItem(self.step_bars)
        # Effort is secondary: two short plots stacked beside the pass rates keep the tier
        # names readable when the page is narrow.
        plots = QGridLayout()
        plots.setSpacing(4)
        plots.addWidget(self.pass_plot, 0, 0, 2, 1)
        plots.addWidget(self.token_plot, 0, 1)
        plots.addWidget(self.step_plot, 1, 1)
        plots.setColumnStretch(0, 3)
        plots.setColumnStretch(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.key_label)
        layout.addLayout(plots, 1)
        self._show_key()
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()

    def set_judges(self, judges: Sequence[str]) -> None:
        """Show bars for `judges` only (the ones the run summarised)."""
        self.judges = tuple(j for j in in_judge_order(judges) if j in self.pass_bars) or tuple(
            self.pass_bars)
        self._show_key()
        self._dirty = True

    def _show_key(self) -> None:
        from desktop_app.gui.i18n import report_language
        from desktop_app.report.judge_words import JudgeWords

        words = JudgeWords(report_language())
        key = " &nbsp; ".join(f"<span style='color:{judge_color(j)}'>&#9632;</span> "
                              f"{words.judge(j)}" for j in self.judges)
        self.key_label.setText(self.tr("By tier, per question. Pass rate per judge: {key}")
                               .format(key=key))

    def set_rows(self, rows: Sequence[QuestionRow]) -> None:
        self._rows = list(rows)
        self._dirty = True

    def add_row(self, row: QuestionRow) -> None:
        self._rows.append(row)
        self._dirty = True

    def pass_counts(self) -> dict[str, dict[str, PassCount]]:
        """Per tier with a question, per judge shown: the pass count its bar is the rate of
        (unfinished questions apart, never failures)."""
        tiers = [t for t in TIERS if any(r.tier == t for r in self._rows)]
        return {t: {j: rows_pass_count(self._rows, j, t) for j in self.judges} for t in tiers}

    def redraw(self) -> None:
        """Draw the buffered rows now (the timer calls this when they changed)."""
        self._dirty = False
        stats = tier_effort(self._rows, tuple(self.pass_bars))
        x = [TIERS.index(s.tier) for s in stats]
        for judge, bars in self.pass_bars.items():
            shown = judge in self.judges
            bars.setVisible(shown)
            heights = [100.0 * (s.passed[judge].rate or 0.0) for s in stats] if shown else []
            bars.setOpts(x=[v + self._offsets[judge] for v in x] if shown else [], height=heights)
        self._label_counts(stats, x)
        self.token_bars.setOpts(x=x, height=[s.mean_tokens for s in stats])
        self.step_bars.setOpts(x=x, height=[s.mean_steps for s in stats])
        top_tokens = max((s.mean_tokens for s in stats), default=0.0)
        top_steps = max((s.mean_steps for s in stats), default=0.0)
        self.token_plot.setYRange(0, max(top_tokens * 1.1, 1.0), padding=0)
        self.step_plot.setYRange(0, max(top_steps * 1.1, 1.0), padding=0)

    def _label_counts(self, stats, x: list[int]) -> None:
        """One "passed/judged" label per pass-rate bar shown, in the judge's colour, just
        above the bar (a 0/13 bar has no height: its label sits on the axis)."""
        for label in self.count_labels:
            self.pass_plot.removeItem(label)
        self.count_labels = []
        font = self.font()
        font.setPointSize(LABEL_POINT_SIZE)
        for s, v in zip(stats, x, strict=True):
            for judge in self.judges:
                count = s.passed[judge]
                if not count.judged:
                    continue
                label = pg.TextItem(f"{count.passed}/{count.judged}", color=judge_color(judge),
                                    anchor=(0.5, 1.0))
                label.setFont(font)
                label.setPos(v + self._offsets[judge], 100.0 * (count.rate or 0.0))
                self.pass_plot.addItem(label)
                self.count_labels.append(label)

    def bar_labels(self) -> list[str]:
        """The count labels drawn on the pass-rate bars, tier by tier, judge by judge."""
        return [label.toPlainText() for label in self.count_labels]

    def _on_timer_timeout(self) -> None:
        if self._dirty:
            self.redraw()
