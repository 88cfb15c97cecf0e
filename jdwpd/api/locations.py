"""Locations as people write them, and where they land in loaded classes.

    File.java:42              every class compiled from a source file of that name (nested,
                              anonymous and lambda-hosting classes included), any package
    shop/Checkout.java:42     the same, in package shop
    shop.Checkout:42          class shop.Checkout and the classes nested in it
    shop.Checkout.pay         every overload of method pay (its first line)
    shop.Checkout.pay(int,String)   one overload (simple or full type names)

A line with no code inside a method moves to the next line with code in that method; a line
outside every method of the loaded classes leaves the breakpoint unresolved, with a message
naming the nearest lines that have code.  (A moved location gives way to the line's own code in
a class prepared later, a nested or anonymous one: Breakpoint._install_in.)
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from protocol.constants import ModKind, TypeTag

from .errors import LocationError
from .types import Location, ReferenceType

if TYPE_CHECKING:
    from .debuggee import Debuggee

__all__ = ["LocationSpec", "parse_location"]

_SOURCE_EXT = re.compile(r"\.(java|kt|kts|scala|groovy|clj)$")
_IDENT = r"[A-Za-z_$][\w$]*"
_CLASS = re.compile(rf"^{_IDENT}(\.{_IDENT})*$")


@attrs.frozen
class LocationSpec:
    """A parsed location: a line in a source file or class, or a method."""

    text: str
    line: int | None = None
    source: str | None = None  # "Checkout.java"
    package_dir: str | None = None  # "shop" for "shop/Checkout.java"
    class_name: str | None = None  # "shop.Checkout" or "Checkout"
    method: str | None = None
    arg_types: tuple[str, ...] | None = None

    def prepare_modifiers(self) -> list[dict]:
        """The ClassPrepare filter that catches every class this location may land in."""
        if self.source is not None:
            return [{"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": self.source}]
        assert self.class_name is not None
        if self.line is None:
            if "." in self.class_name:
                return [{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": self.class_name}]
            return [{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "*" + self.class_name}]
        if "." in self.class_name:
            # One trailing '*' catches the nested classes too (matches() drops shop.CheckoutFoo).
            return [{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": self.class_name + "*"}]
        outer = self.class_name.split("$")[0]
        return [{"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": outer + ".*"}]

    def could_match_name(self, name: str, *, loaded: bool = False) -> bool:
        """Whether a class of this Java name may hold the location.  ``loaded``: a first sieve over
        every loaded class, which for a source file keeps the classes named after it (their source
        names are asked next); prepare events were filtered by source name already."""
        outer = name.split("$")[0]
        simple = outer.rsplit(".", 1)[-1]
        if self.source is not None:
            if self.package_dir is not None:
                package = outer.rsplit(".", 1)[0] if "." in outer else ""
                if package.replace(".", "/") != self.package_dir.strip("/"):
                    return False
            return not loaded or simple == _SOURCE_EXT.sub("", self.source)
        assert self.class_name is not None
        if "." in self.class_name:
            return name == self.class_name or (self.line is not None and name.startswith(self.class_name + "$"))
        top = name.rsplit(".", 1)[-1]
        if self.line is None:
            return top == self.class_name
        return top == self.class_name or top.startswith(self.class_name + "$")

    async def loaded_candidates(self, vm: Debuggee) -> list[ReferenceType]:
        """The loaded types this location may land in (``matches`` judges each)."""
        if self.class_name is not None and "." in self.class_name and (self.line is None):
            return await vm.classes_named(self.class_name)
        r = await vm.conn.command("VirtualMachine", "AllClasses")
        out = []
        for c in r.classes:
            if c.ref_type_tag != TypeTag.ARRAY and self.could_match_name(_java_name(c.signature), loaded=True):
                out.append(await vm.types.type(c.type_id, c.ref_type_tag, c.signature))
        return out

    async def matches(self, t: ReferenceType) -> bool:
        """Whether the loaded type ``t`` may hold this location."""
        if not self.could_match_name(t.name):
            return False
        if self.source is not None:
            return await t.source_name() == self.source
        return True

    async def resolve(self, t: ReferenceType) -> tuple[list[Location], str | None]:
        """The locations of this spec in ``t``, or ([], why not)."""
        if self.method is not None:
            return await self._resolve_method(t)
        assert self.line is not None
        line = self.line
        found: list[Location] = []
        spans: list[tuple[int, int, Any]] = []
        code_lines: set[int] = set()
        for m in await t.methods():
            table = await m.line_table()
            if not table:
                continue
            lines = [ln for _, ln in table]
            code_lines.update(lines)
            spans.append((min(lines), max(lines), m))
            if line in lines:
                index = min(i for i, ln in table if ln == line)
                found.append(await t.vm.types.location(t, m, index))
        if found:
            return found, None
        for lo, hi, m in spans:
            if lo < line < hi:
                table = await m.line_table()
                nxt = min(ln for _, ln in table if ln > line)
                index = min(i for i, ln in table if ln == nxt)
                return [await t.vm.types.location(t, m, index)], None
        before = max((ln for ln in code_lines if ln < line), default=None)
        after = min((ln for ln in code_lines if ln > line), default=None)
        near = " and ".join(str(x) for x in (before, after) if x is not None) or "none"
        return [], f"no code at line {line} in {t.name}; nearest lines with code: {near}"

    async def _resolve_method(self, t: ReferenceType) -> tuple[list[Location], str | None]:
        out = []
        names = []
        for m in await t.methods():
            names.append(m.name)
            if m.name != self.method or not m.has_code:
                continue
            if self.arg_types is not None and not _same_args(m.argument_type_names, self.arg_types):
                continue
            out.append(await m.location())
        if out:
            return out, None
        wanted = f"{self.method}({','.join(self.arg_types)})" if self.arg_types is not None else self.method
        return [], f"{t.name} has no method {wanted} with code; its methods: {', '.join(sorted(set(names)))}"


def _same_args(actual: list[str], wanted: tuple[str, ...]) -> bool:
    if len(actual) != len(wanted):
        return False
    for a, w in zip(actual, wanted, strict=True):
        w = w.replace(" ", "").replace("...", "[]")
        if a != w and a.rsplit(".", 1)[-1] != w and a.rsplit(".", 1)[-1].split("$")[-1] != w:
            return False
    return True


def parse_location(text: str) -> LocationSpec:
    """Parse ``File.java:42``, ``pkg.Class:42``, ``pkg.Class.method`` or ``pkg.Class.method(int,String)``."""
    s = text.strip()
    m = re.match(r"^(.+?):(\d+)$", s)
    if m:
        where, line = m.group(1), int(m.group(2))
        if line <= 0:
            raise LocationError(f"{text!r}: lines count from 1")
        if _SOURCE_EXT.search(where):
            d, _, base = where.replace("\\", "/").rpartition("/")
            return LocationSpec(text, line=line, source=base, package_dir=d or None)
        if not _CLASS.match(where):
            raise LocationError(f"{text!r}: expected File.java:LINE or pkg.Class:LINE")
        return LocationSpec(text, line=line, class_name=where)
    m = re.match(rf"^({_IDENT}(?:\.{_IDENT})*)\.({_IDENT}|<init>|<clinit>)(?:\((.*)\))?$", s)
    if m:
        args = None
        if m.group(3) is not None:
            args = tuple(a.strip() for a in m.group(3).split(",") if a.strip())
        return LocationSpec(text, class_name=m.group(1), method=m.group(2), arg_types=args)
    raise LocationError(f"cannot read location {text!r}: write File.java:LINE, pkg.Class:LINE, pkg.Class.method "
                        f"or pkg.Class.method(int,String)")


def _java_name(sig: str) -> str:
    return sig[1:-1].replace("/", ".") if sig.startswith("L") else sig
