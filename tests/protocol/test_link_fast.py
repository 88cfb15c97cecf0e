"""protocol/link_fast.py: the generated link decoders agree with the generic one, on every layout, for any bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import link as L
from protocol.link_fast import compile_decoder

# Every reply layout, and the request layouts without variants (SET_REQUEST's stay generic).
LAYOUTS = [(f"{spec.name} {side}", fields) for spec in L.MESSAGES.values()
           for side, fields in (("request", spec.request), ("reply", spec.reply))
           if compile_decoder(fields, L.LINK_TYPES) is not None]
_PRIM = {ord("B"): st.integers(-128, 127), ord("C"): st.integers(0, 0xFFFF), ord("S"): st.integers(-32768, 32767),
         ord("I"): st.integers(-(2 ** 31), 2 ** 31 - 1), ord("J"): st.integers(-(2 ** 63), 2 ** 63 - 1),
         ord("Z"): st.booleans(), ord("F"): st.just(1.5), ord("D"): st.floats(allow_nan=False)}
_IDS = st.integers(0, 2 ** 64 - 1)


def _values(fields) -> st.SearchStrategy:
    return st.fixed_dictionaries({name: _value_of(ftype, fields) for name, ftype in fields})


def _value_of(ftype, fields) -> st.SearchStrategy:
    if isinstance(ftype, tuple):
        if ftype[0] == "list":
            return st.lists(_values(ftype[1]), max_size=3)
        raise NotImplementedError  # variants: not compiled, not listed
    return {
        L.U8: st.integers(0, 255), L.BOOL: st.booleans(), L.U16: st.integers(0, 0xFFFF),
        L.I32: st.integers(-(2 ** 31), 2 ** 31 - 1), L.I64: st.integers(-(2 ** 63), 2 ** 63 - 1), L.ID: _IDS,
        L.STR: st.text(max_size=8), L.BYTES: st.binary(max_size=8),
        L.VALUE: st.one_of(
            st.builds(L.LinkValue, st.sampled_from(sorted(L.OBJECT_TAGS)), _IDS),
            st.builds(L.LinkValue, st.just(ord("V")), st.none()),
            *(st.builds(L.LinkValue, st.just(tag), values) for tag, values in _PRIM.items())),
        L.TAGGED: st.builds(L.Tagged, st.sampled_from(sorted(L.OBJECT_TAGS)), _IDS),
        L.LOC: st.builds(L.LinkLocation, st.integers(1, 3), _IDS, _IDS, _IDS),
    }[ftype]


def _generic(fields, body):
    try:
        return L.decode_body(fields, body, "generic")
    except L.LinkError:
        return "LinkError"


def _fast(decode, fields, body):
    try:
        return decode(body)
    except Exception:
        return _generic(fields, body)  # what decode_reply does


def test_every_reply_layout_compiles() -> None:
    assert [spec.name for spec in L.MESSAGES.values() if compile_decoder(spec.reply, L.LINK_TYPES) is None] == []
    assert len(LAYOUTS) > 150


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_well_formed_bodies_decode_alike(data) -> None:
    label, fields = data.draw(st.sampled_from(LAYOUTS))
    values = data.draw(_values(fields))
    body = L.encode_body(fields, values)
    decode = compile_decoder(fields, L.LINK_TYPES)
    assert decode is not None
    assert decode(body) == L.decode_body(fields, body, label)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_cut_or_garbled_bodies_are_judged_by_the_generic_decoder(data) -> None:
    _, fields = data.draw(st.sampled_from(LAYOUTS))
    body = bytearray(L.encode_body(fields, data.draw(_values(fields))))
    if body and data.draw(st.booleans()):
        del body[data.draw(st.integers(0, len(body) - 1)):]
    elif body:
        body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    else:
        body += data.draw(st.binary(min_size=1, max_size=4))
    body = bytes(body)
    assert _fast(compile_decoder(fields, L.LINK_TYPES), fields, body) == _generic(fields, body)


def test_decode_reply_uses_the_fast_path_and_still_names_what_is_wrong() -> None:
    spec = L.BY_NAME["CLASS_METHODS_LINES"]
    row = {"method": 7, "name": "run", "signature": "()V", "generic": "", "modifiers": 1, "synthetic": True,
           "lines_status": 0, "start": 0, "end": 4, "lines": [{"index": 0, "line": 9}]}
    body = L.encode_body(spec.reply, {"methods": [row]})
    assert L.decode_reply(spec.kind, body) == {"methods": [row]}
    with pytest.raises(L.LinkError, match="CLASS_METHODS_LINES: truncated at field 'line'"):
        L.decode_reply(spec.kind, body[:-1])


# EVENT bodies: located hits (the struct path of decode_event) mixed with every other kind.
_LOCATED = sorted(k for k, f in L.HIT_FIELDS.items() if f == (("location", L.LOC),))
_HIT_KINDS = st.one_of(st.sampled_from(_LOCATED), st.sampled_from(sorted(L.HIT_FIELDS)))


def _hits() -> st.SearchStrategy:
    return st.lists(_HIT_KINDS.flatmap(lambda kind: st.fixed_dictionaries({
        "request_id": st.integers(-(2 ** 31), 2 ** 31 - 1), "event_kind": st.just(kind),
        "data": _values(L.HIT_FIELDS[kind])})), max_size=4)


def _event_generic(body):
    try:
        return L.decode_body(L.EVENT_BODY, body, "EVENT")
    except L.LinkError as e:
        return str(e)


def _event_fast(body):
    try:
        return L.decode_event(body)
    except L.LinkError as e:
        return str(e)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_events_decode_as_the_schema_says(data) -> None:
    values = {"thread": data.draw(_IDS), "suspend_policy": data.draw(st.integers(0, 2)), "hits": data.draw(_hits())}
    body = bytearray(L.encode_body(L.EVENT_BODY, values))
    assert L.decode_event(bytes(body)) == values
    mutation = data.draw(st.sampled_from(["none", "cut", "garble", "extend"]))
    if mutation == "cut" and body:
        del body[data.draw(st.integers(0, len(body) - 1)):]
    elif mutation == "garble" and body:
        body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    elif mutation == "extend":
        body += data.draw(st.binary(min_size=1, max_size=31))
    assert _event_fast(bytes(body)) == _event_generic(bytes(body))


def test_a_stops_event_is_decoded_without_the_schema_codec(monkeypatch) -> None:
    located = {"thread": 5, "suspend_policy": 1, "hits": [
        {"request_id": 3, "event_kind": 2, "data": {"location": L.LinkLocation(1, 55, 0x885, 8)}},
        {"request_id": 4, "event_kind": 1, "data": {"location": L.LinkLocation(1, 55, 0x885, 8)}}]}
    body = L.encode_body(L.EVENT_BODY, located)

    def generic(*args):
        raise AssertionError("the schema's codec decoded a stop")

    monkeypatch.setattr(L, "decode_body", generic)
    assert L.decode_event(body) == located
