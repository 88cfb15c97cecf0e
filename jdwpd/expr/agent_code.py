"""The second back end of the expression tree: a compiler to the agent's condition bytecode.

Expressions that need no method call (locals, ``this``, instance and static fields, array
elements and lengths, String ``equals``/``length``/``isEmpty``/``charAt``, Java's arithmetic,
comparisons, boolean logic, null checks, ``instanceof``, primitive and checked reference casts,
unboxing by the ``value`` field) compile to a program the agent runs in the JVMTI callback
(``agent/cond.c``; opcodes and layout in ``protocol/agent_code.py``).  Anything else raises
``NotInAgent`` with a message and the column: the client then evaluates the condition the
standard way, over JDWP, with the interpreter.

The compiler types the tree statically from the frame's variable table at the breakpoint's
location and the loaded classes' fields, so the agent's program is type-specific (IADD, not
"add"); the agent still checks each operand's type as it runs.  Names resolve as the interpreter
resolves them: a local, else a field of ``this``, else a class.

Sub-expressions compile to separate byte strings (``_Code``) joined by their parents, so jump
offsets are known when they are written and every jump is forward.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any, Protocol

import attrs

from jdwpd.expr.errors import ExpressionError
from jdwpd.expr.numbers import primitive
from jdwpd.expr.parser import parse
from jdwpd.expr.tree import (
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
)
from protocol.agent_code import MAX_CODE, MAX_STACK, ArithOp, Cond, ObjKind, Op

__all__ = ["NotInAgent", "Resolver", "Variable", "FieldRef", "AgentProgram", "compile_condition",
           "compile_expression"]

STRING_SIG = "Ljava/lang/String;"
NULL_SIG = "N"
BOXES = {
    "Ljava/lang/Boolean;": "Z", "Ljava/lang/Byte;": "B", "Ljava/lang/Character;": "C",
    "Ljava/lang/Short;": "S", "Ljava/lang/Integer;": "I", "Ljava/lang/Long;": "J",
    "Ljava/lang/Float;": "F", "Ljava/lang/Double;": "D",
}
_NUMERIC = "BCSIJFD"
_INTEGRAL = "BCSIJ"
_NAMES = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float",
          "D": "double", NULL_SIG: "<null>"}
_ARITH = {"+": ArithOp.ADD, "-": ArithOp.SUB, "*": ArithOp.MUL, "/": ArithOp.DIV, "%": ArithOp.REM,
          "<<": ArithOp.SHL, ">>": ArithOp.SHR, ">>>": ArithOp.USHR, "&": ArithOp.AND, "|": ArithOp.OR,
          "^": ArithOp.XOR}
_CMP = {"==": Cond.EQ, "!=": Cond.NE, "<": Cond.LT, ">=": Cond.GE, ">": Cond.GT, "<=": Cond.LE}


class NotInAgent(ExpressionError):
    """A valid expression the agent cannot evaluate (it needs a method call, creates an object, ...):
    the client evaluates it the standard way."""


class Variable(Protocol):
    name: str
    signature: str
    slot: int


@attrs.frozen
class FieldRef:
    field_id: int
    name: str
    signature: str
    static: bool
    declaring: int  # class ref


class Resolver(Protocol):
    """What the compiler asks of the VM: the frame's variables and the loaded classes."""

    method_id: int
    declaring: int  # the method's class: names resolve in it, `this` is one
    static: bool  # a static method: no `this`

    async def variables(self) -> Sequence[Variable]: ...  # live at the location
    async def class_ref(self, signature: str) -> int | None: ...  # a loaded class, else None
    async def signature(self, ref: int) -> str: ...
    async def fields(self, ref: int) -> Sequence[FieldRef]: ...  # declared by ref
    async def superclass(self, ref: int) -> int: ...  # 0: none
    async def interfaces(self, ref: int) -> Sequence[int]: ...


@attrs.frozen
class AgentProgram:
    program: bytes  # ObjKind.CONDITION layout (protocol/agent_code.py)
    signature: str  # the static type of the result
    text: str


def _cell(sig: str) -> str:
    """The agent's stack type of a static type."""
    if sig in ("Z", "B", "C", "S", "I"):
        return "I"
    if sig in ("J", "F", "D"):
        return sig
    return "L"


def _tag(sig: str) -> str:
    """The JNI tag the agent reads a value of this type with."""
    return sig if sig in "ZBCSIJFD" and len(sig) == 1 else "L"


def _type_name(sig: str) -> str:
    if sig in _NAMES:
        return _NAMES[sig]
    if sig.startswith("["):
        return _type_name(sig[1:]) + "[]"
    return sig[1:-1].replace("/", ".").rsplit(".", 1)[-1] if sig.startswith("L") else sig


@attrs.define
class _Code:
    code: bytes
    sig: str  # static type (NULL_SIG for null); a string literal is STRING_SIG with literal=True
    need: int  # stack cells this code needs at most
    literal: bool = False  # a string constant (CONST_S): never == to a VM object

    @property
    def cell(self) -> str:
        return "K" if self.literal else _cell(self.sig)


@attrs.frozen
class _ClassName:
    """A name that resolved to a class (``Math`` in ``Math.PI``), not a value."""

    ref: int
    signature: str


@attrs.frozen
class _Package:
    """The start of a qualified name that is no class yet (``java`` in ``java.lang.Math``)."""

    name: str


def _op(op: Op, *operands: bytes) -> bytes:
    return bytes([op]) + b"".join(operands)


def _u8(v: int) -> bytes:
    return bytes([v & 0xFF])


def _u16(v: int) -> bytes:
    return struct.pack(">H", v)


def _jump(op: Op, offset: int) -> bytes:
    if offset > 0x7FFF:
        raise NotInAgent("expression too long for the agent")
    return bytes([op]) + struct.pack(">h", offset)


def _const_i(v: int) -> bytes:
    return _op(Op.CONST_I, struct.pack(">i", v))


class _Compiler:
    def __init__(self, text: str, resolver: Resolver) -> None:
        self.text = text
        self.r = resolver
        self.classes: list[int] = []
        self.strings: list[str] = []
        self.uses_frame = False
        self._vars: dict[str, Variable] | None = None

    # ---- errors and tables ----------------------------------------------------------------
    def error(self, message: str, node: Node) -> ExpressionError:
        return ExpressionError(message, node.column, self.text)

    def refuse(self, message: str, node: Node) -> NotInAgent:
        return NotInAgent(message, node.column, self.text)

    def class_index(self, ref: int) -> int:
        if ref not in self.classes:
            self.classes.append(ref)
        return self.classes.index(ref)

    def string_index(self, s: str) -> int:
        if s not in self.strings:
            self.strings.append(s)
        return self.strings.index(s)

    async def variables(self) -> dict[str, Variable]:
        if self._vars is None:
            self._vars = {v.name: v for v in await self.r.variables()}
        return self._vars

    async def find_field(self, ref: int, name: str) -> FieldRef | None:
        """A field by name in ref, its superclasses and their interfaces, as Java looks it up."""
        seen: set[int] = set()
        todo = [ref]
        while todo:
            cur = todo.pop(0)
            if not cur or cur in seen:
                continue
            seen.add(cur)
            for f in await self.r.fields(cur):
                if f.name == name:
                    return f
            todo.extend(await self.r.interfaces(cur))
            todo.append(await self.r.superclass(cur))
        return None

    async def find_class(self, dotted: str) -> int | None:
        """A loaded class by Java name: as written, nested (``Outer.Inner``), in this class's package,
        in java.lang."""
        candidates = []
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):  # a.b.C.D -> a/b/C$D
            candidates.append("/".join(parts[:i]) + "".join("$" + p for p in parts[i:]))
        if len(parts) == 1:
            if self.r.declaring:
                this_sig = await self.r.signature(self.r.declaring)
                pkg = this_sig[1:-1].rsplit("/", 1)[0] if "/" in this_sig else ""
                outer = this_sig[1:-1]
                candidates.append(f"{outer}${dotted}")
                if pkg:
                    candidates.append(f"{pkg}/{dotted}")
            candidates.append(f"java/lang/{dotted}")
        for c in candidates:
            ref = await self.r.class_ref(f"L{c};")
            if ref:
                return ref
        return None

    async def type_signature(self, t: TypeName) -> tuple[str, int | None]:
        """A type as written -> its signature and, for a class or array of classes, a loaded ref."""
        if t.primitive:
            return t.primitive, None
        base = {"boolean": "Z", "byte": "B", "char": "C", "short": "S", "int": "I", "long": "J", "float": "F",
                "double": "D"}.get(t.name)
        if base is not None:
            sig = "[" * t.dimensions + base
            return sig, await self.r.class_ref(sig)
        ref = await self.find_class(t.name)
        if ref is None:
            raise self.error(f"cannot find symbol: class {t.name} (no loaded class of that name)", t)
        sig = await self.r.signature(ref)
        if t.dimensions:
            sig = "[" * t.dimensions + sig
            ref = await self.r.class_ref(sig)
            if ref is None:  # no such array exists in the VM: no value can be one
                raise self.refuse(f"the array class {t} is not loaded", t)
        return sig, ref

    # ---- values -------------------------------------------------------------------------
    async def value(self, node: Node) -> _Code:
        got = await self.node(node)
        if isinstance(got, _ClassName):
            raise self.error(f"cannot find symbol: variable {_type_name(got.signature)}", node)
        if isinstance(got, _Package):
            raise self.error(f"cannot find symbol: variable {got.name}", node)
        return got

    async def unboxed(self, node: Node) -> _Code:
        """A value, unboxed (a java.lang.Integer by its value field) when it is a box."""
        c = await self.value(node)
        prim = BOXES.get(c.sig)
        if prim is None:
            return c
        box = await self.r.class_ref(c.sig)
        f = await self.find_field(box, "value") if box else None
        if f is None:
            raise self.refuse(f"cannot unbox {_type_name(c.sig)} in the agent", node)
        return _Code(c.code + _op(Op.FIELD, _u8(ord(prim)), _u16(self.class_index(f.declaring)),
                                  struct.pack(">Q", f.field_id)), prim, c.need)

    def convert(self, c: _Code, to: str) -> _Code:
        """Widening or narrowing between primitives, as Java converts."""
        frm = c.cell
        if c.sig == to:
            return c
        if to in "BCS":
            code = c.code if frm == "I" else c.code + _op(Op.CONV, _u8(ord(frm)), _u8(ord("I")))
            return _Code(code + _op(Op.CONV, _u8(ord("I")), _u8(ord(to))), to, c.need)
        if frm == _cell(to):
            return _Code(c.code, to, c.need)
        return _Code(c.code + _op(Op.CONV, _u8(ord(frm)), _u8(ord(to))), to, c.need)

    async def node(self, node: Node) -> Any:  # noqa: C901 - one case per node kind
        match node:
            case Literal(signature=sig, value=literal):
                return self.literal(sig, literal, node)
            case This():
                if self.r.static:
                    raise self.error("non-static variable this cannot be referenced from a static context", node)
                self.uses_frame = True
                return _Code(_op(Op.THIS), await self.r.signature(self.r.declaring), 1)
            case Name(identifier=ident):
                return await self.name(ident, node)
            case FieldAccess(target=t, name=name):
                return await self.field_access(t, name, node)
            case ArrayAccess(array=a, index=i):
                arr = await self.value(a)
                if not arr.sig.startswith("["):
                    raise self.error(f"array required, but {_type_name(arr.sig)} found", node)
                idx = await self.unboxed(i)
                if idx.sig not in "BCSI" or idx.sig == NULL_SIG:
                    raise self.error(f"incompatible types: {_type_name(idx.sig)} cannot be converted to int", i)
                comp = arr.sig[1:]
                return _Code(arr.code + self.convert(idx, "I").code + _op(Op.AGET, _u8(ord(_tag(comp)))), comp,
                             max(arr.need, 1 + idx.need))
            case MethodCall():
                return await self.call(node)
            case Unary(op=op, operand=o):
                return await self.unary(op, o, node)
            case Binary(op=op, left=left, right=right):
                return await self.binary(op, left, right, node)
            case Conditional(condition=c, then=t, otherwise=o):
                return await self.conditional(c, t, o, node)
            case InstanceOf(operand=o, type=t):
                v = await self.value(o)
                if v.cell not in "LK":
                    raise self.error(f"unexpected type: required reference, found {_type_name(v.sig)}", node)
                sig, ref = await self.type_signature(t)
                if ref is None:
                    raise self.error(f"unexpected type: required reference, found {t}", t)
                if v.literal:  # a literal string: known now
                    yes = ref == await self.r.class_ref(STRING_SIG) or sig in (
                        "Ljava/lang/Object;", "Ljava/lang/CharSequence;", "Ljava/lang/Comparable;",
                        "Ljava/io/Serializable;")
                    return _Code(v.code + _op(Op.POP) + _const_i(int(yes)), "Z", max(v.need, 1))
                return _Code(v.code + _op(Op.INSTANCEOF, _u16(self.class_index(ref))), "Z", v.need)
            case Cast(type=t, operand=o):
                if t.primitive:
                    v = await self.unboxed(o)
                    if t.primitive == "Z" or v.sig == "Z":
                        if t.primitive == v.sig:
                            return v
                        raise self.error(f"incompatible types: {_type_name(v.sig)} cannot be converted to "
                                         f"{_type_name(t.primitive)}", node)
                    if v.sig not in _NUMERIC:
                        raise self.error(f"incompatible types: {_type_name(v.sig)} cannot be converted to "
                                         f"{_type_name(t.primitive)}", node)
                    return self.convert(v, t.primitive)
                v = await self.value(o)
                if v.cell not in "LK":
                    raise self.refuse("a cast of a primitive to a reference type boxes: expressions create no "
                                      "objects", node)
                sig, ref = await self.type_signature(t)
                if v.literal or v.sig == NULL_SIG:
                    return _Code(v.code, sig, v.need, literal=v.literal)
                if ref is None:  # an array type whose class is not loaded: nothing to check against here
                    raise self.refuse(f"{t} is not loaded", t)
                return _Code(v.code + _op(Op.CHECKCAST, _u16(self.class_index(ref))), sig, v.need)
        raise self.refuse(f"{type(node).__name__} cannot run in the agent", node)

    def literal(self, sig: str, v: Any, node: Node) -> _Code:
        if sig == NULL_SIG or v is None and sig != STRING_SIG:
            return _Code(_op(Op.CONST_NULL), NULL_SIG, 1)
        if sig == STRING_SIG:
            if len(str(v).encode("utf-16-be")) // 2 > 0xFFFF:
                raise self.refuse("string literal too long for the agent", node)
            return _Code(_op(Op.CONST_S, _u16(self.string_index(str(v)))), STRING_SIG, 1, literal=True)
        if sig in "ZBCSI":
            return _Code(_const_i(int(v)), sig, 1)
        if sig == "J":
            return _Code(_op(Op.CONST_J, struct.pack(">q", int(v))), "J", 1)
        if sig == "F":
            return _Code(_op(Op.CONST_F, struct.pack(">f", float(v))), "F", 1)
        if sig == "D":
            return _Code(_op(Op.CONST_D, struct.pack(">d", float(v))), "D", 1)
        raise self.refuse(f"literal of type {sig} cannot run in the agent", node)

    async def name(self, ident: str, node: Node) -> Any:
        var = (await self.variables()).get(ident)
        if var is not None:
            self.uses_frame = True
            return _Code(_op(Op.LOCAL, _u8(ord(_tag(var.signature))), _u16(var.slot)), var.signature, 1)
        holder = self.r.declaring
        f = await self.find_field(holder, ident) if holder else None
        if f is None and holder and not self.r.static:  # a local an anonymous or local class captured
            f = await self.find_field(holder, f"val${ident}")
        if f is not None:
            if f.static:
                return self.static_field(f)
            if self.r.static:
                raise self.error(f"non-static variable {ident} cannot be referenced from a static context", node)
            self.uses_frame = True
            return self.instance_field(_Code(_op(Op.THIS), await self.r.signature(holder), 1), f)
        ref = await self.find_class(ident)
        if ref is not None:
            return _ClassName(ref, await self.r.signature(ref))
        return _Package(ident)

    def static_field(self, f: FieldRef) -> _Code:
        return _Code(_op(Op.STATIC, _u8(ord(_tag(f.signature))), _u16(self.class_index(f.declaring)),
                         struct.pack(">Q", f.field_id)), f.signature, 1)

    def instance_field(self, target: _Code, f: FieldRef) -> _Code:
        return _Code(target.code + _op(Op.FIELD, _u8(ord(_tag(f.signature))), _u16(self.class_index(f.declaring)),
                                       struct.pack(">Q", f.field_id)), f.signature, target.need)

    async def field_access(self, t: Node, name: str, node: Node) -> Any:
        target = await self.node(t)
        if isinstance(target, _Package):
            dotted = f"{target.name}.{name}"
            ref = await self.find_class(dotted)
            return _ClassName(ref, await self.r.signature(ref)) if ref is not None else _Package(dotted)
        if isinstance(target, _ClassName):
            f = await self.find_field(target.ref, name)
            if f is not None and f.static:
                return self.static_field(f)
            ref = await self.r.class_ref(target.signature[:-1] + "$" + name + ";")
            if ref is not None:
                return _ClassName(ref, await self.r.signature(ref))
            raise self.error(f"cannot find symbol: variable {name} in class {_type_name(target.signature)}", node)
        if target.sig.startswith("[") and name == "length":
            return _Code(target.code + _op(Op.ALEN), "I", target.need)
        if target.cell != "L" or target.sig == NULL_SIG:
            raise self.error(f"{_type_name(target.sig)} cannot be dereferenced", node)
        if target.literal:
            raise self.refuse("fields of a string literal cannot be read in the agent", node)
        ref = await self.r.class_ref(target.sig)
        f = await self.find_field(ref, name) if ref else None
        if f is None:
            raise self.error(f"cannot find symbol: variable {name} in class {_type_name(target.sig)}", node)
        if f.static:  # obj.STATIC: Java reads the static (and evaluates obj, which has no effect here)
            return self.static_field(f)
        return self.instance_field(target, f)

    async def call(self, node: MethodCall) -> _Code:
        if not node.intrinsic or node.target is None:  # (intrinsic has a target: said again for the checker)
            raise self.refuse(f"method calls cannot run in the agent: {node.name}() would run code in the VM", node)
        recv = await self.value(node.target)
        if recv.sig != STRING_SIG:
            raise self.refuse(f"{node.name}() on {_type_name(recv.sig)} would run code in the VM", node)
        if node.name == "length":
            return _Code(recv.code + _op(Op.SLEN), "I", recv.need)
        if node.name == "isEmpty":
            return _Code(recv.code + _op(Op.SLEN) + _op(Op.NOT), "Z", recv.need)
        if node.name == "charAt":
            idx = await self.unboxed(node.args[0])
            if idx.sig not in "BCSI" or idx.sig == NULL_SIG:
                raise self.error(f"incompatible types: {_type_name(idx.sig)} cannot be converted to int", node.args[0])
            return _Code(recv.code + self.convert(idx, "I").code + _op(Op.SCHAR), "C", max(recv.need, 1 + idx.need))
        if node.name == "equals":
            arg = await self.value(node.args[0])
            if arg.cell not in "LK":  # equals(5): boxing; Java says false for a non-String
                raise self.refuse("equals() of a primitive boxes it: expressions create no objects", node)
            return _Code(recv.code + arg.code + _op(Op.SEQ), "Z", max(recv.need, 1 + arg.need))
        raise self.refuse(f"{node.name}() cannot run in the agent (only equals, length, isEmpty and charAt)", node)

    async def unary(self, op: str, o: Node, node: Node) -> _Code:
        v = await self.unboxed(o)
        if op == "!":
            if v.sig != "Z":
                raise self.error(f"bad operand type {_type_name(v.sig)} for unary operator '!'", node)
            return _Code(v.code + _op(Op.NOT), "Z", v.need)
        if v.sig not in _NUMERIC or v.sig == NULL_SIG or (op == "~" and v.sig not in _INTEGRAL):
            raise self.error(f"bad operand type {_type_name(v.sig)} for unary operator '{op}'", node)
        t = "I" if v.sig in "BCS" else v.sig
        v = self.convert(v, t)
        if op == "+":
            return v
        if op == "-":
            return _Code(v.code + _op(Op.ARITH, _u8(ord(t)), _u8(ArithOp.NEG)), t, v.need)
        minus1 = _const_i(-1) if t == "I" else _op(Op.CONST_J, struct.pack(">q", -1))
        return _Code(v.code + minus1 + _op(Op.ARITH, _u8(ord(t)), _u8(ArithOp.XOR)), t, v.need + 1)

    @staticmethod
    def promoted(a: str, b: str) -> str:
        for t in "DFJ":
            if t in (a, b):
                return t
        return "I"

    async def binary(self, op: str, left: Node, right: Node, node: Node) -> _Code:
        if op in ("&&", "||"):
            a, b = await self.unboxed(left), await self.unboxed(right)
            for c in (a, b):
                if c.sig != "Z":
                    raise self.error(f"bad operand types for binary operator '{op}' (first type: "
                                     f"{_type_name(a.sig)}, second type: {_type_name(b.sig)})", node)
            # a && b: a JMPF F; b; JMP E; F: 0; E.   a || b: a JMPT T; b; JMP E; T: 1; E.
            short = _const_i(0 if op == "&&" else 1)
            rest = b.code + _jump(Op.JMP, len(short))
            return _Code(a.code + _jump(Op.JMPF if op == "&&" else Op.JMPT, len(rest)) + rest + short, "Z",
                         max(a.need, b.need))
        if op in ("==", "!="):
            a, b = await self.value(left), await self.value(right)
            # Two references compare by identity (two Integers too, as Java does); else numerically.
            if a.cell in "LK" and b.cell in "LK":
                if a.sig == NULL_SIG and b.sig == NULL_SIG:
                    return _Code(_const_i(int(op == "==")), "Z", 1)
                if NULL_SIG in (a.sig, b.sig):
                    other = b if a.sig == NULL_SIG else a
                    if other.literal:
                        return _Code(_const_i(int(op == "!=")), "Z", 1)
                    code = other.code + _op(Op.ISNULL) + (_op(Op.NOT) if op == "!=" else b"")
                    return _Code(code, "Z", other.need)
                return _Code(a.code + b.code + _op(Op.ACMP, _u8(_CMP[op])), "Z", max(a.need, 1 + b.need))
            a, b = await self.unboxed(left), await self.unboxed(right)
            if a.sig == "Z" and b.sig == "Z":
                return _Code(a.code + b.code + _op(Op.CMP, _u8(ord("I")), _u8(_CMP[op])), "Z", max(a.need, 1 + b.need))
            if a.sig in _NUMERIC and b.sig in _NUMERIC and NULL_SIG not in (a.sig, b.sig):
                return self.compare(op, a, b)
            raise self.error(f"incomparable types: {_type_name(a.sig)} and {_type_name(b.sig)}", node)
        a, b = await self.unboxed(left), await self.unboxed(right)
        if op == "+" and (a.sig == STRING_SIG or b.sig == STRING_SIG):
            raise self.refuse("string concatenation makes a new String: expressions in the agent create no "
                              "objects", node)
        bad = self.error(f"bad operand types for binary operator '{op}' (first type: {_type_name(a.sig)}, "
                         f"second type: {_type_name(b.sig)})", node)
        if NULL_SIG in (a.sig, b.sig):
            raise bad
        if op in _CMP:
            if a.sig in _NUMERIC and b.sig in _NUMERIC:
                return self.compare(op, a, b)
            raise bad
        if op in ("&", "|", "^") and a.sig == "Z" and b.sig == "Z":
            return _Code(a.code + b.code + _op(Op.ARITH, _u8(ord("I")), _u8(_ARITH[op])), "Z", max(a.need, 1 + b.need))
        if op in ("<<", ">>", ">>>"):
            if a.sig not in _INTEGRAL or b.sig not in _INTEGRAL:
                raise bad
            t = "J" if a.sig == "J" else "I"
            a2 = self.convert(a, t)
            b2 = self.convert(b, "I")  # a long count: l2i, then the agent masks it
            return _Code(a2.code + b2.code + _op(Op.ARITH, _u8(ord(t)), _u8(_ARITH[op])), t, max(a.need, 1 + b.need))
        if a.sig not in _NUMERIC or b.sig not in _NUMERIC or (op in "&|^" and (a.sig not in _INTEGRAL
                                                                                or b.sig not in _INTEGRAL)):
            raise bad
        t = self.promoted(a.sig, b.sig)
        a2, b2 = self.convert(a, t), self.convert(b, t)
        return _Code(a2.code + b2.code + _op(Op.ARITH, _u8(ord(t)), _u8(_ARITH[op])), t, max(a.need, 1 + b.need))

    def compare(self, op: str, a: _Code, b: _Code) -> _Code:
        t = self.promoted(a.sig, b.sig)
        a2, b2 = self.convert(a, t), self.convert(b, t)
        return _Code(a2.code + b2.code + _op(Op.CMP, _u8(ord(t)), _u8(_CMP[op])), "Z", max(a.need, 1 + b.need))

    async def conditional(self, c: Node, t: Node, o: Node, node: Node) -> _Code:
        cond = await self.unboxed(c)
        if cond.sig != "Z":
            raise self.error(f"incompatible types: {_type_name(cond.sig)} cannot be converted to boolean", c)
        a, b = await self.value(t), await self.value(o)
        if a.cell in "LK" and b.cell in "LK":
            sig = a.sig if b.sig == NULL_SIG else b.sig if a.sig == NULL_SIG else (
                a.sig if a.sig == b.sig else "Ljava/lang/Object;")
            literal = a.literal and b.literal
        else:
            a, b = await self.unboxed(t), await self.unboxed(o)
            if a.sig == b.sig:
                sig = a.sig
            elif a.sig in _NUMERIC and b.sig in _NUMERIC:
                # JLS 15.25: byte/short/char pairs and constants that fit stay narrow; else promoted.
                sig = self.promoted(a.sig, b.sig)
                if {a.sig, b.sig} <= {"B", "S"}:
                    sig = "S"
                for x, y in ((a, b), (b, a)):
                    constant = t if y is a else o
                    if x.sig in "BSC" and y.sig == "I" and isinstance(constant, Literal):
                        value = primitive(constant.value)
                        lo, hi = {"B": (-128, 127), "S": (-32768, 32767), "C": (0, 65535)}[x.sig]
                        if lo <= value <= hi:
                            sig = x.sig
                a, b = self.convert(a, sig), self.convert(b, sig)
            else:
                raise self.refuse("a conditional mixing primitives and objects boxes: not in the agent", node)
            literal = False
        if literal:
            raise self.refuse("a conditional choosing between string literals cannot run in the agent", node)
        other = b.code
        then = a.code + _jump(Op.JMP, len(other))
        return _Code(cond.code + _jump(Op.JMPF, len(then)) + then + other, sig, max(cond.need, a.need, b.need))

    # ---- the program --------------------------------------------------------------------
    def program(self, body: _Code, exact: bool = False) -> bytes:
        if body.need > MAX_STACK:
            raise NotInAgent(f"expression too deeply nested for the agent (needs {body.need} stack cells, "
                             f"at most {MAX_STACK})", 1, self.text)
        code = body.code + _op(Op.END)
        if len(code) > MAX_CODE:
            raise NotInAgent("expression too long for the agent", 1, self.text)
        # A watch's result type says what an int on the stack is (a boolean, a char ...).
        tag = _tag(body.sig) if exact and not body.literal and body.sig != NULL_SIG else body.cell
        out = [_u8(ObjKind.CONDITION), _u8(ord(tag)),
               struct.pack(">Q", self.r.method_id if self.uses_frame else 0), _u16(body.need),
               _u16(len(self.classes))]
        out += [struct.pack(">Q", ref) for ref in self.classes]
        out.append(_u16(len(self.strings)))
        for s in self.strings:
            units = s.encode("utf-16-be", "surrogatepass")
            out.append(_u16(len(units) // 2) + units)
        out.append(struct.pack(">I", len(code)) + code)
        return b"".join(out)


async def compile_expression(text: str, resolver: Resolver) -> AgentProgram:
    """Any value (a watch expression): ExpressionError if it is not Java, NotInAgent if the agent cannot
    run it."""
    expr = parse(text)
    comp = _Compiler(text, resolver)
    body = await comp.value(expr.tree)
    return AgentProgram(comp.program(body, exact=True), body.sig, text)


async def compile_condition(text: str, resolver: Resolver) -> AgentProgram:
    """A boolean expression (or a Boolean, unboxed)."""
    expr = parse(text)
    comp = _Compiler(text, resolver)
    body = await comp.unboxed(expr.tree)
    if body.sig != "Z":
        raise ExpressionError(f"incompatible types: {_type_name(body.sig)} cannot be converted to boolean", 1, text)
    return AgentProgram(comp.program(body), "Z", text)
