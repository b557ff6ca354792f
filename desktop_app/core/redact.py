"""Keep credentials out of everything Throughline stores or shows.

A run's configuration, endpoint URL and error messages end up in the results database, in exports
and in screenshots of the run browser, so secrets are removed before anything is written. Removal
(not masking) is deliberate: a stored configuration that is re-run asks for the key again rather
than silently carrying a placeholder to the server.

The name test is shared by dictionary keys, header names and URL query parameters. It is written
so that token *counts* (``max_tokens``, ``prompt_tokens``, ``min_tokens``) and tokenizer settings
are never mistaken for secrets, while ``api_key``, ``x-api-key``, ``Authorization``,
``access_token`` and the like always are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

__all__ = ["display_text", "is_secret_name", "known_secrets", "redact_config",
           "redact_document", "redact_known", "redact_text", "redact_url", "remember_secret",
           "remember_url_secrets", "shown"]

# Keys this process was given (from the environment, the keyring, a form), each in every form
# it can be written in (see `remember_secret`). Patterns catch "sk-..." and "Bearer ..."; a key
# of any other shape is only caught by being known. `_ORDERED` is the same, longest first (a
# form that holds another, an escaped one, goes first), replaced whole on every change so a
# reader on another thread (the store's writer) always sees a complete tuple.
_KNOWN_SECRETS: set[str] = set()
_ORDERED: tuple[str, ...] = ()
_MIN_KNOWN_SECRET_LEN = 6  # shorter "keys" (e.g. "none", "EMPTY") would blank ordinary words

# Names compared after lower-casing and dropping everything but letters and digits, so "API-Key",
# "api_key" and "apiKey" are one name.
_SECRET_EXACT = frozenset(
    {
        "token",
        "bearer",
        "auth",
        "authorization",
        "proxyauthorization",
        "cookie",
        "setcookie",
        "credentials",
        "key",
        "sig",
        "signature",
    }
)
# Words that make a name secret wherever they appear in it ("openai_api_key", "db_password").
_SECRET_WORDS = ("apikey", "password", "passwd", "secret", "authorization", "privatekey")
# Endings for token-like names; a bare "token" ending would also catch "max_token" or "first_token".
_SECRET_SUFFIXES = (
    "accesstoken",
    "authtoken",
    "refreshtoken",
    "bearertoken",
    "sessiontoken",
    "idtoken",
    "apitoken",
    "accesskey",
    "secretkey",
)
# Settings that say *where* a secret lives ("api_key_env": "OPENAI_API_KEY") are not secrets, and
# losing them would make a stored configuration impossible to re-run.
_POINTER_SUFFIXES = ("env", "envvar", "var", "file", "path", "name")

# Keys of header-like records, {"name": "Authorization", "value": "..."}, whose value is a secret
# when the name is.
_RECORD_NAME_KEYS = ("name", "key", "header")
_RECORD_VALUE_KEYS = ("value", "values")

_AUTH_VALUE = re.compile(r"^\s*(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}\s*$", re.IGNORECASE)
# A URL in free text is found from its "://" (str.find, linear) and grown from there: a scheme
# of at most _MAX_SCHEME_CHARS characters before it, the URL's body after it. (A regex starting
# at the scheme, `[a-zA-Z][a-zA-Z0-9+.-]*://`, re-scans a long run of letters from every
# position: quadratic, minutes on a 1 MB tool name.)
_SCHEME_CHAR = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
_MAX_SCHEME_CHARS = 32
_URL_BODY = re.compile(r"[^\s'\"<>]+")
_AUTH_IN_TEXT = re.compile(r"\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_HEADER_IN_TEXT = re.compile(
    r"\b(authorization|x-api-key|api[-_]?key)(['\"]?\s*[:=]\s*['\"]?)(?!bearer\s)[^\s'\",}]+",
    re.IGNORECASE,
)
_KEYLIKE_IN_TEXT = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")


def _normalise(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def is_secret_name(name: str) -> bool:
    """True when a dictionary key, header name or query parameter name looks like it holds a secret.

    ``api_key``, ``X-API-Key``, ``Authorization``, ``password``, ``access_token``, ``client_secret``
    are secret names; ``max_tokens``, ``prompt_tokens``, ``tokenizer`` and ``api_key_env`` (the
    name of an environment variable, not the key) are not.
    """
    norm = _normalise(name)
    if not norm:
        return False
    if norm in _SECRET_EXACT:
        return True
    for suffix in _POINTER_SUFFIXES:
        stem = norm[: -len(suffix)]
        if (
            norm.endswith(suffix)
            and stem
            and (stem in _SECRET_EXACT or stem.endswith(_SECRET_WORDS))
        ):
            return False
    if any(word in norm for word in _SECRET_WORDS):
        return True
    return norm.endswith(_SECRET_SUFFIXES)


def _looks_like_url(value: str) -> bool:
    return "://" in value[:16]


def _redact_value(value: Any) -> Any:
    if isinstance(value, Mapping):
        return redact_config(value)
    if isinstance(value, (list, tuple)):
        kept = []
        for item in value:
            # Header lists as pairs: [["Authorization", "Bearer ..."], ...]
            if (
                isinstance(item, (list, tuple))
                and len(item) == 2
                and isinstance(item[0], str)
                and is_secret_name(item[0])
            ):
                continue
            if isinstance(item, str) and _AUTH_VALUE.match(item):
                continue
            kept.append(_redact_value(item))
        return kept
    if isinstance(value, str) and _looks_like_url(value):
        return redact_url(value)
    return value


def redact_config(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy of a run configuration with every secret removed, at any depth.

    Keys whose name looks like a secret (see :func:`is_secret_name`) are dropped with their values;
    so are string values that are themselves credentials (``"Bearer ..."``), secret header pairs in
    lists, and the value of header records such as ``{"name": "Authorization", "value": ...}``.
    Strings that are URLs pass through :func:`redact_url`. Tuples come back as lists (JSON has no
    tuples). The input is not modified.
    """
    out: dict[str, Any] = {}
    record_is_secret = any(
        isinstance(cfg.get(k), str) and is_secret_name(cfg[k]) for k in _RECORD_NAME_KEYS
    )
    for key, value in cfg.items():
        name = str(key)
        if is_secret_name(name):
            continue
        if record_is_secret and name.lower() in _RECORD_VALUE_KEYS:
            continue
        if isinstance(value, str) and _AUTH_VALUE.match(value):
            continue
        out[name] = _redact_value(value)
    return out


def _strip_secret_params(query: str) -> str:
    # Work on the raw text so every parameter that stays keeps its exact original encoding.
    kept = []
    for part in query.split("&"):
        name = part.split("=", 1)[0]
        if part and is_secret_name(unquote_plus(name)):
            continue
        kept.append(part)
    return "&".join(kept)


def redact_url(url: str) -> str:
    """Return ``url`` without ``user:password@`` and without secret-looking query parameters.

    Query parameters such as ``key``, ``api_key``, ``token`` and ``access_token`` are removed (also
    from a ``#fragment`` written as parameters); all other parameters keep their order and encoding.
    A string that does not parse as a URL is returned unchanged.
    """
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = _strip_secret_params(parts.query) if parts.query else parts.query
    fragment = parts.fragment
    if "=" in fragment:
        fragment = _strip_secret_params(fragment)
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def redact_text(text: str) -> str:
    """Return free text (an error message, a log line) with credentials blanked out.

    URLs inside the text go through :func:`redact_url`; ``Bearer <token>``, ``sk-...``-style keys
    and ``Authorization: ...`` values become ``[redacted]``. Used on error messages, which HTTP
    libraries like to fill with the full request URL. Every key given to
    :func:`remember_secret` is blanked wherever it appears, whatever its shape.
    """
    if not text:
        return text
    # URLs first: a `user:password@` is removed whole before a known password is blanked
    # inside it (which would leave a URL urlsplit cannot read).
    if "://" in text:
        text = _redact_urls_in(text)
    text = redact_known(text)
    text = _AUTH_IN_TEXT.sub(lambda m: f"{m.group(1)} [redacted]", text)
    text = _HEADER_IN_TEXT.sub(lambda m: f"{m.group(1)}{m.group(2)}[redacted]", text)
    return _KEYLIKE_IN_TEXT.sub("[redacted]", text)


# What a terminal, a table or a PDF must never be handed from a server: C0 controls but tab and
# line feed (ESC starts the sequences that clear a screen, move the cursor or set a window's
# title; CR overwrites a line), DEL, the C1 controls (U+009B is a CSI of its own), the bidi
# overrides and isolates that reorder what follows, and lone surrogates (no UTF-8 stream can
# write them: printing one raises).
_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def display_text(text: str) -> str:
    """`text` fit to show: every character a terminal or a layout would act on (`_UNSHOWN`)
    replaced by U+FFFD, one for one, so a table's columns stay aligned; tabs and line feeds
    kept. For where text is shown, not where it is kept (a model id must reach the server as
    it was listed; `limits.clean_text` is what goes into the store). Linear."""
    if text and _UNSHOWN.search(text):
        return _UNSHOWN.sub("\ufffd", text)
    return text


def shown(text: str) -> str:
    """`text` as a terminal, the log or a PDF may receive it: credentials blanked
    (:func:`redact_text`) and control characters made harmless (:func:`display_text`)."""
    return display_text(redact_text(text))


def _redact_urls_in(text: str) -> str:
    """`text` with every URL passed through :func:`redact_url`; linear in len(text)."""
    out: list[str] = []
    done = 0  # text[:done] is already in `out`
    pos = text.find("://")
    while pos != -1:
        start = pos
        while start > done and pos - start < _MAX_SCHEME_CHARS and text[start - 1] in _SCHEME_CHAR:
            start -= 1
        while start < pos and not text[start].isalpha():  # a scheme starts with a letter
            start += 1
        body = _URL_BODY.match(text, pos + 3)
        if start == pos or body is None:
            pos = text.find("://", pos + 3)
            continue
        end = body.end()
        out.append(text[done:start])
        out.append(redact_url(text[start:end]))
        done = end
        pos = text.find("://", end)
    out.append(text[done:])
    return "".join(out)


def redact_known(text: str) -> str:
    """`text` with every form of every remembered secret (`remember_secret`) blanked, and
    nothing else changed: for text that is data (a model's reply, a query's result, a stored
    JSON document), where the patterns of :func:`redact_text` would also blank look-alikes."""
    secrets = _ORDERED
    if not secrets or not text:
        return text
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return text


def known_secrets() -> tuple[str, ...]:
    """Every form of every remembered secret, longest first (empty when none is known)."""
    return _ORDERED


def redact_document(value: Any) -> Any:
    """A JSON-like document (dicts, lists, tuples, strings, numbers) with every remembered
    secret blanked in every string, keys included (:func:`redact_known`); the document itself
    when no secret is known. The input is not modified."""
    if not _ORDERED:
        return value
    return _redact_doc(value)


def _redact_doc(value: Any) -> Any:
    if isinstance(value, str):
        return redact_known(value)
    if isinstance(value, Mapping):
        return {redact_known(k) if isinstance(k, str) else k: _redact_doc(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact_doc(v) for v in value]
    return value


def _written_forms(value: str) -> set[str]:
    """The ways `value` can appear in text Throughline writes or reads: as it is, escaped in
    JSON (with or without non-ASCII escapes, `/` as `\\/` as some servers write it) and
    percent-encoded (in a URL's query or path)."""
    import json
    from urllib.parse import quote, quote_plus

    forms = {value}
    for ascii_only in (False, True):
        escaped = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
        forms |= {escaped, escaped.replace("/", "\\/")}
    forms |= {quote(value, safe=""), quote_plus(value, safe="")}
    return {f for f in forms if len(f) >= _MIN_KNOWN_SECRET_LEN}


def remember_secret(value: str | None) -> None:
    """Make :func:`redact_text` (and :func:`redact_known`) blank `value` from now on in this
    process (an API key read from the environment or the keyring), in every form it may be
    written in (`_written_forms`: raw, JSON-escaped, percent-encoded), and with it the
    "Bearer <value>" a client sends. Values shorter than 6 characters are ignored: servers that
    need no key are often given "none" or "EMPTY", and those words must survive in messages."""
    global _ORDERED
    if not value or len(value.strip()) < _MIN_KNOWN_SECRET_LEN:
        return
    new = _written_forms(value.strip()) | _written_forms(value)
    if new <= _KNOWN_SECRETS:
        return
    _KNOWN_SECRETS.update(new)
    _ORDERED = tuple(sorted(_KNOWN_SECRETS, key=len, reverse=True))


def remember_url_secrets(url: str | None) -> None:
    """Remember the credentials of a `user:password@` URL (the password as typed and decoded,
    and the `Basic` token an HTTP client builds from the pair) so :func:`redact_text` blanks them
    wherever a server or a library echoes them back."""
    if not url or "@" not in url:
        return
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        return
    if not password:
        return
    import base64
    from urllib.parse import unquote

    remember_secret(password)
    remember_secret(unquote(password))
    # httpx and the lean client decode the pair before encoding it; a client that does not
    # would send the pair as typed.
    for name, word in ((unquote(user or ""), unquote(password)), (user or "", password)):
        pair = f"{name}:{word}".encode("utf-8", "replace")
        remember_secret(base64.b64encode(pair).decode("ascii"))
