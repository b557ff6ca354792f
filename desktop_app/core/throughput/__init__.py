"""Throughput sweeps: exact-length prompts, the sweep runner, server metrics, diagnosis."""
