"""StackFrame.GetValues' reply built straight from link values equals what encode_reply and reply_ids make."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jdwpd.daemon.commands import Encoded
from jdwpd.daemon.commands.stack_frame import encoded_values
from jdwpd.daemon.facade.values import to_jdwp
from protocol import spec
from protocol.link import OBJECT_TAGS, LinkValue
from protocol.messages import encode_reply
from protocol.object_ids import reply_ids
from protocol.wire import IDSizes

GET_VALUES = spec.by_name("StackFrame", "GetValues")
_IDS = st.integers(0, 2 ** 64 - 1)
_VALUES = st.one_of(
    st.builds(LinkValue, st.sampled_from(sorted(OBJECT_TAGS)), st.one_of(st.just(0), _IDS)),
    st.builds(LinkValue, st.just(ord("B")), st.integers(-128, 127)),
    st.builds(LinkValue, st.just(ord("C")), st.integers(0, 0xFFFF)),
    st.builds(LinkValue, st.just(ord("S")), st.integers(-32768, 32767)),
    st.builds(LinkValue, st.just(ord("I")), st.integers(-(2 ** 31), 2 ** 31 - 1)),
    st.builds(LinkValue, st.just(ord("J")), st.integers(-(2 ** 63), 2 ** 63 - 1)),
    st.builds(LinkValue, st.just(ord("Z")), st.booleans()),
    st.builds(LinkValue, st.just(ord("F")), st.floats(width=32, allow_nan=False)),
    st.builds(LinkValue, st.just(ord("D")), st.floats(allow_nan=False)),
    st.builds(LinkValue, st.just(ord("V")), st.none()),
)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_VALUES, max_size=12), sizes=st.sampled_from([IDSizes(), IDSizes(8, 8, 4, 8, 8)]))
def test_the_same_bytes_and_ids_as_the_generic_path(values, sizes) -> None:
    if sizes.object_id == 4:
        values = [LinkValue(v.tag, v.value & 0xFFFFFFFF) if v.tag in OBJECT_TAGS else v for v in values]
    reply = {"values": [to_jdwp(v) for v in values]}
    got = encoded_values(values, sizes)
    assert type(got) is Encoded
    assert got.body == encode_reply(GET_VALUES, reply, sizes)
    assert got.object_ids == reply_ids(GET_VALUES, reply)


def test_a_null_of_any_object_type_is_tagged_object_and_counts_no_id() -> None:
    got = encoded_values([LinkValue(ord("s"), 0), LinkValue(ord("["), 9)], IDSizes())
    assert got.body == bytes([0, 0, 0, 2, ord("L")]) + bytes(8) + bytes([ord("[")]) + (9).to_bytes(8, "big")
    assert got.object_ids == [9]
