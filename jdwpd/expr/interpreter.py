"""Evaluate a parsed expression over a ``ValueAccess``, with Java's semantics.

Types are checked as values arrive (the frame's declared types are not known here), so a type
error names the runtime types; messages follow javac's wording where javac has one, and runtime
failures name the exception Java would throw (``NullPointerException`` with the helpful message
the JVM gives, ``ArrayIndexOutOfBoundsException``, ``ArithmeticException: / by zero``,
``ClassCastException``...).

>>> import trio
>>> from jdwpd.expr.access import Value
>>> class NoFrame:                       # enough of a ValueAccess for constant expressions
...     async def local(self, name): return None
...     async def this(self): return None
...     async def find_class(self, name): return None
>>> trio.run(evaluate, parse("(byte) 200 + 0x7fffffff"), NoFrame())     # -56 + MAX_VALUE
Value(signature='I', data=2147483591)
>>> trio.run(evaluate, parse("0x7fffffff + 1"), NoFrame())
Value(signature='I', data=-2147483648)
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

import attrs

from jdwpd.expr.access import NULL, STRING, Value, ValueAccess
from jdwpd.expr.errors import EvaluationError, ExpressionError
from jdwpd.expr.format import primitive_text
from jdwpd.expr.numbers import primitive
from jdwpd.expr.parser import Expression, parse
from jdwpd.expr.tree import (
    PRIMITIVE_TYPES,
    ArrayAccess,
    Binary,
    Cast,
    Conditional,
    FieldAccess,
    InstanceOf,
    Literal,
    MethodCall,
    Name,
    Node,
    This,
    TypeName,
    Unary,
    unparse,
)
from jdwpd.expr.types import (
    BOXES,
    FITS,
    INTEGRAL,
    NUMERIC,
    STRING_SUPERTYPES,
    binary_promotion,
    convert,
    divide,
    is_constant,
    remainder,
    static_type,
    to_float32,
    type_name,
    unary_promotion,
    wrap,
)

__all__ = ["evaluate", "Evaluator", "INVOKE_REFUSED"]

_T = TypeVar("_T")

#: How a refused method call is explained (the API names the switch for its users).
_MAX_NESTING = 4  # enclosing instances followed outward, as deep as code nests in practice

INVOKE_REFUSED = (
    "method calls are not allowed here: {call} would run code in the VM "
    "(allow them with allow_invoke=True; conditions refuse them unless the breakpoint opts in)"
)

FALSE = Value("Z", False)


@attrs.frozen
class _ClassRef:
    """A name that resolved to a class: ``written`` as in the source, for nested-class lookups."""

    signature: str
    written: str


@attrs.frozen
class _Package:
    """A dotted name that is neither a variable nor a loaded class (yet): maybe a package."""

    written: str


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


class Evaluator:
    """One evaluation of one expression in one frame (holds the frame's ``this`` once read)."""

    def __init__(self, expression: Expression, access: ValueAccess, *, allow_invoke: bool = True) -> None:
        self.expression = expression
        self.access = access
        self.allow_invoke = allow_invoke
        self._this: Value | None = None
        self._this_read = False

    # -- errors -----------------------------------------------------------------------------
    def fail(self, message: str, node: Node) -> ExpressionError:
        return ExpressionError(message, node.column, self.expression.text)

    def missing(self, message: str, node: Node) -> EvaluationError:
        return EvaluationError(message, node.column, self.expression.text)

    def throw(self, exception: str, detail: str, node: Node) -> EvaluationError:
        """What Java would throw: ``exception`` is a simple name in java.lang."""
        return EvaluationError(f"{exception}: {detail}", node.column, self.expression.text,
                               java_exception=f"java.lang.{exception}")

    def npe(self, action: str, null: Node, where: Node | None = None) -> EvaluationError:
        """A NullPointerException with the JVM's helpful message about ``null`` being null,
        pointing at ``where`` (the dereference) or else at the null operand."""
        return self.throw("NullPointerException", f'{action} because "{unparse(null)}" is null', where or null)

    async def ask(self, node: Node, awaitable: Awaitable[_T]) -> _T:
        """Await a ValueAccess call; its errors get the node's column."""
        try:
            return await awaitable
        except ExpressionError as err:
            raise err.locate(node.column, self.expression.text) from None

    async def this(self, node: Node) -> Value | None:
        if not self._this_read:
            self._this = await self.ask(node, self.access.this())
            self._this_read = True
        return self._this

    # -- dispatch ---------------------------------------------------------------------------
    async def value(self, node: Node) -> Value:
        """The value of ``node``."""
        match node:
            case Literal(signature=sig, value=data):
                return Value(sig, data)
            case Name() | FieldAccess():
                resolved = await self.resolve(node)
                if isinstance(resolved, Value):
                    return resolved
                if isinstance(resolved, _ClassRef):
                    raise self.fail(f"{resolved.written} is a class, not a value", node)
                if "." in resolved.written:
                    raise self.missing(f"cannot find symbol: {resolved.written} "
                                       "(no variable, field or loaded class of that name)", node)
                raise self.missing(f"cannot find symbol: variable {resolved.written}", node)
            case This():
                this = await self.this(node)
                if this is None:
                    raise self.fail("non-static variable this cannot be referenced from a static context", node)
                return this
            case ArrayAccess():
                return await self.array_access(node)
            case MethodCall():
                return await self.call(node)
            case Unary():
                return await self.unary(node)
            case Binary():
                return await self.binary(node)
            case Conditional(condition=c, then=t, otherwise=o):
                chosen, other = (t, o) if await self.condition(c, "?:") else (o, t)
                return await self.conditional_type(await self.value(chosen), chosen, other)
            case InstanceOf():
                return await self.instance_of(node)
            case Cast():
                return await self.cast(node)
        raise TypeError(f"not an expression node: {node!r}")

    # -- names and members ------------------------------------------------------------------
    async def resolve(self, node: Node) -> Value | _ClassRef | _Package:
        """A name or member access: a value, a class (``Math``), or a prefix of a qualified name."""
        if isinstance(node, Name):
            name = node.identifier
            local = await self.ask(node, self.access.local(name))
            if local is not None:
                return local
            this = await self.this(node)
            if this is not None:
                found = await self.outward(this, name, node)
                if found is not None:
                    return found
            frame_classes = getattr(self.access, "frame_classes", None)
            for signature in await self.ask(node, frame_classes()) if frame_classes else ():
                field = await self.ask(node, self.access.static_field(signature, name))
                if field is not None:  # a static field of the code's class, in a static method or lambda
                    return field
            signature = await self.ask(node, self.access.find_class(name))
            return _ClassRef(signature, name) if signature is not None else _Package(name)
        if not isinstance(node, FieldAccess):
            return await self.value(node)
        target = node.target
        base = await self.resolve(target) if isinstance(target, (Name, FieldAccess)) else await self.value(target)
        name = node.name
        if isinstance(base, _Package):
            written = f"{base.written}.{name}"
            signature = await self.ask(node, self.access.find_class(written))
            return _ClassRef(signature, written) if signature is not None else _Package(written)
        if isinstance(base, _ClassRef):
            field = await self.ask(node, self.access.static_field(base.signature, name))
            if field is not None:
                return field
            written = f"{base.written}.{name}"
            nested = await self.ask(node, self.access.find_class(written))
            if nested is not None:
                return _ClassRef(nested, written)
            raise self.missing(f"cannot find symbol: variable {name} in class {type_name(base.signature)}", node)
        return await self.member(base, target, node)

    async def outward(self, this: Value, name: str, node: Node) -> Value | None:
        """``name`` as a field of ``this``; of a local the object's class captured (javac's
        ``val$name``); or of the enclosing instances (``this$0``), nearest first."""
        obj: Value | None = this
        for _ in range(_MAX_NESTING):
            if obj is None or obj.is_null:
                return None
            for candidate in (name, f"val${name}"):
                field = await self.ask(node, self.access.field(obj, candidate))
                if field is not None:
                    return field
            outer = None
            for depth in range(_MAX_NESTING):  # javac numbers the outer instance's field by nesting depth
                outer = await self.ask(node, self.access.field(obj, f"this${depth}"))
                if outer is not None:
                    break
            obj = outer
        return None

    async def member(self, obj: Value, target: Node, node: FieldAccess) -> Value:
        name = node.name
        if obj.is_null:
            action = "Cannot read the array length" if name == "length" else f'Cannot read field "{name}"'
            raise self.npe(action, target, node)
        if obj.is_primitive:
            raise self.fail(f"{type_name(obj.signature)} cannot be dereferenced", node)
        if obj.signature.startswith("["):
            if name == "length":
                return Value("I", await self.ask(node, self.access.array_length(obj)))
            raise self.missing(f"cannot find symbol: variable {name} (an array has only length)", node)
        if isinstance(obj.data, str):
            raise self.missing(f"cannot find symbol: variable {name} in class String", node)
        field = await self.ask(node, self.access.field(obj, name))
        if field is None:
            raise self.missing(f"cannot find symbol: variable {name} in class {type_name(obj.signature)}", node)
        return field

    async def array_access(self, node: ArrayAccess) -> Value:
        array = await self.value(node.array)
        index = await self.int_index(await self.value(node.index), node.index)
        if array.is_null:
            element = array.signature[1:] if array.signature.startswith("[") else ""
            kind = f"{type_name(element)} array" if len(element) == 1 else "object array"
            raise self.npe(f"Cannot load from {kind}", node.array, node)
        if not array.signature.startswith("["):
            raise self.fail(f"array required, but {type_name(array.signature)} found", node)
        length = await self.ask(node, self.access.array_length(array))
        if not 0 <= index < length:
            raise self.throw("ArrayIndexOutOfBoundsException", f"Index {index} out of bounds for length {length}",
                             node)
        return await self.ask(node, self.access.array_element(array, index))

    async def int_index(self, value: Value, node: Node) -> int:
        """An array index or char position: an int after unboxing (long is a lossy conversion)."""
        value = await self.unbox(value, node)
        if value.signature == "J":
            raise self.fail("incompatible types: possible lossy conversion from long to int", node)
        if value.signature not in "BCSI" or not value.is_primitive:
            raise self.fail(f"incompatible types: {type_name(value.signature)} cannot be converted to int", node)
        return int(primitive(value.data))

    # -- method calls -----------------------------------------------------------------------
    async def call(self, node: MethodCall) -> Value:
        if node.target is None:
            target: Value | _ClassRef | _Package
            this = await self.this(node)
            if this is not None:
                target = this
            else:  # a static method or a lambda: the code's own class, as javac finds twice(i) there
                frame_classes = getattr(self.access, "frame_classes", None)
                own = await self.ask(node, frame_classes()) if frame_classes else []
                if not own:
                    raise self.fail(f"cannot call {node.name}(...) without an object in a static method "
                                    f"(write ClassName.{node.name}(...))", node)
                target = _ClassRef(own[0], own[0][1:-1].replace("/", "."))
        elif isinstance(node.target, (Name, FieldAccess)):
            target = await self.resolve(node.target)
        else:
            target = await self.value(node.target)
        if isinstance(target, _Package):
            raise self.missing(f"cannot find symbol: {target.written} "
                               "(no variable, field or loaded class of that name)", node.target or node)
        args = [await self.value(arg) for arg in node.args]
        if isinstance(target, Value):
            if target.is_null:
                raise self.npe(f'Cannot invoke "{node.name}()"', node.target or node, node)
            if target.is_primitive:
                raise self.fail(f"{type_name(target.signature)} cannot be dereferenced", node)
            if node.intrinsic and await self.is_string(target, node):
                result = await self.string_method(node, target, args)
                if result is not None:
                    return result
        if not self.allow_invoke:
            raise self.fail(INVOKE_REFUSED.format(call=f"{node.name}()"), node)
        receiver = target.signature if isinstance(target, _ClassRef) else target
        return await self.ask(node, self.access.invoke(receiver, node.name, args))

    async def is_string(self, value: Value, node: Node) -> bool:
        """Whether a non-null reference is a java.lang.String (by its signature or by asking the VM)."""
        if value.signature == STRING:
            return True
        if value.signature in STRING_SUPERTYPES and not isinstance(value.data, str):
            return await self.ask(node, self.access.is_instance(value, STRING))
        return False

    async def text(self, value: Value, node: Node) -> str:
        """The text of a non-null String value (the evaluator's own, or the VM's)."""
        if isinstance(value.data, str):
            return value.data
        return await self.ask(node, self.access.string_text(value))

    async def string_method(self, node: MethodCall, target: Value, args: list[Value]) -> Value | None:
        """A String method run here; None when an argument needs the real method (a CharSequence)."""
        text = await self.text(target, node)
        name = node.name
        if name == "length":
            return Value("I", len(_utf16(text)) // 2)
        if name == "isEmpty":
            return Value("Z", not text)
        if name == "charAt":
            index = await self.int_index(args[0], node.args[0])
            units = _utf16(text)
            if not 0 <= index < len(units) // 2:
                raise EvaluationError(f"StringIndexOutOfBoundsException: index {index}, length {len(units) // 2}",
                                      node.column, self.expression.text,
                                      java_exception="java.lang.StringIndexOutOfBoundsException")
            return Value("C", int.from_bytes(units[2 * index : 2 * index + 2], "little"))
        arg = args[0]
        if name == "equals":
            if arg.is_null or arg.is_primitive or not await self.is_string(arg, node.args[0]):
                return FALSE  # String.equals is false for anything but a String (a primitive is boxed)
            return Value("Z", text == await self.text(arg, node.args[0]))
        if arg.is_null:
            raise self.npe(f'Cannot invoke "String.{"toString" if name == "contains" else "length"}()"', node.args[0])
        if arg.is_primitive:
            raise self.fail(f"incompatible types: {type_name(arg.signature)} cannot be converted to "
                            f"{'CharSequence' if name == 'contains' else 'String'}", node.args[0])
        if not await self.is_string(arg, node.args[0]):
            return None
        other = await self.text(arg, node.args[0])
        if name == "contains":
            return Value("Z", other in text)
        if name == "startsWith":
            return Value("Z", text.startswith(other))
        return Value("Z", text.endswith(other))

    # -- operators --------------------------------------------------------------------------
    async def unbox(self, value: Value, node: Node) -> Value:
        """A boxed primitive (java.lang.Integer...) as the primitive; anything else unchanged."""
        primitive = BOXES.get(value.signature)
        if primitive is None:
            return value
        if isinstance(value.data, str):
            return value
        inner = await self.ask(node, self.access.field(value, "value"))
        if inner is None or not inner.is_primitive:
            raise self.fail(f"cannot unbox {type_name(value.signature)}: no primitive value field", node)
        return inner

    async def operand(self, node: Node, operation: str, parent: Node) -> Value:
        """An operand that must be primitive: unboxed; null unboxing is a NullPointerException."""
        value = await self.value(node)
        if value.signature in BOXES:
            return await self.unbox(value, node)
        if value.is_null and operation != "==":
            raise self.npe("Cannot unbox a null value", node)
        return value

    async def condition(self, node: Node, operator: str) -> bool:
        value = await self.operand(node, operator, node)
        if value.signature != "Z":
            if operator == "?:":
                raise self.fail(f"incompatible types: {type_name(value.signature)} cannot be converted to boolean",
                                node)
            raise self.fail(f"bad operand types for binary operator '{operator}' "
                            f"(found {type_name(value.signature)}, required boolean)", node)
        return bool(value.data)

    async def unary(self, node: Unary) -> Value:
        value = await self.operand(node.operand, node.op, node)
        sig, op = value.signature, node.op
        if op == "!" and sig == "Z":
            return Value("Z", not value.data)
        if op in "+-" and sig in NUMERIC:
            result_sig = unary_promotion(sig)
            data = convert(primitive(value.data), sig, result_sig)
            if op == "-":
                data = wrap(-int(data), result_sig) if result_sig in INTEGRAL else -data
            return Value(result_sig, data)
        if op == "~" and sig in INTEGRAL:
            result_sig = unary_promotion(sig)
            return Value(result_sig, wrap(~int(primitive(value.data)), result_sig))
        raise self.fail(f"bad operand type {type_name(sig)} for unary operator '{op}'", node)

    def bad_operands(self, node: Binary, left: Value, right: Value) -> ExpressionError:
        return self.fail(f"bad operand types for binary operator '{node.op}' (first type: "
                         f"{type_name(left.signature)}, second type: {type_name(right.signature)})", node)

    async def binary(self, node: Binary) -> Value:
        op = node.op
        if op in ("&&", "||"):
            # Short-circuit: the right operand is evaluated only when it decides.
            decided = await self.condition(node.left, op)
            if decided == (op == "||"):
                return Value("Z", decided)
            return Value("Z", await self.condition(node.right, op))
        left = await self.value(node.left)
        right = await self.value(node.right)
        if op == "+" and (left.signature == STRING or right.signature == STRING):
            text = await self.string_of(left, node.left) + await self.string_of(right, node.right)
            return Value(STRING, text)
        if op in ("==", "!="):
            equal = await self.equality(node, left, right)
            return Value("Z", equal == (op == "=="))
        left = await self.unbox(left, node.left)
        right = await self.unbox(right, node.right)
        for value, operand in ((left, node.left), (right, node.right)):
            if value.is_null and (right.is_primitive or left.is_primitive):
                raise self.npe("Cannot unbox a null value", operand)
        if not (left.is_primitive and right.is_primitive):
            raise self.bad_operands(node, left, right)
        ls, rs = left.signature, right.signature
        if op in ("&", "|", "^") and ls == rs == "Z":
            p, q = bool(left.data), bool(right.data)
            return Value("Z", p & q if op == "&" else p | q if op == "|" else p ^ q)
        if op in ("<<", ">>", ">>>"):
            if ls not in INTEGRAL or rs not in INTEGRAL:
                raise self.bad_operands(node, left, right)
            sig = unary_promotion(ls)
            count = int(primitive(right.data)) & (63 if sig == "J" else 31)
            bits = int(primitive(left.data))
            if op == "<<":
                return Value(sig, wrap(bits << count, sig))
            if op == ">>":
                return Value(sig, bits >> count)
            return Value(sig, wrap((bits & ((1 << (64 if sig == "J" else 32)) - 1)) >> count, sig))
        if ls not in NUMERIC or rs not in NUMERIC:
            raise self.bad_operands(node, left, right)
        sig = binary_promotion(ls, rs)
        if op in ("&", "|", "^") and sig in "FD":
            raise self.bad_operands(node, left, right)
        a = convert(primitive(left.data), ls, sig)
        b = convert(primitive(right.data), rs, sig)
        if op in ("<", ">", "<=", ">="):
            result = a < b if op == "<" else a > b if op == ">" else a <= b if op == "<=" else a >= b
            return Value("Z", result)
        try:
            if op == "/":
                return Value(sig, divide(a, b, sig))
            if op == "%":
                return Value(sig, remainder(a, b, sig))
        except ZeroDivisionError:
            raise self.throw("ArithmeticException", "/ by zero", node) from None
        if op == "+":
            data = a + b
        elif op == "-":
            data = a - b
        elif op == "*":
            data = a * b
        elif op == "&":
            data = int(a) & int(b)
        elif op == "|":
            data = int(a) | int(b)
        elif op == "^":
            data = int(a) ^ int(b)
        else:  # pragma: no cover - the parser makes no other binary operators
            raise self.fail(f"unknown operator {op}", node)
        if sig in ("I", "J"):
            data = wrap(int(data), sig)
        elif sig == "F":
            data = to_float32(data)
        return Value(sig, data)

    async def equality(self, node: Binary, left: Value, right: Value) -> bool:
        """``==``: numbers and booleans by value (a boxed operand against a primitive is unboxed),
        references by identity: VM handles compare equal, evaluator-made strings equal nothing else."""
        if left.is_primitive or right.is_primitive:
            left = await self.unbox(left, node.left) if right.is_primitive else left
            right = await self.unbox(right, node.right) if left.is_primitive else right
            for value, operand in ((left, node.left), (right, node.right)):
                if value.is_null:
                    raise self.npe("Cannot unbox a null value", operand)
            if not (left.is_primitive and right.is_primitive):
                raise self.bad_operands(node, left, right)
            ls, rs = left.signature, right.signature
            if ls == "Z" or rs == "Z":
                if ls != rs:
                    raise self.fail(f"incomparable types: {type_name(ls)} and {type_name(rs)}", node)
                return bool(left.data) == bool(right.data)
            sig = binary_promotion(ls, rs)
            return convert(primitive(left.data), ls, sig) == convert(primitive(right.data), rs, sig)
        if left.is_null or right.is_null:
            return left.is_null and right.is_null
        if isinstance(left.data, str) or isinstance(right.data, str):
            return False  # an evaluator-made string is a new object: never identical to another
        return left.data == right.data

    async def string_of(self, value: Value, node: Node) -> str:
        """``String.valueOf(value)`` as string concatenation does; ``toString()`` only for objects
        other than strings and boxed primitives, and only where method calls are allowed."""
        if value.is_null:
            return "null"
        if value.is_primitive:
            return primitive_text(value.signature, value.data)
        if value.signature == STRING:
            return await self.text(value, node)
        if value.signature in BOXES:
            inner = await self.unbox(value, node)
            return primitive_text(inner.signature, inner.data)
        if not self.allow_invoke:
            raise self.fail(INVOKE_REFUSED.format(call=f"{type_name(value.signature)}.toString()"), node)
        result = await self.ask(node, self.access.invoke(value, "toString", []))
        if result.is_null:
            return "null"
        return await self.text(result, node)

    # -- types ------------------------------------------------------------------------------
    async def type_signature(self, kind: TypeName) -> str:
        """The JNI signature of a written type; the class must be loaded."""
        if kind.name in PRIMITIVE_TYPES:
            return "[" * kind.dimensions + PRIMITIVE_TYPES[kind.name]
        signature = await self.ask(kind, self.access.find_class(kind.name))
        if signature is None:
            raise self.missing(f"cannot find symbol: class {kind.name} (no loaded class of that name)", kind)
        return "[" * kind.dimensions + signature

    async def is_instance(self, value: Value, signature: str, node: Node) -> bool:
        if isinstance(value.data, str):
            return signature in STRING_SUPERTYPES
        if value.signature == signature:
            return True
        return await self.ask(node, self.access.is_instance(value, signature))

    async def conditional_type(self, value: Value, chosen: Node, other: Node) -> Value:
        """The value of ``c ? a : b`` in the type Java gives the whole conditional (JLS 15.25) when
        the branch not taken has a type the tree decides: ``true ? 1 : 2.0`` is ``1.0``."""
        sig, other_sig = value.signature, static_type(other)
        if other_sig is None or sig == other_sig or sig not in NUMERIC or other_sig not in NUMERIC:
            return value
        # An int constant in a byte/short/char conditional takes the other branch's narrower type.
        if other_sig == "I" and sig in FITS and is_constant(other):
            try:
                constant = await self.value(other)  # pure: no names, so no VM access
            except EvaluationError:
                constant = None  # 1 / 0 does not complete normally: not a constant
            if constant is not None and FITS[sig][0] <= int(primitive(constant.data)) <= FITS[sig][1]:
                return value
        if sig == "I" and other_sig in FITS and is_constant(chosen):
            if FITS[other_sig][0] <= int(primitive(value.data)) <= FITS[other_sig][1]:
                return Value(other_sig, convert(primitive(value.data), sig, other_sig))
        target = "S" if {sig, other_sig} == {"B", "S"} else binary_promotion(sig, other_sig)
        return Value(target, convert(primitive(value.data), sig, target))

    async def instance_of(self, node: InstanceOf) -> Value:
        value = await self.value(node.operand)
        signature = await self.type_signature(node.type)
        if value.is_primitive:
            raise self.fail(f"unexpected type: required reference, found {type_name(value.signature)}", node)
        if node.type.primitive is not None or (len(signature) == 1):
            raise self.fail(f"unexpected type: required reference, found {node.type}", node.type)
        if value.is_null:
            return FALSE
        return Value("Z", await self.is_instance(value, signature, node))

    async def cast(self, node: Cast) -> Value:
        value = await self.value(node.operand)
        target = node.type.primitive
        if target is not None:
            if value.signature in BOXES:
                value = await self.unbox(value, node.operand)
            elif value.is_null:
                # A null of the VM has no declared type here: it may be a null Integer.
                raise self.npe("Cannot unbox a null value", node.operand, node)
            source = value.signature
            if not value.is_primitive or (source == "Z") != (target == "Z"):
                raise self.fail(f"incompatible types: {type_name(source)} cannot be converted to {node.type}", node)
            return Value(target, convert(primitive(value.data), source, target))
        signature = await self.type_signature(node.type)
        if value.is_primitive:
            raise self.fail(f"casting {type_name(value.signature)} to {node.type} would box it, "
                            "which an expression cannot do (no objects are created)", node)
        if value.is_null:
            return Value(NULL, None)
        if not await self.is_instance(value, signature, node):
            raise EvaluationError(
                f"ClassCastException: class {type_name(value.signature)} cannot be cast to class "
                f"{type_name(signature)}", node.column, self.expression.text,
                java_exception="java.lang.ClassCastException")
        if signature == STRING or signature in BOXES:
            # Final classes: the runtime class is now known, and operators (concatenation,
            # unboxing) go by it.
            return Value(signature, value.data)
        return value


async def evaluate(expression: Expression | str, access: ValueAccess, *, allow_invoke: bool = True) -> Value:
    """Evaluate ``expression`` (parsed, or text to parse) in the frame ``access`` stands for.

    With ``allow_invoke=False`` a method call (other than the String methods run here) raises
    ExpressionError instead of running code in the VM. Raises ExpressionError for syntax and
    type errors, EvaluationError for what Java would throw or a name that does not resolve,
    InvocationException when a called method throws.
    """
    if isinstance(expression, str):
        expression = parse(expression)
    return await Evaluator(expression, access, allow_invoke=allow_invoke).value(expression.tree)
