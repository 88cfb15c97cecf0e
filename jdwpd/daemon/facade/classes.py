"""Loaded classes, class loaders, modules, redefinition, the default stratum.

A class's immutable facts (signature, members, line tables...) are the class cache's
(``VM.classes``, model/classes.py): fetched once, shared by every front end.  What is asked here
changes with the VM (which classes are loaded or visible), and what is learned on the way (a
class's signature) goes into that cache.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from jdwpd.daemon.facade.agent import ask, cached
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode
from protocol.link import ObjectKind

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.facade.values import ObjectKinds
    from jdwpd.daemon.model.classes import ClassCache


def is_nested_signature(outer: str, candidate: str, sep: str) -> bool:
    """The reference agent's rule for NestedTypes, on signatures ('Lp/Outer;').

    'Lp/Outer$Inner;' is nested; 'Lp/Outer$1;' (anonymous) is not; 'Lp/Outer$1Local;' (local)
    is; 'Lp/Outer$Inner$Deeper;' is not (nested in Inner, not in Outer).
    """
    stem = outer[:-1]
    if not candidate.startswith(stem) or len(candidate) <= len(stem) or candidate[len(stem)] != sep:
        return False
    rest = candidate[len(stem) + 1:]
    i = 0
    while i < len(rest) and rest[i].isdigit():
        i += 1
    if rest[i:i + 1] == ";":
        return False
    return sep not in rest[i:]


class ClassOperations:
    """The façade's class operations (a mixin of jdwpd.daemon.vm.VM)."""

    link: Any
    object_kinds: ObjectKinds
    dead: bool
    if TYPE_CHECKING:  # the VM's, made at first use (vm.py): read-only here
        @property
        def classes(self) -> ClassCache: ...
    check_kind: Callable[[int, int, int], Awaitable[tuple[int, int, int]]]  # ValueOperations'
    check_type: Callable[[int], Awaitable[int]]

    async def loaded_classes(self) -> list[dict]:
        """Every loaded class as the agent lists it: dicts of ref, ref_kind, signature, generic and the
        raw JVMTI status (which decides what each JDWP command lists)."""
        classes = (await ask(self.link, "ALL_CLASSES"))["classes"]
        learn = self.classes.learn
        for c in classes:
            learn(c["ref"], c["ref_kind"], c["signature"], c["generic"])
        return classes

    async def classes_by_signature(self, signature: str) -> list[dict]:
        """The loaded classes of that signature: dicts of ref, ref_kind and the raw JVMTI status."""
        classes = (await ask(self.link, "CLASSES_BY_SIGNATURE", signature=signature))["classes"]
        learn = self.classes.learn
        for c in classes:
            learn(c["ref"], c["ref_kind"], signature)
        return classes

    async def visible_classes(self, loader: int) -> list[tuple[int, int]]:
        """(ref kind, ref) of the classes a loader (0: the bootstrap loader) initiated."""
        if loader != 0:  # 0 is the bootstrap loader, as in the reference
            await self.check_kind(loader, ObjectKind.CLASS_LOADER, ErrorCode.INVALID_CLASS_LOADER)
        return [(c["ref_kind"], c["ref"]) for c in await self._loader_classes(loader)]

    async def _loader_classes(self, loader: int) -> list[dict]:
        return (await ask(self.link, "LOADER_VISIBLE_CLASSES", loader=loader))["classes"]

    async def nested_types(self, ref: int) -> list[tuple[int, int]]:
        """(ref kind, ref) of the classes loaded through the outer class's loader whose names say they
        are nested in it."""
        classes = self.classes
        outer = await cached(classes.signature(ref))
        loader = await cached(classes.class_loader(ref))
        visible = await self._loader_classes(loader)
        sigs = await cached(classes.signatures_of(c["ref"] for c in visible))
        out = []
        for c in visible:
            s = sigs[c["ref"]].signature
            if is_nested_signature(outer.signature, s, "$") or is_nested_signature(outer.signature, s, "#"):
                out.append((c["ref_kind"], c["ref"]))
        return out

    async def redefine_classes(self, definitions: list[tuple[int, bytes]]) -> None:
        """(class, class file) pairs, checked in the reference's reading order: the class, then its bytes."""
        for ref, classfile in definitions:
            await self.check_type(ref)  # INVALID_OBJECT for an unknown id, INVALID_CLASS for no class
            if len(classfile) == 0:
                raise JdwpError(ErrorCode.INVALID_CLASS_FORMAT, "empty class file")
        await ask(self.link, "REDEFINE_CLASSES", classes=[{"ref": ref, "bytes": data} for ref, data in definitions])
        self.classes.redefined([ref for ref, _ in definitions])

    async def set_default_stratum(self, stratum: str | None) -> None:
        # The agent's line steps follow it: a class with a SMAP is stepped by its default stratum's lines.
        # Sent before the reply, so a step requested after it sees it.  A VM dying meanwhile is ignored quietly.
        try:
            await self.link.request("SET_DEFAULT_STRATUM", stratum=stratum or "")
        except Exception:
            if not self.dead:
                raise

    async def all_modules(self) -> list[int]:
        return [m["module"] for m in (await ask(self.link, "ALL_MODULES"))["modules"]]

    async def module_info(self, module: int) -> tuple[str, int]:
        """(name, class loader) of a module."""
        if module == 0:
            # The reference asks the null module's name and loader through JNI and answers "" and null.
            return "", 0
        # The reference turns an unknown id into INVALID_MODULE; any other object it hands to JNI as
        # if it were a module (answering garbage): jdwpd says INVALID_MODULE for those too.
        try:
            _, module_class, _ = await self.object_kinds.get(module)
        except JdwpError as e:
            raise JdwpError(ErrorCode.INVALID_MODULE, "unknown module id") from e
        if (await cached(self.classes.signature(module_class))).signature != "Ljava/lang/Module;":
            raise JdwpError(ErrorCode.INVALID_MODULE, f"object {module:#x} is not a module")
        r = await ask(self.link, "MODULE_INFO", module=module)
        return r["name"], r["loader"]
