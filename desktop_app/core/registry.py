"""Registries read from a package on first use: every module of the package is imported once,
and its import registers what it describes (the judges, the engines)."""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Iterable


class ModulesOnce:
    """Imports each module of `package` (at `path`, its `__path__`) the first time `load` is
    called, from any thread; modules named with a leading "_" are helpers and are left out."""

    def __init__(self, package: str, path: Iterable[str]) -> None:
        self.package, self.path = package, list(path)
        self._lock = threading.Lock()
        self._loaded = False

    def load(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if not self._loaded:
                for module in pkgutil.iter_modules(self.path):
                    if not module.name.startswith("_"):
                        importlib.import_module(f"{self.package}.{module.name}")
                self._loaded = True
