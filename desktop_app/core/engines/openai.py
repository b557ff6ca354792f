"""Any OpenAI-compatible server no other module recognises: every /tokenize shape is tried,
nothing engine-specific is read."""

from __future__ import annotations

from desktop_app.core.engines import UNKNOWN, Engine, register

ENGINE = register(Engine(UNKNOWN, "OpenAI-compatible", rank=1_000))
