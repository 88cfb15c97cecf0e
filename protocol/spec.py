"""The JDWP command table, declared once as data; messages.py derives every codec from it.

Layout notation (the tables live in spec_vm.py, spec_objects.py, spec_events.py; jdwpd's vendor
extension in spec_ext.py):

    out/reply := element, element, ...            (empty string: no body)
    element   := TYPE specName                    one field
               | repeat specName: ITEM            int count, then count ITEMs
    ITEM      := GroupName(element, ...)          a group of fields
               | TYPE specName                    a one-field group
               | select SelectName                selector byte + the chosen alternative

TYPE is the spec's own type word: byte boolean int long string, object threadObject
threadGroupObject stringObject classLoaderObject classObject arrayObject moduleID
(object ID size), referenceType referenceTypeID classType interfaceType arrayType
(reference type ID size), method field frame, location tagged-object value
untagged-value typed-sequence.

Python names.  Every field is the spec name in snake_case: an "_" goes before an
upper-case letter that follows a lower-case letter or digit, then everything is
lower-cased (refTypeTag -> ref_type_tag, typeID -> type_id, fieldIDSize ->
field_idsize, stack_depth stays).  A name that is a Python keyword gets a trailing
"_" (none in the current spec; the rule is there so a future one cannot break
the generated classes).

Repeats.  A repeat decodes to a tuple of small frozen group instances, also when
the group has a single field: AllThreads' reply is ``threads=(Thread(thread=1),
...)``; a one-field group's class is named after its field in CamelCase.  Two
exceptions, because a tuple of objects per byte would be absurd and because the
types are not on the wire: a repeat of ``byte`` (class files, constant pool,
bytecodes) is ``bytes``; a repeat containing ``untagged-value`` (the SetValues
commands) is ``wire.RawValues`` (see messages.decode_untagged_values).
Encoders accept, for each group item, an instance, a Mapping of snake_case names,
a tuple in declared order or, for a one-field group, the bare value.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

import attrs

from . import spec_events, spec_ext, spec_objects, spec_vm

__all__ = [
    "Field",
    "Group",
    "Repeat",
    "Alt",
    "Select",
    "CommandSpec",
    "COMMANDS",
    "COMMAND_SETS",
    "MODIFIER_SELECT",
    "EVENT_SELECT",
    "lookup",
    "by_name",
    "having",
    "snake_case",
    "parse_layout",
    "ID_TYPES",
]

# spec type word -> IDSizes attribute
ID_TYPES = {
    "object": "object_id",
    "threadObject": "object_id",
    "threadGroupObject": "object_id",
    "stringObject": "object_id",
    "classLoaderObject": "object_id",
    "classObject": "object_id",
    "arrayObject": "object_id",
    "moduleID": "object_id",
    "referenceType": "reference_type_id",
    "referenceTypeID": "reference_type_id",
    "classType": "reference_type_id",
    "interfaceType": "reference_type_id",
    "arrayType": "reference_type_id",
    "method": "method_id",
    "field": "field_id",
    "frame": "frame_id",
}
SCALAR_TYPES = {"byte", "boolean", "int", "long", "string"}
COMPOUND_TYPES = {"location", "tagged-object", "value", "untagged-value", "typed-sequence"}
TYPES = SCALAR_TYPES | COMPOUND_TYPES | set(ID_TYPES)


@attrs.frozen
class Field:
    name: str  # snake_case attribute name
    spec_name: str
    type: str  # the spec's type word


@attrs.frozen
class Group:
    name: str  # class name
    fields: tuple  # of Field | Repeat


@attrs.frozen
class Alt:
    kind: int
    name: str
    fields: tuple


@attrs.frozen
class Select:
    name: str
    selector: Field
    alts: tuple  # of Alt

    def alt(self, kind: int) -> Alt | None:
        for a in self.alts:
            if a.kind == kind:
                return a
        return None


@attrs.frozen
class Repeat:
    name: str
    spec_name: str
    item: Group | Select | Field  # Field only for byte and untagged-value


Element = Field | Repeat


@attrs.frozen
class CommandSpec:
    set_id: int
    cmd_id: int
    set_name: str
    name: str
    out: tuple  # layout of the command's data
    reply: tuple  # layout of the reply's data
    # The trait columns: a row's optional fifth item names them, e.g. "mutating inline_after_reply".
    # Changes what later commands see: it runs after every command before it has been answered,
    # and the commands after it wait for it (the daemon's session ordering).
    mutating: bool = False
    # Runs user code on a suspended thread for as long as it takes: ordered after the changes
    # before it, holding up nothing after it (as the reference's command loop goes on meanwhile).
    invokes: bool = False
    # Changes program state (values, code, objects, control flow): a read-only daemon refuses it.
    # Suspension and breakpoints are not: a debugger that leaves takes them back.
    changes_state: bool = False
    # Once its link replies are in, the command only computes or sends more requests: the task that
    # reads the reply may go on with it and answer it (jdwpd/daemon/fast/inline.py).
    inline_after_reply: bool = False
    # Whether its reply bytes may be repeated (jdwpd/daemon/fast/memo.py): "fact" until a class is redefined
    # or unloaded, "frozen" while the thread (or the whole VM) stays held; None: never.
    memo: str | None = None

    @property
    def label(self) -> str:
        return f"{self.set_name}.{self.name}"


_FLAG_TRAITS = ("mutating", "invokes", "changes_state", "inline_after_reply")
_MEMO_KINDS = ("fact", "frozen")


def _traits(label: str, words: str) -> dict[str, Any]:  # keyword arguments of CommandSpec
    out: dict[str, Any] = {}
    for word in words.split():
        name, _, value = word.partition("=")
        if name in _FLAG_TRAITS and not value:
            out[name] = True
        elif name == "memo" and value in _MEMO_KINDS:
            out[name] = value
        else:
            raise ValueError(f"{label}: unknown trait {word!r}")
    return out


_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake_case(spec_name: str) -> str:
    s = _SNAKE.sub("_", spec_name).lower().replace("-", "_")
    return s + "_" if keyword.iskeyword(s) else s


def _camel(spec_name: str) -> str:
    return spec_name[:1].upper() + spec_name[1:]


_TOKEN = re.compile(r"\s*(?:([A-Za-z_][\w-]*)|([(),:]))")


class _Parser:
    def __init__(self, text: str, selects: dict[str, Select]) -> None:
        self.tokens = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise ValueError(f"bad layout text at {text[pos:]!r}")
            self.tokens.append(m.group(1) or m.group(2))
            pos = m.end()
        self.i = 0
        self.selects = selects

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise ValueError(f"expected {expected or 'a token'}, got {tok!r} in {' '.join(self.tokens)}")
        self.i += 1
        return tok

    def layout(self, closer: str | None = None) -> tuple:
        elements = []
        if self.peek() == closer:
            return ()
        while True:
            elements.append(self.element())
            if self.peek() != ",":
                break
            self.take(",")
        return tuple(elements)

    def field(self) -> Field:
        typ = self.take()
        if typ not in TYPES:
            raise ValueError(f"unknown type {typ!r}")
        name = self.take()
        return Field(snake_case(name), name, typ)

    def element(self) -> Element:
        if self.peek() != "repeat":
            return self.field()
        self.take("repeat")
        name = self.take()
        self.take(":")
        if self.peek() == "select":
            self.take()
            item: Group | Select | Field = self.selects[self.take()]
        elif self.i + 1 < len(self.tokens) and self.tokens[self.i + 1] == "(":
            gname = _camel(self.take())
            self.take("(")
            item = Group(gname, self.layout(")"))
            self.take(")")
        else:
            f = self.field()
            item = f if f.type in ("byte", "untagged-value") else Group(_camel(f.spec_name), (f,))
        return Repeat(snake_case(name), name, item)


def parse_layout(text: str, selects: dict[str, Select] | None = None) -> tuple:
    p = _Parser(text, selects or {})
    result = p.layout()
    if p.peek() is not None:
        raise ValueError(f"trailing tokens in layout {text!r}")
    return result


def _select(name: str, table: tuple) -> Select:
    selector_text, alts = table
    (selector,) = parse_layout(selector_text)
    return Select(name, selector, tuple(Alt(k, n, parse_layout(f)) for k, n, f in alts))


MODIFIER_SELECT = _select("Modifier", spec_events.MODIFIER)
EVENT_SELECT = _select("Events", (spec_events.EVENTS[0], spec_events.EVENTS[1] + spec_ext.EVENTS))
_SELECTS = {"Modifier": MODIFIER_SELECT, "Events": EVENT_SELECT}


def _check_untagged(spec: CommandSpec) -> None:
    # Untagged values have no size on the wire, so decoding stops at them:
    # they must be the last thing in the body.
    for layout in (spec.out, spec.reply):
        for i, el in enumerate(layout):
            if isinstance(el, Repeat) and _has_untagged(el.item) and i != len(layout) - 1:
                raise ValueError(f"{spec.label}: untagged values must come last")


def _has_untagged(item: object) -> bool:
    if isinstance(item, Field):
        return item.type == "untagged-value"
    if isinstance(item, Group):
        return any(_has_untagged(f.item if isinstance(f, Repeat) else f) for f in item.fields)
    return False


COMMAND_SETS: dict[int, str] = {}
COMMANDS: dict[tuple[int, int], CommandSpec] = {}
_BY_NAME: dict[tuple[str, str], CommandSpec] = {}

for _module in (spec_vm, spec_objects, spec_events, spec_ext):
    for _set_id, _set_name, _commands in _module.SETS:
        COMMAND_SETS[_set_id] = _set_name
        for _cmd_id, _name, _out, _reply, *_words in _commands:
            _spec = CommandSpec(
                _set_id, _cmd_id, _set_name, _name, parse_layout(_out, _SELECTS), parse_layout(_reply, _SELECTS),
                **_traits(f"{_set_name}.{_name}", " ".join(_words)),
            )
            _check_untagged(_spec)
            COMMANDS[(_set_id, _cmd_id)] = _spec
            _BY_NAME[(_set_name, _name)] = _spec


def having(trait: str, value: object = True) -> frozenset[tuple[int, int]]:
    """The (set, command) keys of the commands whose trait column holds value."""
    return frozenset(key for key, cs in COMMANDS.items() if getattr(cs, trait) == value)


def lookup(set_id: int, cmd_id: int) -> CommandSpec | None:
    return COMMANDS.get((set_id, cmd_id))


def by_name(set_name: str, cmd_name: str) -> CommandSpec:
    try:
        return _BY_NAME[(set_name, cmd_name)]
    except KeyError:
        raise KeyError(f"no JDWP command {set_name}.{cmd_name}") from None
