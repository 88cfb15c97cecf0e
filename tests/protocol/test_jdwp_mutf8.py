"""Modified UTF-8: the JVM's bytes decode to str and encode back byte-exact."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages, spec
from protocol.wire import DecodeError, decode_mutf8, encode_mutf8

CASES = [
    ("", b""),
    ("abc", b"abc"),
    ("a\0b", b"a\xc0\x80b"),  # embedded NUL is C0 80, never a 00 byte
    ("\0", b"\xc0\x80"),
    ("é", b"\xc3\xa9"),
    ("€", b"\xe2\x82\xac"),
    ("\uffff", b"\xef\xbf\xbf"),
    # supplementary: a surrogate pair, each half as a 3-byte sequence
    ("\U0001f600", b"\xed\xa0\xbd\xed\xb8\x80"),
    ("x\U00010000y", b"x\xed\xa0\x80\xed\xb0\x80y"),
    ("\U0010ffff", b"\xed\xaf\xbf\xed\xbf\xbf"),
    # Java strings may hold unpaired surrogates; they survive as lone surrogates
    ("\ud800", b"\xed\xa0\x80"),
    ("\udc00x", b"\xed\xb0\x80x"),
    ("\udc00\ud800", b"\xed\xb0\x80\xed\xa0\x80"),  # low then high: not a pair
]


@pytest.mark.parametrize(("text", "jvm_bytes"), CASES)
def test_known_cases(text, jvm_bytes):
    assert encode_mutf8(text) == jvm_bytes
    assert decode_mutf8(jvm_bytes) == text


def test_standard_utf8_from_jdi_is_accepted():
    # JDI writes standard UTF-8: 4-byte sequences and raw NUL decode to the same text
    assert decode_mutf8("\U0001f600".encode()) == "\U0001f600"
    assert decode_mutf8(b"a\x00b") == "a\0b"


@pytest.mark.parametrize(
    "bad",
    [b"\xff", b"\xc0", b"\xc0\x81", b"\xe2\x82", b"\x80", b"a\xed\xa0", b"\xf8\x88\x80\x80\x80"],
)
def test_invalid_bytes(bad):
    with pytest.raises(ValueError):
        decode_mutf8(bad)


def test_bad_utf8_in_a_body_names_command_and_field():
    cs = spec.by_name("VirtualMachine", "CreateString")
    with pytest.raises(DecodeError) as info:
        messages.decode_command(cs, b"\x00\x00\x00\x02\xc0\x41")
    assert info.value.field == "utf"
    assert "VirtualMachine.CreateString command" in str(info.value)


# Java strings are sequences of UTF-16 code units; build them that way, as the JVM would.
java_strings = st.lists(st.integers(0, 0xFFFF), max_size=20).map(lambda units: "".join(map(chr, units)))


def _jvm_mutf8(units_text: str) -> bytes:
    """What a JVM writes for a string of UTF-16 units: each unit on its own, NUL as C0 80."""
    out = bytearray()
    for ch in units_text:
        c = ord(ch)
        if c == 0:
            out += b"\xc0\x80"
        elif c < 0x80:
            out.append(c)
        elif c < 0x800:
            out += bytes([0xC0 | c >> 6, 0x80 | c & 0x3F])
        else:
            out += bytes([0xE0 | c >> 12, 0x80 | (c >> 6) & 0x3F, 0x80 | c & 0x3F])
    return bytes(out)


@settings(max_examples=300, deadline=None)
@given(java_strings)
def test_jvm_bytes_round_trip_byte_exact(units):
    b = _jvm_mutf8(units)
    assert encode_mutf8(decode_mutf8(b)) == b


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_python_text_round_trips(text):
    assert decode_mutf8(encode_mutf8(text)) == text
    assert b"\x00" not in encode_mutf8(text)
