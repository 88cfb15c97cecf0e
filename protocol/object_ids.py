"""The object IDs a reply or an event composite hands to a debugger, found from the layouts of spec.py.

DisposeObjects counts against what was sent: the reference agent counts an object ID once per time it
writes it (every object, thread, class... field of a reply or an event, a location's class, an object
value), and a debugger disposes it as many times as it received it.  A server that wants the same
counts needs, per reply, the IDs in it; this module derives from the layouts one function per reply
or event kind that lists them, and none for the many replies that hold no object ID at all, so that
asking costs nothing there.

Messages are read the way the encoders of messages.py accept them: instances, Mappings of field names,
tuples in declared order, a one-field group's bare value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .agent_code import capture_ids
from .constants import OBJECT_TAGS, EventKind
from .messages import ALTERNATIVE_CLASSES
from .spec import EVENT_SELECT, CommandSpec, Field, Group, Repeat, Select
from .wire import ArrayRegion, Location, TaggedObjectID, Value

__all__ = ["reply_ids", "composite_ids", "OBJECT_ID_TYPES"]

# Spec types whose value is an object ID on the wire (a reference type's ID is its class object's).
OBJECT_ID_TYPES = frozenset({
    "object", "threadObject", "threadGroupObject", "stringObject", "classLoaderObject", "classObject",
    "arrayObject", "moduleID", "referenceType", "referenceTypeID", "classType", "interfaceType", "arrayType",
})

Collect = Callable[[Any, list], None]


def _get(obj: Any, name: str, index: int) -> Any:
    t = type(obj)
    if t is dict:
        return obj[name]
    if t is tuple or t is list:
        return obj[index]
    if isinstance(obj, Mapping):
        return obj[name]
    return getattr(obj, name)


_WIRE_TYPES = frozenset({Value, TaggedObjectID, Location, ArrayRegion})


def _attr(v: Any, name: str, index: int) -> Any:
    """A part of a Value, TaggedObjectID, Location or ArrayRegion in any of the forms the codec accepts."""
    t = type(v)
    if t in _WIRE_TYPES:
        return getattr(v, name)
    if t is dict or isinstance(v, Mapping):
        return v[name]
    if t is tuple or t is list:
        return v[index]
    return getattr(v, name)


def _value(v: Any, out: list) -> None:
    if type(v) is Value:
        if v.tag in OBJECT_TAGS and v.value:
            out.append(v.value)
    elif _attr(v, "tag", 0) in OBJECT_TAGS:
        oid = _attr(v, "value", 1)
        if oid:
            out.append(oid)


def _region(r: Any, out: list) -> None:
    if _attr(r, "tag", 0) in OBJECT_TAGS:
        for v in _attr(r, "values", 1):
            _value(v, out)


def _field(f: Field) -> Callable[[Any, list], None] | None:
    t = f.type
    if t in OBJECT_ID_TYPES:
        return lambda v, out: out.append(v) if v else None
    if t == "tagged-object":
        def tagged(v: Any, out: list) -> None:
            oid = _attr(v, "object_id", 1)
            if oid:
                out.append(oid)
        return tagged
    if t == "location":
        def location(v: Any, out: list) -> None:
            cid = v.class_id if type(v) is Location else _attr(v, "class_id", 1)
            if cid:
                out.append(cid)
        return location
    if t == "value":
        return _value
    if t == "typed-sequence":
        return _region
    return None  # scalars, method/field/frame IDs; untagged values appear in commands only


def _layout(elements: tuple) -> Collect | None:
    """A collector over an item with these elements, or None when they can hold no object ID."""
    parts: list[tuple[str, int, Callable[[Any, list], None]]] = []
    for i, el in enumerate(elements):
        if isinstance(el, Field):
            fn = _field(el)
        else:
            fn = _repeat(el)
        if fn is not None:
            parts.append((el.name, i, fn))
    if not parts:
        return None
    if len(elements) == 1:
        ((name, _, fn),) = parts

        def single(obj: Any, out: list) -> None:
            # A one-field group may come as its bare value (as the encoders take it).
            t = type(obj)
            if t is int:
                pass
            elif t is dict or isinstance(obj, Mapping):
                if name in obj:
                    obj = obj[name]
            elif t is tuple or t is list:
                if len(obj) == 1:
                    obj = obj[0]
            elif hasattr(obj, "__jdwp_fields__"):
                obj = getattr(obj, name)
            fn(obj, out)
        return single

    def several(obj: Any, out: list) -> None:
        for name, i, fn in parts:
            fn(_get(obj, name, i), out)
    return several


def _repeat(r: Repeat) -> Callable[[Any, list], None] | None:
    item = r.item
    if isinstance(item, Select):
        each = _select(item)
    elif isinstance(item, Group):
        each = _layout(item.fields)
    else:
        return None  # bytes, untagged values
    if each is None:
        return None

    def repeat(items: Any, out: list) -> None:
        for it in items:
            each(it, out)
    return repeat


def _select(sel: Select) -> Collect | None:
    by_kind = {alt.kind: _layout(alt.fields) for alt in sel.alts}
    if not any(by_kind.values()):
        return None
    key = sel.selector.name
    by_class = {ALTERNATIVE_CLASSES[(sel.name, kind)]: fn for kind, fn in by_kind.items()}

    def select(item: Any, out: list) -> None:
        cls = type(item)
        if cls in by_class:
            fn = by_class[cls]
        elif isinstance(item, Mapping):
            fn = by_kind.get(item[key])
        elif isinstance(item, (tuple, list)):
            fn, item = by_kind.get(item[0]), tuple(item[1:])
        else:
            fn = None
        if fn is not None:
            fn(item, out)
    return select


_REPLIES: dict[tuple[int, int], Collect | None] = {}


def reply_ids(spec: CommandSpec, reply: Any) -> list[int]:
    """The object IDs (nonzero, with repeats) in ``reply``, a reply to ``spec`` that encoded fine."""
    key = (spec.set_id, spec.cmd_id)
    try:
        fn = _REPLIES[key]
    except KeyError:
        fn = _REPLIES[key] = _layout(spec.reply)
    if fn is None or reply is None:
        return []
    out: list[int] = []
    fn(reply, out)
    return out


_EVENTS = _select(EVENT_SELECT)


def composite_ids(events: Any) -> list[int]:
    """The object IDs in the events of one composite (as given to messages.encode_composite),
    those inside a JdwpdCapture's data included (a capture that asked for them)."""
    out: list[int] = []
    if _EVENTS is not None:
        for e in events:
            _EVENTS(e, out)
            data = e.get("data") if isinstance(e, Mapping) else getattr(e, "data", None)
            if data and _event_kind(e) == EventKind.JDWPD_CAPTURE:
                out += capture_ids(bytes(data))
    return out


def _event_kind(e: Any) -> int | None:
    if isinstance(e, Mapping):
        return e.get("event_kind")
    if isinstance(e, (tuple, list)):
        return e[0]
    return getattr(e, "event_kind", None)
