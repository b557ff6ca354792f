"""User preferences and window state, behind declared keys (QSettings lives only here).

Run configurations and results are domain data and belong in the results store, never here.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION = "Throughline"
APPLICATION = "throughline"

KEY_WINDOW_GEOMETRY = "window/geometry"
KEY_WINDOW_STATE = "window/state"
KEY_LAST_PAGE = "window/last_page"

DECLARED_KEYS: set[str] = {KEY_WINDOW_GEOMETRY, KEY_WINDOW_STATE, KEY_LAST_PAGE}


def declare(*keys: str) -> None:
    """Declare settings keys a page uses (call at import time of the page's module), e.g.
    `declare("throughput/form")`. Only declared keys can be read or written."""
    DECLARED_KEYS.update(keys)


class Settings:
    """Typed access to the app's QSettings; unknown keys are refused so none creep in."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self._qs = qsettings or QSettings(ORGANIZATION, APPLICATION)

    def _check(self, key: str) -> None:
        if key not in DECLARED_KEYS:
            raise KeyError(f"undeclared settings key {key!r}")

    def bytes_value(self, key: str) -> QByteArray | None:
        self._check(key)
        value = self._qs.value(key)
        return value if isinstance(value, QByteArray) else None

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
