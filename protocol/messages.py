"""Typed JDWP messages, and their codecs in both directions, derived from spec.py.

Every layout of spec.py becomes a frozen attrs class (``VirtualMachine.IDSizes.Reply``,
``VirtualMachine.AllClasses.ClassInfo``, ``Events.Breakpoint``, ``Modifiers.Count`` ...)
and, per IDSizes, a generated decoder and encoder.  Why generated code: a generic
interpreter walking the layout costs a Python call per field; here each layout's
consecutive fixed-size fields become one precompiled ``struct`` call and a string's
length rides along with the fields before it.  The generated source is kept
on the function (``__source__``) for debugging.

Server side: ``decode_command`` + ``encode_reply``; client side: ``encode_command`` +
``decode_reply``; events: ``encode_composite`` / ``decode_composite``.  ``spec``
arguments must be entries of ``spec.COMMANDS`` (codecs are cached by set and
command number).
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import attrs

from . import spec as _spec
from .constants import OBJECT_TAGS, EventKind, ModKind

# Aliased: the command-set namespaces below are module globals too, and two sets
# are called Field and Event.
from .spec import ID_TYPES, CommandSpec
from .spec import Field as _FieldSpec
from .spec import Group as _GroupSpec
from .spec import Repeat as _RepeatSpec
from .spec import Select as _SelectSpec
from .wire import (
    DecodeError,
    EncodeError,
    IDSizes,
    Location,
    RawValues,
    TaggedObjectID,
    Value,
    _as_location,
    _as_tagged_object,
    _as_value,
    _reason,
    decode_mutf8,
    encode_jdwp_string,
    value_codec,
)

__all__ = [
    "Message",
    "EventMessage",
    "ModifierMessage",
    "Events",
    "Modifiers",
    "modifiers",
    "command_class",
    "reply_class",
    "decode_command",
    "encode_command",
    "decode_reply",
    "encode_reply",
    "decode_composite",
    "encode_composite",
    "decode_untagged_values",
    "namespace",
]

DEFAULT_SIZES = IDSizes()
_ID_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_I32 = struct.Struct(">i")
_U8 = struct.Struct(">B")


# ---------------------------------------------------------------- classes


def _no_values(_: Any) -> tuple:
    return ()


def _comparison(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
    def compare(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return op(self._values(self), self._values(other))

    return compare


class Message:
    """Base of every generated message and group class.

    Equality, ordering, hashing and repr are attrs' (same class, then the fields in order;
    ``Name(a=1, b=2)``), written once here rather than generated per class: generating them
    was 60% of making a class, and the daemon makes a command's classes at its first use."""

    __slots__ = ()
    __jdwp_fields__: ClassVar[tuple] = ()
    __jdwp_label__: ClassVar[str] = ""
    _values: ClassVar[Callable[[Any], tuple]] = staticmethod(_no_values)

    __eq__ = _comparison(operator.eq)
    __ne__ = _comparison(operator.ne)
    __lt__ = _comparison(operator.lt)
    __le__ = _comparison(operator.le)
    __gt__ = _comparison(operator.gt)
    __ge__ = _comparison(operator.ge)

    def __hash__(self) -> int:
        return hash((self.__class__, self._values(self)))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self.__jdwp_fields__)
        return f"{self.__class__.__name__}({inner})"


class EventMessage(Message):
    """Base of the Event.Composite alternatives; ``event_kind`` is a class attribute."""

    __slots__ = ()
    event_kind: ClassVar[EventKind]


class ModifierMessage(Message):
    """Base of the EventRequest.Set modifiers; ``mod_kind`` is a class attribute."""

    __slots__ = ()
    mod_kind: ClassVar[ModKind]


class _Namespace:
    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __repr__(self) -> str:
        return f"<messages namespace {self.__name__}>"


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    if not names:
        return _no_values
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda obj: (get(obj),)
    return operator.attrgetter(*names)


def _make_class(name: str, fields: tuple, label: str, base: type = Message) -> type:
    cls = attrs.make_class(
        name, {f.name: attrs.field() for f in fields}, bases=(base,), frozen=True, slots=True,
        eq=False, order=False, repr=False,  # Message's own
    )
    cls.__jdwp_fields__ = fields
    cls.__jdwp_label__ = label
    cls._values = staticmethod(_values_of(tuple(f.name for f in fields)))
    return cls


_GROUP_CLASSES: dict[tuple, type] = {}  # (scope, _GroupSpec) -> class
_TOP: dict[tuple[int, int, str], type] = {}  # (set, cmd, "out"/"reply") -> class
_ALT_CLASSES: dict[tuple[str, int], type] = {}  # (select name, kind) -> class

Events = _Namespace("Events")
Modifiers = _Namespace("Modifiers")
modifiers = Modifiers  # the spelling the daemon's code uses

for _sel, _ns, _base, _attr, _enum in (
    (_spec.EVENT_SELECT, Events, EventMessage, "event_kind", EventKind),
    (_spec.MODIFIER_SELECT, Modifiers, ModifierMessage, "mod_kind", ModKind),
):
    for _alt in _sel.alts:
        _cls = _make_class(_alt.name, _alt.fields, f"{_sel.name}.{_alt.name}", _base)
        setattr(_cls, _attr, _enum(_alt.kind))
        setattr(_ns, _alt.name, _cls)
        _ALT_CLASSES[(_sel.name, _alt.kind)] = _cls


def _group_classes(scope: str, layout: tuple, ns: _Namespace) -> None:
    for el in layout:
        if isinstance(el, _RepeatSpec) and isinstance(el.item, _GroupSpec):
            key = (scope, el.item)
            if key not in _GROUP_CLASSES:
                cls = _make_class(el.item.name, el.item.fields, f"{scope}.{el.item.name}")
                _GROUP_CLASSES[key] = cls
                if not hasattr(ns, el.item.name):
                    setattr(ns, el.item.name, cls)
            _group_classes(scope, el.item.fields, ns)


_CMD_NS: dict[tuple[int, int], _Namespace] = {}


def _build_command(cs: CommandSpec) -> _Namespace:
    """Create a command's classes on first use: making ~300 attrs classes at import costs ~0.1 s."""
    ns = _CMD_NS.get((cs.set_id, cs.cmd_id))
    if ns is not None:
        return ns
    ns = _Namespace(cs.label)
    for direction, layout, suffix in (("out", cs.out, "Command"), ("reply", cs.reply, "Reply")):
        cls = _make_class(f"{cs.set_name}{cs.name}{suffix}", layout, f"{cs.label} {suffix.lower()}")
        _TOP[(cs.set_id, cs.cmd_id, direction)] = cls
        setattr(ns, suffix, cls)
        _group_classes(f"{cs.label} {suffix.lower()}", layout, ns)
    _CMD_NS[(cs.set_id, cs.cmd_id)] = ns
    return ns


def _top(key: tuple[int, int, str]) -> type:
    cls = _TOP.get(key)
    if cls is None:
        _build_command(_spec.COMMANDS[key[:2]])
        cls = _TOP[key]
    return cls


class _SetNamespace(_Namespace):
    """A command set: ``VirtualMachine.IDSizes.Reply``; commands are built when first touched."""

    def __getattr__(self, name: str) -> _Namespace:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            cs = _spec.by_name(self.__name__, name)
        except KeyError:
            raise AttributeError(f"{self.__name__} has no command {name}") from None
        ns = _build_command(cs)
        setattr(self, name, ns)
        return ns


for _sname in _spec.COMMAND_SETS.values():
    globals()[_sname] = _SetNamespace(_sname)


def namespace(set_name: str) -> _Namespace:
    """The classes of one command set, e.g. ``namespace("VirtualMachine").IDSizes.Reply``."""
    return globals()[set_name]


def command_class(spec: CommandSpec) -> type:
    return _top((spec.set_id, spec.cmd_id, "out"))


def reply_class(spec: CommandSpec) -> type:
    return _top((spec.set_id, spec.cmd_id, "reply"))


# ---------------------------------------------------------------- code generation


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
    return _Fail(info[0][0], _reason(e, b"", pos))


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


def _norm(obj: Any, names: tuple, cls: type) -> tuple:
    """Field values of ``obj`` in declared order, from an instance, a Mapping or a tuple."""
    if len(names) == 1:
        # A one-field group also takes its bare value.  Only our own message classes
        # count as "an instance": wire.Value has a ``value`` attribute too, and is the
        # bare value of ReferenceType.GetValues' one-field ``Value`` group.
        if isinstance(obj, Mapping):
            if names[0] in obj:
                return (obj[names[0]],)
            return (obj,)
        if isinstance(obj, Message):
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


class _Compiler:
    """Generates and caches decoders and encoders for one IDSizes."""

    def __init__(self, sizes: IDSizes) -> None:
        self.sizes = sizes
        self.codec = value_codec(sizes)
        self.decoders: dict[type, Callable] = {}
        self.encoders: dict[type, Callable] = {}
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
            return "B" + _ID_CODES[s.reference_type_id] + _ID_CODES[s.method_id] + "q"
        if t == "tagged-object":
            return "B" + _ID_CODES[self.sizes.object_id]
        return _ID_CODES[getattr(self.sizes, ID_TYPES[t])]

    def top_decoder(self, key: tuple[int, int, str]) -> Callable:
        """The decoder of a command's (set, cmd, direction) body, made at its first use."""
        dec = self.top_dec.get(key)
        if dec is None:
            dec = self.top_dec[key] = self.decoder(_top(key))
        return dec

    def top_encoder(self, key: tuple[int, int, str]) -> Callable:
        enc = self.top_enc.get(key)
        if enc is None:
            enc = self.top_enc[key] = self.encoder(_top(key))
        return enc

    # ---- decoding

    def decoder(self, cls: type) -> Callable:
        d = self.decoders.get(cls)
        if d is None:
            d = self.decoders[cls] = self._gen_decoder(cls)
        return d

    def select_decoders(self, sel: _SelectSpec) -> dict:
        d = self.sel_dec.get(sel.name)
        if d is None:
            d = self.sel_dec[sel.name] = {}
            for alt in sel.alts:
                d[alt.kind] = self.decoder(_ALT_CLASSES[(sel.name, alt.kind)])
        return d

    def _gen(self, **names: Any) -> _Gen:
        """A generator whose code sees the names every decoder and encoder uses, and ``names``."""
        g = _Gen()
        g.ns.update(_Fail=_Fail, Location=Location, TaggedObjectID=TaggedObjectID, RawValues=RawValues,
                    OBJECT_TAGS=OBJECT_TAGS, _codec=self.codec, _LOW=_LOW, **names)
        return g

    def _gen_decoder(self, cls: type) -> Callable:
        g = self._gen(_mutf8=decode_mutf8, _make=cls, _explain=_explain_dec)
        run: list = []  # (_FieldSpec|_RepeatSpec, code, kind)
        out: list[str] = []

        def flush() -> list[str]:
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
                self._dec_tails(g, flush(), out)
                v = g.var()
                g.line(f"f = {g.info([(el.name, 1)])}")
                fn = "read_value" if el.type == "value" else "read_region"
                g.line(f"{v}, pos = _codec.{fn}(buf, pos)")
                out.append(v)
            elif isinstance(el, _FieldSpec) and el.type == "string":
                run.append((el, "i", "strlen"))
                self._dec_tails(g, flush(), out)
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

    def _dec_tails(self, g: _Gen, tails: list, out: list, cls: type | None = None) -> None:
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
                gcls = _GROUP_CLASSES[(_scope(cls), item)]
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

    def encoder(self, cls: type) -> Callable:
        e = self.encoders.get(cls)
        if e is None:
            e = self.encoders[cls] = self._gen_encoder(cls)
        return e

    def select_encoder(self, sel: _SelectSpec) -> Callable:
        e = self.sel_enc.get(sel.name)
        if e is None:
            e = self.sel_enc[sel.name] = _SelectEncoder(self, sel)
        return e

    def _gen_encoder(self, cls: type) -> Callable:
        fields = cls.__jdwp_fields__
        names = tuple(f.name for f in fields)
        g = self._gen(_mutf8=encode_jdwp_string, _cls=cls, _names=names, _norm=_norm, _explain=_explain_enc,
                      _as_location=_as_location, _as_tagged=_as_tagged_object, _as_bytes=_as_bytes,
                      _I32=_I32.pack, _U8=_U8.pack, _untagged=_enc_untagged)
        vs = [g.var() for _ in fields]
        if fields:
            g.line("f = 0")
            g.line("if type(obj) is _cls:")
            g.line(f"    {', '.join(vs)}, = {', '.join('obj.' + n for n in names)},")
            g.line("else:")
            g.line(f"    {', '.join(vs)}, = _norm(obj, _names, _cls)")
        else:
            g.line("f = 0")
            g.line("if type(obj) is not _cls:")
            g.line("    _norm(obj, _names, _cls)")
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
                    g.line(f"{lv} = {v} if type({v}) is Location else _as_location({v})")
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
                g.line(f"_untagged(parts, {v}, {_ID_CODES[self.sizes.field_id]!r}, _codec)")
            else:
                if isinstance(item, _SelectSpec):
                    sub = g.const(self.select_encoder(item), "sel")
                else:
                    sub = g.const(self.encoder(_GROUP_CLASSES[(_scope(cls), item)]), "sub")
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

_scope_cache: dict[type, str] = {}


def _scope(cls: type) -> str:
    """The scope label under which ``cls``' nested groups were registered."""
    s = _scope_cache.get(cls)
    if s is None:
        label = cls.__jdwp_label__
        # group labels are "<scope>.<GroupName>"; top-level labels are the scope itself
        s = label if (label.endswith(" command") or label.endswith(" reply")) else label.rsplit(".", 1)[0]
        _scope_cache[cls] = s
    return s


def _has_untagged_field(el: Any) -> bool:
    return isinstance(el, _FieldSpec) and el.type == "untagged-value"


class _SelectEncoder:
    """Encodes one alternative of a Select: selector byte, then the alternative's fields."""

    def __init__(self, comp: _Compiler, sel: _SelectSpec) -> None:
        self.sel = sel
        self.comp = comp
        self.by_class = {}
        self.by_kind = {}
        for alt in sel.alts:
            cls = _ALT_CLASSES[(sel.name, alt.kind)]
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
            cls = self.by_kind.get(kind)
            if cls is None:
                raise _Fail(self.key, f"unknown {self.sel.selector.spec_name} {kind!r}")
            kb = _U8.pack(kind)
        parts.append(kb)
        self.comp.encoder(cls)(parts, item)


def _enc_untagged(parts: list, v: Any, field_code: str | None, codec: Any) -> None:
    """Write a repeat of untagged values: from RawValues as is, else from Values / (field_id, Value) pairs."""
    if isinstance(v, RawValues):
        parts.append(_I32.pack(v.count))
        parts.append(bytes(v.data))
        return
    if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Sequence):
        raise TypeError(f"expected RawValues or a sequence, got {type(v).__name__}")
    parts.append(_I32.pack(len(v)))
    if field_code is None:
        for val in v:
            val = _as_value(val)
            codec.write_untagged(parts, val.value, val.tag)
        return
    fs = struct.Struct(">" + field_code)
    for pair in v:
        if isinstance(pair, Mapping):
            fid, val = pair["field_id"], pair["value"]
        elif isinstance(pair, (tuple, list)):
            fid, val = pair
        else:
            fid, val = pair.field_id, pair.value
        val = _as_value(val)
        parts.append(fs.pack(fid))
        codec.write_untagged(parts, val.value, val.tag)


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


_COMPILERS: dict[IDSizes, _Compiler] = {}


def _compiler(sizes: IDSizes | None) -> _Compiler:
    if sizes is None:
        sizes = DEFAULT_SIZES
    c = _COMPILERS.get(sizes)
    if c is None:
        c = _COMPILERS[sizes] = _Compiler(sizes)
    return c


# ---------------------------------------------------------------- public codecs


def _decode(spec: CommandSpec, direction: str, data: bytes, sizes: IDSizes | None) -> Any:
    comp = _compiler(sizes)
    key = (spec.set_id, spec.cmd_id, direction)
    dec = comp.top_decoder(key)
    if type(data) is not bytes:
        data = bytes(data)
    try:
        obj, pos = dec(data, 0)
    except _Fail as x:
        raise DecodeError(f"{spec.label} {_WHAT[direction]}", x.field, x.reason) from None
    if pos != len(data):
        raise DecodeError(f"{spec.label} {_WHAT[direction]}", "<end>", f"{len(data) - pos} trailing bytes")
    return obj


def _encode(spec: CommandSpec, direction: str, msg: Any, sizes: IDSizes | None) -> bytes:
    comp = _compiler(sizes)
    key = (spec.set_id, spec.cmd_id, direction)
    enc = comp.top_encoder(key)
    parts: list[bytes] = []
    try:
        enc(parts, msg)
    except _Fail as x:
        raise EncodeError(f"{spec.label} {_WHAT[direction]}", x.field, x.reason) from None
    return b"".join(parts)


_WHAT = {"out": "command", "reply": "reply"}


def decode_command(spec: CommandSpec, data: bytes, sizes: IDSizes | None = None) -> Any:
    """Server side: a command packet's data -> the command's message instance."""
    return _decode(spec, "out", data, sizes)


def encode_reply(spec: CommandSpec, reply: Any, sizes: IDSizes | None = None) -> bytes:
    """Server side: a reply (instance, Mapping of snake_case names, or tuple in declared order) -> data."""
    return _encode(spec, "reply", reply, sizes)


def encode_command(spec: CommandSpec, fields: Any = None, sizes: IDSizes | None = None) -> bytes:
    """Client side: a command (instance, Mapping or tuple) -> data."""
    return _encode(spec, "out", fields, sizes)


def decode_reply(spec: CommandSpec, data: bytes, sizes: IDSizes | None = None) -> Any:
    """Client side: a reply packet's data -> the reply's message instance."""
    return _decode(spec, "reply", data, sizes)


COMPOSITE = _spec.by_name("Event", "Composite")


def encode_composite(suspend_policy: int, events: Sequence[Any], sizes: IDSizes | None = None) -> bytes:
    """Event.Composite data.  Events: ``Events.*`` instances, or Mappings with ``event_kind``."""
    return _encode(COMPOSITE, "out", (suspend_policy, events), sizes)


def decode_composite(data: bytes, sizes: IDSizes | None = None) -> tuple[int, tuple]:
    msg = _decode(COMPOSITE, "out", data, sizes)
    return msg.suspend_policy, msg.events


def prepare_server(spec: CommandSpec, sizes: IDSizes | None = None) -> None:
    """Make now what a server's first use of this command would make: its command's decoder and
    its reply's encoder (0.2-2 ms of class and code generation, paid once per process)."""
    comp = _compiler(sizes)
    comp.top_decoder((spec.set_id, spec.cmd_id, "out"))
    comp.top_encoder((spec.set_id, spec.cmd_id, "reply"))


def prepare_event(kind: int, sizes: IDSizes | None = None) -> None:
    """Make now what the first composite carrying an event of this kind would make."""
    comp = _compiler(sizes)
    comp.top_encoder((COMPOSITE.set_id, COMPOSITE.cmd_id, "out"))
    comp.encoder(_ALT_CLASSES[(_spec.EVENT_SELECT.name, kind)])


def server_prepared(spec: CommandSpec, sizes: IDSizes | None = None) -> bool:
    comp = _compiler(sizes)
    return all((spec.set_id, spec.cmd_id, d) in t for d, t in (("out", comp.top_dec), ("reply", comp.top_enc)))


def event_prepared(kind: int, sizes: IDSizes | None = None) -> bool:
    return _ALT_CLASSES[(_spec.EVENT_SELECT.name, kind)] in _compiler(sizes).encoders


def decode_untagged_values(raw: RawValues, resolve: Callable[[int], int] | int, sizes: IDSizes | None = None) -> list:
    """Finish decoding a SetValues body once the types are known.

    ``resolve`` is a function field_id -> tag for (fieldID, value) pairs
    (ClassType/ObjectReference.SetValues), returning ``[(field_id, Value), ...]``;
    or a fixed tag for ArrayReference.SetValues, returning ``[Value, ...]``.
    Exceptions raised by ``resolve`` propagate unchanged (an unknown field is the
    caller's INVALID_FIELDID, not a protocol error).
    """
    sizes = sizes or DEFAULT_SIZES
    codec = value_codec(sizes)
    buf = bytes(raw.data)
    pos = 0
    out: list = []
    pairs = callable(resolve)
    fs = struct.Struct(">" + _ID_CODES[sizes.field_id])
    i = 0
    field = "value"
    try:
        if raw.count < 0:
            raise ValueError(f"negative count {raw.count}")
        for i in range(raw.count):  # noqa: B007 - i names the failing item
            if pairs:
                field = "field_id"
                (fid,) = fs.unpack_from(buf, pos)
                pos += fs.size
                tag = resolve(fid)  # type: ignore[operator]
                field = "value"
                v, pos = codec.read_untagged(buf, pos, tag)
                out.append((fid, Value(tag, v)))
            else:
                field = "value"
                v, pos = codec.read_untagged(buf, pos, resolve)  # type: ignore[arg-type]
                out.append(Value(resolve, v))  # type: ignore[arg-type]
    except (struct.error, IndexError, ValueError, KeyError) as e:
        raise DecodeError("untagged values", f"values[{i}].{field}", _reason(e, buf, pos)) from None
    if pos != len(buf):
        raise DecodeError("untagged values", "<end>", f"{len(buf) - pos} trailing bytes")
    return out
