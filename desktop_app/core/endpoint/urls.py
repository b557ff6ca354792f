"""Checking the base URL a user typed, before anything is sent to it."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from desktop_app.core.parsing import InputError

__all__ = ["validate_base_url"]

_SCHEMES = ("http", "https")
_FIELD = "base URL"


def validate_base_url(text: str) -> str:
    """The base URL, trimmed and without a trailing slash; raises InputError("base URL", ...), a
    ValueError.

    Accepts the server root (`http://host:8000`) or its OpenAI root (`.../v1`); rejects an
    empty text, a missing or unsupported scheme, a missing host, a bad port, spaces inside, and
    a query or fragment (the app appends paths to it). Each error carries a code and the URL
    (`report.input_words` says it in the reader's language).
    """
    url = (text or "").strip()
    if not url:
        raise InputError(_FIELD, code="url_empty")
    if any(ch.isspace() for ch in url):
        raise InputError(_FIELD, code="url_space", url=repr(url))
    if "://" not in url:
        raise InputError(_FIELD, code="url_no_scheme", url=repr(url))
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:  # "Invalid IPv6 URL", a bracketed host that is no address
        raise InputError(_FIELD, code="url_unreadable",
                         url=repr(url), detail=str(exc)) from None
    if parts.scheme.lower() not in _SCHEMES:
        raise InputError(_FIELD, code="url_scheme",
                         scheme=repr(parts.scheme), url=repr(url))
    if not host:
        raise InputError(_FIELD, code="url_no_host", url=repr(url))
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise InputError(_FIELD, code="url_port",
                         url=repr(url)) from None
    if parts.query or parts.fragment:
        raise InputError(_FIELD, code="url_query",
                         url=repr(url))
    try:
        # The client must be able to send to it: control characters, a host that is not a
        # valid (IDNA) name and the like pass urlsplit but fail at the first request.
        if not httpx.URL(url).host:
            raise httpx.InvalidURL("no host")
    except httpx.InvalidURL as exc:
        raise InputError(_FIELD, code="url_unusable",
                         url=repr(url), detail=str(exc)) from None
    return url.rstrip("/")
