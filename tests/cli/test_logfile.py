"""A crash in a command: one line on the terminal, the trace in the log file, no key in either."""

import logging

import pytest

from desktop_app import cli, logfile
from desktop_app.core.redact import remember_secret


@pytest.fixture
def fresh_root_logger():
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    root.handlers = []
    yield
    for handler in root.handlers:
        handler.close()
    root.handlers, root.level = saved_handlers, saved_level


def test_a_crash_is_one_line_and_a_redacted_trace_in_the_log(
        fresh_root_logger, monkeypatch, capsys):
    key = "canary-crash-93b1d7e0"
    remember_secret(key)

    def crash(args):
        raise RuntimeError(f"server said 401 for Authorization: {key}")

    monkeypatch.setattr("desktop_app.cli.profiles.run_profiles", crash)
    assert cli.main(["profiles"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("throughline profiles: unexpected error: ")
    assert key not in err[0] and "details in" in err[0]
    text = logfile.log_path().read_text()
    assert "Traceback" in text and "RuntimeError" in text
    assert key not in text
