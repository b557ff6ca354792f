"""Checking the base URL a user typed, before anything is sent to it."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

__all__ = ["validate_base_url"]

_SCHEMES = ("http", "https")


def validate_base_url(text: str) -> str:
    """The base URL, trimmed and without a trailing slash; raises ValueError("base URL: ...").

    Accepts the server root (`http://host:8000`) or its OpenAI root (`.../v1`); rejects an
    empty text, a missing or unsupported scheme, a missing host, a bad port, spaces inside, and
    a query or fragment (the app appends paths to it). Messages are fit to show a user.
    """
    url = (text or "").strip()
    if not url:
        raise ValueError("base URL: empty (e.g. http://localhost:8000)")
    if any(ch.isspace() for ch in url):
        raise ValueError(f"base URL: contains a space: {url!r}")
    if "://" not in url:
        raise ValueError(f"base URL: no scheme in {url!r}: start it with http:// or https://")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:  # "Invalid IPv6 URL", a bracketed host that is no address
        raise ValueError(f"base URL: cannot be read: {url!r} ({exc})") from None
    if parts.scheme.lower() not in _SCHEMES:
        raise ValueError(f"base URL: unsupported scheme {parts.scheme!r} in {url!r}: "
                         "use http:// or https://")
    if not host:
        raise ValueError(f"base URL: no host in {url!r}")
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise ValueError(f"base URL: bad port in {url!r}") from None
    if parts.query or parts.fragment:
        raise ValueError(f"base URL: remove the query or fragment from {url!r}")
    try:
        # The client must be able to send to it: control characters, a host that is not a
        # valid (IDNA) name and the like pass urlsplit but fail at the first request.
        if not httpx.URL(url).host:
            raise httpx.InvalidURL("no host")
    except httpx.InvalidURL as exc:
        raise ValueError(f"base URL: cannot be used: {url!r} ({exc})") from None
    return url.rstrip("/")
