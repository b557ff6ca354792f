"""The simulator's tokenizer rule and the parsers of user-typed lists."""

import pytest

from desktop_app.core.parsing import InputError, parse_int_list
from desktop_app.core.simulator.tokenizer import (
    count_tokens,
    filler_text,
    pieces,
    render_chat,
    token_ids,
)


@pytest.mark.parametrize(
    "text",
    ["", "Hello, world!", "  spaced\n\n\tout  ", "SELECT ROUND(AVG(price), 2) FROM t;", "中文 text 2048"],
)
def test_pieces_cover_the_text_exactly(text):
    assert "".join(pieces(text)) == text
    assert count_tokens(text) == len(pieces(text)) == len(token_ids(text))


def test_documented_examples():
    assert pieces(" hello world") == [" hello", " world"]
    assert pieces("tokenizer") == ["tokeni", "zer"]  # at most six letters a token
    assert pieces(" 2048") == [" 204", "8"]
    assert pieces("a.\n\nb") == ["a", ".", "\n\n", "b"]


def test_filler_is_exactly_the_asked_length_and_ids_are_stable():
    for n in (0, 1, 7, 2048):
        assert count_tokens(filler_text(n, offset=n)) == n
    assert token_ids("same text") == token_ids("same text")


def test_chat_template_counts_every_message():
    one = render_chat([{"role": "user", "content": "hi"}])
    two = render_chat([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    assert count_tokens(two) > count_tokens(one)
    assert one.endswith("<|assistant|>\n")


def test_int_lists_accept_k_suffix_spaces_and_drop_duplicates():
    assert parse_int_list("2048, 4k 32K,2048", "prompt lengths") == [2048, 4096, 32768]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "prompt lengths: give at least one value"),
        ("1,,x", "prompt lengths: 'x' is not a whole number"),
        ("1.5", "prompt lengths: '1.5' is not a whole number"),
        ("0", "prompt lengths: '0' is below the minimum of 1"),
        ("-4", "prompt lengths: '-4' is not a whole number"),
    ],
)
def test_bad_lists_name_the_field_and_item(text, message):
    with pytest.raises(InputError) as exc:
        parse_int_list(text, "prompt lengths")
    assert str(exc.value).startswith(message)
    assert exc.value.field == "prompt lengths"
