"""The class cache: immutable facts about reference types, fetched once from the agent.

Why a cache: debuggers ask the same questions again and again (every frame they show asks
for its method's line table, every variable view for field lists), and each question is a
round trip to the agent's link thread.  What a class *is* (signature, fields, methods, line
and variable tables, source file) does not change until the class is redefined or unloaded,
so it is fetched once, shared by every session, and dropped on those two events.  What a
class *does* (its status, static values) is always fetched.

Concurrency (fact_store.py): the first task that needs a fact starts the fetch; others that need
it meanwhile wait for that fetch, so N debuggers opening the same class cost one round trip.  A
fetch that fails with a status that is a fact about the class (ABSENT_INFORMATION,
NATIVE_METHOD) is remembered as such; other failures are not.

Round trips saved on top of the cache: a class's methods come with all their line tables
(CLASS_METHODS_LINES), and a debugger walking the class list in order gets the next classes
read ahead (class_walk.py).

Memory: only what a debugger asked about is held.  AllClasses snapshots keep one small record
(kind, signature, generic signature) per class, which the debugger asked for as well.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jdwpd.daemon.model.class_types import (
    MOD_SYNTHETIC,
    ClassSignature,
    FieldInfo,
    LineTable,
    MethodInfo,
    Variable,
    VariableTable,
    is_object_signature,
    jdwp_class_status,
    signature_tag,
    split_method_signature,
    type_tag_of_kind,
    with_synthetic,
)
from jdwpd.daemon.model.class_walk import ClassWalk
from jdwpd.daemon.model.fact_store import JVMTI_NATIVE_METHOD, STABLE_FAILURES, FactStore, Failure
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import ErrorCode, TypeTag
from protocol.link import LinkStatus

__all__ = [
    "MOD_SYNTHETIC", "JVMTI_NATIVE_METHOD", "ClassCache", "ClassSignature", "FieldInfo", "LineTable", "MethodInfo",
    "Variable", "VariableTable", "is_object_signature", "jdwp_class_status", "signature_tag",
    "split_method_signature", "type_tag_of_kind",
]


class ClassCache(FactStore):
    """Per-VM class facts.  ``link`` needs ``await link.request(name, **fields) -> dict``, and
    ``request_many`` for the read-ahead of a class walk (without it, nothing is read ahead)."""

    def __init__(self, link: Any) -> None:
        super().__init__(link)
        self._signatures: dict[int, ClassSignature] = {}
        # Field ids are NOT unique across classes: HotSpot encodes an instance field's id from
        # its offset, so fields at the same offset in unrelated classes share an id.  Fields
        # are therefore always resolved through a class and its supertypes.
        self._field_maps: dict[int, dict[int, FieldInfo]] = {}
        self._methods_by_id: dict[int, MethodInfo] = {}
        # Indexes that keep invalidation cheap when classes unload by the thousand.
        self._refs_by_signature: dict[str, set[int]] = {}
        self._methods_of: dict[int, set[int]] = {}
        self._lines_with_methods = True  # CLASS_METHODS_LINES works (False: an older agent)
        self._walk = ClassWalk()  # the listing's order, and whether a debugger walks it
        self.on_forget: Any = None  # told whenever class facts are dropped (the VM's reply memo)
        self.on_read_ahead: Any = None  # told the classes a walk's read-ahead brought (the memo's prefill)

    # ---------------------------------------------------------------- invalidation

    def _set_signature(self, sig: ClassSignature) -> None:
        old = self._signatures.get(sig.ref)
        if old is not None and old.signature != sig.signature:
            self._refs_by_signature.get(old.signature, set()).discard(sig.ref)
        self._signatures[sig.ref] = sig
        self._refs_by_signature.setdefault(sig.signature, set()).add(sig.ref)

    def _drop_signature(self, ref: int) -> None:
        old = self._signatures.pop(ref, None)
        if old is not None:
            refs = self._refs_by_signature.get(old.signature)
            if refs is not None:
                refs.discard(ref)
                if not refs:
                    del self._refs_by_signature[old.signature]

    def forget(self, ref: int) -> None:
        """The class was unloaded: its id is dead, drop everything known about it."""
        if self.on_forget is not None:
            self.on_forget()
        for m in self._methods_of.pop(ref, ()):
            self._drop_scope(("method", m))
            self._methods_by_id.pop(m, None)
        self._field_maps.pop(ref, None)
        self._drop_signature(ref)
        self._drop_scope(ref)

    def forget_signature(self, signature: str) -> None:
        """ClassUnload names the class by signature only: forget every class known by that name."""
        for ref in list(self._refs_by_signature.get(signature, ())):
            self.forget(ref)
            self._walk.forget(ref)  # (a redefined class, forgotten too, keeps its place)

    def unloaded(self, ref: int) -> None:
        """The agent says this class unloaded: forget it (its facts, its place in the walk)."""
        self.forget(ref)
        self._walk.forget(ref)

    def redefined(self, refs: Iterable[int]) -> None:
        """Classes were redefined: their members, tables and source facts may have changed.

        jmethodIDs survive redefinition (they then name the new version), so method-level
        facts are dropped for every method we knew in these classes, and the class-level
        lists are refetched on demand.  The signature, kind and loader cannot change.
        """
        for ref in refs:
            sig = self._signatures.get(ref)
            self.forget(ref)
            if sig is not None:
                self._set_signature(sig)
        # A method id we met only through a frame is not in _methods_by_id; its tables may be
        # stale too.  Redefinition is rare: drop every method-level fact.
        for scope in [s for s in self._by_scope if isinstance(s, tuple) and s[0] == "method"]:
            self._drop_scope(scope)

    # ---------------------------------------------------------------- what a reference type is

    def learn(self, ref: int, ref_kind: int, signature: str, generic: str | None = None) -> None:
        """Record a signature seen elsewhere (ClassPrepare events, AllClasses).

        AllClasses (the only caller with a generic signature) learns its classes in its order:
        that order is what a class walk follows (class_walk.py).
        """
        if generic is not None:
            self._walk.listed(ref)
        known = self._signatures.get(ref)
        if known is not None and (generic is None or known.generic == generic):
            return
        if generic is None:
            if known is not None:
                return
            # Without the generic signature the record is incomplete; keep the kind and the
            # signature for name lookups, and let signature() fetch the rest when asked.
            self._set_signature(ClassSignature(ref, ref_kind, signature, None))
            return
        self._set_signature(ClassSignature(ref, ref_kind, signature, generic))

    def known_signature(self, ref: int) -> ClassSignature | None:
        return self._signatures.get(ref)

    async def signature(self, ref: int) -> ClassSignature:
        """Kind, signature and generic signature; also the validity check for a reference type id.

        Raises JdwpError(INVALID_CLASS) for 0 and for objects that are not classes,
        JdwpError(INVALID_OBJECT) for unknown ids, as the reference agent does.
        """
        known = self._signatures.get(ref)
        if known is not None and known.generic is not None:
            return known
        if ref == 0:
            raise JdwpError(ErrorCode.INVALID_CLASS, "null reference type")

        async def fetch() -> ClassSignature:
            r = await self._request("CLASS_SIGNATURE", ref=ref)
            return ClassSignature(ref, r["ref_kind"], r["signature"], r["generic"])

        epoch = self._epoch.get(ref, 0)
        sig = await self._fact(ref, "signature", fetch)
        if self._epoch.get(ref, 0) == epoch:  # not forgotten meanwhile
            self._set_signature(sig)
        return sig

    async def _check(self, ref: int) -> None:
        """The validity check of a reference type id, with the error the reference gives.

        A class whose signature was learned (ClassPrepare, AllClasses) is known to be a class.
        """
        if ref not in self._signatures:
            await self.signature(ref)

    async def ref_kind(self, ref: int) -> int:
        known = self._signatures.get(ref)
        if known is not None:
            return known.ref_kind
        return (await self.signature(ref)).ref_kind

    async def _simple(self, ref: int, name: str, field: str) -> Any:
        await self._check(ref)

        async def fetch() -> Any:
            return (await self._request(name, ref=ref))[field]

        return await self._fact(ref, name, fetch)

    async def modifiers(self, ref: int) -> int:
        return await self._simple(ref, "CLASS_MODIFIERS", "modifiers")

    async def class_loader(self, ref: int) -> int:
        return await self._simple(ref, "CLASS_LOADER", "loader")

    async def superclass(self, ref: int) -> int:
        return await self._simple(ref, "CLASS_SUPERCLASS", "superclass")

    async def interfaces(self, ref: int) -> tuple[int, ...]:
        await self._check(ref)

        async def fetch() -> tuple[int, ...]:
            r = await self._request("CLASS_INTERFACES", ref=ref)
            return tuple(i["ref"] for i in r["interfaces"])

        return await self._fact(ref, "CLASS_INTERFACES", fetch)

    async def source_file(self, ref: int) -> str:
        """Raises AgentError(ABSENT_INFORMATION) when the class has none (remembered)."""
        return await self._simple(ref, "CLASS_SOURCE_FILE", "source_file")

    async def source_debug_extension(self, ref: int) -> str:
        return await self._simple(ref, "CLASS_SOURCE_DEBUG_EXTENSION", "extension")

    async def module(self, ref: int) -> int:
        return await self._simple(ref, "CLASS_MODULE", "module")

    async def class_version(self, ref: int) -> tuple[int, int]:
        await self._check(ref)

        async def fetch() -> tuple[int, int]:
            r = await self._request("CLASS_VERSION", ref=ref)
            return r["major"], r["minor"]

        return await self._fact(ref, "CLASS_VERSION", fetch)

    async def constant_pool(self, ref: int) -> tuple[int, bytes]:
        await self._check(ref)

        async def fetch() -> tuple[int, bytes]:
            r = await self._request("CLASS_CONSTANT_POOL", ref=ref)
            return r["count"], r["bytes"]

        return await self._fact(ref, "CLASS_CONSTANT_POOL", fetch)

    async def status(self, ref: int) -> int:
        """JDWP class status, fetched every time: it changes as the class is initialized."""
        await self._check(ref)
        r = await self._request("CLASS_STATUS", ref=ref)
        return jdwp_class_status(r["status"])

    # ---------------------------------------------------------------- members

    async def fields(self, ref: int) -> tuple[FieldInfo, ...]:
        await self._check(ref)

        async def fetch() -> tuple[FieldInfo, ...]:
            r = await self._request("CLASS_FIELDS", ref=ref)
            return tuple(
                FieldInfo(f["field"], f["name"], f["signature"], f["generic"],
                          with_synthetic(f["modifiers"], f["synthetic"]), ref)
                for f in r["fields"]
            )

        return await self._fact(ref, "CLASS_FIELDS", fetch)

    async def field_map(self, ref: int) -> dict[int, FieldInfo]:
        """Declared fields of ``ref`` by id."""
        found = self._field_maps.get(ref)
        if found is None:
            epoch = self._epoch.get(ref, 0)
            found = {f.field_id: f for f in await self.fields(ref)}
            if self._epoch.get(ref, 0) == epoch:
                self._field_maps[ref] = found
        return found

    async def methods(self, ref: int) -> tuple[MethodInfo, ...]:
        """Declared methods; their line tables come in the same round trip and are kept too.

        A debugger that lists a class's methods asks for their line tables next (JDI's
        allLineLocations, every breakpoint by line, every frame it shows): one round trip per
        class instead of one per method.
        """
        await self._check(ref)

        async def fetch() -> tuple[MethodInfo, ...]:
            epoch = self._epoch.get(ref, 0)
            ahead = self._walk.ahead(ref, self._methods_wanted) if self._can_read_ahead() else []
            if ahead:
                rows = await self._methods_read_ahead(ref, ahead)
            else:
                rows = await self._methods_with_lines(ref)
            methods = self._method_infos(ref, rows)
            if self._epoch.get(ref, 0) == epoch:  # not redefined or unloaded meanwhile
                self._keep_all_lines(rows)
            return methods

        epoch = self._epoch.get(ref, 0)
        result = await self._fact(ref, "CLASS_METHODS", fetch)
        if self._epoch.get(ref, 0) == epoch:
            for m in result:
                self._methods_by_id.setdefault(m.method_id, m)
                self._methods_of.setdefault(ref, set()).add(m.method_id)
        return result

    @staticmethod
    def _method_infos(ref: int, rows: list[dict]) -> tuple[MethodInfo, ...]:
        return tuple(MethodInfo(m["method"], m["name"], m["signature"], m["generic"],
                                with_synthetic(m["modifiers"], m["synthetic"]), ref) for m in rows)

    def _keep_all_lines(self, rows: list[dict]) -> None:
        for m in rows:
            if "lines_status" in m:
                self._keep_lines(m)

    def _can_read_ahead(self) -> bool:
        return self._lines_with_methods and hasattr(self._link, "request_many")

    def _methods_wanted(self, ref: int) -> bool:
        """Worth reading ahead: a class or interface still known, whose methods nobody has fetched."""
        sig = self._signatures.get(ref)
        return sig is not None and sig.ref_kind != TypeTag.ARRAY and (ref, "CLASS_METHODS") not in self._slots

    async def _methods_read_ahead(self, ref: int, ahead: list[int]) -> list[dict]:
        """ref's methods and lines, and in the same write those of the classes a walk comes to next."""
        epochs = {r: self._epoch.get(r, 0) for r in ahead}
        self.round_trips += 1
        results = await self._link.request_many([("CLASS_METHODS_LINES", {"ref": r}) for r in (ref, *ahead)])
        kept = []
        for r, result in zip(ahead, results[1:], strict=True):
            if isinstance(result, dict) and self._epoch.get(r, 0) == epochs[r] and self._methods_wanted(r):
                self._keep_methods(r, self._method_infos(r, result["methods"]))
                self._keep_all_lines(result["methods"])
                kept.append(r)
        if kept and self.on_read_ahead is not None:
            self.on_read_ahead(kept)
        first = results[0]
        if isinstance(first, AgentError):
            if first.status == LinkStatus.UNKNOWN_KIND:
                return await self._methods_with_lines(ref)
            raise first
        return first["methods"]

    def _keep_methods(self, ref: int, methods: tuple[MethodInfo, ...]) -> None:
        self._put(ref, "CLASS_METHODS", methods)
        for m in methods:
            self._methods_by_id.setdefault(m.method_id, m)
            self._methods_of.setdefault(ref, set()).add(m.method_id)

    async def _methods_with_lines(self, ref: int) -> list[dict]:
        if not self._lines_with_methods:
            return (await self._request("CLASS_METHODS", ref=ref))["methods"]
        try:
            return (await self._request("CLASS_METHODS_LINES", ref=ref))["methods"]
        except AgentError as e:
            if e.status != LinkStatus.UNKNOWN_KIND:
                raise
            self._lines_with_methods = False  # an agent older than the daemon
            return (await self._request("CLASS_METHODS", ref=ref))["methods"]

    def _keep_lines(self, m: dict) -> None:
        """A line table that came with its method, filed as line_table() would have fetched it."""
        status = m["lines_status"]
        if status == 0:
            table: Any = LineTable(m["start"], m["end"], tuple((ln["index"], ln["line"]) for ln in m["lines"]))
        elif status == ErrorCode.ABSENT_INFORMATION:
            # As line_table()'s fallback: the code range and no lines ((-1, -1) without code).
            table = LineTable(m["start"], m["end"], ())
        elif status in STABLE_FAILURES:
            table = Failure(status, "METHOD_LINE_TABLE")
        else:
            return  # not a fact about the method (a missing capability...): asked again when needed
        self._put(("method", m["method"]), "lines", table)


    def known_method(self, method_id: int) -> MethodInfo | None:
        return self._methods_by_id.get(method_id)

    async def find_field(self, ref: int, field_id: int) -> FieldInfo:
        """The field ``field_id`` as seen from ``ref``: declared there or in a supertype.

        Within one hierarchy an id names one field (instance fields of an object have distinct
        offsets; static ids are unique).  Raises JdwpError(INVALID_FIELDID) when no type in
        ref's hierarchy declares it.
        """
        for t in await self.supertypes(ref):
            f = (await self.field_map(t)).get(field_id)
            if f is not None:
                return f
        raise JdwpError(ErrorCode.INVALID_FIELDID, f"field {field_id:#x} not in type {ref:#x}")

    async def find_method(self, ref: int, method_id: int) -> MethodInfo:
        """The method ``method_id`` as seen from ``ref`` (declared there or in a supertype)."""
        known = self._methods_by_id.get(method_id)
        if known is not None:
            return known
        for t in await self.supertypes(ref):
            for m in await self.methods(t):
                if m.method_id == method_id:
                    return m
        raise JdwpError(ErrorCode.INVALID_METHODID, f"method {method_id:#x} not in type {ref:#x}")

    async def method_info(self, method_id: int) -> MethodInfo:
        """A method known only by id (from a frame or an event): ask the agent for its class."""
        known = self._methods_by_id.get(method_id)
        if known is not None:
            return known

        async def fetch() -> int:
            return (await self._request("METHOD_DECLARING_CLASS", method=method_id))["ref"]

        declaring = await self._fact(("method", method_id), "declaring", fetch)
        return await self.find_method(declaring, method_id)

    async def supertypes(self, ref: int) -> list[int]:
        """ref, its superclasses, then every superinterface: the order field lookup follows."""
        order: list[int] = []
        seen: set[int] = set()
        t = ref
        while t and t not in seen:
            order.append(t)
            seen.add(t)
            t = await self.superclass(t)
        i = 0
        while i < len(order):
            for itf in await self.interfaces(order[i]):
                if itf not in seen:
                    seen.add(itf)
                    order.append(itf)
            i += 1
        return order

    async def is_assignable(self, sub: int, sup: int) -> bool:
        return sub == sup or sup in await self.supertypes(sub)

    # ---------------------------------------------------------------- per-method tables

    async def line_table(self, method_id: int) -> LineTable:
        """Raises AgentError(NATIVE_METHOD) for native methods, as the reference agent does."""

        async def fetch() -> LineTable:
            try:
                r = await self._request("METHOD_LINE_TABLE", method=method_id)
            except AgentError as e:
                if e.status != ErrorCode.ABSENT_INFORMATION:
                    raise
                # Compiled without -g:lines: the reference still answers with the code range
                # and an empty table.  HotSpot's range is [0, code length - 1].
                code = (await self._request("METHOD_BYTECODES", method=method_id))["bytecodes"]
                if not code:  # abstract: JVMTI's method location is (-1, -1)
                    return LineTable(-1, -1, ())
                return LineTable(0, len(code) - 1, ())
            return LineTable(r["start"], r["end"], tuple((ln["index"], ln["line"]) for ln in r["lines"]))

        return await self._fact(("method", method_id), "lines", fetch)

    async def variable_table(self, method_id: int) -> VariableTable:
        """Raises AgentError(ABSENT_INFORMATION) without -g:vars (remembered).

        The first variable table asked in a class brings those of the class's other methods in
        the same write: a stack shows several methods of a class, and each frame a debugger
        opens wants its method's table.
        """

        async def fetch() -> VariableTable:
            siblings = self._variable_siblings(method_id)
            if not siblings:
                return _variable_table(await self._request("METHOD_VARIABLE_TABLE", method=method_id))
            declaring = self._methods_by_id[method_id].declaring
            epoch = self._epoch.get(declaring, 0)
            self.round_trips += 1
            results = await self._link.request_many(
                [("METHOD_VARIABLE_TABLE", {"method": m}) for m in (method_id, *siblings)])
            if self._epoch.get(declaring, 0) == epoch:  # not redefined or unloaded meanwhile
                for m, result in zip(siblings, results[1:], strict=True):
                    if isinstance(result, dict):
                        self._put(("method", m), "variables", _variable_table(result))
                    elif result.status in STABLE_FAILURES:
                        self._put(("method", m), "variables", Failure(result.status, result.request))
            if isinstance(results[0], AgentError):
                raise results[0]
            return _variable_table(results[0])

        return await self._fact(("method", method_id), "variables", fetch)

    def _variable_siblings(self, method_id: int) -> list[int]:
        """The other methods of method_id's class whose variable tables are still to fetch (if known)."""
        known = self._methods_by_id.get(method_id)
        if known is None or not hasattr(self._link, "request_many"):
            return []
        slot = self._slots.get((known.declaring, "CLASS_METHODS"))
        if slot is None or not slot.present or isinstance(slot.value, Failure):
            return []
        return [m.method_id for m in slot.value
                if m.method_id != method_id and not (m.is_native or m.is_abstract)
                and (("method", m.method_id), "variables") not in self._slots]

    async def bytecodes(self, method_id: int) -> bytes:
        async def fetch() -> bytes:
            return (await self._request("METHOD_BYTECODES", method=method_id))["bytecodes"]

        return await self._fact(("method", method_id), "bytecodes", fetch)

    async def is_obsolete(self, method_id: int) -> bool:
        # Obsolescence is a consequence of redefinition, which drops method facts: cacheable.
        async def fetch() -> bool:
            return (await self._request("METHOD_IS_OBSOLETE", method=method_id))["obsolete"]

        return await self._fact(("method", method_id), "obsolete", fetch)

    # ---------------------------------------------------------------- the set of loaded classes

    async def all_classes(self) -> list[tuple[ClassSignature, int]]:
        """Every loaded class with its JDWP status, now; signatures are remembered on the way."""
        r = await self._request("ALL_CLASSES")
        out = []
        for c in r["classes"]:
            sig = ClassSignature(c["ref"], c["ref_kind"], c["signature"], c["generic"])
            self._set_signature(sig)
            self._walk.listed(sig.ref)
            out.append((sig, jdwp_class_status(c["status"])))
        self._walk.listing_ended()
        return out

    async def classes_by_signature(self, signature: str) -> list[tuple[ClassSignature, int]]:
        return [(s, st) for s, st in await self.all_classes() if s.signature == signature]

    async def signatures_of(self, refs: Iterable[int]) -> dict[int, ClassSignature]:
        """Signatures for many classes: from memory, else one ALL_CLASSES snapshot, else one by one."""
        refs = list(refs)
        missing = [r for r in refs if r not in self._signatures]
        if len(missing) > 8:
            await self.all_classes()
        out = {}
        for r in refs:
            s = self._signatures.get(r)
            out[r] = s if s is not None else await self.signature(r)
        return out


def _variable_table(r: dict) -> VariableTable:
    return VariableTable(r["arg_slots"], tuple(
        Variable(v["start"], v["name"], v["signature"], v["generic"], v["length"], v["slot"])
        for v in r["variables"]))
