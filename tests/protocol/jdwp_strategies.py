"""Hypothesis strategies derived from protocol/spec.py's declarations (not a test module)."""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from protocol import messages, spec
from protocol.constants import OBJECT_TAGS, PRIMITIVE_TAGS, Tag
from protocol.spec import ID_TYPES, Field, Group, Repeat, Select
from protocol.wire import ArrayRegion, IDSizes, Location, RawValues, TaggedObjectID, Value

SIZES = [IDSizes(), IDSizes(4, 4, 4, 4, 4)]
MAX_ITEMS = 3

I32 = st.integers(-(2**31), 2**31 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)
BYTE = st.integers(0, 255)
# No surrogate code points: a generated lone high surrogate followed by a low one
# would legitimately decode as one supplementary character.
TEXT = st.text(max_size=12)


def ids(sizes: IDSizes, kind: str) -> st.SearchStrategy[int]:
    return st.integers(0, 2 ** (8 * getattr(sizes, kind)) - 1)


def primitive(tag: int) -> st.SearchStrategy:
    return {
        Tag.BYTE: st.integers(-128, 127),
        Tag.CHAR: st.integers(0, 0xFFFF),
        Tag.FLOAT: st.floats(width=32, allow_nan=False),
        Tag.DOUBLE: st.floats(allow_nan=False),
        Tag.INT: I32,
        Tag.LONG: I64,
        Tag.SHORT: st.integers(-(2**15), 2**15 - 1),
        Tag.BOOLEAN: st.booleans(),
    }[tag]


def values(sizes: IDSizes) -> st.SearchStrategy[Value]:
    obj = ids(sizes, "object_id")
    return st.one_of(
        st.just(Value(Tag.VOID, None)),
        *[primitive(t).map(lambda v, t=t: Value(int(t), v)) for t in sorted(PRIMITIVE_TAGS)],
        st.builds(Value, st.sampled_from(sorted(int(t) for t in OBJECT_TAGS)), obj),
    )


def object_values(sizes: IDSizes) -> st.SearchStrategy[Value]:
    return st.builds(Value, st.sampled_from(sorted(int(t) for t in OBJECT_TAGS)), ids(sizes, "object_id"))


def regions(sizes: IDSizes) -> st.SearchStrategy[ArrayRegion]:
    prim = st.sampled_from(sorted(int(t) for t in PRIMITIVE_TAGS)).flatmap(
        lambda t: st.lists(primitive(t), max_size=MAX_ITEMS).map(lambda vs: ArrayRegion(t, tuple(vs)))
    )
    objs = st.builds(
        ArrayRegion,
        st.sampled_from(sorted(int(t) for t in OBJECT_TAGS)),
        st.lists(object_values(sizes), max_size=MAX_ITEMS).map(tuple),
    )
    return st.one_of(prim, objs)


def locations(sizes: IDSizes) -> st.SearchStrategy[Location]:
    return st.builds(Location, BYTE, ids(sizes, "reference_type_id"), ids(sizes, "method_id"), I64)


def tagged_objects(sizes: IDSizes) -> st.SearchStrategy[TaggedObjectID]:
    return st.builds(TaggedObjectID, st.sampled_from(sorted(int(t) for t in OBJECT_TAGS)), ids(sizes, "object_id"))


def field_strategy(f: Field, sizes: IDSizes) -> st.SearchStrategy:
    t = f.type
    if t in ID_TYPES:
        return ids(sizes, ID_TYPES[t])
    return {
        "byte": lambda: BYTE,
        "boolean": st.booleans,
        "int": lambda: I32,
        "long": lambda: I64,
        "string": lambda: TEXT,
        "location": lambda: locations(sizes),
        "tagged-object": lambda: tagged_objects(sizes),
        "value": lambda: values(sizes),
        "typed-sequence": lambda: regions(sizes),
    }[t]()


def layout_strategies(cls: type, sizes: IDSizes) -> list[st.SearchStrategy]:
    out = []
    for el in cls.__jdwp_fields__:
        if isinstance(el, Field):
            out.append(field_strategy(el, sizes))
            continue
        item = el.item
        if isinstance(item, Field) and item.type == "byte":
            out.append(st.binary(max_size=8))
        elif isinstance(item, Field) or (isinstance(item, Group) and _untagged(item)):
            out.append(st.builds(RawValues, st.binary(max_size=12), st.integers(0, 5)))
        elif isinstance(item, Select):
            out.append(st.lists(select_items(item, sizes), max_size=MAX_ITEMS).map(tuple))
        else:
            gcls = messages._GROUP_CLASSES[(messages._scope(cls), item)]
            out.append(st.lists(instances(gcls, sizes), max_size=MAX_ITEMS).map(tuple))
    return out


def _untagged(g: Group) -> bool:
    return any(isinstance(f, Field) and f.type == "untagged-value" for f in g.fields)


@functools.cache
def instances(cls: type, sizes: IDSizes) -> st.SearchStrategy:
    return st.builds(cls, *layout_strategies(cls, sizes))


def select_items(sel: Select, sizes: IDSizes) -> st.SearchStrategy:
    return st.one_of(*[instances(messages.ALTERNATIVE_CLASSES[(sel.name, a.kind)], sizes) for a in sel.alts])


def message_classes() -> list[tuple[spec.CommandSpec, str]]:
    """Every (command, direction) pair, direction "out" (command) or "reply"."""
    return [(cs, d) for cs in spec.COMMANDS.values() for d in ("out", "reply")]


def top_class(cs: spec.CommandSpec, direction: str) -> type:
    return messages.command_class(cs) if direction == "out" else messages.reply_class(cs)


def has_raw_values(cls: type) -> bool:
    return any(
        isinstance(el, Repeat)
        and (
            (isinstance(el.item, Field) and el.item.type == "untagged-value")
            or (isinstance(el.item, Group) and _untagged(el.item))
        )
        for el in cls.__jdwp_fields__
    )
