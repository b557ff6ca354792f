"""Secrets against a server that echoes them (tests/core/hostile/server.py, `echo_all`): the API
key, a base URL's password and the Basic token built from it reach no byte the app prints,
stores or exports, in any form (raw, Bearer, base64, percent-encoded, decoded, JSON-escaped);
the URL's password is not printed by `sqleval`; a key and URL credentials together are refused.
See docs/RELIABILITY.md, "Hostile servers" (secrets, signals and terminals).
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.core.hostile.server import HostileServer
from tests.core.hostile.test_hostile_sweep import SMALL, cli

USER = "alice"
PASSWORD = "Hunter2/Secret+Pw9é"  # a `/`, a `+` and a non-ASCII letter: forms differ
TYPED = quote(PASSWORD, safe="")  # as it is written in the URL: Hunter2%2FSecret%2BPw9%C3%A9


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


def key_forms(key: str) -> dict[str, str]:
    return {"key": key, "bearer": f"Bearer {key}"}


def url_forms() -> dict[str, str]:
    pair = f"{USER}:{PASSWORD}"
    return {"password (decoded)": PASSWORD, "password (as typed)": TYPED,
            "password (JSON, ASCII)": json.dumps(PASSWORD)[1:-1],
            "password (JSON, slash escaped)": PASSWORD.replace("/", "\\/"),
            "basic token": base64.b64encode(pair.encode()).decode(),
            "user:password": pair}


def everything_written(tmp_path: Path, procs) -> dict[str, bytes]:
    """stdout and stderr of each process, every file under the test's home (the --json files,
    the log file, the results file and its WAL) and a `.dump` of the results database."""
    out = {}
    for i, proc in enumerate(procs):
        out[f"{i} stdout"] = proc.stdout.encode()
        out[f"{i} stderr"] = proc.stderr.encode()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            out[str(path.relative_to(tmp_path))] = path.read_bytes()
    db = tmp_path / "r.db"
    if db.exists():
        out["sqlite3 .dump"] = subprocess.run(["sqlite3", str(db), ".dump"], capture_output=True,
                                              check=True).stdout
    return out


def leaks(written: dict[str, bytes], forms: dict[str, str]) -> dict[str, list[str]]:
    found = {}
    for name, form in forms.items():
        where = [place for place, data in written.items() if form.encode() in data]
        if where:
            found[name] = where
    return found


@pytest.mark.parametrize("behaviour, mode", [
    ("echo_all", "key"), ("echo_all", "url"), ("echo_all.unknown", "key"),
    ("echo_all.error", "url"), ("echo_all.error", "key"),
])
def test_an_echoing_server_gets_no_secret_into_any_output(server, tmp_path, behaviour, mode):
    """Discovery, `throughput` and `sqleval` against a server that copies the Authorization
    header into its model id, /version, headers, content, ids, tool calls, SQL and errors."""
    key = f"tl-canary-{os.urandom(12).hex()}"
    if mode == "key":
        url, extra, env = server.url(behaviour), ["--api-key-env", "ECHO_KEY"], {"ECHO_KEY": key}
        forms = key_forms(key)
    else:
        url, extra, env = server.url(behaviour, userinfo=f"{USER}:{TYPED}"), [], {}
        forms = url_forms()
    sweep = cli(tmp_path, "throughput", "--base-url", url, *SMALL, *extra,
                "--json", str(tmp_path / "sweep.json"), env=env, timeout=60)
    assert sweep.returncode == 0, sweep.stderr
    sql = cli(tmp_path, "sqleval", "--base-url", url, "--ids", "t01", *extra,
              "--json", str(tmp_path / "sql.json"), env=env, timeout=90)
    assert sql.returncode == 0, sql.stderr

    # The server was asked and echoed: what it said is there, blanked.
    doc = json.loads((tmp_path / "sweep.json").read_text())
    if behaviour == "echo_all.error":
        assert doc["cells"][0]["failures_by_class"] == {"http_status": 2}
        assert all("[redacted]" in r["error_message"] for r in doc["requests"])
    else:
        assert doc["model"].startswith("m ") and "[redacted]" in doc["model"]
        assert "[redacted]" in sweep.stderr  # the Endpoint line's model
    written = everything_written(tmp_path, [sweep, sql])
    assert "sqlite3 .dump" in written and "sweep.json" in written and "sql.json" in written
    assert b"[redacted]" in written["sqlite3 .dump"]
    assert leaks(written, forms) == {}


@pytest.mark.parametrize("mode", ["key", "url"])
def test_discovery_quoting_the_secret_in_its_error_leaks_nothing(server, tmp_path, mode):
    key = f"tl-canary-{os.urandom(12).hex()}"
    if mode == "key":
        url, extra, env = (server.url("echo_all.models_error"), ["--api-key-env", "ECHO_KEY"],
                           {"ECHO_KEY": key})
        forms = key_forms(key)
    else:
        url, extra, env = server.url("echo_all.models_error", userinfo=f"{USER}:{TYPED}"), [], {}
        forms = url_forms()
    procs = [cli(tmp_path, command, "--base-url", url, *extra, *args, env=env)
             for command, args in (("throughput", SMALL), ("sqleval", ("--ids", "t01")))]
    for proc in procs:
        assert proc.returncode == 2
        last = proc.stderr.strip().splitlines()[-1]
        assert "500 Internal Server Error" in last and "you_sent" in last, last
        assert "[redacted]" in last
    assert leaks(everything_written(tmp_path, procs), forms) == {}


def test_sqleval_prints_the_endpoint_without_the_urls_password(server, tmp_path):
    url = server.url("ok", userinfo="alice:Hunter2SecretPw9")
    proc = cli(tmp_path, "sqleval", "--base-url", url, "--ids", "t01", timeout=90)
    assert proc.returncode == 0, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first == f"Endpoint http://127.0.0.1:{server.port}/ok/v1: vllm, model m; set sales-25"
    assert "Hunter2SecretPw9" not in proc.stdout + proc.stderr
    assert b"Hunter2SecretPw9" not in b"".join(everything_written(tmp_path, [proc]).values())


def test_every_line_a_command_prints_passes_the_gate(monkeypatch, capsys):
    """The mechanism: whatever a command prints (to stdout, stderr, through a warning) passes
    terminal.ShownStream; a command that forgets to redact cannot leak."""
    from desktop_app import cli as cli_module
    from desktop_app.core.redact import remember_url_secrets

    url = f"http://{USER}:{TYPED}@127.0.0.1:9/v1"
    basic = url_forms()["basic token"]

    def careless(args):
        import logging
        import sys

        remember_url_secrets(url)
        print(f"Endpoint {url}: model m\x1b[2J")
        print(f"server said: you sent Basic {basic} = {USER}:{PASSWORD}", file=sys.stderr)
        logging.getLogger("desktop_app.test").warning("echo %s", PASSWORD)
        return 0

    monkeypatch.setattr("desktop_app.cli.runs.run_runs", careless)
    assert cli_module.main(["runs"]) == 0
    out = capsys.readouterr()
    assert out.out == "Endpoint http://127.0.0.1:9/v1: model m\ufffd[2J\n"
    assert f"Basic [redacted] = {USER}:[redacted]" in out.err
    for form in url_forms().values():
        assert form not in out.out + out.err


def test_the_log_file_blanks_every_form_of_an_echoed_password(tmp_path, monkeypatch):
    """A crash whose message quotes what a server echoed (the Basic token, the password decoded
    and JSON-escaped as an error body quotes it) is logged with its traceback, blanked."""
    from desktop_app import cli as cli_module
    from desktop_app.logfile import log_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = f"http://{USER}:{TYPED}@127.0.0.1:9/v1"

    def crash(args):
        from desktop_app.cli.common import checked_base_url

        checked_base_url(url)  # remembers the URL's credentials, as every command does
        forms = url_forms()
        raise ConnectionError("500 from server: " + json.dumps({"you_sent": f"Basic "
                              f"{forms['basic token']} = {forms['user:password']}"}) +
                              f" / {forms['password (JSON, slash escaped)']}")

    monkeypatch.setattr("desktop_app.cli.runs.run_runs", crash)
    assert cli_module.main(["runs"]) == 1
    logged = log_path().read_text(encoding="utf-8")
    assert "ConnectionError" in logged and "Traceback" in logged
    assert leaks({"log": logged.encode()}, url_forms()) == {}


@pytest.mark.parametrize("command, args", [
    ("throughput", SMALL), ("sqleval", ("--ids", "t01")),
])
def test_a_key_and_url_credentials_together_are_refused(server, tmp_path, command, args):
    url = server.url("ok", userinfo="alice:Hunter2SecretPw9")
    proc = cli(tmp_path, command, "--base-url", url, "--api-key-env", "ECHO_KEY", *args,
               env={"ECHO_KEY": "tl-canary-0123456789"})
    assert proc.returncode == 2
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith(f"throughline {command}: --api-key-env: the base URL carries a user "
                           "name and password"), line
    if (tmp_path / "r.db").exists():  # nothing was run, nothing stored
        with sqlite3.connect(tmp_path / "r.db") as db:
            assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    zh = cli(tmp_path, command, "--base-url", url, "--api-key-env", "ECHO_KEY", *args,
             "--lang", "zh", env={"ECHO_KEY": "tl-canary-0123456789"})
    assert zh.returncode == 2 and "一个请求只有一个 Authorization 头" in zh.stderr
