"""Values: objects' and classes' fields, array elements, strings; what an object id is; assignability.

The reference agent tags every object value with the *runtime* kind of the object (string,
thread, class object, array...), except a null, which is always tagged OBJECT; the one
exception is a value it writes by its declared type (outStream_writeValue: a method's return
value, an invoke's or a MethodExitWithReturnValue's, and a FieldModification's value to be),
whose null keeps the tag ARRAY when that type is an array type.  These rules live here, once
(`to_jdwp`, `tagged`): the events' values and objects are made here too.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from jdwpd.daemon.facade.agent import ask, cached, raise_agent
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import OBJECT_TAGS, ErrorCode, Tag, TypeTag
from protocol.link import LinkValue, ObjectKind
from protocol.wire import ArrayRegion, TaggedObjectID, Value, encode_mutf8

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.model.classes import ClassCache, FieldInfo

_OBJ = int(Tag.OBJECT)
_ARRAY = int(Tag.ARRAY)
_ZERO = {
    ord("B"): 0, ord("C"): 0, ord("S"): 0, ord("I"): 0, ord("J"): 0,
    ord("F"): 0.0, ord("D"): 0.0, ord("Z"): False,
}
_ANY_ARRAY = frozenset({"Ljava/lang/Object;", "Ljava/lang/Cloneable;", "Ljava/io/Serializable;"})


def to_jdwp(v: LinkValue, *, by_declared_type: bool = False) -> Value:
    """A link value as JDWP's: one read from a field, a slot or an array element, or, with
    ``by_declared_type``, one the reference writes by its declared type (an event's return value
    or value to be).  The agent tags a null by the declared type ('L' or '['); JDWP's null is
    OBJECT but where the declared type is kept."""
    if v.tag in OBJECT_TAGS:
        keeps_tag = v.value or (by_declared_type and v.tag == _ARRAY)
        return Value(v.tag if keeps_tag else _OBJ, v.value)
    if v.tag == ord("V"):
        return Value(v.tag, None)
    return Value(v.tag, v.value)


def tagged(t: Any) -> TaggedObjectID:
    """A link Tagged (kind, object) as JDWP's tagged-object; null is tagged OBJECT."""
    if t is None or not t.object:
        return TaggedObjectID(_OBJ, 0)
    return TaggedObjectID(t.kind, t.object)


def to_link(v: Value) -> LinkValue:
    return LinkValue(int(v.tag), v.value)


def zero_value(tag: int) -> Value:
    if tag in OBJECT_TAGS:
        return Value(tag, 0)
    if tag == ord("V"):
        return Value(tag, None)
    return Value(tag, _ZERO[tag])


class FieldWrites(Protocol):
    """Field writes whose values are read one field at a time: on the wire a value's size depends
    on its field's type, which only the lookup of its field id tells (commands/value_encodings.py's
    FieldValueReader is one; a script passes its values already made)."""

    count: int

    def field_id(self) -> int: ...

    def value(self, tag: int) -> Value: ...


class ObjectKinds:
    """Object id -> (kind, class): immutable for an id, since the agent never reuses ids.

    Kept in a bounded LRU: the checks of ArrayReference/StringReference/field access are
    then free for the objects a debugger is looking at.
    """

    def __init__(self, link: Any, capacity: int = 4096) -> None:
        self._link = link
        self._cache: collections.OrderedDict[int, tuple[int, int, int]] = collections.OrderedDict()
        self._capacity = capacity

    async def get(self, obj: int, *, fresh: bool = False) -> tuple[int, int, int]:
        """(ObjectKind, class ref, class ref kind).  INVALID_OBJECT for 0, unknown or collected ids.

        A remembered answer may outlive its object: callers that answer from it alone, without
        a later agent request that would notice the collection, ask ``fresh``.
        """
        hit = None if fresh else self._cache.get(obj)
        if hit is not None:
            self._cache.move_to_end(obj)
            return hit
        if obj == 0:
            raise JdwpError(ErrorCode.INVALID_OBJECT, "null object")
        r = await ask(self._link, "OBJECT_TYPE", object=obj)
        hit = (r["kind"], r["ref"], r["ref_kind"])
        self._cache[obj] = hit
        if len(self._cache) > self._capacity:
            self._cache.popitem(last=False)
        return hit

    def forget(self, obj: int) -> None:
        self._cache.pop(obj, None)


class ValueOperations:
    """The façade's value operations (a mixin of jdwpd.daemon.vm.VM)."""

    link: Any
    object_kinds: ObjectKinds
    if TYPE_CHECKING:  # the VM's, made at first use (vm.py): read-only here
        @property
        def classes(self) -> ClassCache: ...

    # ------------------------------------------------------------ what an id names

    async def object_kind(self, obj: int, *, fresh: bool = False) -> tuple[int, int, int]:
        """(ObjectKind, class ref, class ref kind) of an object; INVALID_OBJECT for 0 or a dead id."""
        return await self.object_kinds.get(obj, fresh=fresh)

    async def check_kind(self, obj: int, kind: int, error: int) -> tuple[int, int, int]:
        """object_kind, with ``error`` for an object of another kind."""
        info = await self.object_kinds.get(obj)
        if info[0] != kind:
            raise JdwpError(error, f"object {obj:#x} is not a {ObjectKind(kind).name.lower()}")
        return info

    async def check_type(self, ref: int) -> int:
        """Validate a reference type id (INVALID_CLASS / INVALID_OBJECT); returns its TypeTag."""
        try:
            return await self.classes.ref_kind(ref)  # free for classes already seen (events, AllClasses)
        except AgentError as e:
            raise_agent(e)

    async def instance_of(self, obj: int, signature: str) -> bool:
        """May ``obj`` (0: null) be stored where the type ``signature`` is declared?

        Types are matched by name along the object's supertypes (all cached after the first
        time); two same-named classes from different loaders are not told apart.
        """
        if not obj or signature == "Ljava/lang/Object;":
            return True
        classes = self.classes
        _, obj_class, obj_kind = await self.object_kinds.get(obj)
        if obj_kind == TypeTag.ARRAY:
            sig = (await cached(classes.signature(obj_class))).signature
            return (signature in _ANY_ARRAY or sig == signature
                    or (signature.startswith("[") and signature[1:2] in "L[" and sig[1:2] in "L["))
        for t in await cached(classes.supertypes(obj_class)):
            if (await cached(classes.signature(t))).signature == signature:
                return True
        return False

    # ------------------------------------------------------------ fields

    async def _instance_field(self, obj_class: int, field_id: int) -> FieldInfo:
        """The field, looked up in the object's class and its supertypes (INVALID_FIELDID otherwise).

        The reference hands whatever field id it gets to JNI; a field of another class would read
        or write memory that is not the field's.  JDI never sends one, so this lookup only ever
        turns a would-be crash into INVALID_FIELDID.
        """
        return await cached(self.classes.find_field(obj_class, field_id))

    async def get_object_fields(self, obj: int, field_ids: list[int]) -> list[Value]:
        """An object's field values, in the asked order (static fields of its class too)."""
        _, obj_class, _ = await self.object_kinds.get(obj)
        wanted = []
        for field_id in field_ids:
            f = await self._instance_field(obj_class, field_id)
            wanted.append((f, {"field": f.field_id, "tag": f.tag}))
        if not wanted:
            return []
        # The spec allows static fields through an object (JDI sends them through the type; the
        # reference's VM dies on them).  The agent reads each kind with its own JNI family: split,
        # then merge in the asked order.
        instance_values = []
        instance_fields = [w for f, w in wanted if not f.is_static]
        if instance_fields:
            r = await ask(self.link, "OBJECT_GET_FIELDS", object=obj, fields=instance_fields)
            instance_values = [v["value"] for v in r["values"]]
        static_values: dict[int, list] = {}
        for f, w in wanted:
            if f.is_static:
                static_values.setdefault(f.declaring, []).append(w)
        static_results: dict[int, Any] = {}
        for declaring, ws in static_values.items():
            r = await ask(self.link, "CLASS_GET_STATICS", ref=declaring, fields=ws)
            for w, v in zip(ws, r["values"], strict=True):
                static_results[w["field"]] = v["value"]
        it = iter(instance_values)
        return [to_jdwp(static_results[f.field_id] if f.is_static else next(it)) for f, _w in wanted]

    async def set_object_fields(self, obj: int, writes: FieldWrites) -> None:
        """Field writes through an object, checked as a whole before any is made."""
        _, obj_class, _ = await self.object_kinds.get(obj)
        checked = []
        for _ in range(writes.count):
            f = await self._instance_field(obj_class, writes.field_id())
            value = writes.value(f.tag)
            # JNI stores any object into any reference field; the heap would then lie.
            if f.tag in OBJECT_TAGS and not await self.instance_of(value.object_id, f.signature):
                raise JdwpError(ErrorCode.TYPE_MISMATCH, f"value is not a {f.signature}")
            checked.append((f, value))
        instance_writes = [{"field": f.field_id, "value": to_link(v)} for f, v in checked if not f.is_static]
        if instance_writes:
            await ask(self.link, "OBJECT_SET_FIELDS", object=obj, values=instance_writes)
        for f, v in checked:
            if f.is_static:
                await ask(self.link, "CLASS_SET_STATICS", ref=f.declaring,
                          values=[{"field": f.field_id, "value": to_link(v)}])

    async def get_static_values(self, ref: int, field_ids: list[int]) -> list[Value]:
        """Static values of a type; object values carry the runtime kind of the object (null: OBJECT)."""
        classes = self.classes
        await self.check_type(ref)
        wanted = []
        for field_id in field_ids:
            f = await cached(classes.find_field(ref, field_id))
            if not f.is_static:
                # The reference would read an instance field's id as a static one; JNI's
                # behaviour is then undefined.  JDI never sends this.
                raise JdwpError(ErrorCode.INVALID_FIELDID, f"{f.name} is not static")
            wanted.append({"field": f.field_id, "tag": f.tag})
        if not wanted:
            return []
        r = await ask(self.link, "CLASS_GET_STATICS", ref=ref, fields=wanted)
        return [to_jdwp(v["value"]) for v in r["values"]]

    async def set_static_values(self, clazz: int, writes: FieldWrites) -> None:
        """Static field writes of a class, in order.

        The reference stops silently at the first field it cannot resolve and still answers
        success; so do we (its answer is what debuggers are built against).
        """
        classes = self.classes
        # The reference reads a class reference without checking it is a class (not an interface).
        await self.check_type(clazz)
        out = []
        for _ in range(writes.count):
            field_id = writes.field_id()
            try:
                f = await cached(classes.find_field(clazz, field_id))
            except JdwpError as e:
                if e.code == ErrorCode.INVALID_FIELDID:
                    break
                raise
            if not f.is_static:
                break
            value = writes.value(f.tag)
            # JNI stores any object into any reference field; the heap would then lie.
            if f.tag in OBJECT_TAGS and not await self.instance_of(value.object_id, f.signature):
                raise JdwpError(ErrorCode.TYPE_MISMATCH, f"value is not a {f.signature}")
            out.append({"field": field_id, "value": to_link(value)})
        if out:
            await ask(self.link, "CLASS_SET_STATICS", ref=clazz, values=out)

    # ------------------------------------------------------------ arrays

    async def _array(self, array: int) -> tuple[int, int]:
        """(length, component tag) of an array object; INVALID_ARRAY for other objects."""
        _, ref, _ = await self.check_kind(array, ObjectKind.ARRAY, ErrorCode.INVALID_ARRAY)
        sig = (await self.classes.signature(ref)).signature
        length = (await ask(self.link, "ARRAY_LENGTH", array=array))["length"]
        return length, _component_tag(sig[1:])

    async def array_length(self, array: int) -> int:
        return (await self._array(array))[0]

    async def get_array_values(self, array: int, first: int, length: int) -> ArrayRegion:
        """Elements ``first`` on (``length`` -1: to the end), bounds checked as the reference does."""
        n, tag = await self._array(array)
        count = n - first if length == -1 else length
        _check_range(first, count, n)
        if count == 0:
            return ArrayRegion(tag, ())
        r = await ask(self.link, "ARRAY_GET", array=array, first=first, length=count)
        values = [v["value"] for v in r["values"]]
        if tag in OBJECT_TAGS:
            return ArrayRegion(tag, tuple(to_jdwp(v) for v in values))
        return ArrayRegion(tag, tuple(v.value for v in values))

    async def set_array_values(self, array: int, first: int, count: int,
                               decode: Callable[[int], list[Value]]) -> None:
        """Store ``count`` elements from ``first``; ``decode(component tag)`` makes the values (on the
        wire their size depends on the array's component type)."""
        n, tag = await self._array(array)
        _check_range(first, count, n)
        values = decode(tag)
        if tag in OBJECT_TAGS:
            # JNI's ArrayStoreException would leave the array half written; the reference answers
            # TYPE_MISMATCH for it.  Checked before any element is stored.
            _, ref, _ = await self.object_kinds.get(array)
            component = (await self.classes.signature(ref)).signature[1:]
            for v in values:
                if not await self.instance_of(v.object_id, component):
                    raise JdwpError(ErrorCode.TYPE_MISMATCH, f"element is not a {component}")
        if values:
            await ask(self.link, "ARRAY_SET", array=array, first=first, values=[{"value": to_link(v)} for v in values])

    async def new_array(self, array_type: int, length: int) -> TaggedObjectID:
        # The reference's answers: a type that is not an array type is a TYPE_MISMATCH, and a
        # negative length makes JNI throw, which it reports as OUT_OF_MEMORY.
        if await self.check_type(array_type) != TypeTag.ARRAY:
            raise JdwpError(ErrorCode.TYPE_MISMATCH, "not an array type")
        if length < 0:
            raise JdwpError(ErrorCode.OUT_OF_MEMORY, "negative length")
        r = await ask(self.link, "ARRAY_NEW", ref=array_type, length=length)
        return tagged(r["array"])

    # ------------------------------------------------------------ strings

    async def string_value(self, string: int) -> str:
        await self.check_kind(string, ObjectKind.STRING, ErrorCode.INVALID_STRING)
        # the link decoder already made the JVM's surrogate pairs whole characters; lone ones stay lone
        return (await ask(self.link, "STRING_VALUE", string=string))["utf"]

    async def create_string(self, text: str) -> int:
        # JNI's NewStringUTF takes modified UTF-8, as the reference converts to before calling it.
        return (await ask(self.link, "CREATE_STRING", utf=encode_mutf8(text)))["string"]


def _component_tag(signature: str) -> int:
    from jdwpd.daemon.model.classes import signature_tag

    return signature_tag(signature)


def _check_range(first: int, length: int, array_length: int) -> None:
    # The reference checks the index before the length, and an index equal to the array's
    # length is invalid even for an empty region.
    if first < 0 or first > array_length - 1:
        raise JdwpError(ErrorCode.INVALID_INDEX, f"index {first} for length {array_length}")
    if length < 0 or first + length > array_length:
        raise JdwpError(ErrorCode.INVALID_LENGTH, f"{length} elements from {first} of {array_length}")
