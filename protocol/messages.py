"""Typed JDWP messages, and their codecs in both directions, derived from spec.py.

Every layout of spec.py becomes a frozen attrs class (``VirtualMachine.IDSizes.Reply``,
``VirtualMachine.AllClasses.ClassInfo``, ``Events.Breakpoint``, ``Modifiers.Count`` ...)
and, per IDSizes, a generated decoder and encoder (message_codecs.py, the generator).

Server side: ``decode_command`` + ``encode_reply``; client side: ``encode_command`` +
``decode_reply``; events: ``encode_composite`` / ``decode_composite``.  ``spec``
arguments must be entries of ``spec.COMMANDS`` (codecs are cached by set and
command number).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from . import spec as _spec
from .constants import EventKind, ModKind
from .message_codecs import Compiler, MessageClasses
from .spec import CommandSpec
from .spec import Group as _GroupSpec  # aliased: the command sets below are module globals too
from .spec import Repeat as _RepeatSpec
from .untagged_values import decode_untagged_values
from .wire import DecodeError as DecodeError  # the wire's types, importable from here as before the generator moved
from .wire import EncodeError as EncodeError
from .wire import IDSizes
from .wire import Location as Location
from .wire import RawValues as RawValues
from .wire import TaggedObjectID as TaggedObjectID
from .wire import Value as Value

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
    # (obj) -> its fields' values.  `...`: a checker takes a Callable class attribute for a method bound to
    # the instance; a staticmethod is not bound.
    _values: ClassVar[Callable[..., tuple]] = staticmethod(_no_values)

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


def _make_class(name: str, fields: tuple, label: str, base: type[Message] = Message) -> type[Message]:
    cls: type[Message] = attrs.make_class(
        name, {f.name: attrs.field() for f in fields}, bases=(base,), frozen=True, slots=True,
        eq=False, order=False, repr=False,  # Message's own
    )
    cls.__jdwp_fields__ = fields
    cls.__jdwp_label__ = label
    cls._values = staticmethod(_values_of(tuple(f.name for f in fields)))
    return cls


_GROUP_CLASSES: dict[tuple, type[Message]] = {}  # (scope, _GroupSpec) -> class
_TOP: dict[tuple[int, int, str], type[Message]] = {}  # (set, cmd, "out"/"reply") -> class
ALTERNATIVE_CLASSES: dict[tuple[str, int], type[Message]] = {}  # (select name, kind) -> class

if TYPE_CHECKING:
    # The classes are made at run time (below, and the command sets' on first use): a checker reads
    # them from the stub generated from the same table (protocol/gen_message_types.py).
    from .message_types import *  # noqa: F403
else:
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
        ALTERNATIVE_CLASSES[(_sel.name, _alt.kind)] = _cls


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


def _top(key: tuple[int, int, str]) -> type[Message]:
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


def command_class(spec: CommandSpec) -> type[Message]:
    return _top((spec.set_id, spec.cmd_id, "out"))


def reply_class(spec: CommandSpec) -> type[Message]:
    return _top((spec.set_id, spec.cmd_id, "reply"))


# ---------------------------------------------------------------- their codecs

_scope_cache: dict[type[Message], str] = {}


def _scope(cls: type[Message]) -> str:
    """The scope label under which ``cls``' nested groups were registered."""
    s = _scope_cache.get(cls)
    if s is None:
        label = cls.__jdwp_label__
        # group labels are "<scope>.<GroupName>"; top-level labels are the scope itself
        s = label if (label.endswith(" command") or label.endswith(" reply")) else label.rsplit(".", 1)[0]
        _scope_cache[cls] = s
    return s


def _group_class(owner: type[Message], group: _GroupSpec) -> type[Message]:
    return _GROUP_CLASSES[(_scope(owner), group)]


def _alternative_class(select: str, kind: int) -> type[Message]:
    return ALTERNATIVE_CLASSES[(select, kind)]


_CLASSES = MessageClasses(message=Message, command=_top, alternative=_alternative_class, group=_group_class)
_COMPILERS: dict[IDSizes, Compiler] = {}


def _compiler(sizes: IDSizes | None) -> Compiler:
    if sizes is None:
        sizes = DEFAULT_SIZES
    c = _COMPILERS.get(sizes)
    if c is None:
        c = _COMPILERS[sizes] = Compiler(sizes, _CLASSES)
    return c


# ---------------------------------------------------------------- public codecs


def decode_command(spec: CommandSpec, data: bytes, sizes: IDSizes | None = None) -> Any:
    """Server side: a command packet's data -> the command's message instance."""
    return _compiler(sizes).decode(spec, "out", data)


def encode_reply(spec: CommandSpec, reply: Any, sizes: IDSizes | None = None) -> bytes:
    """Server side: a reply (instance, Mapping of snake_case names, or tuple in declared order) -> data."""
    return _compiler(sizes).encode(spec, "reply", reply)


def encode_command(spec: CommandSpec, fields: Any = None, sizes: IDSizes | None = None) -> bytes:
    """Client side: a command (instance, Mapping or tuple) -> data."""
    return _compiler(sizes).encode(spec, "out", fields)


def decode_reply(spec: CommandSpec, data: bytes, sizes: IDSizes | None = None) -> Any:
    """Client side: a reply packet's data -> the reply's message instance."""
    return _compiler(sizes).decode(spec, "reply", data)


COMPOSITE = _spec.by_name("Event", "Composite")


def encode_composite(suspend_policy: int, events: Sequence[Any], sizes: IDSizes | None = None) -> bytes:
    """Event.Composite data.  Events: ``Events.*`` instances, or Mappings with ``event_kind``."""
    return _compiler(sizes).encode(COMPOSITE, "out", (suspend_policy, events))


def decode_composite(data: bytes, sizes: IDSizes | None = None) -> tuple[int, tuple]:
    msg = _compiler(sizes).decode(COMPOSITE, "out", data)
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
    comp.encoder(ALTERNATIVE_CLASSES[(_spec.EVENT_SELECT.name, kind)])


def server_prepared(spec: CommandSpec, sizes: IDSizes | None = None) -> bool:
    comp = _compiler(sizes)
    return all((spec.set_id, spec.cmd_id, d) in t for d, t in (("out", comp.top_dec), ("reply", comp.top_enc)))


def event_prepared(kind: int, sizes: IDSizes | None = None) -> bool:
    return ALTERNATIVE_CLASSES[(_spec.EVENT_SELECT.name, kind)] in _compiler(sizes).encoders
