"""Talking to an OpenAI-compatible serving endpoint: configuration, discovery, streaming."""
