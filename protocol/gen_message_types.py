"""Write protocol/message_types.pyi: the types of the message classes protocol/messages.py makes at run time.

    python -m protocol.gen_message_types            # rewrite the stub
    python -m protocol.gen_message_types --check    # exit 1 if the stub is stale

messages.py makes its classes from the command table (spec*.py) when they are first used, so a
checker sees none of them; this stub declares the same classes, under the same names, for mypy
only (messages.py imports it under ``if TYPE_CHECKING``).  Never edit the stub by hand.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from . import spec
from .spec import CommandSpec, Field, Group, Repeat, Select

STUB_PATH = Path(__file__).resolve().parent / "message_types.pyi"
_WIDTH, _DEPTH = 120, 8  # a class is nested at most twice: set, command

# spec type word -> what the decoders make of it: wire.py's classes, or a builtin (named through the builtins
# module, since a field may be called `bytes` or `int`, which would shadow it in its class)
_SCALARS = {"byte": "_b.int", "boolean": "_b.bool", "int": "_b.int", "long": "_b.int", "string": "_b.str",
            "location": "_wire.Location", "tagged-object": "_wire.TaggedObjectID", "value": "_wire.Value",
            "typed-sequence": "_wire.ArrayRegion", **{t: "_b.int" for t in spec.ID_TYPES},
            "untagged-value": "_wire.Value"}  # in a group a SetValues command may be encoded from
# a repeat of one of these selects decodes to instances of the alternatives' base class
_SELECT_BASES = {spec.EVENT_SELECT.name: "_m.EventMessage", spec.MODIFIER_SELECT.name: "_m.ModifierMessage"}


def _has_untagged(group: Group) -> bool:
    return any(isinstance(f, Field) and f.type == "untagged-value" for f in group.fields)


class _Command:
    """One command's namespace: its Command and Reply classes and the group classes of both,
    named as messages._group_classes names them (the first group of a name in the command)."""

    def __init__(self, cs: CommandSpec) -> None:
        self.path = f"{cs.set_name}.{cs.name}"
        self.groups: dict[tuple[str, Group], str] = {}  # (scope, group) -> name in the namespace
        self.lines: list[str] = []
        for scope, layout in (("command", cs.out), ("reply", cs.reply)):
            self._collect(scope, layout)
        for scope, layout, name in (("command", cs.out, "Command"), ("reply", cs.reply, "Reply")):
            self.lines += _class(name, "_m.Message", self._fields(scope, layout))
        for (scope, group), name in self.groups.items():
            self.lines += _class(name, "_m.Message", self._fields(scope, group.fields))

    def _collect(self, scope: str, layout: tuple) -> None:
        for el in layout:
            if isinstance(el, Repeat) and isinstance(el.item, Group):
                key = (scope, el.item)
                if key not in self.groups:
                    taken = set(self.groups.values()) | {"Command", "Reply"}
                    name = el.item.name
                    # a second group of one name is reachable only through its field (messages.py)
                    self.groups[key] = name if name not in taken else f"{name}Of{scope.title()}{len(taken)}"
                self._collect(scope, el.item.fields)

    def _fields(self, scope: str, layout: tuple) -> list[tuple[str, str]]:
        return [(el.name, _type(el, lambda g: f"{self.path}.{self.groups[(scope, g)]}")) for el in layout]


def _type(el: Field | Repeat, group_class: Callable[[Group], str]) -> str:
    """The annotation of a field: what the decoders make of it."""
    if isinstance(el, Field):
        return _SCALARS[el.type]
    item = el.item
    if isinstance(item, Field):
        return "_b.bytes" if item.type == "byte" else "_wire.RawValues"
    if isinstance(item, Select):
        return f"_b.tuple[{_SELECT_BASES[item.name]}, ...]"
    if _has_untagged(item):
        return "_wire.RawValues"
    return f"_b.tuple[{group_class(item)}, ...]"


def _class(name: str, base: str, fields: list[tuple[str, str]]) -> list[str]:
    lines = [f"class {name}({base}):"]
    lines += [f"    {n}: {t}" for n, t in fields]
    params = "".join(f", {n}: {t}" for n, t in fields)
    init = f"    def __init__(self{params}) -> None: ..."
    if len(init) + _DEPTH > _WIDTH:  # ruff's line length, at the deepest nesting
        init = "\n".join(["    def __init__(", "        self,", *(f"        {n}: {t}," for n, t in fields),
                          "    ) -> None: ..."])
    lines.append(init)
    return lines


def _indent(lines: list[str]) -> list[str]:
    return ["    " + ln for ln in lines]


def _alternatives(sel: Select, base: str) -> list[str]:
    def no_groups(group: Group) -> str:
        raise ValueError(f"{sel.name}: messages.py makes no classes for an alternative's group {group.name}")

    out = []
    for alt in sel.alts:
        out += _class(alt.name, base, [(f.name, _type(f, no_groups)) for f in alt.fields])
    return out


def render() -> str:
    lines = [
        "# GENERATED by protocol/gen_message_types.py from the command table (protocol/spec*.py): the message",
        "# classes protocol/messages.py makes at run time, for type checkers.  Do not edit: run",
        "# `python -m protocol.gen_message_types`.  A test fails when this is stale.",
        "",
        "import builtins as _b",
        "",
        "from . import messages as _m",
        "from . import wire as _wire",
        "",
    ]
    sets: dict[str, list[CommandSpec]] = {name: [] for name in spec.COMMAND_SETS.values()}
    for cs in spec.COMMANDS.values():
        sets[cs.set_name].append(cs)
    lines.append("__all__ = [")
    lines += [f'    "{name}",' for name in ("Events", "Modifiers", *sets)]
    lines.append("]")
    lines += ["", "class Events:"]
    lines += _indent(_alternatives(spec.EVENT_SELECT, "_m.EventMessage"))
    lines += ["", "class Modifiers:"]
    lines += _indent(_alternatives(spec.MODIFIER_SELECT, "_m.ModifierMessage"))
    for set_name, commands in sets.items():
        lines += ["", f"class {set_name}:"]
        if not commands:
            lines.append("    pass")
        for cs in commands:
            lines += _indent([f"class {cs.name}:", *_indent(_Command(cs).lines)])
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not STUB_PATH.exists() or STUB_PATH.read_text() != text:
            print(f"{STUB_PATH} is stale: run `python -m protocol.gen_message_types`", file=sys.stderr)
            return 1
        return 0
    STUB_PATH.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
