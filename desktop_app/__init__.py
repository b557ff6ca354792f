"""Throughline: benchmark LLM serving endpoints for speed and for agentic text-to-SQL quality."""

__version__ = "0.1.0"
