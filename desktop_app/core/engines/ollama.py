"""Ollama: its /api/version; no /tokenize shape the prompt builder uses, no /metrics."""

from __future__ import annotations

from desktop_app.core.engines import Engine, register

ENGINE = register(Engine(
    "ollama", "Ollama", rank=20, recognise=lambda probe: "version" in probe.json("/api/version"),
    version=lambda probe: probe.json("/api/version").get("version"),
    probes=("/api/version",), tokenizers=(), refuses_unknown_model=True,
))
