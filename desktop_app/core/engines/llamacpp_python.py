"""llama-cpp-python's server: known only by its /extras/tokenize; no usage in streams, no
ignore_eos, and by default a new request cuts off the running stream."""

from __future__ import annotations

from desktop_app.core.engines import Engine, register

ENGINE = register(Engine(
    "llamacpp-python", "llama-cpp-python", rank=45,
    by_tokenizer=lambda probe, kind: kind == "llamacpp-python",
    hints=("stream_cut",), notes=("stream_habits_llamacpp-python",),
))
