"""The benchmarks' own comparison functions, copied verbatim from their public code, so the
tests can check Throughline's official-rule judges (core/sqleval/judges/spider2.py, bird.py,
test_suite.py) against them. Each module names its source, commit and licence; nothing here is
imported by the application."""
