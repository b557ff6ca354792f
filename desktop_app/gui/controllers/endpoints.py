"""Connection tests and the built-in simulator for the Endpoints page, as Qt signals."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from desktop_app.core.endpoint.client import EndpointError, complete, make_client
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo
from desktop_app.gui.controllers.simulator import SimulatorController
from desktop_app.gui.i18n import report_language
from desktop_app.report.endpoint_words import endpoint_error_text

_TOOL_PROBE_TIMEOUT_S = 30.0
_TOOL_PROBE_BODY = {
    "messages": [{"role": "user", "content": "Call the ping tool."}],
    "tools": [{"type": "function", "function": {
        "name": "ping", "description": "Answer a connection test.",
        "parameters": {"type": "object", "properties": {}, "required": []}}}],
    "tool_choice": "required",
    "max_tokens": 32,
    "temperature": 0,
}


@dataclass(frozen=True)
class ConnectionReport:
    """What a connection test found: discovery's answer and whether tool calling works
    (None: unknown, the probe request failed)."""

    config: EndpointConfig
    info: EndpointInfo
    tool_calling: bool | None
    tool_note: str = ""  # why tool calling is unknown

    @property
    def model(self) -> str:
        """The model a run would use: the configured one, else the first the server lists."""
        return self.config.model or (self.info.models[0] if self.info.models else "")


async def probe_tool_calling(config: EndpointConfig, model: str) -> tuple[bool | None, str]:
    """One small chat request with a `tools` entry and tool_choice "required": (True, "") when
    the reply has tool_calls, (False, "") when it answers without, (None, why) when it fails.
    Bounded by 30 s. Cancellation propagates."""
    short = dataclasses.replace(config, first_byte_timeout_s=_TOOL_PROBE_TIMEOUT_S,
                                total_timeout_s=_TOOL_PROBE_TIMEOUT_S)
    body = {**_TOOL_PROBE_BODY, "model": model}
    try:
        async with make_client(short, 1) as client:
            reply = await complete(client, short, body, path="/chat/completions")
    except EndpointError as exc:
        return None, endpoint_error_text(exc, report_language())
    choices = reply.get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices and \
        isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        return None, "the reply had no message"
    return bool(message.get("tool_calls")), ""


class EndpointsController(QObject):
    """Runs connection tests and the built-in simulator; each has one task it owns."""

    test_started = Signal(object)  # EndpointConfig
    test_finished = Signal(object)  # ConnectionReport
    test_failed = Signal(object, str)  # EndpointConfig, message
    simulator_starting = Signal(str)  # profile name
    simulator_ready = Signal(str, object)  # profile name, ConnectionReport
    simulator_failed = Signal(str)  # message

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.simulator = SimulatorController(self)
        self.simulator.started.connect(self._on_simulator_started)
        self.simulator.failed.connect(self._on_simulator_failed)
        self.test_task: asyncio.Task | None = None
        self.simulator_task: asyncio.Task | None = None
        self.simulator_profile: str | None = None  # of the running (or starting) simulator

    @property
    def simulator_url(self) -> str | None:
        return self.simulator.url

    @property
    def busy(self) -> bool:
        return any(t is not None and not t.done() for t in
                   (self.test_task, self.simulator_task, self.simulator.task))

    def test_connection(self, config: EndpointConfig) -> asyncio.Task:
        """Discover `config`'s endpoint and probe tool calling; a new test cancels the last."""
        if self.test_task and not self.test_task.done():
            self.test_task.cancel()
        self.test_started.emit(config)
        self.test_task = asyncio.ensure_future(self._test(config))
        return self.test_task

    async def _test(self, config: EndpointConfig) -> None:
        try:
            report = await _connection_report(config)
        except EndpointError as exc:
            self.test_failed.emit(config, endpoint_error_text(exc, report_language()))
            return
        self.test_finished.emit(report)

    def start_simulator(self, profile: str) -> asyncio.Task:
        """Start (or restart) the built-in simulator with `profile`; when it serves, it is
        tested and `simulator_ready` carries the report. Returns the task starting it."""
        if self.simulator_task and not self.simulator_task.done():
            self.simulator_task.cancel()
        self.simulator_profile = profile
        self.simulator_starting.emit(profile)
        return self.simulator.start(profile)

    def _on_simulator_started(self, url: str, profile: str) -> None:
        self.simulator_task = asyncio.ensure_future(self._test_simulator(url, profile))

    async def _test_simulator(self, url: str, profile: str) -> None:
        try:
            report = await _connection_report(EndpointConfig(url))
        except EndpointError as exc:
            self.simulator_failed.emit(self.tr("the simulator started but does not answer: "
                                               "{error}").format(
                error=endpoint_error_text(exc, report_language())))
            return
        config = dataclasses.replace(report.config, model=report.model)
        self.simulator_ready.emit(profile, dataclasses.replace(report, config=config))

    def _on_simulator_failed(self, message: str) -> None:
        self.simulator_profile = None
        self.simulator_failed.emit(message)

    def stop(self) -> None:
        """Cancel what runs and stop the simulator process (safe to call twice)."""
        for task in (self.test_task, self.simulator_task, self.simulator.task):
            if task is not None and not task.done():
                task.cancel()
        self.simulator.stop()
        self.simulator_profile = None


async def _connection_report(config: EndpointConfig) -> ConnectionReport:
    info = await discover(config)
    model = config.model or (info.models[0] if info.models else "")
    tool_calling, note = await probe_tool_calling(config, model)
    return ConnectionReport(config, info, tool_calling, note)
