"""Values of the debugged VM as Python sees them.

Primitives become ``bool``/``int``/``float`` (a ``char`` a one-character ``str``), strings ``str``,
``null`` None; every other object is a lazy reference that asks the VM only when awaited:

    order = (await hit.frame.locals())["order"]      # <shop.Order#12>
    await order.fields()                             # {'id': 7, 'total': 120.5, 'items': <java.util.ArrayList#14>}
    await order.get("id")                            # 7
    await (await order.get("items")).view()          # [<shop.Item#15>, <shop.Item#16>]  (read, no code run)
    await arr[0:10]                                  # a slice of an array, one round trip
    await order.invoke("toString")                   # runs code in the VM: explicit, single-threaded

``to_python(value, limits)`` (``jdwpd.views``) turns any of these into JSON-ready data.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import attrs
import trio

from protocol.constants import OBJECT_TAGS, InvokeOptions, Tag
from protocol.wire import Value as WireValue

from .errors import InvalidStateError, Timeout
from .types import ArrayType, Field, InterfaceType, Method, ReferenceType, signature_to_name

if TYPE_CHECKING:
    from .debuggee import Debuggee
    from .threads import Thread

__all__ = ["ObjectRef", "ArrayRef", "ClassObjectRef", "InvocationError", "Values", "DEFAULT_INVOKE_TIMEOUT"]

DEFAULT_INVOKE_TIMEOUT = 10.0


class InvocationError(Exception):
    """A method invoked in the VM threw; ``exception`` is the thrown object (an ``ObjectRef``)."""

    def __init__(self, method: str, exception: ObjectRef) -> None:
        super().__init__(f"{method} threw {exception.type.name}")
        self.exception = exception


@attrs.frozen(eq=False)
class ObjectRef:
    """An object of the VM, by ID.  Equal when it is the same object (``==`` on references).

    ``thread`` is the suspended thread the reference was read in, used by ``invoke`` unless
    another is given.
    """

    vm: Debuggee = attrs.field(repr=False)
    id: int
    type: ReferenceType
    thread: Thread | None = attrs.field(default=None, repr=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectRef) and other.id == self.id and other.vm is self.vm

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<{self.type.name}#{self.id}>"

    @property
    def type_name(self) -> str:
        return self.type.name

    async def fields(self, *, static: bool = False) -> dict[str, Any]:
        """Instance fields (``static=True``: and static ones) by name, values converted; a field a
        subclass hides is shown once, the subclass's."""
        fields = [f for f in await self.type.all_fields() if static or not f.is_static]
        seen: dict[str, Field] = {}
        for f in fields:
            seen.setdefault(f.name, f)
        return dict(zip(seen, await self.read_fields(list(seen.values())), strict=True))

    async def read_fields(self, fields: list[Field]) -> list[Any]:
        """The converted values of ``fields`` (instance or static), one round trip for the instance ones."""
        inst = [f for f in fields if not f.is_static]
        raw: dict[int, Any] = {}
        if inst:
            r = await self.vm.conn.command("ObjectReference", "GetValues", object=self.id,
                                           fields=[f.id for f in inst])
            raw.update((f.id, v.value) for f, v in zip(inst, r.values, strict=True))
        out = []
        for f in fields:
            out.append(await f.read_static() if f.is_static else await self.vm.values.from_wire(raw[f.id],
                                                                                               self.thread))
        return out

    async def raw_field(self, name: str) -> WireValue | None:
        """The field's value as sent on the wire (no conversion, no string fetched); None if no such field."""
        f = await self.type.field(name)
        if f is None:
            return None
        if f.is_static:
            r = await self.vm.conn.command("ReferenceType", "GetValues", ref_type=f.declaring_type.id,
                                           fields=[f.id])
        else:
            r = await self.vm.conn.command("ObjectReference", "GetValues", object=self.id, fields=[f.id])
        return r.values[0].value

    async def get(self, name: str) -> Any:
        """The value of field ``name`` (instance or static, inherited too)."""
        f = await self.type.field(name)
        if f is None:
            raise AttributeError(f"{self.type.name} has no field {name!r}")
        return (await self.read_fields([f]))[0]

    async def set(self, name: str, value: Any) -> None:
        """Set field ``name`` (instance or static, inherited too) to ``value`` (converted to the
        field's type; an ``ObjectRef``; None).  ``AttributeError`` for no such field, ``TypeError``
        for a value that cannot be its type, ``JdwpError`` as the server answers."""
        f = await self.type.field(name)
        if f is None:
            raise AttributeError(f"{self.type.name} has no field {name!r}")
        if f.is_static:
            await f.declaring_type.set(name, value)
            return
        wire = await self.vm.values.to_wire(value, f.signature)
        await self.vm.conn.command("ObjectReference", "SetValues", object=self.id,
                                   values=[{"field_id": f.id, "value": (wire.tag, wire.value)}])

    async def view(self) -> Any:
        """A readable view of well-known JDK types, read without running code in the VM (boxed
        primitives -> numbers, List/Set -> list, Map -> dict, Optional, enums, records, Throwable);
        the object itself for other types.  See ``jdwpd.views``."""
        from .views import view

        return await view(self)

    async def to_python(self, limits: Any = None) -> Any:
        """JSON-ready data under ``limits`` (``jdwpd.Limits``); see ``jdwpd.views.to_python``."""
        from .views import to_python

        return await to_python(self, limits)

    async def invoke(self, name: str, *args: Any, signature: str | None = None, thread: Thread | None = None,
                     single_threaded: bool = True, timeout: float = DEFAULT_INVOKE_TIMEOUT) -> Any:
        """Call ``name(*args)`` on this object in the VM and return its converted result.

        Runs on ``thread`` (default: the thread this reference was read in, which must be held by
        an event), with every other thread left suspended unless ``single_threaded=False``.  The
        method is chosen by name and arity (``signature="(I)V"`` to pick an overload).  A thrown
        exception raises ``InvocationError``; ``Timeout`` if it takes longer than ``timeout``.
        """
        method = await self.vm.values.choose_method(self.type, name, args, signature, static=False)
        return await self.vm.values.invoke(self, method, args, thread or self.thread, single_threaded, timeout)

    async def pin(self) -> None:
        """Keep the object from being collected until ``unpin`` (DisableCollection)."""
        await self.vm.conn.command("ObjectReference", "DisableCollection", object=self.id)

    async def unpin(self) -> None:
        await self.vm.conn.command("ObjectReference", "EnableCollection", object=self.id)


@attrs.frozen(eq=False, repr=False)
class ArrayRef(ObjectRef):
    """An array: ``arr.length``, ``await arr[3]``, ``await arr[0:10]`` (a list), ``await arr.values()``."""

    length: int = 0

    def __repr__(self) -> str:
        name = self.type.name
        return f"<{name[:name.index('[')]}[{self.length}]{name[name.index('[') + 2:]}#{self.id}>"

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, key: int | slice) -> Any:
        return self._get(key)

    async def _get(self, key: int | slice) -> Any:
        if isinstance(key, slice):
            start, stop, step = key.indices(self.length)
            items = await self.slice(start, stop)
            return items[::step]
        index = key + self.length if key < 0 else key
        if not 0 <= index < self.length:
            raise IndexError(f"index {key} out of bounds for length {self.length}")
        return (await self.slice(index, index + 1))[0]

    async def slice(self, start: int, stop: int) -> list[Any]:
        """Elements ``start`` (inclusive) to ``stop`` (exclusive), converted; one round trip."""
        stop = min(stop, self.length)
        if stop <= start:
            return []
        r = await self.vm.conn.command("ArrayReference", "GetValues", array_object=self.id, first_index=start,
                                       length=stop - start)
        region = r.values
        if region.tag in OBJECT_TAGS:
            return [await self.vm.values.from_wire(v, self.thread) for v in region.values]
        return [self.vm.values.primitive(region.tag, v) for v in region.values]

    async def values(self) -> list[Any]:
        """Every element (mind big arrays: ``arr[0:100]`` reads a part)."""
        return await self.slice(0, self.length)

    # An array sets elements by index where ObjectRef.set sets a field by name (an array has none): the API's
    # choice for `arr.set(0, v)`, which a checker sees as a broken override.
    async def set(self, index: int, *values: Any) -> None:  # type: ignore[override]
        """Set the element at ``index`` (and the next ones, one per value) in one command; values are
        converted to the component type.  ``IndexError`` outside the array."""
        start = index + self.length if index < 0 else index
        if not values:
            return
        if not (0 <= start and start + len(values) <= self.length):
            raise IndexError(f"elements {index}..{index + len(values) - 1} out of bounds for length {self.length}")
        component = self.type.signature[1:]
        wires = [await self.vm.values.to_wire(v, component) for v in values]
        await self.vm.conn.command("ArrayReference", "SetValues", array_object=self.id, first_index=start,
                                   values=[(w.tag, w.value) for w in wires])


@attrs.frozen(eq=False, repr=False)
class ClassObjectRef(ObjectRef):
    """A ``java.lang.Class`` object; ``await c.reflected_type()`` is the type it stands for."""

    async def reflected_type(self) -> ReferenceType:
        r = await self.vm.conn.command("ClassObjectReference", "ReflectedType", class_object=self.id)
        return await self.vm.types.type(r.type_id, r.ref_type_tag)


class Values:
    """Conversion between JDWP's tagged values and the API's Python values, for one VM."""

    def __init__(self, vm: Debuggee) -> None:
        self.vm = vm
        self._object_types: dict[int, ReferenceType] = {}
        self._lengths: dict[int, int] = {}

    @staticmethod
    def primitive(tag: int, value: Any) -> Any:
        if tag == Tag.CHAR:
            return chr(value)
        if tag == Tag.BOOLEAN:
            return bool(value)
        if tag == Tag.VOID:
            return None
        return value

    async def object_type(self, object_id: int) -> ReferenceType:
        """An object's runtime type (asked once per object: it cannot change)."""
        t = self._object_types.get(object_id)
        if t is None:
            r = await self.vm.conn.command("ObjectReference", "ReferenceType", object=object_id)
            t = self._object_types[object_id] = await self.vm.types.type(r.type_id, r.ref_type_tag)
        return t

    async def from_wire(self, v: Any, thread: Thread | None = None) -> Any:
        """A JDWP value (``protocol.wire.Value`` or (tag, value)) as the API's Python value."""
        tag, data = (v.tag, v.value) if isinstance(v, WireValue) else (ord(v[0]) if isinstance(v[0], str)
                                                                        else v[0], v[1])
        if tag not in OBJECT_TAGS:
            return self.primitive(tag, data)
        value = cast(int, data)  # an object tag's: the object's ID
        if not value:
            return None
        if tag == Tag.STRING:
            return await self.string(value)
        if tag == Tag.THREAD:
            return await self.vm.thread(value)
        t = await self.object_type(value)
        if isinstance(t, ArrayType):
            n = self._lengths.get(value)
            if n is None:
                r = await self.vm.conn.command("ArrayReference", "Length", array_object=value)
                n = self._lengths[value] = r.array_length
            return ArrayRef(self.vm, value, t, thread, n)
        if tag == Tag.CLASS_OBJECT:
            return ClassObjectRef(self.vm, value, t, thread)
        return ObjectRef(self.vm, value, t, thread)

    async def string(self, object_id: int) -> str:
        return (await self.vm.conn.command("StringReference", "Value", string_object=object_id)).string_value

    async def to_wire(self, value: Any, signature: str) -> WireValue:
        """A Python value as a JDWP value for a parameter or field of type ``signature``."""
        if isinstance(value, WireValue):
            return value
        if isinstance(value, ObjectRef):
            tag = Tag.ARRAY if isinstance(value, ArrayRef) else Tag.OBJECT
            return WireValue(tag, value.id)
        if value is None:
            return WireValue(Tag.OBJECT, 0)
        if len(signature) == 1:
            return WireValue(ord(signature), _primitive(value, signature))
        if isinstance(value, str):
            r = await self.vm.conn.command("VirtualMachine", "CreateString", utf=value)
            return WireValue(Tag.STRING, r.string_object)
        raise TypeError(f"cannot pass {value!r} as {signature_to_name(signature)}")

    async def choose_method(self, t: ReferenceType, name: str, args: tuple, signature: str | None,
                            static: bool) -> Method:
        candidates = [m for m in await t.methods_named(name) if m.is_static == static or not static]
        if signature is not None:
            candidates = [m for m in candidates if m.signature == signature]
        candidates = [m for m in candidates if len(m.argument_signatures) == len(args)]
        for m in candidates:
            if all(_fits(a, s) for a, s in zip(args, m.argument_signatures, strict=True)):
                return m
        if candidates:
            return candidates[0]
        raise AttributeError(f"{t.name} has no {'static ' if static else ''}method {name} taking {len(args)} "
                             f"argument(s){' of signature ' + signature if signature else ''}")

    async def invoke(self, target: ObjectRef | ReferenceType, method: Method, args: tuple, thread: Thread | None,
                     single_threaded: bool, timeout: float) -> Any:
        if thread is None:
            raise InvalidStateError(f"{method}: invoking needs a thread held by an event; pass thread=hit.thread")
        wire_args = [await self.to_wire(a, s) for a, s in zip(args, method.argument_signatures, strict=True)]
        options = InvokeOptions.INVOKE_SINGLE_THREADED if single_threaded else 0
        try:
            with trio.fail_after(timeout if timeout is not None else math.inf):
                if isinstance(target, ObjectRef):
                    r = await self.vm.conn.command(
                        "ObjectReference", "InvokeMethod", object=target.id, thread=thread.id,
                        clazz=method.declaring_type.id, method_id=method.id, arguments=wire_args,
                        options=int(options), timeout=math.inf)
                else:
                    iface = isinstance(target, InterfaceType)
                    r = await self.vm.conn.command(
                        "InterfaceType" if iface else "ClassType", "InvokeMethod", clazz=target.id,
                        thread=thread.id, method_id=method.id, arguments=wire_args, options=int(options),
                        timeout=math.inf)
        except trio.TooSlowError:
            raise Timeout(f"{method} did not return within {timeout}s (it may still run in the VM)") from None
        if r.exception.object_id:
            exc = await self.from_wire(WireValue(Tag.OBJECT, r.exception.object_id), thread)
            raise InvocationError(str(method), exc)
        return await self.from_wire(r.return_value, thread)


def _fits(value: Any, sig: str) -> bool:
    if value is None:
        return len(sig) > 1
    if isinstance(value, bool):
        return sig == "Z" or sig == "Ljava/lang/Boolean;"
    if isinstance(value, int):
        return sig in "BSIJFD" or sig in ("Ljava/lang/Integer;", "Ljava/lang/Long;")
    if isinstance(value, float):
        return sig in "FD"
    if isinstance(value, str):
        return sig in ("Ljava/lang/String;", "Ljava/lang/Object;", "Ljava/lang/CharSequence;") or (
            sig == "C" and len(value) == 1)
    if isinstance(value, ObjectRef):
        return len(sig) > 1
    return False


_INT_RANGES = {"B": 8, "S": 16, "I": 32, "J": 64}


def _primitive(value: Any, signature: str) -> Any:
    """``value`` as a JDWP primitive of ``signature``, or TypeError/ValueError as javac would refuse it."""
    name = signature_to_name(signature)
    if signature == "Z":
        if not isinstance(value, bool):
            raise TypeError(f"cannot use {value!r} as a boolean")
        return value
    if signature == "C":
        if isinstance(value, str) and len(value) == 1:
            return ord(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFFFF:
            return value
        raise TypeError(f"cannot use {value!r} as a char (a one-character str)")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"cannot use {value!r} as {name}")
    if signature in "FD":
        return float(value)
    if not isinstance(value, int):
        raise TypeError(f"cannot use {value!r} as {name} (a float: convert it with int())")
    bits = _INT_RANGES[signature]
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise ValueError(f"{value} does not fit in {name}")
    return value

