"""A key the app was given is blanked from messages whatever its shape; short words are not."""

from desktop_app.core.redact import redact_text, remember_secret


def test_a_remembered_key_of_any_shape_is_blanked():
    key = "canary-4f2d9e71c0ab"  # no sk- prefix, no Bearer: only knowing it catches it
    assert key in redact_text(f"401 from server: key {key} refused")
    remember_secret(key)
    text = redact_text(f"401 from server: key {key} refused; retrying with {key}")
    assert key not in text
    assert text == "401 from server: key [redacted] refused; retrying with [redacted]"


def test_placeholder_keys_do_not_blank_ordinary_words():
    remember_secret("none")
    remember_secret("EMPTY")
    remember_secret("")
    remember_secret(None)
    assert redact_text("none of the EMPTY cells") == "none of the EMPTY cells"
