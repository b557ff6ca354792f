"""Any error the core raises with a code, in the reader's language: one entry point for the CLI
and the window, whichever module's words it needs (input refused, an endpoint that cannot be
used, a results file or an id that is not there, runs that cannot be compared). An error
without a code keeps its own (English) message: nothing the core said is lost.
"""

from __future__ import annotations


def error_text(exc: BaseException, lang: str = "en") -> str:
    from desktop_app.core.parsing import InputError

    if isinstance(exc, InputError):
        from desktop_app.report.input_words import input_error_text

        return input_error_text(exc, lang)
    kind = type(exc).__name__
    if kind == "EndpointError":  # by name: the client (and httpx) stays unloaded otherwise
        from desktop_app.report.endpoint_words import endpoint_error_text

        return endpoint_error_text(exc, lang)
    if kind == "CompareError":
        from desktop_app.report.strings import compare_error_text

        return compare_error_text(exc, lang)
    from desktop_app.core.store.errors import StoreError

    if isinstance(exc, StoreError):
        from desktop_app.report.store_words import store_error_text

        return store_error_text(exc, lang)
    code, params = getattr(exc, "code", ""), getattr(exc, "params", None)
    if isinstance(code, str) and isinstance(params, dict):
        from desktop_app.report.input_words import WORDS, worded_params
        from desktop_app.report.strings import lookup

        if code in WORDS["en"]:  # an InputError code carried by another error
            return lookup(WORDS, lang, code, **worded_params(params, lang))
    return str(exc)
