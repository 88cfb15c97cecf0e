"""The expression evaluator's view of a frame, over JDWP (``jdwpd.expr.ValueAccess``).

Conditions, logpoint templates, ``evaluate`` and snapshot watch expressions all evaluate here:
``jdwpd.expr`` parses and interprets; this module answers its questions about the frame with
JDWP commands (StackFrame.GetValues and the method's variable table for locals, ThisObject,
ObjectReference/ReferenceType.GetValues for fields, ClassesBySignature for class names, a walk
of the supertypes for ``instanceof``, InvokeMethod single-threaded for calls).

VM objects are handled as ``protocol.wire.Value`` (tag, object ID); strings the evaluator made
are Python ``str`` and become VM strings (CreateString) only when passed to a method.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import trio

from jdwpd.expr import (
    NULL,
    STRING,
    EvaluationError,
    ExpressionError,
    InvocationException,
    Value,
    evaluate,
    parse,
    render,
)
from protocol.constants import OBJECT_TAGS, InvokeOptions, Tag
from protocol.wire import Value as WireValue

from .errors import Timeout
from .types import ArrayType, InterfaceType, Method, ReferenceType, name_to_signature, signature_to_name

if TYPE_CHECKING:
    from .threads import Frame

__all__ = ["FrameAccess", "evaluate_in_frame", "render_in_frame", "check_expression", "ExpressionError"]

_BOX_OF = {"Z": "Ljava/lang/Boolean;", "B": "Ljava/lang/Byte;", "C": "Ljava/lang/Character;",
           "S": "Ljava/lang/Short;", "I": "Ljava/lang/Integer;", "J": "Ljava/lang/Long;", "F": "Ljava/lang/Float;",
           "D": "Ljava/lang/Double;"}
_NUMBER = ("Ljava/lang/Number;", "Ljava/lang/Comparable;", "Ljava/io/Serializable;", "Ljava/lang/Object;")
_BOX_SUPERTYPES = {box: (_NUMBER if p in "BSIJFD" else _NUMBER[1:]) for p, box in _BOX_OF.items()}
_WIDEN = {"B": "BSIJFD", "S": "SIJFD", "C": "CIJFD", "I": "IJFD", "J": "JFD", "F": "FD", "D": "D", "Z": "Z"}


def check_expression(text: str) -> None:
    """Parse ``text`` now, so that a syntax error surfaces where the script sets the breakpoint."""
    parse(text)


class FrameAccess:
    """``ValueAccess`` for one frame of a suspended thread (valid while the thread stays held)."""

    def __init__(self, frame: Frame, *, invoke_timeout: float | None = 10.0) -> None:
        self.frame = frame
        self.vm = frame.vm
        self.invoke_timeout = invoke_timeout
        self._locals: dict[str, Any] | None = None

    # ------------------------------------------------------------------ conversion

    async def wrap(self, v: WireValue, declared: str | None = None) -> Value:
        """A JDWP value as the evaluator's Value (an object's signature is its runtime class's)."""
        if v.tag not in OBJECT_TAGS:
            data = v.value
            if v.tag == Tag.BOOLEAN:
                data = bool(data)
            return Value(chr(v.tag), data)
        if not v.value:
            return Value(NULL, None)
        if v.tag == Tag.STRING:
            return Value(STRING, WireValue(Tag.STRING, v.value))
        t = await self.vm.values.object_type(v.object_id)
        return Value(t.signature, WireValue(v.tag, v.value))

    async def unwrap(self, value: Value, signature: str) -> WireValue:
        """The evaluator's Value as a JDWP value for a parameter of type ``signature``."""
        if value.is_null:
            return WireValue(Tag.OBJECT, 0)
        if isinstance(value.data, WireValue):
            return value.data
        if isinstance(value.data, str):
            r = await self.vm.conn.command("VirtualMachine", "CreateString", utf=value.data)
            return WireValue(Tag.STRING, r.string_object)
        if len(signature) == 1:
            data = cast("bool | int | float", value.data)  # a primitive's
            if signature in "FD":
                data = float(data)
            elif signature != "Z":
                data = int(data)
            return WireValue(ord(signature), data)
        if value.is_primitive and value.signature in _BOX_OF:  # boxing, as javac does: Integer.valueOf
            box = _BOX_OF[value.signature]
            boxed = await self.invoke(box, "valueOf", [value])
            assert isinstance(boxed.data, WireValue)
            return boxed.data
        raise EvaluationError(f"cannot pass a {value.signature} as {signature}")

    async def to_python(self, value: Value) -> Any:
        """The evaluator's Value as the API's Python value."""
        if value.is_null:
            return None
        if value.is_primitive:
            if value.signature == "C":
                return chr(cast(int, value.data))  # a UTF-16 code unit
            if value.signature == "V":
                return None
            return value.data
        if isinstance(value.data, str):
            return value.data
        return await self.vm.values.from_wire(value.data, self.frame.thread)

    async def _type_of(self, obj: Value) -> ReferenceType:
        return await self.vm.values.object_type(_object_id(obj))

    # ------------------------------------------------------------------ ValueAccess

    async def local(self, name: str) -> Value | None:
        if self._locals is None:
            self._locals = await self.frame.raw_locals()
        v = self._locals.get(name)
        return None if v is None else await self.wrap(v)

    async def this(self) -> Value | None:
        raw = await self.frame.raw_this()
        return None if raw is None else await self.wrap(raw)

    async def field(self, obj: Value, name: str) -> Value | None:
        if isinstance(obj.data, str):  # an evaluator-made string: String has no public fields
            return None
        t = await self._type_of(obj)
        f = await t.field(name)
        if f is None:
            return None
        if f.is_static:
            r = await self.vm.conn.command("ReferenceType", "GetValues", ref_type=f.declaring_type.id, fields=[f.id])
        else:
            r = await self.vm.conn.command("ObjectReference", "GetValues", object=_object_id(obj),
                                           fields=[f.id])
        return await self.wrap(r.values[0].value)

    async def static_field(self, class_signature: str, name: str) -> Value | None:
        t = await self.vm.types.type_named_sig(class_signature)
        if t is None:
            return None
        f = await t.field(name)
        if f is None or not f.is_static:
            return None
        r = await self.vm.conn.command("ReferenceType", "GetValues", ref_type=f.declaring_type.id, fields=[f.id])
        return await self.wrap(r.values[0].value)

    async def find_class(self, name: str) -> str | None:
        own = self.frame.location.type.name
        package = own.rsplit(".", 1)[0] + "." if "." in own else ""
        outer = own.split("$")[0]
        candidates = [name]
        if "." not in name:
            candidates += [f"{outer}${name}", f"{package}{name}", f"java.lang.{name}"]
        else:  # Outer.Inner as written in source: try $ for the last dots
            parts = name.split(".")
            for i in range(len(parts) - 1, 0, -1):
                candidates.append(".".join(parts[:i]) + "$" + "$".join(parts[i:]))
            candidates.append(f"{package}{name.replace('.', '$')}")
        for c in candidates:
            sig = name_to_signature(c)
            if await self.vm.types.type_named_sig(sig) is not None:
                return sig
        if "." not in name:  # a simple name its source imported: the frame's class refers to it
            from .constant_pool import imported_named

            names = await self.vm.types.pool_class_names(self.frame.location.type)
            for sig in imported_named(names, name):
                if await self.vm.types.type_named_sig(sig) is not None:
                    return sig
        return None

    async def frame_classes(self) -> list[str]:
        """Signatures of the frame's class and of the classes it is nested in, innermost first:
        where a simple name finds a static field (``NAMES[0]`` in a static method or a lambda)."""
        own = self.frame.location.type.signature
        out = [own]
        name = own[1:-1]
        while "$" in name:
            name = name.rsplit("$", 1)[0]
            out.append(f"L{name};")
        return out

    async def array_length(self, array: Value) -> int:
        r = await self.vm.conn.command("ArrayReference", "Length", array_object=_object_id(array))
        return r.array_length

    async def array_element(self, array: Value, index: int) -> Value:
        r = await self.vm.conn.command("ArrayReference", "GetValues", array_object=_object_id(array),
                                       first_index=index, length=1)
        region = r.values
        v = region.values[0]
        return await self.wrap(v if region.tag in OBJECT_TAGS else WireValue(region.tag, v))

    async def string_text(self, string: Value) -> str:
        if isinstance(string.data, str):
            return string.data
        return await self.vm.values.string(_object_id(string))

    async def is_instance(self, value: Value, type_signature: str) -> bool:
        if isinstance(value.data, str):
            return type_signature in (STRING, "Ljava/lang/Object;", "Ljava/lang/CharSequence;",
                                      "Ljava/lang/Comparable;", "Ljava/io/Serializable;")
        t = await self._type_of(value)
        if type_signature == "Ljava/lang/Object;":
            return True
        if isinstance(t, ArrayType) or type_signature.startswith("["):
            return t.signature == type_signature
        return await t.is_subtype_of(type_signature)

    async def invoke(self, target: Value | str, name: str, args: list[Value]) -> Value:
        receiver = 0  # the object called on; 0: a static call on the class named by target
        if isinstance(target, str):
            t = await self.vm.types.type_named_sig(target)
            if t is None:
                raise EvaluationError(f"class {target} is not loaded")
            static = True
        else:
            if isinstance(target.data, str):  # a String method on an evaluator-made string
                target = Value(STRING, await self.unwrap(target, STRING))
            receiver = _object_id(target)
            t = await self.vm.values.object_type(receiver)
            static = False
        method = await self._choose(t, name, args, static)
        wire_args = [await self.unwrap(a, s) for a, s in zip(args, method.argument_signatures, strict=True)]
        thread = self.frame.thread.id
        opts = int(InvokeOptions.INVOKE_SINGLE_THREADED)
        try:
            with trio.fail_after(math.inf if self.invoke_timeout is None else self.invoke_timeout):
                if not static:
                    r = await self.vm.conn.command(
                        "ObjectReference", "InvokeMethod", object=receiver, thread=thread,
                        clazz=method.declaring_type.id, method_id=method.id, arguments=wire_args, options=opts,
                        timeout=math.inf)
                else:
                    r = await self.vm.conn.command(
                        "InterfaceType" if isinstance(t, InterfaceType) else "ClassType", "InvokeMethod",
                        clazz=t.id, thread=thread, method_id=method.id, arguments=wire_args, options=opts,
                        timeout=math.inf)
        except trio.TooSlowError:
            raise Timeout(f"{method} did not return within {self.invoke_timeout}s") from None
        if r.exception.object_id:
            exc = await self.wrap(WireValue(r.exception.tag, r.exception.object_id))
            cls = (await self.vm.values.object_type(r.exception.object_id)).name
            raise InvocationException(f"{cls.rsplit('.', 1)[-1]} thrown by {method}", exc, java_exception=cls)
        if method.return_signature == "V":
            return Value("V", None)
        return await self.wrap(r.return_value)

    async def _choose(self, t: ReferenceType, name: str, args: list[Value], static: bool) -> Method:
        candidates = [m for m in await t.methods_named(name)
                      if len(m.argument_signatures) == len(args) and (m.is_static or not static)]
        # Java's phases: first without boxing, then with it (List.of(1, 2) takes Integers)
        for boxing in (False, True):
            for m in candidates:
                if all([await self._applicable(a, s, boxing)
                        for a, s in zip(args, m.argument_signatures, strict=True)]):
                    return m
        if not candidates:
            raise EvaluationError(f"{t.name} has no {'static ' if static else ''}method {name} taking "
                                  f"{len(args)} argument(s)")
        given = ", ".join("null" if a.is_null else signature_to_name(a.signature) for a in args)
        raise EvaluationError(f"no {'static ' if static else ''}method {name} of {t.name} applies to ({given}); "
                              f"it has {', '.join(str(m) for m in candidates)}")

    async def _applicable(self, arg: Value, sig: str, boxing: bool) -> bool:
        if arg.is_primitive:
            if len(sig) == 1:
                return sig in _WIDEN.get(arg.signature, "")
            box = _BOX_OF.get(arg.signature)
            return boxing and box is not None and sig in (box, *_BOX_SUPERTYPES.get(box, ()))
        if len(sig) == 1:
            return False
        if arg.is_null or sig == "Ljava/lang/Object;":
            return True
        return await self.is_instance(arg, sig)


async def evaluate_in_frame(frame: Frame, expression: str, *, allow_invoke: bool = True,
                            timeout: float | None = 30.0) -> Any:
    """Evaluate a Java expression in ``frame`` and return the API's Python value."""
    access = FrameAccess(frame)
    try:
        with trio.fail_after(math.inf if timeout is None else timeout):
            value = await evaluate(expression, access, allow_invoke=allow_invoke)
            return await access.to_python(value)
    except trio.TooSlowError:
        raise Timeout(f"evaluating {expression!r} took longer than {timeout}s") from None


async def render_in_frame(frame: Frame, template: str, *, allow_invoke: bool = False) -> str:
    """A logpoint template (``"paid {order.id}"``) rendered in ``frame``."""
    return await render(template, FrameAccess(frame), allow_invoke=allow_invoke)


def _object_id(v: Value) -> int:
    """The VM object an evaluator's value stands for (its data: the JDWP value the API wrapped)."""
    assert isinstance(v.data, WireValue)
    return v.data.object_id
