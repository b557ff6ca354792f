"""The incremental SSE parser: line ends, multi-line data, comments, and splits at any byte."""

from __future__ import annotations

import random

import pytest

from desktop_app.core.endpoint.sse import SSEParser, parse_all


def test_events_are_the_data_of_each_blank_line_terminated_block():
    stream = b'data: {"a": 1}\n\ndata: {"b": 2}\n\ndata: [DONE]\n\n'
    assert parse_all(stream) == ['{"a": 1}', '{"b": 2}', "[DONE]"]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_every_line_end_works(eol):
    stream = eol.join([b"data: one", b"", b"data: two", b"", b""])
    assert parse_all(stream) == ["one", "two"]


def test_multi_line_data_is_joined_with_newlines_and_one_space_is_dropped():
    stream = b"data: first\ndata:second\ndata:  third\n\n"
    assert parse_all(stream) == ["first\nsecond\n third"]


def test_comments_and_other_fields_are_ignored():
    stream = (b": ping - 2026-12-01 10:00:00\n\n"  # llama-cpp-python's keep-alive
              b"event: message\nid: 7\nretry: 100\ndata: x\n\n"
              b"event: only-a-type\n\n"  # no data line: no event
              b":comment without space\ndata\n\n")  # a bare `data` field is an empty line
    assert parse_all(stream) == ["x", ""]


def test_a_final_event_without_its_blank_line_is_kept():
    parser = SSEParser()
    assert parser.feed(b"data: a\n\ndata: [DONE]") == ["a"]
    assert parser.close() == ["[DONE]"]
    assert parse_all(b"data: last\n") == ["last"]


def test_byte_order_mark_and_utf8_split_inside_a_character():
    text = "data: 中文 ✓\n\n".encode()
    parser = SSEParser()
    out = []
    for i in range(len(b"\xef\xbb\xbf" + text)):
        out += parser.feed((b"\xef\xbb\xbf" + text)[i:i + 1])
    assert out + parser.close() == ["中文 ✓"]


def test_cr_lf_split_between_reads_is_one_line_end():
    parser = SSEParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"") == []  # an empty read keeps the pending \r\n state
    assert parser.feed(b"\n\r") == ["a"]
    assert parser.feed(b"\ndata: b\r\r") == ["b"]


def _random_stream(rng: random.Random) -> bytes:
    parts = []
    for _ in range(rng.randint(1, 12)):
        eol = rng.choice([b"\n", b"\r\n", b"\r"])
        kind = rng.random()
        if kind < 0.15:
            parts.append(b": ping" + eol + eol)
        elif kind < 0.25:
            parts.append(b"event: x" + eol + b"data: y" + eol + b"data: z" + eol + eol)
        else:
            text = "".join(rng.choice(["a", "é", "中", "{", '"', " ", ":"]) for _ in range(8))
            parts.append(b"data: " + f'{{"t": "{text}"}}'.encode() + eol + eol)
    if rng.random() < 0.5:
        parts.append(b"data: [DONE]" + rng.choice([b"", b"\n", b"\n\n"]))
    return b"".join(parts)


def test_any_split_of_a_stream_gives_the_same_events():
    rng = random.Random(20261201)
    for _ in range(400):
        stream = _random_stream(rng)
        whole = parse_all(stream)
        cuts = sorted(rng.sample(range(1, len(stream)), min(len(stream) - 1, rng.randint(0, 12))))
        pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
        parser = SSEParser()
        split = [e for piece in pieces for e in parser.feed(piece)] + parser.close()
        assert split == whole, (stream, cuts)
        parser = SSEParser()  # and one byte per read, the harshest split
        bytewise = [e for i in range(len(stream)) for e in parser.feed(stream[i:i + 1])]
        assert bytewise + parser.close() == whole
