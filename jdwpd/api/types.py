"""Classes, interfaces, arrays, methods, fields and code locations of a debugged VM.

Facts that cannot change while the class lives (signature, methods, fields, line and variable
tables, source name, supertypes) are fetched once per connection and kept in ``TypeCache``.

    cls = await vm.class_named("shop.Checkout")
    for m in await cls.methods():
        print(m.name, m.signature, await m.lines())
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import attrs

from protocol.constants import ErrorCode, TypeTag

from .errors import JdwpError

if TYPE_CHECKING:
    from .debuggee import Debuggee

__all__ = ["ReferenceType", "ClassType", "InterfaceType", "ArrayType", "Method", "Field", "Location", "Variable",
           "signature_to_name", "name_to_signature", "TypeCache"]

_PRIMITIVES = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float",
               "D": "double", "V": "void"}
_PRIMITIVE_SIGS = {v: k for k, v in _PRIMITIVES.items()}
ACC_STATIC = 0x0008
ACC_NATIVE = 0x0100
ACC_ABSTRACT = 0x0400
ACC_SYNTHETIC = 0x1000


def signature_to_name(sig: str) -> str:
    """``Lshop/Order;`` -> ``shop.Order``; ``[I`` -> ``int[]``; ``I`` -> ``int``."""
    dims = len(sig) - len(sig.lstrip("["))
    base = sig[dims:]
    name = base[1:-1].replace("/", ".") if base.startswith("L") else _PRIMITIVES.get(base, base)
    return name + "[]" * dims


def name_to_signature(name: str) -> str:
    """``shop.Order`` -> ``Lshop/Order;``; ``int[]`` -> ``[I``; ``int`` -> ``I``."""
    dims = name.count("[]")
    base = name.replace("[]", "").strip()
    sig = _PRIMITIVE_SIGS.get(base) or f"L{base.replace('.', '/')};"
    return "[" * dims + sig


def split_method_signature(sig: str) -> tuple[list[str], str]:
    """``(ILjava/lang/String;)V`` -> (["I", "Ljava/lang/String;"], "V")."""
    args: list[str] = []
    i = 1
    while sig[i] != ")":
        j = i
        while sig[j] == "[":
            j += 1
        j = sig.index(";", j) + 1 if sig[j] == "L" else j + 1
        args.append(sig[i:j])
        i = j
    return args, sig[i + 1:]


@attrs.frozen(eq=False)
class ReferenceType:
    """A loaded class, interface or array type (equal when the VM's type ID is)."""

    vm: Debuggee = attrs.field(repr=False)
    id: int
    signature: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReferenceType) and other.id == self.id and other.vm is self.vm

    def __hash__(self) -> int:
        return hash(self.id)

    @property
    def name(self) -> str:
        """The Java name: ``shop.Checkout$1``, ``int[]``."""
        return signature_to_name(self.signature)

    def __str__(self) -> str:
        return self.name

    async def methods(self) -> list[Method]:
        """The methods this type declares (not inherited ones), in the VM's order."""
        return await self.vm.types.methods(self)

    async def fields(self) -> list[Field]:
        """The fields this type declares (not inherited ones)."""
        return await self.vm.types.fields(self)

    async def all_fields(self) -> list[Field]:
        """Declared and inherited fields, the class's own first, then its superclasses' and interfaces'."""
        out: list[Field] = []
        for t in await self.vm.types.supertypes(self):
            out.extend(await t.fields())
        return out

    async def field(self, name: str) -> Field | None:
        """The field ``name`` of this type or its supertypes (the nearest one), or None."""
        for t in await self.vm.types.supertypes(self):
            for f in await t.fields():
                if f.name == name:
                    return f
        return None

    async def methods_named(self, name: str) -> list[Method]:
        """Methods called ``name`` here and in the supertypes, nearest first."""
        out: list[Method] = []
        for t in await self.vm.types.supertypes(self):
            out.extend(m for m in await t.methods() if m.name == name)
        return out

    async def source_name(self) -> str | None:
        """The source file's name (``Checkout.java``), None without debug information."""
        return await self.vm.types.source_name(self)

    async def superclass(self) -> ClassType | None:
        return await self.vm.types.superclass(self)

    async def interfaces(self) -> list[InterfaceType]:
        return await self.vm.types.interfaces(self)

    async def is_subtype_of(self, signature: str) -> bool:
        """Whether this type is, extends or implements the type of ``signature``."""
        return any(t.signature == signature for t in await self.vm.types.supertypes(self))

    async def get(self, name: str) -> Any:
        """The value of static field ``name``, converted as values are (see ``jdwpd.values``)."""
        f = await self.field(name)
        if f is None or not f.is_static:
            raise AttributeError(f"{self.name} has no static field {name!r}")
        return await f.read_static()

    async def set(self, name: str, value: Any) -> None:
        """Set static field ``name`` to ``value`` (converted to the field's type).  A final static
        is refused by the VM (JdwpError), as JDI's ``setValue`` is."""
        f = await self.field(name)
        if f is None or not f.is_static:
            raise AttributeError(f"{self.name} has no static field {name!r}")
        wire = await self.vm.values.to_wire(value, f.signature)
        await self.vm.conn.command("ClassType", "SetValues", clazz=f.declaring_type.id,
                                   values=[{"field_id": f.id, "value": (wire.tag, wire.value)}])

    async def class_loader(self) -> Any:
        r = await self.vm.conn.command("ReferenceType", "ClassLoader", ref_type=self.id)
        return await self.vm.values.from_wire(("l", r.class_loader)) if r.class_loader else None


class ClassType(ReferenceType):
    """A class (not an interface or array)."""


class InterfaceType(ReferenceType):
    """An interface."""


class ArrayType(ReferenceType):
    """An array type (``int[]``, ``java.lang.String[][]``)."""

    @property
    def component_signature(self) -> str:
        return self.signature[1:]


_TYPE_CLASSES: dict[int, type[ReferenceType]] = {TypeTag.CLASS: ClassType, TypeTag.INTERFACE: InterfaceType,
                                                 TypeTag.ARRAY: ArrayType}


@attrs.frozen(eq=False)
class _Member:
    """What a method and a field share: an id within its declaring type, a name, a signature."""

    declaring_type: ReferenceType
    id: int
    name: str
    signature: str
    modifiers: int = attrs.field(repr=False)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (other.id, other.declaring_type) == (self.id, self.declaring_type)

    def __hash__(self) -> int:
        return hash(self.id)

    @property
    def is_static(self) -> bool:
        return bool(self.modifiers & ACC_STATIC)


@attrs.frozen(eq=False)
class Method(_Member):
    """A method of a loaded type.  ``await m.lines()`` gives the lines that have code."""

    @property
    def has_code(self) -> bool:
        return not self.modifiers & (ACC_NATIVE | ACC_ABSTRACT)

    @property
    def argument_signatures(self) -> list[str]:
        return split_method_signature(self.signature)[0]

    @property
    def return_signature(self) -> str:
        return split_method_signature(self.signature)[1]

    @property
    def argument_type_names(self) -> list[str]:
        return [signature_to_name(s) for s in self.argument_signatures]

    def __str__(self) -> str:
        return f"{self.declaring_type.name}.{self.name}({','.join(self.argument_type_names)})"

    async def line_table(self) -> list[tuple[int, int]]:
        """(code index, line) pairs sorted by code index; empty for native/abstract methods or without -g."""
        return await self.declaring_type.vm.types.line_table(self)

    async def lines(self) -> list[int]:
        """The distinct lines with code, ascending."""
        return sorted({line for _, line in await self.line_table()})

    async def variables(self) -> list[Variable]:
        """The local variable table (arguments included); empty without -g."""
        return await self.declaring_type.vm.types.variables(self)

    async def location(self) -> Location:
        """The method's first line (where a method breakpoint stops)."""
        table = await self.line_table()
        index = min((i for i, _ in table), default=0)
        return await self.declaring_type.vm.types.location(self.declaring_type, self, index)


@attrs.frozen
class Variable:
    """An entry of a method's variable table: visible from ``start`` for ``length`` code units."""

    name: str
    signature: str
    slot: int
    start: int
    length: int
    is_argument: bool

    def visible_at(self, index: int) -> bool:
        return self.start <= index < self.start + self.length


@attrs.frozen(eq=False)
class Field(_Member):
    """A field of a loaded type."""

    @property
    def is_synthetic(self) -> bool:
        return bool(self.modifiers & ACC_SYNTHETIC)

    @property
    def type_name(self) -> str:
        return signature_to_name(self.signature)

    def __str__(self) -> str:
        return f"{self.declaring_type.name}.{self.name}"

    async def read_static(self) -> Any:
        vm = self.declaring_type.vm
        r = await vm.conn.command("ReferenceType", "GetValues", ref_type=self.declaring_type.id, fields=[self.id])
        return await vm.values.from_wire(r.values[0].value)


@attrs.frozen(eq=False)
class Location:
    """A code location: a method and a code index, with its line and source file where known.

    ``str(loc)`` reads as a Java stack trace line: ``shop.Checkout.pay(Checkout.java:42)``.
    """

    type: ReferenceType
    method: Method
    index: int
    line: int | None
    source: str | None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Location) and (other.method, other.index) == (self.method, self.index)

    def __hash__(self) -> int:
        return hash((self.method.id, self.index))

    @property
    def file_line(self) -> str:
        """``Checkout.java:42`` (``?`` where unknown)."""
        return f"{self.source or '?'}:{self.line if self.line is not None else '?'}"

    def __str__(self) -> str:
        where = self.file_line if self.line is not None else "Unknown Source"
        return f"{self.type.name}.{self.method.name}({where})"

    def to_wire(self) -> dict:
        tag = TypeTag.INTERFACE if isinstance(self.type, InterfaceType) else TypeTag.CLASS
        return {"type_tag": tag, "class_id": self.type.id, "method_id": self.method.id, "index": self.index}

    def to_python(self) -> dict:
        return {"class": self.type.name, "method": self.method.name, "signature": self.method.signature,
                "file": self.source, "line": self.line, "index": self.index}


class TypeCache:
    """Immutable class facts of one connection, each fetched once (concurrent askers share a fetch)."""

    def __init__(self, vm: Debuggee) -> None:
        self.vm = vm
        self._types: dict[int, ReferenceType] = {}
        self._facts: dict[tuple[str, int], Any] = {}

    async def _fact(self, kind: str, key: int, fetch: Any) -> Any:
        # Not shared between concurrent askers on purpose: a duplicate fetch is harmless and rare,
        # and a cancelled first asker must not leave the others waiting.
        try:
            return self._facts[(kind, key)]
        except KeyError:
            value = self._facts[(kind, key)] = await fetch()
            return value

    async def type(self, type_id: int, tag: int | None = None, signature: str | None = None) -> ReferenceType:
        """The ReferenceType of ``type_id`` (its signature asked once)."""
        t = self._types.get(type_id)
        if t is not None:
            return t
        if signature is None:
            signature = (await self.vm.conn.command("ReferenceType", "Signature", ref_type=type_id)).signature
        if tag is None:
            tag = TypeTag.ARRAY if signature.startswith("[") else None
            if tag is None:
                mods = (await self.vm.conn.command("ReferenceType", "Modifiers", ref_type=type_id)).mod_bits
                tag = TypeTag.INTERFACE if mods & 0x0200 else TypeTag.CLASS
        t = self._types[type_id] = _TYPE_CLASSES[int(tag)](self.vm, type_id, signature)
        return t

    async def methods(self, t: ReferenceType) -> list[Method]:
        async def fetch() -> list[Method]:
            r = await self.vm.conn.command("ReferenceType", "Methods", ref_type=t.id)
            return [Method(t, m.method_id, m.name, m.signature, m.mod_bits) for m in r.declared]
        return await self._fact("methods", t.id, fetch)

    async def fields(self, t: ReferenceType) -> list[Field]:
        async def fetch() -> list[Field]:
            r = await self.vm.conn.command("ReferenceType", "Fields", ref_type=t.id)
            return [Field(t, f.field_id, f.name, f.signature, f.mod_bits) for f in r.declared]
        return await self._fact("fields", t.id, fetch)

    async def pool_class_names(self, t: ReferenceType) -> list[str]:
        """The class names in ``t``'s constant pool (what its source imported and used); none
        where the server cannot give the pool."""
        from .constant_pool import class_names

        async def fetch() -> list[str]:
            try:
                r = await self.vm.conn.command("ReferenceType", "ConstantPool", ref_type=t.id)
            except JdwpError:
                return []
            return class_names(r.count, bytes(r.bytes))
        return await self._fact("pool", t.id, fetch)

    async def source_name(self, t: ReferenceType) -> str | None:
        async def fetch() -> str | None:
            try:
                return (await self.vm.conn.command("ReferenceType", "SourceFile", ref_type=t.id)).source_file
            except JdwpError as e:
                if e.code == ErrorCode.ABSENT_INFORMATION:
                    return None
                raise
        return await self._fact("source", t.id, fetch)

    async def superclass(self, t: ReferenceType) -> ClassType | None:
        if not isinstance(t, ClassType):
            if not isinstance(t, ArrayType):
                return None
            root = await self.type_named_sig("Ljava/lang/Object;")  # an array's superclass
            return root if isinstance(root, ClassType) else None

        async def fetch() -> ClassType | None:
            sid = (await self.vm.conn.command("ClassType", "Superclass", clazz=t.id)).superclass
            return cast(ClassType, await self.type(sid, TypeTag.CLASS)) if sid else None  # type() makes the tag's kind
        return await self._fact("super", t.id, fetch)

    async def interfaces(self, t: ReferenceType) -> list[InterfaceType]:
        if isinstance(t, ArrayType):
            return []

        async def fetch() -> list[InterfaceType]:
            r = await self.vm.conn.command("ReferenceType", "Interfaces", ref_type=t.id)
            return [cast(InterfaceType, await self.type(i.interface_type, TypeTag.INTERFACE)) for i in r.interfaces]
        return await self._fact("interfaces", t.id, fetch)

    async def supertypes(self, t: ReferenceType) -> list[ReferenceType]:
        """``t`` and every type it extends or implements, nearest first, each once."""
        async def fetch() -> list[ReferenceType]:
            out: list[ReferenceType] = []
            todo = [t]
            while todo:
                cur = todo.pop(0)
                if cur in out:
                    continue
                out.append(cur)
                sup = await self.superclass(cur)
                if sup is not None:
                    todo.append(sup)
                todo.extend(await self.interfaces(cur))
            return out
        return await self._fact("supertypes", t.id, fetch)

    async def line_table(self, m: Method) -> list[tuple[int, int]]:
        if not m.has_code:
            return []

        async def fetch() -> list[tuple[int, int]]:
            try:
                r = await self.vm.conn.command("Method", "LineTable", ref_type=m.declaring_type.id, method_id=m.id)
            except JdwpError as e:
                if e.code in (ErrorCode.ABSENT_INFORMATION, ErrorCode.NATIVE_METHOD):
                    return []
                raise
            return sorted((li.line_code_index, li.line_number) for li in r.lines)
        return await self._fact("lines", m.id, fetch)

    async def variables(self, m: Method) -> list[Variable]:
        if not m.has_code:
            return []

        async def fetch() -> list[Variable]:
            try:
                r = await self.vm.conn.command("Method", "VariableTable", ref_type=m.declaring_type.id,
                                               method_id=m.id)
            except JdwpError as e:
                if e.code in (ErrorCode.ABSENT_INFORMATION, ErrorCode.NATIVE_METHOD):
                    return []
                raise
            return [Variable(s.name, s.signature, s.slot, s.code_index, s.length, s.slot < r.arg_cnt)
                    for s in r.slots]
        return await self._fact("vars", m.id, fetch)

    async def method(self, t: ReferenceType, method_id: int) -> Method:
        for m in await self.methods(t):
            if m.id == method_id:
                return m
        raise KeyError(f"{t.name} has no method id {method_id}")

    async def location(self, t: ReferenceType, m: Method, index: int) -> Location:
        line = None
        for i, ln in await self.line_table(m):
            if i > index:
                break
            line = ln
        return Location(t, m, index, line, await self.source_name(t))

    async def location_from_wire(self, loc: Any) -> Location:
        t = await self.type(loc.class_id, loc.type_tag)
        return await self.location(t, await self.method(t, loc.method_id), loc.index)

    async def type_named_sig(self, signature: str) -> ReferenceType | None:
        """The first loaded type of ``signature`` (several loaders may have one each), or None."""
        found = await self.types_by_signature(signature)
        return found[0] if found else None

    async def types_by_signature(self, signature: str) -> list[ReferenceType]:
        r = await self.vm.conn.command("VirtualMachine", "ClassesBySignature", signature=signature)
        return [await self.type(c.type_id, c.ref_type_tag, signature) for c in r.classes]
