"""A JdwpdStop's data (protocol/pushed_stop.py): what it answers is what the server's replies say."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.pushed_stop import FRAME_SIZE, PushedStopError, decode_stop, encode_stop, split_values, values_reply


def _frames(n: int) -> bytes:
    return b"".join(struct.pack(">QBQQQ", 0x10000 + i, 1, 100 + i, 200 + i, i * 3) for i in range(n))


def _int(v: int) -> bytes:
    return b"I" + struct.pack(">i", v)


@given(st.integers(0, 20), st.dictionaries(st.integers(0, 300), st.integers(-2**31, 2**31 - 1), max_size=8))
def test_what_is_encoded_decodes_and_answers_every_range(count, ints):
    frames = _frames(count)
    stop = decode_stop(7, encode_stop(frames, count, sorted((s, _int(v)) for s, v in ints.items())))
    assert stop.frame_count_reply() == struct.pack(">i", count)
    for start in range(count):
        for length in [-1, *range(1, count - start + 1)]:
            n = count - start if length == -1 else length
            expected = struct.pack(">i", n) + frames[start * FRAME_SIZE:(start + n) * FRAME_SIZE]
            assert stop.frames_reply(start, length) == expected
    # The server answers what is an error, or hands out nothing: never guessed here.
    assert stop.frames_reply(count, 1) is None and stop.frames_reply(-1, 1) is None
    assert stop.frames_reply(0, count + 1) is None and stop.frames_reply(count, -1) is None
    if count:
        top = 0x10000
        slots = [(s, ord("I")) for s in sorted(ints)] + [(999, ord("I"))]
        assert stop.known_values(top, slots) == [_int(ints[s]) for s in sorted(ints)] + [None]
        assert stop.known_values(top + 1, slots) is None  # not the top frame
        # another tag than the one pushed: asked of the server, which says what that means
        assert all(v is None for v in stop.known_values(top, [(s, ord("J")) for s in ints]))


def test_values_split_and_join():
    values = [_int(5), b"J" + bytes(8), b"Z\x01", b"L" + bytes(7) + b"\x09", b"D" + bytes(8)]
    assert split_values(values_reply(values)) == values


@pytest.mark.parametrize("data", [b"", b"\x00\x00\x00\x02" + bytes(FRAME_SIZE), b"\xff\xff\xff\xff",
                                  encode_stop(b"", 0, [(1, b"I\x00")]),  # a value cut short
                                  encode_stop(b"", 0, [(1, b"Q" + bytes(4))]),  # no such tag
                                  encode_stop(b"", 0, []) + b"x"])
def test_malformed_data_is_refused_with_a_reason(data):
    with pytest.raises(PushedStopError):
        decode_stop(1, data)
