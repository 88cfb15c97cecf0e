"""Helpers shared by the type and object command sets: values between JDWP and the link, id checks, invoke.

Not a command set (no HANDLERS, not in dispatch.COMMAND_MODULES): the other command modules import it.

The reference agent tags every object value with the *runtime* kind of the object (string,
thread, class object, array...), except a null, which is always tagged OBJECT; the one
exception is a method's return value, whose tag follows the declared return type when that
is an array type (outStream_writeValue).  These rules live here, once.
"""

from __future__ import annotations

import collections
import struct
from typing import Any

import trio

from jdwpd.errors import AgentError, JdwpError, jdwp_code_for
from jdwpd.model.classes import ClassCache, MethodInfo, signature_tag, split_method_signature
from protocol.constants import OBJECT_TAGS, ErrorCode, InvokeOptions, Tag, TypeTag
from protocol.link import InvokeKind, LinkValue, ObjectKind
from protocol.wire import IDSizes, Reader, TaggedObjectID, Value

_OBJ = int(Tag.OBJECT)
_ZERO = {
    ord("B"): 0, ord("C"): 0, ord("S"): 0, ord("I"): 0, ord("J"): 0,
    ord("F"): 0.0, ord("D"): 0.0, ord("Z"): False,
}


def raise_agent(e: AgentError) -> None:
    raise JdwpError(jdwp_code_for(e.status), str(e)) from e


async def request(link: Any, name: str, **fields: Any) -> dict:
    """link.request, with an agent status turned into the JDWP error the reference gives."""
    try:
        return await link.request(name, **fields)
    except AgentError as e:
        raise_agent(e)
        raise  # unreachable


def to_jdwp(v: LinkValue) -> Value:
    """A value read from a field, a slot or an array element."""
    if v.tag in OBJECT_TAGS:
        return Value(v.tag if v.value else _OBJ, v.value)
    if v.tag == ord("V"):
        return Value(v.tag, None)
    return Value(v.tag, v.value)


_TAGGED_8 = struct.Struct(">BQ")


def tagged_list(entries: list, key: str, sizes: IDSizes) -> Any:
    """A reply that is one list of tagged objects (Instances, ReferringObjects), written straight into
    JDWP bytes: a heap walk's answer may hold hundreds of thousands of them."""
    from jdwpd.commands import Encoded

    size = sizes.object_id

    def pack(kind: int, object_id: int) -> bytes:
        return bytes((kind,)) + object_id.to_bytes(size, "big")

    if size == 8:
        pack = _TAGGED_8.pack
    parts = [len(entries).to_bytes(4, "big")]
    ids = []
    for e in entries:
        t = e[key]
        if t is None or not t.object:
            parts.append(pack(_OBJ, 0))
        else:
            parts.append(pack(t.kind, t.object))
            ids.append(t.object)
    return Encoded(b"".join(parts), ids)


def debugger_resumed(ctx: Any) -> None:
    """The debugger resumed (the VM, a thread, or by an invoke): as the reference's event helper, its
    session lets the events after a SUSPEND_ALL set go (jdwpd/session.py).  A script has no gate."""
    resumed = getattr(ctx.session, "resumed_all", None)
    if resumed is not None:
        resumed()


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


# ---------------------------------------------------------------- what an object id is


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
        r = await request(self._link, "OBJECT_TYPE", object=obj)
        hit = (r["kind"], r["ref"], r["ref_kind"])
        self._cache[obj] = hit
        if len(self._cache) > self._capacity:
            self._cache.popitem(last=False)
        return hit

    def forget(self, obj: int) -> None:
        self._cache.pop(obj, None)


def object_kinds(vm: Any) -> ObjectKinds:
    """The VM's ObjectKinds, created on first use (the VM object belongs to the runtime)."""
    kinds = getattr(vm, "_types_object_kinds", None)
    if kinds is None:
        kinds = ObjectKinds(vm.link)
        vm._types_object_kinds = kinds
    return kinds


async def check_kind(vm: Any, obj: int, kind: int, error: int) -> tuple[int, int, int]:
    info = await object_kinds(vm).get(obj)
    if info[0] != kind:
        raise JdwpError(error, f"object {obj:#x} is not a {ObjectKind(kind).name.lower()}")
    return info


async def check_type(classes: ClassCache, ref: int) -> int:
    """Validate a reference type id (INVALID_CLASS / INVALID_OBJECT); returns its TypeTag."""
    try:
        return await classes.ref_kind(ref)  # free for classes already seen (events, AllClasses)
    except AgentError as e:
        raise_agent(e)
        raise


async def cached(coro: Any) -> Any:
    """Await a ClassCache call, turning agent statuses into JDWP errors."""
    try:
        return await coro
    except AgentError as e:
        raise_agent(e)
        raise


# ---------------------------------------------------------------- untagged values


class FieldValueReader:
    """Reads a SetValues body: (field id, untagged value) pairs, whose sizes depend on each field.

    Truncated input raises protocol.wire.DecodeError, as any malformed command does.
    """

    def __init__(self, raw: Any, sizes: IDSizes | None = None) -> None:
        self._r = Reader(raw.data, sizes or IDSizes(), "SetValues")
        self.count = raw.count

    def field_id(self) -> int:
        f = self._r.id("field_id", "fieldID")
        self._r.check()
        return f

    def value(self, tag: int) -> Value:
        v = self._r.untagged_value(tag, "value")
        self._r.check()
        return Value(tag, v)


def decode_array_values(raw: Any, tag: int, sizes: IDSizes | None = None) -> list[Value]:
    r = Reader(raw.data, sizes or IDSizes(), "ArrayReference.SetValues")
    values = [Value(tag, r.untagged_value(tag, "value")) for _ in range(raw.count)]
    r.finish()
    return values


# ---------------------------------------------------------------- invoke


def _check_arguments(method: MethodInfo, args: list[Value]) -> None:
    """What JDI checks on the client side; the reference agent trusts its client, we do not.

    A wrong count or a primitive of the wrong kind would make JNI read garbage.
    """
    params, _ = split_method_signature(method.signature)
    if len(params) != len(args):
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"{method.name} takes {len(params)} arguments, got {len(args)}")
    for p, a in zip(params, args, strict=True):
        want = signature_tag(p)
        if want in OBJECT_TAGS:
            if a.tag not in OBJECT_TAGS:
                raise JdwpError(ErrorCode.TYPE_MISMATCH, f"primitive {chr(a.tag)} for parameter {p}")
        elif a.tag != want:
            raise JdwpError(ErrorCode.TYPE_MISMATCH, f"{chr(a.tag)} for parameter {p}")


_ANY_ARRAY = frozenset({"Ljava/lang/Object;", "Ljava/lang/Cloneable;", "Ljava/io/Serializable;"})


async def _check_object_arguments(vm: Any, method: MethodInfo, args: list[Value]) -> None:
    """An object argument must be an instance of its parameter's type, as JDI checks.

    JNI does not check: a String passed for an int[] parameter would be used as an array.
    """
    params, _ = split_method_signature(method.signature)
    for p, a in zip(params, args, strict=True):
        if signature_tag(p) in OBJECT_TAGS and not await instance_of(vm, a.value, p):
            raise JdwpError(ErrorCode.TYPE_MISMATCH, f"argument is not a {p}")


async def instance_of(vm: Any, obj: int, signature: str) -> bool:
    """May ``obj`` (0: null) be stored where the type ``signature`` is declared?

    Types are matched by name along the object's supertypes (all cached after the first
    time); two same-named classes from different loaders are not told apart.
    """
    if not obj or signature == "Ljava/lang/Object;":
        return True
    classes: ClassCache = vm.classes
    _, obj_class, obj_kind = await object_kinds(vm).get(obj)
    if obj_kind == TypeTag.ARRAY:
        sig = (await cached(classes.signature(obj_class))).signature
        return (signature in _ANY_ARRAY or sig == signature
                or (signature.startswith("[") and signature[1:2] in "L[" and sig[1:2] in "L["))
    for t in await cached(classes.supertypes(obj_class)):
        if (await cached(classes.signature(t))).signature == signature:
            return True
    return False


async def invoke(ctx: Any, kind: int, *, clazz: int, thread: int, method_id: int, args: Any, options: int,
                 instance: int = 0) -> tuple[Value | TaggedObjectID, TaggedObjectID]:
    """Run an invoke through the agent; returns (return value or new object, exception)."""
    vm = ctx.vm
    classes: ClassCache = vm.classes
    # The reference validates ids as it reads them: the object, the thread and the class in the
    # order of the command's layout, the method only afterwards.
    if kind in (InvokeKind.INSTANCE, InvokeKind.NONVIRTUAL):
        await _check_thread(vm, thread)
        ref_kind = await check_type(classes, clazz)
    else:
        ref_kind = await check_type(classes, clazz)
        await _check_thread(vm, thread)
    method = await _invoke_target(classes, kind, clazz, ref_kind, method_id)
    arg_values = [a.arg if hasattr(a, "arg") else a for a in args]
    _check_arguments(method, arg_values)
    await _check_object_arguments(vm, method, arg_values)
    if kind in (InvokeKind.INSTANCE, InvokeKind.NONVIRTUAL):
        _, obj_class, _ = await object_kinds(vm).get(instance)
        if not await cached(classes.is_assignable(obj_class, method.declaring)):
            raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, "object is not an instance of the method's class")
    debugger_resumed(ctx)  # an invoke resumes its thread, or all
    vm.memo.invoke_started()
    invokes = getattr(vm, "invokes", None)
    if invokes is not None:
        invokes.started(ctx.session, thread, options)
    try:
        r = await request(vm.link, "INVOKE", thread=thread, kind=int(kind), ref=clazz, object=instance,
                          method=method_id, options=options, args=[{"value": to_link(a)} for a in arg_values])
    except (trio.Cancelled, GeneratorExit):
        raise  # the debugger left: the call stays registered for vm.detach to detach it in the agent
    except BaseException:
        if invokes is not None:
            invokes.answered(ctx.session, thread)
        raise
    else:
        if invokes is not None:
            invokes.answered(ctx.session, thread)
    finally:
        vm.memo.invoke_ended()
        _frames_moved(vm, thread, options)
    exception = tagged(r["exception"])
    result = r["result"]
    if kind == InvokeKind.NEW_INSTANCE:
        if exception.object_id or result.tag not in OBJECT_TAGS or not result.value:
            return TaggedObjectID(_OBJ, 0), exception
        return TaggedObjectID(result.tag, result.value), exception
    _, ret = split_method_signature(method.signature)
    ret_tag = signature_tag(ret)
    if exception.object_id:
        return zero_value(ret_tag), exception
    if ret_tag == ord("["):
        return Value(ret_tag, result.value or 0), exception
    if ret_tag == _OBJ:
        return Value(result.tag if result.value else _OBJ, result.value or 0), exception
    if ret_tag == ord("V"):
        return Value(ret_tag, None), exception
    return Value(ret_tag, result.value), exception


async def _check_thread(vm: Any, thread: int) -> None:
    if thread == 0:
        raise JdwpError(ErrorCode.INVALID_THREAD, "null thread")
    await check_kind(vm, thread, ObjectKind.THREAD, ErrorCode.INVALID_THREAD)


def _frames_moved(vm: Any, thread: int, options: int) -> None:
    """An invoke resumes the thread (and, unless single-threaded, every thread): frame ids go stale."""
    threads = getattr(vm, "threads", None)
    if threads is None or not hasattr(threads, "invalidate_frames"):
        return
    targets = [thread] if options & InvokeOptions.INVOKE_SINGLE_THREADED else [thread, *threads.known()]
    for t in set(targets):
        threads.invalidate_frames(t)


async def _invoke_target(classes: ClassCache, kind: int, clazz: int, ref_kind: int, method_id: int) -> MethodInfo:
    try:
        if kind in (InvokeKind.STATIC, InvokeKind.NEW_INSTANCE):
            # The reference accepts a static method declared in the class or a superclass (not a
            # superinterface); InterfaceType.InvokeMethod needs the interface's own method.
            method = await classes.method_info(method_id)
            ok = method.declaring == clazz or (
                ref_kind == TypeTag.CLASS
                and await classes.ref_kind(method.declaring) == TypeTag.CLASS
                and method.declaring in await classes.supertypes(clazz))
        else:
            method = await classes.find_method(clazz, method_id)
            ok = True
    except AgentError as e:
        raise_agent(e)
        raise
    if not ok:
        raise JdwpError(ErrorCode.INVALID_METHODID, f"method {method_id:#x} is not a member of {clazz:#x}")
    if kind == InvokeKind.NEW_INSTANCE:
        if method.name != "<init>" or method.declaring != clazz:
            raise JdwpError(ErrorCode.INVALID_METHODID, "NewInstance needs a constructor of the class")
    elif method.name in ("<init>", "<clinit>"):
        raise JdwpError(ErrorCode.INVALID_METHODID, "constructors are run by NewInstance")
    elif kind == InvokeKind.STATIC and not method.is_static:
        raise JdwpError(ErrorCode.INVALID_METHODID, "not a static method")
    elif kind in (InvokeKind.INSTANCE, InvokeKind.NONVIRTUAL) and method.is_static:
        raise JdwpError(ErrorCode.INVALID_METHODID, "a static method needs ClassType.InvokeMethod")
    return method


def instance_kind(options: int) -> int:
    return InvokeKind.NONVIRTUAL if options & InvokeOptions.INVOKE_NONVIRTUAL else InvokeKind.INSTANCE
