"""The code generator of protocol/messages.py: per IDSizes, a decoder and an encoder for each
message class, generated as Python source at the class's first use.

Why generated code: a generic interpreter walking the layout costs a Python call per field; here
each layout's consecutive fixed-size fields become one precompiled ``struct`` call and a string's
length rides along with the fields before it.  The generated source is kept on the function
(``__source__``) for debugging.

The classes are messages.py's; it hands them over as a ``MessageClasses`` (this module imports
nothing of it, so the import runs one way).  Untagged values are untagged_values.py's.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from .constants import OBJECT_TAGS
from .spec import ID_TYPES, CommandSpec
from .spec import Field as _FieldSpec
from .spec import Group as _GroupSpec
from .spec import Select as _SelectSpec
from .untagged_values import write_untagged_values
from .wire import (
    ID_CODES,
    DecodeError,
    EncodeError,
    IDSizes,
    Location,
    RawValues,
    TaggedObjectID,
    as_location,
    as_tagged_object,
    decode_failure,
    decode_mutf8,
    encode_jdwp_string,
    value_codec,
)

__all__ = ["Compiler", "MessageClasses"]

_I32 = struct.Struct(">i")
_U8 = struct.Struct(">B")
_WHAT = {"out": "command", "reply": "reply"}


# A class messages.py makes (a Message subclass, read for its __jdwp_fields__): the generator imports nothing
# of messages, so it sees them as classes of any kind.
MessageClass = type[Any]


@attrs.frozen
class MessageClasses:
    """Where the generator finds the classes it codes for (protocol/messages.py makes them)."""

    message: type  # the base of every message and group class
    command: Callable[[tuple[int, int, str]], MessageClass]  # (set, cmd, "out" | "reply") -> its top-level class
    alternative: Callable[[str, int], MessageClass]  # (select's name, kind) -> the alternative's class
    group: Callable[[MessageClass, _GroupSpec], MessageClass]  # (the class holding a repeat, its group) -> the group's


class _Fail(Exception):
    """Internal: a failure at a field path, turned into DecodeError/EncodeError at the top."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason


_LOW = (struct.error, IndexError, KeyError, ValueError, TypeError, OverflowError, AttributeError, UnicodeError)


def _explain_dec(e: BaseException, blen: int, pos: int, info: list) -> _Fail:
    if isinstance(e, (struct.error, IndexError)):
        left = blen - pos
        for name, end in info:
            if end > left:
                return _Fail(name, f"truncated: needs {end} bytes at offset {pos}, {left} left")
        return _Fail(info[-1][0], f"truncated at offset {pos}")
    return _Fail(info[0][0], decode_failure(e, b"", pos))


def _explain_enc(e: BaseException, info: list, local: dict) -> _Fail:
    # Slow path only: re-pack the run's values one by one to name the culprit.
    for name, code, expr in info:
        if code is None:
            continue
        try:
            value = eval(expr, {}, local)  # noqa: S307 - our own generated expression
        except Exception:  # noqa: BLE001 - not computable here; look at the next one
            continue
        try:
            struct.pack(">" + code, value)
        except Exception as inner:  # noqa: BLE001 - this is the culprit we are looking for
            return _Fail(name, f"{inner} (got {_short(value)})")
    names = "/".join(dict.fromkeys(n for n, _, _ in info))
    return _Fail(names, str(e) or type(e).__name__)


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) < 60 else r[:57] + "..."


def _norm(obj: Any, names: tuple, cls: MessageClass, message: type) -> tuple:
    """Field values of ``obj`` in declared order, from an instance, a Mapping or a tuple
    (``message``: the base of the message classes)."""
    if len(names) == 1:
        # A one-field group also takes its bare value.  Only our own message classes
        # count as "an instance": wire.Value has a ``value`` attribute too, and is the
        # bare value of ReferenceType.GetValues' one-field ``Value`` group.
        if isinstance(obj, Mapping):
            if names[0] in obj:
                return (obj[names[0]],)
            return (obj,)
        if isinstance(obj, message):
            return (getattr(obj, names[0]),)
        if isinstance(obj, (tuple, list)) and len(obj) == 1:
            return (obj[0],)
        return (obj,)
    if isinstance(obj, Mapping):
        out = []
        for n in names:
            try:
                out.append(obj[n])
            except KeyError:
                raise _Fail(n, "missing") from None
        return tuple(out)
    if isinstance(obj, (tuple, list)) and len(obj) == len(names):
        return tuple(obj)
    if names and all(hasattr(obj, n) for n in names):
        return tuple(getattr(obj, n) for n in names)
    if obj is None and not names:
        return ()
    raise _Fail("<item>", f"cannot encode {_short(obj)} as {cls.__name__}{names}")


def _as_bytes(v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    return bytes(v)  # a sequence of ints 0..255; ValueError/TypeError otherwise


class Compiler:
    """Generates and caches decoders and encoders for one IDSizes, of the classes ``classes`` finds."""

    def __init__(self, sizes: IDSizes, classes: MessageClasses) -> None:
        self.sizes = sizes
        self.classes = classes
        self.codec = value_codec(sizes)
        self.decoders: dict[MessageClass, Callable] = {}
        self.encoders: dict[MessageClass, Callable] = {}
        self.top_dec: dict[tuple, Callable] = {}
        self.top_enc: dict[tuple, Callable] = {}
        self.sel_dec: dict[str, dict] = {}
        self.sel_enc: dict[str, Callable] = {}

    def code(self, f: _FieldSpec) -> str:
        t = f.type
        if t == "byte":
            return "B"
        if t == "boolean":
            return "?"
        if t == "int":
            return "i"
        if t == "long":
            return "q"
        if t == "location":
            s = self.sizes
            return "B" + ID_CODES[s.reference_type_id] + ID_CODES[s.method_id] + "q"
        if t == "tagged-object":
            return "B" + ID_CODES[self.sizes.object_id]
        return ID_CODES[getattr(self.sizes, ID_TYPES[t])]

    def top_decoder(self, key: tuple[int, int, str]) -> Callable:
        """The decoder of a command's (set, cmd, direction) body, made at its first use."""
        dec = self.top_dec.get(key)
        if dec is None:
            dec = self.top_dec[key] = self.decoder(self.classes.command(key))
        return dec

    def top_encoder(self, key: tuple[int, int, str]) -> Callable:
        enc = self.top_enc.get(key)
        if enc is None:
            enc = self.top_enc[key] = self.encoder(self.classes.command(key))
        return enc

    def decode(self, spec: CommandSpec, direction: str, data: bytes) -> Any:
        """A command's (``direction`` "out") or a reply's body -> its message; DecodeError names the field."""
        key = (spec.set_id, spec.cmd_id, direction)
        dec = self.top_decoder(key)
        if type(data) is not bytes:
            data = bytes(data)
        try:
            obj, pos = dec(data, 0)
        except _Fail as x:
            raise DecodeError(f"{spec.label} {_WHAT[direction]}", x.field, x.reason) from None
        if pos != len(data):
            raise DecodeError(f"{spec.label} {_WHAT[direction]}", "<end>", f"{len(data) - pos} trailing bytes")
        return obj

    def encode(self, spec: CommandSpec, direction: str, msg: Any) -> bytes:
        """A command's or a reply's message (instance, Mapping or tuple) -> its body; EncodeError names the field."""
        key = (spec.set_id, spec.cmd_id, direction)
        enc = self.top_encoder(key)
        parts: list[bytes] = []
        try:
            enc(parts, msg)
        except _Fail as x:
            raise EncodeError(f"{spec.label} {_WHAT[direction]}", x.field, x.reason) from None
        return b"".join(parts)

    # ---- decoding

    def decoder(self, cls: MessageClass) -> Callable:
        d = self.decoders.get(cls)
        if d is None:
            d = self.decoders[cls] = self._gen_decoder(cls)
        return d

    def select_decoders(self, sel: _SelectSpec) -> dict:
        d = self.sel_dec.get(sel.name)
        if d is None:
            d = self.sel_dec[sel.name] = {}
            for alt in sel.alts:
                d[alt.kind] = self.decoder(self.classes.alternative(sel.name, alt.kind))
        return d

    def _gen(self, **names: Any) -> _Gen:
        """A generator whose code sees the names every decoder and encoder uses, and ``names``."""
        g = _Gen()
        g.ns.update(_Fail=_Fail, Location=Location, TaggedObjectID=TaggedObjectID, RawValues=RawValues,
                    OBJECT_TAGS=OBJECT_TAGS, _codec=self.codec, _LOW=_LOW, **names)
        return g

    def _gen_decoder(self, cls: MessageClass) -> Callable:
        g = self._gen(_mutf8=decode_mutf8, _make=cls, _explain=_explain_dec)
        run: list = []  # (_FieldSpec|_RepeatSpec, code, kind)
        out: list[str] = []

        def flush() -> list[tuple[Any, str, str]]:  # the tails: (element, kind, its count's variable)
            if not run:
                return []
            fmt = "".join(code for _, code, _ in run)
            s = struct.Struct(">" + fmt)
            unpack = g.const(s.unpack_from, "u")
            slots: list[str] = []
            info = []
            off = 0
            per_field = []
            for el, code, kind in run:
                n = len(code)
                vs = [g.var() for _ in range(n)]
                slots += vs
                off += struct.calcsize(">" + code)
                info.append((el.name, off))
                per_field.append((el, kind, vs))
            g.line(f"f = {g.info(info)}")
            g.line(f"{', '.join(slots)}, = {unpack}(buf, pos)")
            g.line(f"pos += {s.size}")
            tails = []
            for el, kind, vs in per_field:
                if kind == "location":
                    v = g.var()
                    g.line(f"{v} = Location({', '.join(vs)})")
                    out.append(v)
                elif kind == "tagged":
                    v = g.var()
                    g.line(f"if {vs[0]} not in OBJECT_TAGS:")
                    g.line(f"    raise _Fail({el.name!r}, 'tag %d is not an object tag' % {vs[0]})")
                    g.line(f"{v} = TaggedObjectID({vs[0]}, {vs[1]})")
                    out.append(v)
                elif kind in ("strlen", "count"):
                    tails.append((el, kind, vs[0]))
                else:
                    out.append(vs[0])
            run.clear()
            return tails

        for el in cls.__jdwp_fields__:
            if isinstance(el, _FieldSpec) and el.type in ("value", "typed-sequence"):
                self._dec_tails(g, flush(), out, cls)
                v = g.var()
                g.line(f"f = {g.info([(el.name, 1)])}")
                fn = "read_value" if el.type == "value" else "read_region"
                g.line(f"{v}, pos = _codec.{fn}(buf, pos)")
                out.append(v)
            elif isinstance(el, _FieldSpec) and el.type == "string":
                run.append((el, "i", "strlen"))
                self._dec_tails(g, flush(), out, cls)
            elif isinstance(el, _FieldSpec):
                kind = {"location": "location", "tagged-object": "tagged"}.get(el.type, "plain")
                run.append((el, self.code(el), kind))
            else:
                run.append((el, "i", "count"))
                self._dec_tails(g, flush(), out, cls)
        self._dec_tails(g, flush(), out, cls)
        g.final(f"return _make({', '.join(out)}), pos")
        return g.build(
            "dec",
            "buf, pos",
            prologue=["blen = len(buf)", "f = 0"],
            handler=["except _LOW as e:", "    raise _explain(e, blen, pos, _INFO[f]) from None"],
        )

    def _dec_tails(self, g: _Gen, tails: list, out: list, cls: MessageClass) -> None:
        for el, kind, n in tails:
            v = g.var()
            name = el.name
            if kind == "strlen":
                g.line(f"f = {g.info([(name, 0)])}")
                g.line(f"if {n} < 0:")
                g.line(f"    raise _Fail({name!r}, 'negative string length %d' % {n})")
                g.line(f"e = pos + {n}")
                g.line("if e > blen:")
                g.line(
                    f"    raise _Fail({name!r}, 'string of %d bytes overruns the body (%d left)' % ({n}, blen - pos))"
                )
                g.line("try:")
                g.line(f"    {v} = buf[pos:e].decode()")
                g.line("except UnicodeDecodeError:")
                g.line(f"    {v} = _mutf8(buf[pos:e])")
                g.line("pos = e")
                out.append(v)
                continue
            item = el.item
            g.line(f"f = {g.info([(name, 0)])}")
            g.line(f"if {n} < 0:")
            g.line(f"    raise _Fail({name!r}, 'negative count %d' % {n})")
            if isinstance(item, _FieldSpec) and item.type == "byte":
                g.line(f"e = pos + {n}")
                g.line("if e > blen:")
                g.line(f"    raise _Fail({name!r}, '%d bytes overrun the body (%d left)' % ({n}, blen - pos))")
                g.line(f"{v} = buf[pos:e]")
                g.line("pos = e")
            elif isinstance(item, _FieldSpec) or (
                isinstance(item, _GroupSpec) and any(_has_untagged_field(f) for f in item.fields)
            ):
                # untagged values: their sizes are not on the wire, so the rest of the body
                g.line(f"{v} = RawValues(buf[pos:], {n})")
                g.line("pos = blen")
            elif isinstance(item, _SelectSpec):
                sel = g.const(self.select_decoders(item), "sel")
                sname = item.selector.name
                g.line("lst = []")
                g.line("i = 0")
                g.line("try:")
                g.line(f"    for i in range({n}):")
                g.line("        if pos >= blen:")
                g.line(f"            raise _Fail({sname!r}, 'truncated')")
                g.line("        k = buf[pos]")
                g.line(f"        d = {sel}.get(k)")
                g.line("        if d is None:")
                g.line(f"            raise _Fail({sname!r}, 'unknown {item.selector.spec_name} %d' % k)")
                g.line("        o, pos = d(buf, pos + 1)")
                g.line("        lst.append(o)")
                g.line("except _Fail as x:")
                g.line(f"    raise _Fail('{name}[%d].%s' % (i, x.field), x.reason) from None")
                g.line(f"{v} = tuple(lst)")
            else:
                gcls = self.classes.group(cls, item)
                plain = all(isinstance(f, _FieldSpec) and f.type in _PLAIN for f in item.fields)
                if plain:
                    s = struct.Struct(">" + "".join(self.code(f) for f in item.fields))
                    it = g.const(s.iter_unpack, "it")
                    mk = g.const(gcls, "cls")
                    g.line(f"e = pos + {n} * {s.size}")
                    g.line("if e > blen:")
                    g.line(
                        f"    raise _Fail({name!r}, '%d items of {s.size} bytes overrun the body (%d left)'"
                        f" % ({n}, blen - pos))"
                    )
                    g.line(f"{v} = tuple([{mk}(*t) for t in {it}(buf[pos:e])])")
                    g.line("pos = e")
                else:
                    sub = g.const(self.decoder(gcls), "sub")
                    g.line("lst = []")
                    g.line("ap = lst.append")
                    g.line("i = 0")
                    g.line("try:")
                    g.line(f"    for i in range({n}):")
                    g.line(f"        o, pos = {sub}(buf, pos)")
                    g.line("        ap(o)")
                    g.line("except _Fail as x:")
                    g.line(f"    raise _Fail('{name}[%d].%s' % (i, x.field), x.reason) from None")
                    g.line(f"{v} = tuple(lst)")
            out.append(v)

    # ---- encoding

    def encoder(self, cls: MessageClass) -> Callable:
        e = self.encoders.get(cls)
        if e is None:
            e = self.encoders[cls] = self._gen_encoder(cls)
        return e

    def select_encoder(self, sel: _SelectSpec) -> Callable:
        e = self.sel_enc.get(sel.name)
        if e is None:
            e = self.sel_enc[sel.name] = _SelectEncoder(self, sel)
        return e

    def _gen_encoder(self, cls: MessageClass) -> Callable:
        fields = cls.__jdwp_fields__
        names = tuple(f.name for f in fields)
        g = self._gen(_mutf8=encode_jdwp_string, _cls=cls, _names=names, _norm=_norm, _message=self.classes.message,
                      _explain=_explain_enc,
                      as_location=as_location, _as_tagged=as_tagged_object, _as_bytes=_as_bytes,
                      _I32=_I32.pack, _U8=_U8.pack, _untagged=write_untagged_values)
        vs = [g.var() for _ in fields]
        if fields:
            g.line("f = 0")
            g.line("if type(obj) is _cls:")
            g.line(f"    {', '.join(vs)}, = {', '.join('obj.' + n for n in names)},")
            g.line("else:")
            g.line(f"    {', '.join(vs)}, = _norm(obj, _names, _cls, _message)")
        else:
            g.line("f = 0")
            g.line("if type(obj) is not _cls:")
            g.line("    _norm(obj, _names, _cls, _message)")
        run: list = []  # (name, code, expr)
        after: list[str] = []

        def flush() -> None:
            if run:
                fmt = "".join(c for _, c, _ in run)
                pack = g.const(struct.Struct(">" + fmt).pack, "p")
                g.line(f"f = {g.info(list(run))}")
                g.line(f"ap({pack}({', '.join(e for _, _, e in run)}))")
                run.clear()
            for line in after:
                g.line(line)
            after.clear()

        for el, v in zip(fields, vs, strict=True):
            name = el.name
            if isinstance(el, _FieldSpec):
                t = el.type
                if t in ("value", "typed-sequence"):
                    flush()
                    g.line(f"f = {g.info([(name, None, v)])}")
                    fn = "write_value" if t == "value" else "write_region"
                    g.line(f"_codec.{fn}(parts, {v})")
                elif t == "string":
                    s = g.var()
                    g.line(f"f = {g.info([(name, None, v)])}")
                    g.line(f"{s} = {v}.encode() if {v}.isascii() else _mutf8({v})")
                    run.append((name, "i", f"len({s})"))
                    flush()
                    g.line(f"ap({s})")
                elif t == "location":
                    lv = g.var()
                    g.line(f"f = {g.info([(name, None, v)])}")
                    g.line(f"{lv} = {v} if type({v}) is Location else as_location({v})")
                    code = self.code(el)
                    for c, a in zip(code, ("type_tag", "class_id", "method_id", "index"), strict=True):
                        run.append((name, c, f"{lv}.{a}"))
                elif t == "tagged-object":
                    tv = g.var()
                    g.line(f"f = {g.info([(name, None, v)])}")
                    g.line(f"{tv} = {v} if type({v}) is TaggedObjectID else _as_tagged({v})")
                    g.line(f"if {tv}.tag not in OBJECT_TAGS:")
                    g.line(f"    raise _Fail({name!r}, 'tag %r is not an object tag' % ({tv}.tag,))")
                    code = self.code(el)
                    run.append((name, code[0], f"{tv}.tag"))
                    run.append((name, code[1], f"{tv}.object_id"))
                else:
                    run.append((name, self.code(el), v))
                continue
            item = el.item
            if isinstance(item, _FieldSpec) and item.type == "byte":
                b = g.var()
                g.line(f"f = {g.info([(name, None, v)])}")
                g.line(f"{b} = _as_bytes({v})")
                run.append((name, "i", f"len({b})"))
                after.append(f"ap({b})")
                flush()
            elif isinstance(item, _FieldSpec):
                flush()
                g.line(f"f = {g.info([(name, None, v)])}")
                g.line(f"_untagged(parts, {v}, None, _codec)")
            elif isinstance(item, _GroupSpec) and any(_has_untagged_field(f) for f in item.fields):
                flush()
                g.line(f"f = {g.info([(name, None, v)])}")
                g.line(f"_untagged(parts, {v}, {ID_CODES[self.sizes.field_id]!r}, _codec)")
            else:
                if isinstance(item, _SelectSpec):
                    sub = g.const(self.select_encoder(item), "sel")
                else:
                    sub = g.const(self.encoder(self.classes.group(cls, item)), "sub")
                g.line(f"f = {g.info([(name, None, v)])}")
                g.line(f"if isinstance({v}, (str, bytes, Mapping)) or not isinstance({v}, Sequence):")
                g.line(f"    raise _Fail({name!r}, 'expected a sequence, got %s' % type({v}).__name__)")
                run.append((name, "i", f"len({v})"))
                flush()
                g.line("i = 0")
                g.line("try:")
                g.line(f"    for i, it in enumerate({v}):")
                g.line(f"        {sub}(parts, it)")
                g.line("except _Fail as x:")
                g.line(f"    raise _Fail('{name}[%d].%s' % (i, x.field), x.reason) from None")
        flush()
        g.ns.update(Mapping=Mapping, Sequence=Sequence)
        return g.build(
            "enc",
            "parts, obj",
            prologue=["ap = parts.append"],
            handler=["except _LOW as e:", "    raise _explain(e, _INFO[f], locals()) from None"],
        )


_PLAIN = {"byte", "boolean", "int", "long"} | set(ID_TYPES)



def _has_untagged_field(el: Any) -> bool:
    return isinstance(el, _FieldSpec) and el.type == "untagged-value"


class _SelectEncoder:
    """Encodes one alternative of a Select: selector byte, then the alternative's fields."""

    def __init__(self, comp: Compiler, sel: _SelectSpec) -> None:
        self.sel = sel
        self.comp = comp
        self.by_class = {}
        self.by_kind = {}
        for alt in sel.alts:
            cls = comp.classes.alternative(sel.name, alt.kind)
            self.by_kind[alt.kind] = cls
            self.by_class[cls] = (alt.kind, _U8.pack(alt.kind))
        self.key = sel.selector.name

    def __call__(self, parts: list, item: Any) -> None:
        hit = self.by_class.get(type(item))
        if hit is not None:
            kind, kb = hit
            cls = type(item)
        else:
            if isinstance(item, Mapping):
                try:
                    kind = item[self.key]
                except KeyError:
                    raise _Fail(self.key, "missing") from None
            elif isinstance(item, (tuple, list)) and item:
                kind, item = item[0], tuple(item[1:])
            else:
                raise _Fail(self.key, f"cannot encode {_short(item)} as a {self.sel.name}")
            found = self.by_kind.get(kind)
            if found is None:
                raise _Fail(self.key, f"unknown {self.sel.selector.spec_name} {kind!r}")
            cls = found
            kb = _U8.pack(kind)
        parts.append(kb)
        self.comp.encoder(cls)(parts, item)


class _Gen:
    """Accumulates the source of one generated function and the constants it refers to."""

    def __init__(self) -> None:
        self.ns: dict[str, Any] = {}
        self.lines: list[str] = []
        self.infos: list = []
        self.n = 0
        self.tail: list[str] = []

    def var(self) -> str:
        self.n += 1
        return f"v{self.n}"

    def const(self, obj: Any, prefix: str) -> str:
        name = f"_{prefix}{len(self.ns)}"
        self.ns[name] = obj
        return name

    def info(self, entry: list) -> int:
        self.infos.append(entry)
        return len(self.infos) - 1

    def line(self, text: str) -> None:
        self.lines.append(text)

    def final(self, text: str) -> None:
        self.tail.append(text)

    def build(self, name: str, args: str, prologue: list[str], handler: list[str]) -> Callable:
        if not self.infos:
            self.infos.append([("<body>", 0, None)])
        self.ns["_INFO"] = self.infos
        src = [f"def {name}({args}):"]
        src += ["    " + p for p in prologue]
        src.append("    try:")
        src += ["        " + ln for ln in (self.lines or ["pass"])]
        src += ["    " + h for h in handler]
        src += ["    " + t for t in self.tail]
        text = "\n".join(src) + "\n"
        exec(compile(text, f"<jdwp {name}>", "exec"), self.ns)  # noqa: S102 - generated from spec.py
        fn = self.ns[name]
        fn.__source__ = text
        return fn
