"""Pieces the headless commands share: endpoint flags read the same way everywhere."""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import ExitStack

from desktop_app.core.parsing import InputError
from desktop_app.terminal import control


LANGS = ("en", "zh")
LANG_ENV = "THROUGHLINE_LANG"


EXIT_USAGE = 2
DB_HELP = "results database (default: $THROUGHLINE_DB, else the user data folder)"
LANG_HELP = f"language of the words (default: ${LANG_ENV}, else en)"


class CliError(Exception):
    """A problem with the user's input or environment, shown as one line."""


def global_options(*, db: bool = True, lang: bool = True) -> argparse.ArgumentParser:
    """The options `throughline` takes before its command and every command takes after it:
    `throughline --db X runs` and `throughline runs --db X` are one command. A parent parser
    (argparse's `parents=`) so each command gets them the same way. The defaults are SUPPRESS:
    a command not given one leaves the value given before it standing; given after, it wins.
    `db=False` for `sql` and `judge`, whose own `--db` names the SQLite database they query."""
    parser = argparse.ArgumentParser(add_help=False)
    if db:
        parser.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS, help=DB_HELP)
    if lang:
        parser.add_argument("--lang", choices=list(LANGS), default=argparse.SUPPRESS,
                            help=LANG_HELP)
    return parser


def cli_error(field: str, code: str, /, **params) -> InputError:
    """Input the command line itself refuses: an InputError with the code "cli_<code>" (its
    words: `report.cli_words.ERRORS`), said in the reader's language as every InputError is."""
    from desktop_app.report.cli_words import cli_text

    return InputError(field, cli_text("en", "errors", code, **params), code=f"cli_{code}",
                      **params)


def refield(exc: InputError, field: str) -> InputError:
    """`exc` said under `field` (the flag a form field's name stands for), its code kept."""
    return InputError(field, exc.message, code=exc.code, **exc.params)


def said(field: str, exc: BaseException, args: argparse.Namespace) -> InputError:
    """`exc`, an error the core raised, as input refused under `field`, in the command's
    language (`report.errors.error_text`)."""
    from desktop_app.report.errors import error_text

    return InputError(field, code="said", text=error_text(exc, words_lang(args)))


def words_lang(args: argparse.Namespace) -> str:
    """The language a command prints in: --lang, else $THROUGHLINE_LANG, else English."""
    lang = getattr(args, "lang", None) or os.environ.get(LANG_ENV) or "en"
    if lang not in LANGS:
        raise cli_error("--lang", "lang_env", env=LANG_ENV, value=lang, langs=", ".join(LANGS))
    return lang


def api_key_from_env(args: argparse.Namespace) -> str | None:
    """The API key named by --api-key-env (never a flag's value: keys stay out of shell history)."""
    if not getattr(args, "api_key_env", None):
        return None
    key = os.environ.get(args.api_key_env)
    if not key:
        raise cli_error("--api-key-env", "env_unset", name=args.api_key_env)
    from desktop_app.core.redact import remember_secret

    remember_secret(key)
    return key


def checked_base_url(base_url: str, api_key: str | None = None, lang: str = "en") -> str:
    """The --base-url, normalised; InputError naming the flag when it is not a usable URL, and
    naming --api-key-env when the URL carries a `user:password@` and `api_key` is given too.

    Both would be an `Authorization` header, and a request carries one: httpx lets the URL's
    Basic credentials win, curl lets an explicit header win, and the key was dropped without a
    word. Neither precedence is what every user expects, so the two together are refused."""
    from urllib.parse import urlsplit

    from desktop_app.core.endpoint.discovery import validate_base_url
    from desktop_app.core.redact import redact_text, remember_url_secrets

    # A `user:password@` URL's credentials are blanked in everything printed or written.
    remember_url_secrets(base_url)
    try:
        url = validate_base_url(base_url)
    except ValueError as exc:
        code = getattr(exc, "code", "")
        if code:  # said under the flag, in the reader's language, credentials blanked
            raise InputError("--base-url", code=code, **{
                k: redact_text(v) if isinstance(v, str) else v
                for k, v in exc.params.items()}) from None
        raise InputError("--base-url", redact_text(str(exc))) from None
    parts = urlsplit(url)
    if api_key and (parts.username is not None or parts.password is not None):
        from desktop_app.report.safety_words import safety_text

        raise InputError("--api-key-env", safety_text(lang, "two_credentials"))
    return url


def warn_long_model_ids(info, lang: str) -> None:
    """Say on stderr that discovery left out model ids too long to offer (`info.long_model_ids`),
    in `lang`."""
    count = getattr(info, "long_model_ids", 0) if info is not None else 0
    if count:
        from desktop_app.core.endpoint.limits import MAX_MODEL_ID_CHARS
        from desktop_app.report.safety_words import safety_text

        print(safety_text(lang, "long_model_ids", count=count, limit=MAX_MODEL_ID_CHARS),
              file=sys.stderr)


def endpoint_or_simulator(stack: ExitStack, base_url: str | None, simulator: str | None,
                          question_sets: tuple = (), lang: str = "en") -> str:
    """The base URL to use: `base_url`, or a built-in simulator started with profile
    `simulator` that lives as long as `stack` (its SQL personas answering `question_sets`
    too). Exactly one of the two must be given."""
    if bool(base_url) == bool(simulator):
        raise cli_error("--base-url", "need_endpoint")
    if not simulator:
        return base_url
    from desktop_app.core.simulator.launcher import SimulatorStartError, start_simulator
    from desktop_app.core.simulator.profiles import ProfileError, load_profile

    try:  # a profile that does not exist is said here, before a process is started for it
        load_profile(simulator)
    except ProfileError as exc:
        from desktop_app.report.errors import error_text

        raise InputError("--simulator", code="said", text=error_text(exc, lang)) from None
    try:
        sim = stack.enter_context(start_simulator(simulator, question_sets=question_sets))
    except SimulatorStartError as exc:
        from desktop_app.report.errors import error_text

        raise InputError("--simulator", code="said", text=error_text(exc, lang)) from None
    from desktop_app.report.cli_words import cli_text

    print(cli_text(lang, "run", "simulator_started", profile=simulator, url=sim.url),
          file=sys.stderr)
    return sim.url


def open_results_store(path=None, flag: str = "--db", lang: str | None = None):
    """The results store at `path` (default: the one `--db`/$THROUGHLINE_DB names), opened and
    checked for a run (`Store.open`: not a folder, SQLite, whole, writable, room on the disk).
    An unusable file is an InputError naming `flag`, the path and what is wrong in `lang`
    (default $THROUGHLINE_LANG, else English): one line, exit 2, before any server is
    contacted. Close it (or use it in `with`)."""
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    try:
        return Store.open(resolve_db_path(None) if path is None else path)
    except StoreError as exc:
        from desktop_app.report.store_words import store_error_text

        words = lang or words_lang(argparse.Namespace())
        raise InputError(flag, store_error_text(exc, words)) from None


def check_results_store(args: argparse.Namespace) -> None:
    """Open and close the results store a command will write into (unless `--no-store`), so an
    unusable file stops the command before it contacts a server (see `open_results_store`)."""
    if not getattr(args, "no_store", False):
        open_results_store(lang=words_lang(args)).close()


class ProgressLine:
    """One line of progress on a terminal (stderr, only when it is a terminal), redrawn at most
    10 times a second. Subclasses turn a progress record into `text(progress)`."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr  # looked up now: tests and callers swap sys.stderr
        self.enabled = self.stream.isatty()
        self._last = 0.0

    def text(self, progress) -> str:
        return str(progress)

    def urgent(self, progress) -> bool:
        """Whether this record is shown even within 0.1 s of the last one."""
        return False

    def __call__(self, progress) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and not self.urgent(progress):
            return
        self._last = now
        control(self.stream, "\r\x1b[2K")  # the text passes the terminal's gate, these not
        self.stream.write(self.text(progress)[:150])
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            control(self.stream, "\r\x1b[2K")
            self.stream.flush()
