"""Replies put in the reply memo before they are asked: what a debugger walking the classes asks next.

A debugger that lists a class's methods asks for their line tables next, and one that walks
AllClasses asks the next class's methods (jdwpd/daemon/model/class_walk.py reads those ahead).  The
class cache holds those facts already; their reply bytes, offered to the memo
(jdwpd/daemon/fast/memo.py) as the handlers would encode them, let the session's reader or its fast
lane answer the walk without the dispatcher.  Only facts already cached are encoded: a prefill
never asks the agent anything.
"""

from __future__ import annotations

from typing import Any

from jdwpd.daemon.model.fact_store import Failure
from protocol import spec
from protocol.messages import encode_reply

_METHODS = {False: (2, 5), True: (2, 15)}  # ReferenceType.Methods, MethodsWithGeneric
_LINE_TABLE = (6, 1)
_LINE_TABLE_SPEC = spec.by_name("Method", "LineTable")


# The reply layouts of the declared-members commands; the handlers (reference_type.py) and the
# read-ahead here encode with the same function, so a prefilled reply is the handler's, byte for byte.
_DECLARED = {(kind, generic): spec.by_name("ReferenceType", f"{kind.title()}s{'WithGeneric' if generic else ''}")
             for kind in ("field", "method") for generic in (False, True)}
_MEMBER_FACTS = {"field": "CLASS_FIELDS", "method": "CLASS_METHODS"}  # the ClassCache facts they come from


def declared_body(classes: Any, ref: int, kind: str, generic: bool, sizes: Any, members: Any) -> bytes:
    """The reply's bytes for these members, kept with them."""
    id_name = f"{kind}_id"
    rows = []
    for m in members:
        row = {id_name: getattr(m, id_name), "name": m.name, "signature": m.signature, "mod_bits": m.modifiers}
        if generic:
            row["generic_signature"] = m.generic
        rows.append(row)
    body = encode_reply(_DECLARED[(kind, generic)], {"declared": rows}, sizes)
    classes.keep(ref, ("declared reply", kind, generic, sizes), body, derived_from=_MEMBER_FACTS[kind])
    return body


def line_table_body(classes: Any, method_id: int, sizes: Any, table: Any) -> bytes:
    """Method.LineTable's reply bytes, kept with the table (a method id holds no object id)."""
    body = encode_reply(_LINE_TABLE_SPEC, {"start": table.start, "end": table.end, "lines": [
        {"line_code_index": i, "line_number": n} for i, n in table.lines]}, sizes)
    classes.keep(("method", method_id), ("LineTable reply", sizes), body, derived_from="lines")
    return body


def _id(value: int, size: int) -> bytes:
    return value.to_bytes(size, "big")


def line_tables(vm: Any, ref: int, generic: bool) -> None:
    """ref's methods were listed (Methods or MethodsWithGeneric): offer their line tables."""
    memo = vm.memo
    if not memo.enabled:
        return
    memo.methods_generic = generic
    _offer_line_tables(vm, ref, vm.classes.kept(ref, "CLASS_METHODS"), memo.epochs())


def read_ahead(vm: Any, refs: list[int]) -> None:
    """Classes read ahead for a walk: offer their method listings (as last asked) and line tables."""
    memo = vm.memo
    if not memo.enabled:
        return

    classes, sizes, began = vm.classes, vm.id_sizes, memo.epochs()
    generic = memo.methods_generic
    for ref in refs:
        methods = classes.kept(ref, "CLASS_METHODS")
        if methods is None or isinstance(methods, Failure):
            continue
        body = classes.kept(ref, ("declared reply", "method", generic, sizes))
        if body is None:
            body = declared_body(classes, ref, "method", generic, sizes, methods)
        memo.offer((*_METHODS[generic], _id(ref, sizes.reference_type_id)), body, began, vm)
        _offer_line_tables(vm, ref, methods, began)


def _offer_line_tables(vm: Any, ref: int, methods: Any, began: tuple[int, int, int]) -> None:
    if methods is None or isinstance(methods, Failure):
        return
    classes, sizes, memo = vm.classes, vm.id_sizes, vm.memo
    ref_bytes = _id(ref, sizes.reference_type_id)
    for m in methods:
        if m.is_native:
            continue  # answered NATIVE_METHOD: an error, never memoized
        scope = ("method", m.method_id)
        body = classes.kept(scope, ("LineTable reply", sizes))
        if body is None:
            table = classes.kept(scope, "lines")
            if table is None or isinstance(table, Failure):
                continue
            body = line_table_body(classes, m.method_id, sizes, table)
        memo.offer((*_LINE_TABLE, ref_bytes + _id(m.method_id, sizes.method_id)), body, began, vm)
