"""The store's errors: one for an unusable file, one for an id that is not there."""

from __future__ import annotations


class StoreError(Exception):
    """The results file cannot be used: wrong format, newer schema, or a failed background write."""


class NotFoundError(StoreError, LookupError):
    """No run, cell or question with the given id."""
