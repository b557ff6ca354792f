"""Pieces the headless commands share: endpoint flags read the same way everywhere."""

from __future__ import annotations

import argparse
import os

from desktop_app.core.parsing import InputError


def api_key_from_env(args: argparse.Namespace) -> str | None:
    """The API key named by --api-key-env (never a flag's value: keys stay out of shell history)."""
    if not getattr(args, "api_key_env", None):
        return None
    key = os.environ.get(args.api_key_env)
    if not key:
        raise InputError("--api-key-env", f"environment variable {args.api_key_env} is not set")
    return key


def checked_base_url(base_url: str) -> str:
    """The --base-url, normalised; InputError naming the flag when it is not a usable URL."""
    from desktop_app.core.endpoint.discovery import validate_base_url

    try:
        return validate_base_url(base_url)
    except ValueError as exc:
        raise InputError("--base-url", str(exc)) from None
