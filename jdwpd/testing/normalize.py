"""Map the IDs of a JDWP transcript to stable symbolic names.

Two servers give the same objects, methods and frames different numbers; after
normalization, the n-th distinct object ID a transcript mentions is ``obj#n``
in both, so replies and events compare equal exactly when they mean the same.

Object, thread, string, class-loader and reference-type IDs share one name
space: in JDWP a reference type's ID is the ID of its java.lang.Class object
(both in the reference agent and in jdwpd), so ReferenceType.ClassObject must
answer the same name as the type.  Methods, fields, frames and event request
IDs each have their own space.  0 stays 0 where it means something: the null
object, and request ID 0 (events the VM sends unasked, VMStart and VMDeath).
Method, field and frame IDs have no null, so 0 is a name like any other there.
A frame ID means something only with its thread (the reference numbers each
thread's frames on their own), so given the thread, frames are named per thread.

Which fields hold IDs is read from protocol.spec (the field's spec type), so
the walker needs no knowledge of the message classes beyond attribute names.
Text transcripts (jdb) are handled by ``normalize_text``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:  # pragma: no cover
    from protocol.wire import Location, Value

__all__ = ["Normalizer", "ID_FIELDS", "normalize_text"]

_SPACE_OF_TYPE = {
    "object": "obj",
    "threadObject": "obj",
    "threadGroupObject": "obj",
    "stringObject": "obj",
    "classLoaderObject": "obj",
    "classObject": "obj",
    "arrayObject": "obj",
    "moduleID": "obj",
    "referenceType": "obj",
    "referenceTypeID": "obj",
    "classType": "obj",
    "interfaceType": "obj",
    "arrayType": "obj",
    "tagged-object": "obj",
    "method": "method",
    "field": "field",
    "frame": "frame",
}

_ZERO_MEANS_SOMETHING = frozenset({"obj", "req"})
_OBJECT_TAGS = frozenset(b"[Lstgc" + b"l")


def _collect_id_fields() -> dict[str, str]:
    """{snake_case field name: name space} for every field that holds an ID somewhere in the spec."""
    from protocol import spec

    found: dict[str, set[str]] = {}

    def note(f: spec.Field) -> None:
        space = _SPACE_OF_TYPE.get(f.type)
        if space:
            found.setdefault(f.name, set()).add(space)

    def walk(layout: tuple) -> None:
        for el in layout:
            if isinstance(el, spec.Field):
                note(el)
            elif isinstance(el, spec.Repeat):
                item = el.item
                if isinstance(item, spec.Field):
                    note(item)
                elif isinstance(item, spec.Group):
                    walk(item.fields)
                elif isinstance(item, spec.Select):
                    for alt in item.alts:
                        walk(alt.fields)

    for cmd in spec.COMMANDS.values():
        walk(cmd.out)
        walk(cmd.reply)
    for sel in (spec.MODIFIER_SELECT, spec.EVENT_SELECT):
        for alt in sel.alts:
            walk(alt.fields)
    clashes = {n: s for n, s in found.items() if len(s) > 1}
    if clashes:
        raise AssertionError(f"field names used for IDs of different kinds: {clashes}")
    return {n: s.pop() for n, s in found.items()}


ID_FIELDS: dict[str, str] = {}


def _id_fields() -> dict[str, str]:
    if not ID_FIELDS:
        ID_FIELDS.update(_collect_id_fields())
    return ID_FIELDS


def _tag_char(tag: int) -> str:
    return chr(tag) if 32 <= tag < 127 else str(tag)


class Normalizer:
    """Stateful: one instance per transcript, names handed out in order of first appearance."""

    def __init__(self, *, request_ids: bool = True) -> None:
        self.names: dict[tuple[str, int], str] = {}
        self.counts: dict[str, int] = {}
        self.request_ids = request_ids

    def name(self, space: str, value: int) -> str | int:
        if value == 0 and space in _ZERO_MEANS_SOMETHING:
            return 0
        key = (space, value)
        found = self.names.get(key)
        if found is None:
            n = self.counts[space] = self.counts.get(space, 0) + 1
            found = self.names[key] = f"{space}#{n}"
        return found

    # ---------------------------------------------------------- structured messages

    def __call__(self, obj: Any, *, thread: int | None = None) -> Any:
        return self.message(obj, thread=thread)

    def message(self, obj: Any, *, thread: int | None = None) -> Any:
        """Turn a decoded message (attrs classes, tuples, wire values) into plain, ID-free data.

        ``thread``: the thread the message is about (ThreadReference.Frames), which scopes frame IDs.
        """
        self._frame_space = "frame" if thread is None else f"frame@{self.name('obj', thread)}"
        return self._walk(obj, None)

    _frame_space = "frame"

    def _walk(self, obj: Any, field_name: str | None) -> Any:
        from protocol import wire

        if isinstance(obj, bool) or obj is None or isinstance(obj, (str, float, bytes)):
            return obj
        if isinstance(obj, int):
            space = _id_fields().get(field_name) if field_name else None
            if space is None and self.request_ids and field_name in ("request_id", "requestid"):
                space = "req"
            if space == "frame":
                space = self._frame_space
            return self.name(space, obj) if space else int(obj)
        if isinstance(obj, wire.Value):
            return self.value(obj)
        if isinstance(obj, wire.TaggedObjectID):
            return f"{_tag_char(obj.tag)}:{self.name('obj', obj.object_id)}"
        if isinstance(obj, wire.Location):
            return self.location(obj)
        if isinstance(obj, wire.ArrayRegion):
            if obj.tag in _OBJECT_TAGS:
                return {"tag": _tag_char(obj.tag), "values": [self._walk(v, None) for v in obj.values]}
            return {"tag": _tag_char(obj.tag), "values": list(obj.values)}
        if attrs.has(type(obj)):
            out: dict[str, Any] = {}
            # Event and modifier classes carry their kind as a class attribute, not a field.
            for kind_attr in ("event_kind", "mod_kind"):
                kind = getattr(type(obj), kind_attr, None)
                if kind is not None:
                    out[kind_attr] = getattr(kind, "name", kind)
            for a in attrs.fields(type(obj)):
                out[a.name] = self._walk(getattr(obj, a.name), a.name)
            return out
        if isinstance(obj, dict):
            return {k: self._walk(v, k if isinstance(k, str) else None) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            # A repeat of one-field groups inherits nothing: each item names its own field.
            return [self._walk(v, field_name) for v in obj]
        return obj

    def value(self, v: Value) -> str:
        if v.tag in _OBJECT_TAGS:
            return f"{_tag_char(v.tag)}:{self.name('obj', v.object_id)}"
        if v.value is None:
            return _tag_char(v.tag)
        return f"{_tag_char(v.tag)}:{v.value!r}"

    def location(self, loc: Location) -> str:
        return (f"loc({loc.type_tag},{self.name('obj', loc.class_id)},{self.name('method', loc.method_id)},"
                f"{loc.index})")

    # ---------------------------------------------------------- text (jdb)

    def text(self, text: str) -> str:
        return normalize_text(text, self)


# jdb writes object IDs in decimal as "(id=123)", and thread IDs after a cast,
# "(java.lang.Thread)365" (hex "0x16d" in older jdbs); all are object IDs.
# Default toString() output carries the identity hash, which differs per run.
_TEXT_IDS = re.compile(r"\(id=(\d+)\)|(?<=\))(0x[0-9a-f]+|\d+)(?=\s)|(?<=\bthread )(0x[0-9a-f]+|\d+)\b")
# Hidden classes (lambdas, lambda forms) are named after their address: Sample$$Lambda$2/0x00007fce2c009228.
_HIDDEN_CLASS = re.compile(r"(?<=[\w$])/0x[0-9a-f]{6,16}\b")
# Column padding (jdb's `threads`) depends on how wide the IDs are printed.
_PADDING = re.compile(r"(?<=\S) {2,}")
_IDENTITY_HASH = re.compile(r"(?<=[\w$\]])@[0-9a-f]{1,8}\b")


def _int(text: str) -> int:
    return int(text, 16) if text.startswith("0x") else int(text)


def normalize_text(text: str, normalizer: Normalizer | None = None) -> str:
    n = normalizer or Normalizer()

    def repl(m: re.Match) -> str:
        if m.group(1) is not None:
            return f"(id={n.name('obj', int(m.group(1)))})"
        return str(n.name("obj", _int(m.group(2) or m.group(3))))

    text = _HIDDEN_CLASS.sub("/ADDR", text)
    return _PADDING.sub(" ", _IDENTITY_HASH.sub("@HASH", _TEXT_IDS.sub(repl, text)))
