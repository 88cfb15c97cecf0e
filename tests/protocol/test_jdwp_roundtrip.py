"""Every command and reply of the table round-trips, with 8- and 4-byte IDs, both directions."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jdwp_strategies import SIZES, has_raw_values, instances, message_classes, top_class

from protocol import messages, spec

PAIRS = message_classes()

# Bounded so the whole directory stays well under 30 s: 190 layouts, each example both ID sizes.
FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _codecs(direction: str):
    if direction == "out":
        return messages.encode_command, messages.decode_command
    return messages.encode_reply, messages.decode_reply


@pytest.mark.parametrize(("cs", "direction"), PAIRS, ids=[f"{c.label}-{d}" for c, d in PAIRS])
@FAST
@given(data=st.data())
def test_round_trip(cs, direction, data):
    cls = top_class(cs, direction)
    encode, decode = _codecs(direction)
    for sizes in SIZES:  # 8- and 4-byte IDs in every example
        msg = data.draw(instances(cls, sizes))
        body = encode(cs, msg, sizes)
        back = decode(cs, body, sizes)
        assert back == msg
        assert type(back) is cls
        # byte-exact the other way round, from the bytes as a peer would send them
        assert encode(cs, back, sizes) == body


@pytest.mark.parametrize(("cs", "direction"), PAIRS, ids=[f"{c.label}-{d}" for c, d in PAIRS])
def test_mapping_and_tuple_forms_encode_alike(cs, direction):
    cls = top_class(cs, direction)
    sizes = SIZES[0]
    msg = _first_example(cls, sizes)
    encode, _ = _codecs(direction)
    as_instance = encode(cs, msg, sizes)
    names = [f.name for f in cls.__jdwp_fields__]
    assert encode(cs, {n: getattr(msg, n) for n in names}, sizes) == as_instance
    assert encode(cs, tuple(getattr(msg, n) for n in names), sizes) == as_instance


@pytest.mark.parametrize(("cs", "direction"), PAIRS, ids=[f"{c.label}-{d}" for c, d in PAIRS])
def test_every_prefix_and_extension_is_rejected(cs, direction):
    """Truncations and trailing bytes raise DecodeError (RawValues swallow the rest by design)."""
    cls = top_class(cs, direction)
    sizes = SIZES[1]
    msg = _first_example(cls, sizes, rich=True)
    encode, decode = _codecs(direction)
    body = encode(cs, msg, sizes)
    raw = has_raw_values(cls)
    for cut in range(len(body)):
        try:
            decode(cs, body[:cut], sizes)
        except messages.DecodeError as e:
            assert cs.label in str(e)
        else:
            assert raw, f"{cs.label} {direction}: prefix of {cut}/{len(body)} bytes decoded"
    if not raw:
        with pytest.raises(messages.DecodeError, match="trailing"):
            decode(cs, body + b"\0", sizes)


def _first_example(cls, sizes, rich=False):
    """A deterministic, non-trivial instance: every repeat gets two items."""
    found = []

    @settings(max_examples=1, database=None, derandomize=True, deadline=None)
    @given(st.data())
    def grab(data):
        found.append(data.draw(instances(cls, sizes)))

    grab()
    msg = found[0]
    if rich:
        msg = _fill(msg, sizes)
    return msg


def _fill(msg, sizes):
    """Give empty repeats two items so truncation inside items is exercised too."""
    changes = {}
    for el in type(msg).__jdwp_fields__:
        v = getattr(msg, el.name)
        if isinstance(v, tuple) and not v and hasattr(el, "item"):
            item = el.item
            if isinstance(item, spec.Group):
                gcls = messages._GROUP_CLASSES[(messages._scope(type(msg)), item)]
                ex = _first_example(gcls, sizes)
                changes[el.name] = (ex, ex)
            elif isinstance(item, spec.Select):
                a = item.alts[0]
                ex = _first_example(messages.ALTERNATIVE_CLASSES[(item.name, a.kind)], sizes)
                changes[el.name] = (ex, ex)
        elif isinstance(v, bytes) and not v:
            changes[el.name] = b"\x01\x02"
    return type(msg)(**{f.name: changes.get(f.name, getattr(msg, f.name)) for f in type(msg).__jdwp_fields__})
