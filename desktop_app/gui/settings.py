"""User preferences and window state, behind declared keys (QSettings lives only here).

Run configurations and results are domain data and belong in the results store, never here.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QHeaderView, QSplitter
from shiboken6 import isValid

ORGANIZATION = "Throughline"
APPLICATION = "throughline"

KEY_WINDOW_GEOMETRY = "window/geometry"
KEY_WINDOW_STATE = "window/state"
KEY_WINDOW_SPLITTER = "window/splitter"
KEY_LAST_PAGE = "window/last_page"
# "system" (follow the system locale), "en" or "zh_CN": see gui/i18n.py. Read at start-up.
KEY_LANGUAGE = "ui/language"

DECLARED_KEYS: set[str] = {KEY_WINDOW_GEOMETRY, KEY_WINDOW_STATE, KEY_WINDOW_SPLITTER,
                           KEY_LAST_PAGE, KEY_LANGUAGE}


def declare(*keys: str) -> None:
    """Declare settings keys a page uses (call at import time of the page's module), e.g.
    `declare("throughput/form")`. Only declared keys can be read or written."""
    DECLARED_KEYS.update(keys)


class Settings:
    """Typed access to the app's QSettings; unknown keys are refused so none creep in."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self._qs = qsettings or QSettings(ORGANIZATION, APPLICATION)
        self._tracked: dict[str, QSplitter | QHeaderView] = {}

    def _check(self, key: str) -> None:
        if key not in DECLARED_KEYS:
            raise KeyError(f"undeclared settings key {key!r}")

    def bytes_value(self, key: str) -> QByteArray | None:
        """Bytes stored with `set_bytes` (base64 text), or as a raw QByteArray before."""
        self._check(key)
        value = self._qs.value(key)
        if isinstance(value, QByteArray):
            return value
        if isinstance(value, str) and value:
            decoded = QByteArray.fromBase64(value.encode("ascii", "ignore"))
            return decoded if not decoded.isEmpty() else None
        return None

    def set_bytes(self, key: str, value: QByteArray) -> None:
        """Store binary state (saveState, saveGeometry) as base64 text: readable by every
        QSettings backend (registry, plist, ini) and by a person opening the file."""
        self.set_value(key, bytes(value.toBase64().data()).decode("ascii"))

    def int_value(self, key: str, default: int = 0) -> int:
        self._check(key)
        try:
            return int(self._qs.value(key, default))
        except (TypeError, ValueError):
            return default

    def text_value(self, key: str, default: str = "") -> str:
        self._check(key)
        value = self._qs.value(key, default)
        return value if isinstance(value, str) else default

    def set_value(self, key: str, value: object) -> None:
        self._check(key)
        self._qs.setValue(key, value)

    def sync(self) -> None:
        self._qs.sync()

    # ---- remembered window state: splitters and table headers

    def track(self, key: str, widget: QSplitter | QHeaderView) -> bool:
        """Restore `widget`'s saved state now (a splitter's sizes; a header's column widths,
        order, hidden columns and sort) and save it again with `save_tracked` (the main window
        does when it closes). Returns whether a saved state was restored."""
        self._check(key)
        self._tracked[key] = widget
        state = self.bytes_value(key)
        return state is not None and bool(widget.restoreState(state))

    def save_tracked(self) -> None:
        """Save the state of every tracked splitter and header still alive."""
        for key, widget in list(self._tracked.items()):
            if isValid(widget):
                self.set_bytes(key, widget.saveState())
            else:
                del self._tracked[key]

