"""Readable views of well-known JDK types, and ``to_python``: any value as JSON-ready data.

Views read fields only; no code runs in the VM (``toString()`` would need ``invoke``):

    await obj.view()      # java.util.ArrayList   -> [<shop.Item#15>, ...]      (a Python list)
                          # java.util.HashMap     -> {'a': 1}                    (a dict; LinkedHashMap in order)
                          # java.lang.Integer     -> 5;  enums -> EnumValue('shop.Color', 'RED')
                          # java.util.Optional    -> OptionalValue(...);  records -> dict of components
                          # Throwable             -> ThrowableView(type, message, stack, cause)

``to_python(value, Limits(...))`` walks objects to ``depth``, cuts strings, collections and the
whole capture to the limits, and marks each cut (``"@truncated": "depth" | "items" | "string" |
"budget"``).  The shapes are those of the snapshot schema (docs/scripting.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeGuard

import attrs

from .types import ReferenceType

if TYPE_CHECKING:
    from .values import ArrayRef, ObjectRef

__all__ = ["Limits", "EnumValue", "OptionalValue", "ThrowableView", "view", "to_python", "KNOWN_TYPES"]


@attrs.frozen
class Limits:
    """How much a capture may take; the defaults are the production snapshot debuggers' (Google's
    Cloud Debugger: 20 frames, locals of the top 5, strings of 256 characters, 64 KiB a capture)."""

    frames: int = 20
    locals_frames: int = 5
    depth: int = 3
    string: int = 256
    items: int = 100
    fields: int = 50
    bytes: int = 65536


@attrs.frozen
class EnumValue:
    type: str
    name: str
    ordinal: int

    def __str__(self) -> str:
        return f"{self.type}.{self.name}"


@attrs.frozen
class OptionalValue:
    value: Any
    present: bool


@attrs.frozen
class ThrowableView:
    type: str
    message: str | None
    stack: list[str] | None  # None: the JVM had not filled it in (getStackTrace never called)
    cause: Any


BOX_TYPES = {"java.lang.Integer", "java.lang.Long", "java.lang.Short", "java.lang.Byte", "java.lang.Double",
             "java.lang.Float", "java.lang.Boolean", "java.lang.Character"}
LIST_TYPES = {"java.util.ArrayList", "java.util.Vector", "java.util.Stack"}
HASH_MAP_TYPES = {"java.util.HashMap", "java.util.LinkedHashMap", "java.util.concurrent.ConcurrentHashMap"}
IMMUTABLE_PREFIX = "java.util.ImmutableCollections$"
KNOWN_TYPES = sorted(BOX_TYPES | LIST_TYPES | HASH_MAP_TYPES | {
    "java.util.LinkedList", "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet",
    *(IMMUTABLE_PREFIX + kind for kind in ("List12", "ListN", "Set12", "SetN", "Map1", "MapN")),
    "java.util.Arrays$ArrayList", "java.util.Optional", "java.util.Collections$UnmodifiableCollection (and kin)",
    "enums", "records", "java.lang.Throwable (and subclasses)", "arrays"})


@attrs.define
class ByteBudget:
    """The bytes of JSON a capture may still make (``Limits.bytes``), shared by every value of one
    snapshot so that the whole of it is cut at one size, here and where the VM captured."""

    left: int

    def take(self, data: Any) -> bool:
        if isinstance(data, dict) and "@id" in data:
            # ids are not charged: their digits differ between servers and runs (and a capture in
            # the VM has none), so the same state is cut at the same place everywhere
            data = {k: v for k, v in data.items() if k != "@id"}
        self.left -= len(json.dumps(data, default=str)) if not isinstance(data, (int, float, bool)) else 8
        return self.left >= 0


# References are told by what they can do, not by their classes: values.py's ObjectRef.view() and
# to_python() call into this module, which so needs nothing of values.py at run time.
def _is_object(x: Any) -> bool:
    return hasattr(type(x), "read_fields")


def _is_array(x: Any) -> TypeGuard[ArrayRef]:  # by duck type: views may not import values at run time
    return hasattr(type(x), "read_fields") and hasattr(type(x), "slice")


async def _get(obj: ObjectRef, name: str) -> Any:
    return await obj.get(name)


async def _hash_entries(obj: ObjectRef, limit: int) -> tuple[list[tuple[Any, Any]], int]:
    size = await _get(obj, "size") if await obj.type.field("size") else None
    if await obj.type.is_subtype_of("Ljava/util/LinkedHashMap;"):
        out: list[tuple[Any, Any]] = []
        node = await _get(obj, "head")
        while node is not None and len(out) < limit:
            out.append((await _get(node, "key"), await _get(node, "value")))
            node = await _get(node, "after")
        return out, size if size is not None else len(out)
    table = await _get(obj, "table")
    out = []
    if table is not None:
        for bucket in await table.values():
            node = bucket
            while node is not None and len(out) < limit:
                key = "key" if await node.type.field("key") else "k"
                out.append((await _get(node, key), await _get(node, "val" if key == "key" and await node.type.field(
                    "val") else "value")))
                node = await _get(node, "next")
            if len(out) >= limit:
                break
    if size is None:  # ConcurrentHashMap counts in baseCount/counterCells; the walk is the size
        size = len(out)
    return out, size


async def _tree_entries(root: Any, limit: int) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    stack: list[Any] = []
    node = root
    while (stack or node is not None) and len(out) < limit:
        while node is not None:
            stack.append(node)
            node = await _get(node, "left")
        node = stack.pop()
        out.append((await _get(node, "key"), await _get(node, "value")))
        node = await _get(node, "right")
    return out


_EXTENSIBLE = LIST_TYPES | HASH_MAP_TYPES | {"java.util.LinkedList", "java.util.HashSet", "java.util.LinkedHashSet",
                                     "java.util.TreeSet", "java.util.TreeMap"}


async def known_collection_base(t: ReferenceType) -> str:
    """The name of ``t`` or of its nearest superclass whose layout the views know: a class that
    extends ArrayList keeps ArrayList's fields, so it reads as one."""
    cur: ReferenceType | None = t
    while cur is not None:
        if cur.name in _EXTENSIBLE:
            return cur.name
        if cur.name.startswith("java."):
            break  # a JDK class the views do not know: its subclasses are not known either
        cur = await cur.superclass()
    return t.name


async def map_entries(obj: ObjectRef, limit: int = 1 << 30) -> tuple[list[tuple[Any, Any]], int] | None:
    """(entries up to ``limit``, size) of a known Map implementation (or a subclass), or None."""
    name = await known_collection_base(obj.type)
    if name in HASH_MAP_TYPES or await obj.type.is_subtype_of("Ljava/util/HashMap;"):
        return await _hash_entries(obj, limit)
    if name == "java.util.TreeMap":
        return await _tree_entries(await _get(obj, "root"), limit), await _get(obj, "size")
    if name == IMMUTABLE_PREFIX + "Map1":
        return [(await _get(obj, "k0"), await _get(obj, "v0"))], 1
    if name == IMMUTABLE_PREFIX + "MapN":
        table = await (await _get(obj, "table")).values()
        pairs = [(table[i], table[i + 1]) for i in range(0, len(table), 2) if table[i] is not None]
        return pairs[:limit], len(pairs)
    if name.startswith("java.util.Collections$Unmodifiable") and await obj.type.field("m"):
        inner = await _get(obj, "m")
        return await map_entries(inner, limit) if _is_object(inner) else None
    return None


async def collection_items(obj: ObjectRef, limit: int = 1 << 30) -> tuple[list[Any], int] | None:
    """(items up to ``limit``, size) of a known List/Set implementation (or a subclass), or None."""
    name = await known_collection_base(obj.type)
    if name in LIST_TYPES or name == "java.util.Arrays$ArrayList":
        data = await _get(obj, "elementData" if name != "java.util.Arrays$ArrayList" else "a")
        size = await _get(obj, "elementCount" if name != "java.util.ArrayList" and name in LIST_TYPES else "size") \
            if name in LIST_TYPES else data.length
        return await data.slice(0, min(size, limit)), size
    if name == "java.util.LinkedList":
        out: list[Any] = []
        node, size = await _get(obj, "first"), await _get(obj, "size")
        while node is not None and len(out) < limit:
            out.append(await _get(node, "item"))
            node = await _get(node, "next")
        return out, size
    if name in ("java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet"):
        inner = await _get(obj, "m" if name == "java.util.TreeSet" else "map")
        entries = await map_entries(inner, limit)
        return ([k for k, _ in entries[0]], entries[1]) if entries else None
    if name in (IMMUTABLE_PREFIX + "List12", IMMUTABLE_PREFIX + "Set12"):
        empty = await obj.vm.types.type_named_sig("Ljava/util/ImmutableCollections;")
        sentinel = await empty.get("EMPTY") if empty and await empty.field("EMPTY") else None
        items = [await _get(obj, "e0")]
        e1 = await _get(obj, "e1")
        if e1 is not None and e1 != sentinel:
            items.append(e1)
        return items[:limit], len(items)
    if name in (IMMUTABLE_PREFIX + "ListN", IMMUTABLE_PREFIX + "SetN"):
        arr = await _get(obj, "elements")
        size = await _get(obj, "size") if name.endswith("SetN") else arr.length
        items = [x for x in await arr.values() if x is not None] if name.endswith("SetN") else await arr.slice(
            0, min(arr.length, limit))
        return items[:limit], size
    if name.startswith("java.util.Collections$Unmodifiable") and await obj.type.field("c"):
        inner = await _get(obj, "c")
        return await collection_items(inner, limit) if _is_object(inner) else None
    return None


async def _is_record(t: ReferenceType) -> bool:
    sup = await t.superclass()
    return sup is not None and sup.name == "java.lang.Record"


async def _is_enum(t: ReferenceType) -> bool:
    return await t.is_subtype_of("Ljava/lang/Enum;")


async def _record_components(obj: ObjectRef) -> dict[str, Any]:
    fields = [f for f in await obj.type.fields() if not f.is_static]
    return dict(zip([f.name for f in fields], await obj.read_fields(fields), strict=True))


async def throwable_view(obj: ObjectRef) -> ThrowableView:
    message = await _get(obj, "detailMessage")
    trace = await _get(obj, "stackTrace")
    stack = None
    if _is_array(trace) and trace.length:
        stack = []
        for el in await trace.values():
            f = await el.fields()
            where = f"{f.get('fileName')}:{f.get('lineNumber')}" if f.get("fileName") else "Unknown Source"
            stack.append(f"{f.get('declaringClass')}.{f.get('methodName')}({where})")
    cause = await _get(obj, "cause")
    return ThrowableView(obj.type.name, message, stack, None if cause == obj else cause)


async def _unbox(v: Any) -> Any:
    """Boxed primitives in a collection read as their numbers (what a person means by a key 1)."""
    if _is_object(v) and v.type.name in BOX_TYPES:
        return await _get(v, "value")
    return v


async def view(obj: ObjectRef) -> Any:
    """A readable Python view of a well-known JDK object (see the module doc), else ``obj``."""
    name = obj.type.name
    if _is_array(obj):
        return await obj.values()
    if name in BOX_TYPES:
        return await _get(obj, "value")
    if name == "java.util.Optional":
        v = await _get(obj, "value")
        return OptionalValue(v, v is not None)
    entries = await map_entries(obj)
    if entries is not None:
        pairs = [(await _unbox(k), await _unbox(v)) for k, v in entries[0]]
        try:
            return dict(pairs)
        except TypeError:  # unhashable keys: keep the pairs
            return pairs
    items = await collection_items(obj)
    if items is not None:
        return [await _unbox(x) for x in items[0]]
    if await _is_enum(obj.type):
        superclass = await obj.type.superclass()  # an enum's: java.lang.Enum, or the enum's for a constant's body
        return EnumValue(name.split("$")[0] if superclass is not None and superclass.name != "java.lang.Enum" else name,
                         await _get(obj, "name"), await _get(obj, "ordinal"))
    if await _is_record(obj.type):
        return await _record_components(obj)
    if await obj.type.is_subtype_of("Ljava/lang/Throwable;"):
        return await throwable_view(obj)
    return obj


async def to_python(value: Any, limits: Limits | None = None, *, budget: ByteBudget | None = None,
                    _depth: int = 0) -> Any:
    """``value`` (any API value) as JSON-ready data under ``limits`` (``Limits()`` by default).

    Objects become ``{"@type": ..., "@id": ..., field: value, ...}``; collections
    ``{"@type", "@id", "@size", "@items": [...]}``; maps ``... "@entries": [[key, value], ...]``;
    arrays ``{"@type", "@id", "@length", "@items"}``; boxes their number; enums
    ``{"@type", "@enum": NAME}``; a cut is marked with ``"@truncated"``.  ``budget``: one
    ``ByteBudget`` shared by several values (a snapshot's), else this value's own.
    """
    limits = limits or Limits()
    budget = budget or ByteBudget(limits.bytes)
    if budget.left < 0:
        return {"@truncated": "budget"}
    if value is None or isinstance(value, (bool, int, float)):
        budget.take(value)
        return value
    if isinstance(value, str):
        if len(value) > limits.string:
            out: Any = {"@type": "java.lang.String", "@value": value[:limits.string], "@length": len(value),
                        "@truncated": "string"}
        else:
            out = value
        budget.take(out)
        return out
    if type(value).__name__ == "Thread":
        out = {"@type": "java.lang.Thread", "@id": value.id, "name": value.name}
        budget.take(out)
        return out
    if not _is_object(value):
        return str(value)
    head: dict[str, Any] = {"@type": value.type.name, "@id": value.id}
    name = value.type.name
    if name in BOX_TYPES:
        return await to_python(await _get(value, "value"), limits, budget=budget, _depth=_depth)
    if await _is_enum(value.type):
        out = {"@type": head["@type"], "@enum": await _get(value, "name")}
        budget.take(out)
        return out
    if _depth >= limits.depth:
        out = {**head, "@truncated": "depth"}
        budget.take(out)
        return out
    budget.take(head)

    async def sub(v: Any) -> Any:
        return await to_python(v, limits, budget=budget, _depth=_depth + 1)

    if _is_array(value):
        items = await value.slice(0, limits.items)
        out = {**head, "@length": value.length, "@items": [await sub(x) for x in items]}
        if value.length > limits.items:
            out["@truncated"] = "items"
        return out
    entries = await map_entries(value, limits.items)
    if entries is not None:
        out = {**head, "@size": entries[1], "@entries": [[await sub(k), await sub(v)] for k, v in entries[0]]}
        if entries[1] > len(entries[0]):
            out["@truncated"] = "items"
        return out
    items2 = await collection_items(value, limits.items)
    if items2 is not None:
        out = {**head, "@size": items2[1], "@items": [await sub(x) for x in items2[0]]}
        if items2[1] > len(items2[0]):
            out["@truncated"] = "items"
        return out
    if name == "java.util.Optional":
        return {**head, "@value": await sub(await _get(value, "value"))}
    if await value.type.is_subtype_of("Ljava/lang/Throwable;"):
        t = await throwable_view(value)
        return {**head, "message": await sub(t.message), "stack": t.stack, "cause": await sub(t.cause)}
    fields = [f for f in await value.type.all_fields() if not f.is_static and not f.is_synthetic]
    shown = fields[:limits.fields]
    values = await value.read_fields(shown)
    out = dict(head)
    for f, v in zip(shown, values, strict=True):
        if budget.left < 0:
            out["@truncated"] = "budget"
            break
        out.setdefault(f.name, await sub(v))
    if len(fields) > len(shown):
        out["@truncated"] = "fields"
    return out
