"""The Endpoints page: saved endpoint profiles, connection tests and the built-in simulator."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app import paths
from desktop_app.core.endpoint.profiles import EndpointProfile, load_profiles, save_profiles
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.endpoint.urls import validate_base_url
from desktop_app.core.simulator.profiles import available_profiles
from desktop_app.gui import settings as settings_mod
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.controllers.endpoints import ConnectionReport, EndpointsController
from desktop_app.gui.i18n import report_language, translate
from desktop_app.report.endpoint_words import discovery_note_text
from desktop_app.gui.secrets import ApiKeys
from desktop_app.gui.settings import Settings
from desktop_app.report.input_words import input_error_text

KEY_LAST_PROFILE = "endpoints/last_profile"
KEY_SIMULATOR_PROFILE = "endpoints/simulator_profile"
settings_mod.declare(KEY_LAST_PROFILE, KEY_SIMULATOR_PROFILE)

SIMULATOR_NAME = "Built-in simulator"  # its key in the settings; shown translated
_SIM_ROW = 0
_BUILTIN_SIM_PROFILES = ("fast", "seed-reference", "instant")
_ERROR_STYLE = "color: #b00020;"
_NOTE_STYLE = "color: palette(placeholder-text);"
# What each bundled simulator profile (resources/profiles) simulates, as the combo's tooltips;
# a profile of the user's own shows its TOML's description.
SIM_PROFILE_TIPS = {
    "fast": QT_TRANSLATE_NOOP(
        "EndpointsPage", "A quick small-GPU server (an 8B-class model, vLLM defaults scaled "
        "down): TTFT tens of milliseconds, decode about 300 tok/s alone. For demos and tests."),
    "seed-reference": QT_TRANSLATE_NOOP(
        "EndpointsPage", "The seed reports' server: vLLM with max-num-seqs=2 and the KV cache "
        "nearly full; prefill about 700 tok/s, decode about 25 tok/s, TTFT 51.5 s at 32k "
        "tokens. Slow on purpose."),
    "instant": QT_TRANSLATE_NOOP(
        "EndpointsPage", "No modelled delay: tokens go out as fast as the server can write "
        "them. Measures the client's own ceiling, not a server."),
    "fast-capped": QT_TRANSLATE_NOOP(
        "EndpointsPage", "The fast server capped at 2 requests at once (like vLLM with "
        "--max-num-seqs 2): requests beyond 2 queue."),
}


def default_profiles_path() -> Path:
    """Where saved endpoint profiles live (API keys never do)."""
    return paths.user_config_dir() / "endpoints.json"


def _simulator_name() -> str:
    return translate("EndpointsPage", "Built-in simulator")


def _yes_no(value: bool | None) -> str:
    if value is None:
        return translate("EndpointsPage", "unknown")
    return translate("EndpointsPage", "yes") if value else translate("EndpointsPage", "no")


def _engine_text(report: ConnectionReport) -> str:
    info = report.info
    text = info.engine + (f" {info.engine_version}" if info.engine_version else "")
    return text + (translate("EndpointsPage", " (simulated)") if info.simulated else "")


def _stacked(field: QWidget, note: QLabel) -> QWidget:
    """A field with its note or error right under it (no gap while the note is hidden)."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(2)
    column.addWidget(field)
    column.addWidget(note)
    return box


class ConnectionResults(QGroupBox):
    """Shows what the last connection test found: latency, models, engine and features."""

    _ROWS = (QT_TRANSLATE_NOOP("ConnectionResults", "Status"),
             QT_TRANSLATE_NOOP("ConnectionResults", "Latency"),
             QT_TRANSLATE_NOOP("ConnectionResults", "Models"),
             QT_TRANSLATE_NOOP("ConnectionResults", "Engine"), "/tokenize", "/metrics",
             QT_TRANSLATE_NOOP("ConnectionResults", "Tool calling"),
             QT_TRANSLATE_NOOP("ConnectionResults", "Notes"))

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Connection"), parent)
        form = QFormLayout(self)
        self.values: dict[str, QLabel] = {}
        for row in self._ROWS:
            label = QLabel("")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.values[row] = label
            form.addRow(self.tr("{row}:").format(row=translate("ConnectionResults", row)), label)
        self.clear()

    def clear(self, status: str | None = None) -> None:
        for label in self.values.values():
            label.setText("")
            label.setStyleSheet("")
        self.values["Status"].setText(status or self.tr("not tested"))

    def show_failure(self, message: str) -> None:
        self.clear(self.tr("failed: {message}").format(message=message))
        self.values["Status"].setStyleSheet(_ERROR_STYLE)

    def show_report(self, report: ConnectionReport) -> None:
        info = report.info
        self.clear(self.tr("connected"))
        v = self.values
        v["Latency"].setText(self.tr("{ms} ms (GET /v1/models)").format(
            ms=f"{info.latency_s * 1000:.0f}"))
        v["Models"].setText(", ".join(info.models) or self.tr("none listed"))
        v["Engine"].setText(_engine_text(report))
        v["/tokenize"].setText(self.tr("yes ({tokenizer})").format(tokenizer=info.tokenizer)
                               if info.tokenizer else _yes_no(False))
        v["/metrics"].setText(_yes_no(info.has_metrics))
        tools = _yes_no(report.tool_calling)
        v["Tool calling"].setText(f"{tools}: {report.tool_note}" if report.tool_note else tools)
        lang = report_language()
        v["Notes"].setText("\n".join(f"- {discovery_note_text(n, lang)}" for n in info.notes)
                           or self.tr("none"))


def sim_profile_tip(name: str) -> str:
    """What the simulator profile `name` simulates, in the UI's language ("" when unknown)."""
    if name in SIM_PROFILE_TIPS:
        return translate("EndpointsPage", SIM_PROFILE_TIPS[name])
    try:
        from desktop_app.core.simulator.profiles import load_profile

        return load_profile(name).description or ""
    except Exception:  # noqa: BLE001 - a profile that cannot be read has no tip
        return ""


class EndpointsPage(QWidget):
    """Saved endpoint profiles on the left; the selected one's form, test results and actions
    on the right. The first entry is the built-in simulator."""

    def __init__(self, context: AppContext, *, settings: Settings | None = None,
                 profiles_path: Path | None = None, api_keys: ApiKeys | None = None,
                 controller: EndpointsController | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page_endpoints")
        self.context = context
        self._settings = settings or Settings()
        self._path = profiles_path or default_profiles_path()
        self._keys = api_keys or ApiKeys()
        self.controller = controller or EndpointsController(self)
        self._profiles: list[EndpointProfile] = []
        self._reports: dict[str, ConnectionReport] = {}  # by profile name, this session only
        # The last test of a form not saved yet: kept by its name when it is saved (Test, then
        # Save, reset the pane to "not tested").
        self._unsaved_report: ConnectionReport | None = None
        self._editing: str | None = None  # the saved name shown in the form; None: a new one
        self._use_after_test = False
        self._build()
        self._connect()
        self._load()

    # --- building --------------------------------------------------------------------------
    def _build(self) -> None:
        title = QLabel(self.tr("Endpoints"))
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        title.setFont(font)
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(_ERROR_STYLE)
        self.banner.hide()
        self.active_label = QLabel()
        self.active_label.setWordWrap(True)
        self._on_context_endpoint_changed(self.context.endpoint)

        self.list = QListWidget()
        self.list.setMinimumWidth(200)
        self.list.setMaximumWidth(320)
        self.list.setSpacing(2)
        self.new_button = QPushButton(self.tr("New"))
        self.delete_button = QPushButton(self.tr("Delete"))
        list_buttons = QHBoxLayout()
        list_buttons.addWidget(self.new_button)
        list_buttons.addWidget(self.delete_button)
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        left.addLayout(list_buttons)

        self.sim_box = QGroupBox(_simulator_name())
        self.sim_profile = QComboBox()
        names = list(_BUILTIN_SIM_PROFILES) + [
            p for p in available_profiles() if p not in _BUILTIN_SIM_PROFILES]
        self.sim_profile.addItems(names)
        for i, name in enumerate(names):
            self.sim_profile.setItemData(i, sim_profile_tip(name), Qt.ItemDataRole.ToolTipRole)
        self.sim_profile.currentTextChanged.connect(self._on_sim_profile_text_changed)
        saved = self._settings.text_value(KEY_SIMULATOR_PROFILE, "fast")
        self.sim_profile.setCurrentText(saved if saved in names else "fast")
        self._on_sim_profile_text_changed(self.sim_profile.currentText())
        self.sim_start = QPushButton(self.tr("Start"))
        self.sim_status = QLabel(self.tr("not running"))
        self.sim_status.setWordWrap(True)
        sim_row = QHBoxLayout()
        sim_row.addWidget(self.sim_profile, 1)
        sim_row.addWidget(self.sim_start)
        sim_form = QFormLayout(self.sim_box)
        sim_form.addRow(self.tr("Profile:"), sim_row)
        sim_form.addRow(self.tr("Status:"), self.sim_status)
        about = QLabel(self.tr("A simulated OpenAI-compatible server in a process of its own: "
                               "no typing, no GPU. Choosing a profile starts it and makes it the "
                               "active endpoint. Its numbers are simulated."))
        about.setWordWrap(True)
        about.setStyleSheet(_NOTE_STYLE)
        sim_form.addRow(about)

        self.form_box = QGroupBox(self.tr("Endpoint"))
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("e.g. vLLM on gpu-box"))
        self.name_error = QLabel()
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText(self.tr("http://localhost:8000 (or .../v1)"))
        self.url_error = QLabel()
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.lineEdit().setPlaceholderText(self.tr("filled by Test connection"))
        self.engine_label = QLabel(self.tr("not tested"))
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("none"))
        self.key_note = QLabel(
            self.tr("Kept in the system keyring.") if self._keys.persistent else
            self.tr("No system keyring here: the key is kept in memory for this session only."))
        for label in (self.name_error, self.url_error):
            label.setStyleSheet(_ERROR_STYLE)
            label.setWordWrap(True)
            label.hide()
        self.key_note.setStyleSheet(_NOTE_STYLE)
        self.key_note.setWordWrap(True)
        form = QFormLayout(self.form_box)
        form.addRow(self.tr("Name:"), _stacked(self.name_edit, self.name_error))
        form.addRow(self.tr("Base URL:"), _stacked(self.url_edit, self.url_error))
        form.addRow(self.tr("Model:"), self.model_combo)
        form.addRow(self.tr("Engine:"), self.engine_label)
        form.addRow(self.tr("API key:"), _stacked(self.key_edit, self.key_note))

        self.test_button = QPushButton(self.tr("Test connection"))
        self.use_button = QPushButton(self.tr("Use this endpoint"))
        self.save_button = QPushButton(self.tr("Save"))
        actions = QHBoxLayout()
        for button in (self.test_button, self.use_button, self.save_button):
            actions.addWidget(button)
        actions.addStretch(1)
        self.results = ConnectionResults()

        right = QVBoxLayout()
        right.addWidget(self.sim_box)
        right.addWidget(self.form_box)
        right.addLayout(actions)
        right.addWidget(self.results)
        right.addStretch(1)

        body = QHBoxLayout()
        body.addLayout(left, 1)
        body.addLayout(right, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.banner)
        layout.addWidget(self.active_label)
        layout.addLayout(body, 1)

    def _connect(self) -> None:
        self.list.currentRowChanged.connect(self._on_list_row_changed)
        self.new_button.clicked.connect(self._on_new_clicked)
        self.delete_button.clicked.connect(self._on_delete_clicked)
        self.sim_profile.activated.connect(self._on_sim_profile_activated)
        self.sim_start.clicked.connect(self._on_sim_start_clicked)
        self.test_button.clicked.connect(self._on_test_clicked)
        self.use_button.clicked.connect(self._on_use_clicked)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.url_edit.editingFinished.connect(self._check_url)
        c = self.controller
        c.test_started.connect(self._on_controller_test_started)
        c.test_finished.connect(self._on_controller_test_finished)
        c.test_failed.connect(self._on_controller_test_failed)
        c.simulator_starting.connect(self._on_controller_simulator_starting)
        c.simulator_ready.connect(self._on_controller_simulator_ready)
        c.simulator_failed.connect(self._on_controller_simulator_failed)
        self.context.endpoint_changed.connect(self._on_context_endpoint_changed)

    def _load(self) -> None:
        loaded = load_profiles(self._path)
        self._profiles = list(loaded.profiles)
        if loaded.problem:
            self.banner.setText(self.tr("Saved endpoints: {problem}.").format(
                problem=loaded.problem))
            self.banner.show()
        last = self._settings.text_value(KEY_LAST_PROFILE, SIMULATOR_NAME)
        self._refill_list(last)

    def _refill_list(self, select: str | None) -> None:
        """Rebuild the list and show `select` without acting on it (no start, no switch)."""
        self.list.blockSignals(True)
        self.list.clear()
        self.list.addItem(self.tr("{name} (simulated)").format(name=_simulator_name()))
        italic = QFont(self.list.font())
        italic.setItalic(True)
        self.list.item(_SIM_ROW).setFont(italic)
        names = [p.name for p in self._profiles]
        self.list.addItems(names)
        row = names.index(select) + 1 if select in names else _SIM_ROW
        self.list.setCurrentRow(row)
        self.list.blockSignals(False)
        self._show_row(row)

    # --- what the right side shows ---------------------------------------------------------
    def _profile_at(self, row: int) -> EndpointProfile | None:
        return self._profiles[row - 1] if 0 < row <= len(self._profiles) else None

    def _show_row(self, row: int) -> None:
        simulator = row == _SIM_ROW
        self.sim_box.setVisible(simulator)
        self.form_box.setVisible(not simulator)
        self.save_button.setEnabled(not simulator)
        self.delete_button.setEnabled(not simulator)
        if simulator:
            self._editing = None
            report = self._reports.get(SIMULATOR_NAME)
            self._show_report_or_clear(report if self.controller.simulator_url else None)
            return
        profile = self._profile_at(row)
        if profile is not None:
            self._fill_form(profile)

    def _fill_form(self, profile: EndpointProfile | None) -> None:
        self._editing = profile.name if profile else None
        self.name_edit.setText(profile.name if profile else "")
        self.url_edit.setText(profile.base_url if profile else "")
        self.model_combo.clear()
        self.model_combo.setEditText(profile.model if profile else "")
        self.engine_label.setText(profile.engine if profile and profile.engine
                                  else self.tr("not tested"))
        self.key_edit.setText((self._keys.get(profile.name) or "") if profile else "")
        self.name_error.hide()
        self.url_error.hide()
        report = self._reports.get(profile.name) if profile else None
        self._show_report_or_clear(report if report and self._matches(report) else None)

    def _show_report_or_clear(self, report: ConnectionReport | None) -> None:
        if report is None:
            self.results.clear()
        else:
            self.results.show_report(report)

    def _on_simulator_row(self) -> bool:
        return self.list.currentRow() == _SIM_ROW

    def _form_config(self) -> EndpointConfig | None:
        """The form as an EndpointConfig (key in memory only), or None with the URL error shown."""
        url = self._check_url()
        if url is None:
            return None
        return EndpointConfig(url, model=self.model_combo.currentText().strip(),
                              api_key=self.key_edit.text() or None)

    def _check_url(self) -> str | None:
        try:
            url = validate_base_url(self.url_edit.text())
        except ValueError as exc:
            self.url_error.setText(input_error_text(exc, report_language()))
            self.url_error.show()
            return None
        self.url_error.hide()
        return url

    def _matches(self, report: ConnectionReport) -> bool:
        """Whether `report` was made for what the form now says."""
        try:
            url = validate_base_url(self.url_edit.text())
        except ValueError:
            return False
        model = self.model_combo.currentText().strip()
        return report.config.base_url == url and report.config.model in ("", model)

    # --- actions ---------------------------------------------------------------------------
    def start_simulator(self, profile: str | None = None) -> None:
        """Start (or restart) the built-in simulator; it becomes the active endpoint when it
        serves. The app may call this at start-up instead of starting its own."""
        if profile is not None:
            if self.sim_profile.findText(profile) < 0:
                # A .toml path or a name from the command line: try it, and show why if it fails.
                self.sim_profile.addItem(profile)
            self.sim_profile.setCurrentText(profile)
        self.controller.start_simulator(self.sim_profile.currentText())

    def _on_list_row_changed(self, row: int) -> None:
        if row < 0:
            return
        self._show_row(row)
        name = SIMULATOR_NAME if row == _SIM_ROW else self._profile_at(row).name
        self._settings.set_value(KEY_LAST_PROFILE, name)
        if row == _SIM_ROW:
            self._use_simulator()
            return
        report = self._reports.get(name)
        if report is not None and self._matches(report):
            self._use(report)  # a profile tested this session: selecting it is enough

    def _use_simulator(self) -> None:
        if self.controller.simulator_profile != self.sim_profile.currentText():
            self.start_simulator()
            return
        report = self._reports.get(SIMULATOR_NAME)
        if report is not None:  # else it is starting: it becomes active when it serves
            self._use(report, simulator=True)

    def _on_sim_start_clicked(self) -> None:
        self.start_simulator()

    def _on_sim_profile_text_changed(self, name: str) -> None:
        # The closed combo says what the chosen profile simulates; each item says its own.
        tip = sim_profile_tip(name)
        self.sim_profile.setToolTip(tip or self.tr("The simulator profile: how fast the "
                                                   "simulated server is"))

    def _on_sim_profile_activated(self, _index: int) -> None:
        self._settings.set_value(KEY_SIMULATOR_PROFILE, self.sim_profile.currentText())
        if self.sim_profile.currentText() != self.controller.simulator_profile:
            self.start_simulator()

    def _on_new_clicked(self) -> None:
        self.list.blockSignals(True)
        self.list.setCurrentRow(-1)
        self.list.blockSignals(False)
        self.sim_box.hide()
        self.form_box.show()
        self.save_button.setEnabled(True)
        self.delete_button.setEnabled(False)
        self._fill_form(None)
        self.name_edit.setFocus()

    def _on_delete_clicked(self) -> None:
        profile = self._profile_at(self.list.currentRow())
        if profile is None:
            return
        self._profiles.remove(profile)
        self._reports.pop(profile.name, None)
        self._keys.delete(profile.name)
        self._write()
        self._refill_list(self._profiles[0].name if self._profiles else None)

    def _on_test_clicked(self) -> None:
        if self._on_simulator_row():
            url = self.controller.simulator_url
            if url is None:
                self.start_simulator()
            else:
                self.controller.test_connection(EndpointConfig(url))
            return
        config = self._form_config()
        if config is not None:
            self.controller.test_connection(config)

    def _on_use_clicked(self) -> None:
        if self._on_simulator_row():
            self._use_simulator()
            return
        config = self._form_config()
        if config is None:
            return
        report = self._reports.get(self._editing or "")
        if report is not None and self._matches(report):
            self._use(report)
        else:
            self._use_after_test = True
            self.controller.test_connection(config)

    def _on_save_clicked(self) -> None:
        name = self.name_edit.text().strip()
        taken = {p.name for p in self._profiles} - {self._editing}
        problem = (self.tr("give it a name") if not name else
                   self.tr("{name} is reserved").format(name=repr(name))
                   if name in (SIMULATOR_NAME, _simulator_name()) else
                   self.tr("a profile named {name} exists").format(name=repr(name))
                   if name in taken else None)
        self.name_error.setText(self.tr("Name: {problem}").format(problem=problem)
                                if problem else "")
        self.name_error.setVisible(problem is not None)
        config = self._form_config()
        if problem or config is None:
            return
        engine = self.engine_label.text()
        profile = EndpointProfile.from_config(name, config,
                                              "" if engine == self.tr("not tested") else engine)
        if self._editing is not None and self._editing != name:
            self._keys.rename(self._editing, name)
            if self._editing in self._reports:
                self._reports[name] = self._reports.pop(self._editing)
        if (self._editing is None and self._unsaved_report is not None
                and self._matches(self._unsaved_report)):
            self._reports[name] = self._unsaved_report
        self._unsaved_report = None
        index = next((i for i, p in enumerate(self._profiles) if p.name == self._editing), None)
        if index is None:
            self._profiles.append(profile)
        else:
            self._profiles[index] = profile
        self._keys.set(name, self.key_edit.text())
        if self._write():
            self._settings.set_value(KEY_LAST_PROFILE, name)
        self._refill_list(name)

    def _write(self) -> bool:
        try:
            save_profiles(self._path, self._profiles)
        except OSError as exc:
            self.banner.setText(self.tr("Saved endpoints: cannot write {path}: {error}").format(
                path=self._path, error=exc))
            self.banner.show()
            return False
        return True

    def _use(self, report: ConnectionReport, *, simulator: bool = False) -> None:
        if simulator:
            profile = self.controller.simulator_profile
            label = self.tr("{name} (profile {profile}, simulated) at {url}").format(
                name=_simulator_name(), profile=profile, url=report.config.base_url)
            config = report.config
        else:
            name = self._editing or report.config.base_url
            config = EndpointConfig(report.config.base_url, model=report.model,
                                    api_key=self.key_edit.text() or None)
            label = self.tr("{name} ({engine}, {model}) at {url}").format(
                name=name, engine=_engine_text(report), model=config.model, url=config.base_url)
        self.context.set_endpoint(ActiveEndpoint(config, report.info, label))

    # --- controller and context ------------------------------------------------------------
    def _on_controller_test_started(self, _config: EndpointConfig) -> None:
        self.results.clear(self.tr("testing..."))
        self.test_button.setEnabled(False)

    def _on_controller_test_finished(self, report: ConnectionReport) -> None:
        self.test_button.setEnabled(True)
        use, self._use_after_test = self._use_after_test, False
        if self._on_simulator_row():
            if report.config.base_url == self.controller.simulator_url:
                self._reports[SIMULATOR_NAME] = report
                self.results.show_report(report)
            return
        if not self._matches(report):
            return  # the form changed while it ran
        self.results.show_report(report)
        model = self.model_combo.currentText().strip()
        self.model_combo.clear()
        self.model_combo.addItems(list(report.info.models))
        self.model_combo.setEditText(model or report.model)
        self.engine_label.setText(report.info.engine)
        if self._editing is not None:
            self._reports[self._editing] = report
            self._remember_engine(self._editing, report)
        else:
            self._unsaved_report = report
        if use:
            self._use(report)

    def _remember_engine(self, name: str, report: ConnectionReport) -> None:
        for i, profile in enumerate(self._profiles):
            if (profile.name == name and profile.base_url == report.config.base_url
                    and profile.engine != report.info.engine):
                self._profiles[i] = profile.with_engine(report.info.engine)
                self._write()

    def _on_controller_test_failed(self, _config: EndpointConfig, message: str) -> None:
        self.test_button.setEnabled(True)
        self._use_after_test = False
        self.results.show_failure(message)

    def _on_controller_simulator_starting(self, profile: str) -> None:
        self.sim_status.setText(self.tr("starting (profile {profile})...").format(
            profile=profile))
        self.sim_start.setText(self.tr("Restart"))
        self._reports.pop(SIMULATOR_NAME, None)
        if self._on_simulator_row():
            self.results.clear(self.tr("starting the simulator..."))

    def _on_controller_simulator_ready(self, profile: str, report: ConnectionReport) -> None:
        self._reports[SIMULATOR_NAME] = report
        self.sim_status.setText(self.tr("running (profile {profile}) at {url}").format(
            profile=profile, url=report.config.base_url))
        if self._on_simulator_row():
            self.results.show_report(report)
        self._use(report, simulator=True)

    def _on_controller_simulator_failed(self, message: str) -> None:
        self.sim_status.setText(self.tr("failed: {message}").format(message=message))
        self.sim_start.setText(self.tr("Start"))
        if self._on_simulator_row():
            self.results.show_failure(message)

    def _on_context_endpoint_changed(self, endpoint: ActiveEndpoint | None) -> None:
        self.active_label.setText(
            self.tr("Active endpoint: {endpoint}").format(endpoint=endpoint.label) if endpoint
            else self.tr("Active endpoint: none"))

    def shutdown(self) -> None:
        """Stop the simulator and any test in flight (call when the app quits)."""
        self.controller.stop()
        self._settings.sync()


def main() -> int:
    """Open the page alone (`python -m desktop_app.gui.pages.endpoints`)."""
    import asyncio
    import sys

    from PySide6.QtWidgets import QApplication

    from desktop_app.gui.event_loop import EventLoop

    app = QApplication.instance() or QApplication(sys.argv)
    loop = EventLoop(app)
    asyncio.set_event_loop(loop)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        page = EndpointsPage(AppContext())
        page.resize(1100, 720)
        page.show()
        loop.run_until_complete(closed.wait())
        page.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
