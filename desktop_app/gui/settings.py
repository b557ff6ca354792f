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

# A table header's dynamic property, True once the user sized its columns (ColumnFitter sets
# it). Saved beside the header's state (its key + USER_SIZED_SUFFIX): widths the user did not
# choose are not "remembered" widths, the columns fit the contents they show next time.
USER_SIZED_PROPERTY = "throughlineUserSized"
USER_SIZED_SUFFIX = "_user_sized"

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
        does when it closes). Returns whether a saved state was restored; for a header, whether
        the widths restored are ones the user chose (see USER_SIZED_PROPERTY): widths that only
        fitted the last session's rows are not worth keeping, the columns fit again."""
        self._check(key)
        self._tracked[key] = widget
        state = self.bytes_value(key)
        restored = state is not None and bool(widget.restoreState(state))
        if isinstance(widget, QHeaderView):
            user_sized = restored and _true(self._qs.value(key + USER_SIZED_SUFFIX))
            widget.setProperty(USER_SIZED_PROPERTY, user_sized)
            return user_sized
        return restored

    def save_tracked(self) -> None:
        """Save the state of every tracked splitter and header still alive."""
        for key, widget in list(self._tracked.items()):
            if isValid(widget):
                self.set_bytes(key, widget.saveState())
                if isinstance(widget, QHeaderView):
                    self._qs.setValue(key + USER_SIZED_SUFFIX,
                                      _true(widget.property(USER_SIZED_PROPERTY)))
            else:
                del self._tracked[key]


def _true(value: object) -> bool:
    """A flag read back from QSettings (a bool, or its text in an ini file)."""
    return value is True or (isinstance(value, str) and value.lower() == "true")
