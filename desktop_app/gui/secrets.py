"""API keys of saved endpoints: in the system keyring where there is one, else in memory.

Keys are never written to QSettings, the results store, the profiles file, logs or exports.
Without a usable keyring (keyring's `fail` or `null` backend, or a keyring that errors) a key
lives in this process's memory for the session only, and `keyring_available()` says so, so the
page can tell the user next to the field.

keyring is imported, and the system's backend looked up (~0.3 s: entry points, D-Bus), only when
a key or `persistent` is first needed, not when this module is imported or ApiKeys is made.
"""

from __future__ import annotations

import logging

from desktop_app.core.redact import remember_secret

log = logging.getLogger(__name__)

SERVICE = "throughline-endpoint"


def _default_backend() -> object:
    import keyring

    return keyring.get_keyring()


def keyring_available(backend: object | None = None) -> bool:
    """Whether `backend` (default: the system's) can really store secrets."""
    from keyring.backends import fail, null

    backend = backend if backend is not None else _default_backend()
    return not isinstance(backend, (fail.Keyring, null.Keyring))


class ApiKeys:
    """Set, get and delete the API key of a profile by its name.

    `backend` is a keyring backend (anything with get/set/delete_password); None means the
    system's. When it is unusable, or fails once, keys are kept in memory from then on.
    Keyring calls can block briefly (D-Bus); they are short enough to make from a slot.
    """

    def __init__(self, backend: object | None = None) -> None:
        self._given_backend = backend
        self._backend_checked = False
        self._backend: object | None = None
        self._use_keyring_flag = False
        self._memory: dict[str, str] = {}

    @property
    def _use_keyring(self) -> bool:
        # The backend lookup is slow; it happens here, on first use, not in __init__.
        if not self._backend_checked:
            self._backend_checked = True
            try:
                backend = (self._given_backend if self._given_backend is not None
                           else _default_backend())
                self._backend = backend
                self._use_keyring_flag = keyring_available(backend)
            except Exception as exc:  # noqa: BLE001 - no keyring at all: keys stay in memory
                self._give_up(exc)
        return self._use_keyring_flag

    @_use_keyring.setter
    def _use_keyring(self, value: bool) -> None:
        self._backend_checked = True
        self._use_keyring_flag = value

    @property
    def persistent(self) -> bool:
        """True when keys go to the system keyring, False when they are kept in memory."""
        return self._use_keyring

    def _give_up(self, exc: Exception) -> None:
        # No key in the message: keyring errors name the service and user only.
        log.warning("system keyring unusable, keeping API keys in memory: %s",
                    type(exc).__name__)
        self._use_keyring = False

    def set(self, name: str, key: str) -> None:
        """Keep `key` for profile `name`; an empty key deletes it."""
        if not key:
            self.delete(name)
            return
        remember_secret(key)
        self._memory[name] = key
        if self._use_keyring:
            try:
                self._backend.set_password(SERVICE, name, key)
            except Exception as exc:  # noqa: BLE001 - any keyring failure: fall back to memory
                self._give_up(exc)

    def get(self, name: str) -> str | None:
        """The key for profile `name`, or None."""
        if name in self._memory:
            return self._memory[name]
        if not self._use_keyring:
            return None
        try:
            key = self._backend.get_password(SERVICE, name)
        except Exception as exc:  # noqa: BLE001
            self._give_up(exc)
            return None
        if key:
            remember_secret(key)
            self._memory[name] = key
        return key or None

    def delete(self, name: str) -> None:
        """Forget the key for profile `name` (no error when there is none)."""
        self._memory.pop(name, None)
        if self._use_keyring:
            try:
                self._backend.delete_password(SERVICE, name)
            except Exception as exc:  # noqa: BLE001
                import keyring.errors

                if not isinstance(exc, keyring.errors.PasswordDeleteError):
                    self._give_up(exc)  # else there was none

    def rename(self, old: str, new: str) -> None:
        """Move the key of a renamed profile."""
        key = self.get(old)
        self.delete(old)
        if key:
            self.set(new, key)
