"""Invoking a method on a suspended thread: the checks JDI makes (the reference trusts its client,
we do not), the invoke record a leaving debugger's undo needs, and stale frame ids afterwards."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio

from jdwpd.daemon.facade.agent import ask, cached, raise_agent
from jdwpd.daemon.facade.threads import debugger_resumed
from jdwpd.daemon.facade.values import ObjectKinds, tagged, to_link, zero_value
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import OBJECT_TAGS, ErrorCode, InvokeOptions, Tag, TypeTag
from protocol.link import InvokeKind, ObjectKind
from protocol.wire import TaggedObjectID, Value

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.fast.memo import ReplyMemo
    from jdwpd.daemon.model.classes import ClassCache, MethodInfo
    from jdwpd.daemon.model.invokes import InvokeTable
    from jdwpd.daemon.model.threads import ThreadTable

_OBJ = int(Tag.OBJECT)


def _signature_parts(signature: str) -> tuple[list[str], str]:
    from jdwpd.daemon.model.classes import split_method_signature

    return split_method_signature(signature)


def _tag_of(signature: str) -> int:
    from jdwpd.daemon.model.classes import signature_tag

    return signature_tag(signature)


def _check_arguments(method: MethodInfo, args: list[Value]) -> None:
    """What JDI checks on the client side; the reference agent trusts its client, we do not.

    A wrong count or a primitive of the wrong kind would make JNI read garbage.
    """
    params, _ = _signature_parts(method.signature)
    if len(params) != len(args):
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"{method.name} takes {len(params)} arguments, got {len(args)}")
    for p, a in zip(params, args, strict=True):
        want = _tag_of(p)
        if want in OBJECT_TAGS:
            if a.tag not in OBJECT_TAGS:
                raise JdwpError(ErrorCode.TYPE_MISMATCH, f"primitive {chr(a.tag)} for parameter {p}")
        elif a.tag != want:
            raise JdwpError(ErrorCode.TYPE_MISMATCH, f"{chr(a.tag)} for parameter {p}")


class InvokeOperations:
    """The façade's invoke (a mixin of jdwpd.daemon.vm.VM)."""

    link: Any
    object_kinds: ObjectKinds
    threads: ThreadTable
    invokes: InvokeTable
    memo: ReplyMemo
    if TYPE_CHECKING:  # the VM's, made at first use (vm.py): read-only here
        @property
        def classes(self) -> ClassCache: ...
    check_kind: Callable[[int, int, int], Awaitable[tuple[int, int, int]]]  # ValueOperations'
    check_type: Callable[[int], Awaitable[int]]
    instance_of: Callable[[int, str], Awaitable[bool]]

    async def invoke(self, session: Any, kind: int, *, clazz: int, thread: int, method_id: int, args: list[Value],
                     options: int, instance: int = 0) -> tuple[Value | TaggedObjectID, TaggedObjectID]:
        """Run a method on ``thread``; returns (return value or new object, exception)."""
        classes = self.classes
        # The reference validates ids as it reads them: the object, the thread and the class in the
        # order of the command's layout, the method only afterwards.
        if kind in (InvokeKind.INSTANCE, InvokeKind.NONVIRTUAL):
            await self._check_thread(thread)
            ref_kind = await self.check_type(clazz)
        else:
            ref_kind = await self.check_type(clazz)
            await self._check_thread(thread)
        method = await _invoke_target(classes, kind, clazz, ref_kind, method_id)
        _check_arguments(method, args)
        await self._check_object_arguments(method, args)
        if kind in (InvokeKind.INSTANCE, InvokeKind.NONVIRTUAL):
            _, obj_class, _ = await self.object_kinds.get(instance)
            if not await cached(classes.is_assignable(obj_class, method.declaring)):
                raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, "object is not an instance of the method's class")
        debugger_resumed(session)  # an invoke resumes its thread, or all
        self.memo.invoke_started()
        self.invokes.started(session, thread, options)
        try:
            r = await ask(self.link, "INVOKE", thread=thread, kind=int(kind), ref=clazz, object=instance,
                          method=method_id, options=options, args=[{"value": to_link(a)} for a in args])
        except (trio.Cancelled, GeneratorExit):
            raise  # the debugger left: the call stays registered for vm.detach to detach it in the agent
        except BaseException:
            self.invokes.answered(session, thread)
            raise
        else:
            self.invokes.answered(session, thread)
            if not options & InvokeOptions.INVOKE_SINGLE_THREADED:
                # Its end suspended every thread, for this debugger: a Dispose gives that back.
                self.threads.invoke_suspended_all(session)
        finally:
            self.memo.invoke_ended()
            self._frames_moved(thread, options)
        exception = tagged(r["exception"])
        result = r["result"]
        if kind == InvokeKind.NEW_INSTANCE:
            if exception.object_id or result.tag not in OBJECT_TAGS or not result.value:
                return TaggedObjectID(_OBJ, 0), exception
            return TaggedObjectID(result.tag, result.value), exception
        _, ret = _signature_parts(method.signature)
        ret_tag = _tag_of(ret)
        if exception.object_id:
            return zero_value(ret_tag), exception
        if ret_tag == ord("["):
            return Value(ret_tag, result.value or 0), exception
        if ret_tag == _OBJ:
            return Value(result.tag if result.value else _OBJ, result.value or 0), exception
        if ret_tag == ord("V"):
            return Value(ret_tag, None), exception
        return Value(ret_tag, result.value), exception

    async def _check_thread(self, thread: int) -> None:
        if thread == 0:
            raise JdwpError(ErrorCode.INVALID_THREAD, "null thread")
        await self.check_kind(thread, ObjectKind.THREAD, ErrorCode.INVALID_THREAD)

    async def _check_object_arguments(self, method: MethodInfo, args: list[Value]) -> None:
        """An object argument must be an instance of its parameter's type, as JDI checks.

        JNI does not check: a String passed for an int[] parameter would be used as an array.
        """
        params, _ = _signature_parts(method.signature)
        for p, a in zip(params, args, strict=True):
            if _tag_of(p) in OBJECT_TAGS and not await self.instance_of(a.object_id, p):
                raise JdwpError(ErrorCode.TYPE_MISMATCH, f"argument is not a {p}")

    def _frames_moved(self, thread: int, options: int) -> None:
        """An invoke resumes the thread (and, unless single-threaded, every thread): frame ids go stale."""
        threads = self.threads
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
    if not ok:
        raise JdwpError(ErrorCode.INVALID_METHODID, f"method {method_id:#x} is not a member of {clazz:#x}")
    if kind == InvokeKind.NEW_INSTANCE:
        if method.name != "<init>" or method.declaring != clazz:
            raise JdwpError(ErrorCode.INVALID_METHODID, "NewInstance needs a constructor of the class")
    elif method.name in ("<init>", "<clinit>"):
        raise JdwpError(ErrorCode.INVALID_METHODID, "constructors are run by NewInstance")
    elif kind == InvokeKind.STATIC and not method.is_static:
        raise JdwpError(ErrorCode.INVALID_METHODID, "a static method needs ClassType.InvokeMethod")
    elif kind in (InvokeKind.INSTANCE, InvokeKind.NONVIRTUAL) and method.is_static:
        raise JdwpError(ErrorCode.INVALID_METHODID, "a static method needs ClassType.InvokeMethod")
    return method
