"""Snapshots captured in the VM (jdwpd's extension, docs/extensions.md "DefineCapture"): the agent
reads the stack, locals, ``this`` and the watches in the JVMTI callback and sends them in one
JdwpdCapture event; the thread never waits for this client.  This module plans such a capture
(``plan``) and turns its bytes into the very ``jdwpd.snapshot/1`` data the standard path
(``snapshot.capture``) builds over JDWP (``to_snapshot``).

Why the conversion needs care: the agent sends objects by their raw fields (an ArrayList is its
``elementData`` and ``size``), the standard path shows JDK types as views (``@items``,
``@entries``, boxes as numbers, enums by name) and cuts at its own depth.  So the agent is asked
for ``EXTRA_DEPTH`` more levels than the limits say (the views' insides are deeper than the
views), and the views and every cut are rebuilt here with ``to_python``'s rules, in its order (the
byte budget is the same JSON measure).  Type facts (enum? synthetic field?) are read over JDWP
after the thread went on: they cannot change while the class lives.  Object ids (``@id``) are the
VM's JDWP ids, as the standard path shows them; ``this`` is read for every frame whose locals are.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Final, Literal

import attrs

from protocol.agent_code import (
    BudgetFlag,
    CapturedArray,
    CapturedError,
    CapturedObject,
    CapturedString,
    CaptureFlag,
    MissingField,
    NotRead,
    read_capture,
)
from protocol.constants import ErrorCode, ModKind

from .errors import JdwpError, VMDisconnected
from .snapshot import SCHEMA
from .types import Location, ReferenceType, signature_to_name
from .views import BOX_TYPES, HASH_MAP_TYPES, IMMUTABLE_PREFIX, LIST_TYPES, ByteBudget, Limits, known_collection_base

if TYPE_CHECKING:
    from .debuggee import Debuggee

__all__ = ["plan", "to_snapshot", "EXTRA_DEPTH", "LATER"]

#: Levels the agent reads beyond ``Limits.depth``: an ArrayList's items are 2 raw levels down, a
#: HashMap's keys 3 (table, node, key).  A JDK collection nested deeper than that is cut earlier
#: than on the standard path (marked ``"@truncated": "depth"`` all the same).
EXTRA_DEPTH = 2
#: The agent's own stops, there to protect the program, not to shape the data: the JSON budget is
#: applied here.  A capture they cut is marked ``"budget"``.
AGENT_BYTES_FACTOR = 8
AGENT_MAX_MICROS = 100_000
MIN_AGENT_STRING = 128


@attrs.frozen
class Compiled:
    """A Compile* reply, or what a refusal of the command means for the request (status 1: not
    now, try at a hit; 2: the standard path)."""

    status: int
    expr_id: int = 0
    signature: str = ""
    message: str = ""


async def compile_for_vm(vm: Debuggee, command: str, expression: str, loc: Location) -> Compiled:
    """``Jdwpd.CompileCondition``/``CompileExpression`` at ``loc``.  A server error never ends the
    request, nor the session: a class not prepared yet is "not now" (status 1), anything else the
    standard path (status 2), where the same expression is evaluated over JDWP."""
    wire = loc.to_wire()
    try:
        r = await vm.conn.command("Jdwpd", command, expression=expression, ref_type=wire["class_id"],
                                  method_id=wire["method_id"], index=wire["index"])
    except JdwpError as e:
        return Compiled(1 if e.code == ErrorCode.CLASS_NOT_PREPARED else 2, message=str(e))
    return Compiled(r.status, r.expr_id, getattr(r, "signature", ""), r.message)


async def define_budget(vm: Debuggee, cpu_quota: float | None, flags: int = 0, hit_cap: int = 0) -> int:
    """A budget for an in-VM request: ``cpu_quota`` of one CPU, None or 0 for no quota (the agent's
    default of 1% applies only to requests that carry no budget: every request of the API has
    one)."""
    b = await vm.conn.command("Jdwpd", "DefineBudget", hit_cap=hit_cap, expires_millis=0, rate_per_second=0,
                              cpu_ppm=0 if not cpu_quota else max(1, round(cpu_quota * 1_000_000)),
                              flags=flags)
    return b.budget_id


#: Snapshots a snapshot point takes unless told otherwise (``max_hits``): a hot line's captures
#: would otherwise fill the connection faster than they can be read.
DEFAULT_MAX_SNAPSHOTS = 10

#: ``plan``'s answer when an expression names what the VM cannot resolve yet (a class not loaded
#: when the request is set): worth trying again at the first hit.
LATER: Final = "later"


async def plan(vm: Debuggee, loc: Location, limits: Limits, watch: list[str], condition: str | None,
               cpu_quota: float | None = None, hit_cap: int = 0) -> list[dict] | Literal["later"] | None:
    """The Conditional modifiers that make a request at ``loc`` capture in the VM; None where the
    VM cannot (no extension, or a condition or watch it cannot run: then the standard path gives
    the same data, errors included); ``LATER`` where a name does not resolve yet.  ``cpu_quota``:
    the share of one CPU the captures may use (0: no quota); None: the agent's default (1%)."""
    if not await vm.has_extension():
        return None
    mods = []
    if condition is not None:
        c = await compile_for_vm(vm, "CompileCondition", condition, loc)
        if c.status != 0:
            return LATER if c.status == 1 else None
        mods.append({"mod_kind": ModKind.CONDITIONAL, "expr_id": c.expr_id})
    watches = []
    for text in watch:
        r = await compile_for_vm(vm, "CompileExpression", text, loc)
        if r.status != 0:
            return LATER if r.status == 1 else None
        watches.append({"expr_id": r.expr_id})
    frames = max(1, min(limits.frames, 256))
    cap = await vm.conn.command(
        "Jdwpd", "DefineCapture", frames=frames, locals_frames=min(limits.locals_frames, frames),
        depth=min(limits.depth + EXTRA_DEPTH, 65535),
        # an enum's or a thread's name shows whole whatever the string limit: strings are cut here
        max_string=min(max(limits.string, MIN_AGENT_STRING), 65535),
        # one more than shown, so that a cut is seen as one
        max_items=min(max(limits.items, limits.fields) + 1, 65535),
        max_bytes=min(limits.bytes * AGENT_BYTES_FACTOR, 2**31 - 1), max_micros=AGENT_MAX_MICROS,
        this_object=True, object_ids=True, watches=watches)
    mods.append({"mod_kind": ModKind.CONDITIONAL, "expr_id": cap.capture_id})
    # No quota unless asked; a condition the VM cannot evaluate captures there, as the standard
    # path does (STOP_ON_ERROR).
    budget = await define_budget(vm, cpu_quota, BudgetFlag.STOP_ON_ERROR if condition is not None else 0, hit_cap)
    mods.append({"mod_kind": ModKind.CONDITIONAL, "expr_id": budget})
    return mods


# ---------------------------------------------------------------- the blob, kept whole
# protocol.agent_code.read_capture keeps every item as the agent wrote it (a full array's
# signature, field order under shadowing): what the views below need.
_Obj = CapturedObject  # (one alias a line: a checker reads each as a type)
_Arr = CapturedArray
_Str = CapturedString
_Err = CapturedError
_Limit = NotRead
_Missing = MissingField


def _read(data: bytes) -> tuple[int, list[tuple[tuple[int, int, int, int], list | None, Any]], list]:
    c = read_capture(data)
    frames = [((f.ref_kind, f.ref, f.method, f.index), list(f.locals) if f.locals is not None else None, f.this)
              for f in c.frames]
    return c.flags, frames, list(c.watches)


# ---------------------------------------------------------------- to the snapshot schema


@attrs.define
class _Converter:
    """``views.to_python`` over captured data: the same shapes, cuts and budget, in the same order."""

    vm: Debuggee
    limits: Limits
    budget: ByteBudget
    #: A view needed what the agent did not read (a linked collection deeper than EXTRA_DEPTH).
    incomplete: bool = False

    async def _type(self, sig: str) -> ReferenceType | None:
        try:
            return await self.vm.types.type_named_sig(sig)
        except (JdwpError, VMDisconnected):  # the VM ended since the capture: show its raw fields
            return None

    async def _is(self, sig: str, t: ReferenceType | None, sup: str) -> bool:
        return sig == sup or (t is not None and await t.is_subtype_of(sup))

    async def value(self, v: Any, depth: int = 0) -> Any:
        lim, budget = self.limits, self.budget
        if budget.left < 0:
            return {"@truncated": "budget"}
        if isinstance(v, _Limit):
            return {"@truncated": "budget"}
        if isinstance(v, _Err):
            return {"@error": v.reason}
        if v is None or isinstance(v, (bool, int, float)):
            budget.take(v)
            return v
        if isinstance(v, (str, _Str)):
            text, length = (v, len(v)) if isinstance(v, str) else (v.text, v.length)
            out: Any = text
            if length > lim.string:
                out = {"@type": "java.lang.String", "@value": text[:lim.string], "@length": length,
                       "@truncated": "string"}
            budget.take(out)
            return out
        name = signature_to_name(v.sig)
        head = {"@type": name, "@id": v.id} if v.id else {"@type": name}
        t = await self._type(v.sig) if isinstance(v, _Obj) else None
        if isinstance(v, _Obj) and await self._is(v.sig, t, "Ljava/lang/Thread;"):
            # JDWP reads a thread as a ThreadReference: the API shows it by its name, at any depth
            out = {"@type": "java.lang.Thread", **({"@id": v.id} if v.id else {}),
                   "name": _plain(v.get("name")) if _has(v, "name") else "?"}
            budget.take(out)
            return out
        try:
            if name in BOX_TYPES:
                return await self.value(v.get("value"), depth)
            if isinstance(v, _Obj) and await self._is(v.sig, t, "Ljava/lang/Enum;") and name != "java.lang.Enum":
                out = {"@type": name, "@enum": _plain(v.get("name"))}
                budget.take(out)
                return out
        except _Missing:
            pass  # read too shallow to show it: the depth mark below says so
        if depth >= lim.depth or (isinstance(v, _Obj) and v.cut and not v.fields):
            out = {**head, "@truncated": "depth"}
            budget.take(out)
            return out
        budget.take(head)
        try:
            return await self._container(v, t, head, depth)
        except _Missing:
            self.incomplete = True  # the standard path would show more: the caller learns from it
            return {**head, "@truncated": "depth"}

    async def _container(self, v: Any, t: ReferenceType | None, head: dict, depth: int) -> Any:
        lim = self.limits

        async def sub(x: Any) -> Any:
            return await self.value(x, depth + 1)

        if isinstance(v, _Arr):
            out = {**head, "@length": v.length, "@items": [await sub(x) for x in v.items[:lim.items]]}
            if v.length > lim.items:
                out["@truncated"] = "items"
            return out
        entries = await self._map_entries(v, t, lim.items)
        if entries is not None:
            out = {**head, "@size": entries[1], "@entries": [[await sub(k), await sub(x)] for k, x in entries[0]]}
            if entries[1] > len(entries[0]):
                out["@truncated"] = "items"
            return out
        items = await self._collection_items(v, t, lim.items)
        if items is not None:
            out = {**head, "@size": items[1], "@items": [await sub(x) for x in items[0]]}
            if items[1] > len(items[0]):
                out["@truncated"] = "items"
            return out
        if head["@type"] == "java.util.Optional":
            return {**head, "@value": await sub(v.get("value"))}
        if await self._is(v.sig, t, "Ljava/lang/Throwable;"):
            cause = v.get("cause")
            return {**head, "message": await sub(v.get("detailMessage")), "stack": _stack(v.get("stackTrace")),
                    "cause": await sub(None if _same(cause, v) else cause)}
        names = [f.name for f in await t.all_fields() if not f.is_static and not f.is_synthetic] if t else \
            [n for n, _ in v.fields]
        shown = names[:lim.fields]
        out = dict(head)
        for fname in shown:
            if self.budget.left < 0:
                out["@truncated"] = "budget"
                break
            if fname in out:  # a field shadowed by the subclass's own: the nearest one shows
                continue
            try:
                raw = v.get(fname)
            except _Missing:  # the agent's item cap or limits stopped before it
                out["@truncated"] = "budget" if v.cut and len(v.fields) < lim.fields else "fields"
                break
            out[fname] = await sub(raw)
        if len(names) > len(shown) and "@truncated" not in out:
            out["@truncated"] = "fields"
        return out

    async def _map_entries(self, v: Any, t: ReferenceType | None, limit: int) -> tuple[list, int] | None:
        if not isinstance(v, _Obj):
            return None
        name = await known_collection_base(t) if t is not None else signature_to_name(v.sig)
        if name in HASH_MAP_TYPES or await self._is(v.sig, t, "Ljava/util/HashMap;"):
            size = v.get("size") if _has(v, "size") else None
            out: list = []
            if await self._is(v.sig, t, "Ljava/util/LinkedHashMap;"):
                node = v.get("head")
                while isinstance(node, _Obj) and len(out) < limit:
                    out.append((node.get("key"), node.get("value")))
                    node = node.get("after")
                return out, size if size is not None else len(out)
            table = v.get("table")
            for bucket in table.items if isinstance(table, _Arr) else ():
                node = bucket
                while isinstance(node, _Obj) and len(out) < limit:
                    key = "key" if _has(node, "key") else "k"
                    out.append((node.get(key), node.get("val" if key == "key" and _has(node, "val") else "value")))
                    node = node.get("next")
                if len(out) >= limit:
                    break
            if isinstance(table, _Arr) and len(table.items) < table.length and len(out) < limit:
                raise _Missing("table")  # the agent kept fewer buckets than the map has
            return out, size if size is not None else len(out)
        if name == "java.util.TreeMap":
            return _in_order(v.get("root"), limit), v.get("size")
        if name == IMMUTABLE_PREFIX + "Map1":
            return [(v.get("k0"), v.get("v0"))], 1
        if name == IMMUTABLE_PREFIX + "MapN":
            table = v.get("table").items
            pairs = [(table[i], table[i + 1]) for i in range(0, len(table) - 1, 2) if table[i] is not None]
            return pairs[:limit], len(pairs)
        if name.startswith("java.util.Collections$Unmodifiable") and _has(v, "m"):
            inner = v.get("m")
            return await self._map_entries(inner, await self._type(inner.sig), limit) \
                if isinstance(inner, _Obj) else None
        return None

    async def _collection_items(self, v: Any, t: ReferenceType | None, limit: int) -> tuple[list, int] | None:
        if not isinstance(v, _Obj):
            return None
        name = await known_collection_base(t) if t is not None else signature_to_name(v.sig)
        if name in LIST_TYPES or name == "java.util.Arrays$ArrayList":
            data = v.get("elementData" if name != "java.util.Arrays$ArrayList" else "a")
            size = (v.get("elementCount" if name != "java.util.ArrayList" else "size") if name in LIST_TYPES
                    else data.length)
            return list(_items(data, min(size, limit))), size
        if name == "java.util.LinkedList":
            out: list[Any] = []
            node = v.get("first")
            while isinstance(node, _Obj) and len(out) < limit:
                out.append(node.get("item"))
                node = node.get("next")
            return out, v.get("size")
        if name in ("java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet"):
            inner = v.get("m" if name == "java.util.TreeSet" else "map")
            entries = await self._map_entries(inner, await self._type(inner.sig), limit) \
                if isinstance(inner, _Obj) else None
            return ([k for k, _ in entries[0]], entries[1]) if entries else None
        if name in (IMMUTABLE_PREFIX + "List12", IMMUTABLE_PREFIX + "Set12"):
            items = [v.get("e0")]
            e1 = v.get("e1")
            # the "no second element" sentinel is ImmutableCollections.EMPTY, a bare Object
            if e1 is not None and not (isinstance(e1, _Obj) and e1.sig == "Ljava/lang/Object;"):
                items.append(e1)
            return items[:limit], len(items)
        if name in (IMMUTABLE_PREFIX + "ListN", IMMUTABLE_PREFIX + "SetN"):
            arr = v.get("elements")
            if name.endswith("SetN"):
                return [x for x in _items(arr, arr.length) if x is not None][:limit], v.get("size")
            return list(_items(arr, min(arr.length, limit))), arr.length
        if name.startswith("java.util.Collections$Unmodifiable") and _has(v, "c"):
            inner = v.get("c")
            return await self._collection_items(inner, await self._type(inner.sig), limit) \
                if isinstance(inner, _Obj) else None
        return None


def _has(v: _Obj, name: str) -> bool:
    return any(n == name for n, _ in v.fields)


def _items(arr: Any, n: int) -> tuple:
    if not isinstance(arr, _Arr) or len(arr.items) < n:
        raise _Missing("items")
    return arr.items[:n]


def _in_order(root: Any, limit: int) -> list:
    out: list = []
    stack: list = []
    node = root
    while (stack or isinstance(node, _Obj)) and len(out) < limit:
        while isinstance(node, _Obj):
            stack.append(node)
            node = node.get("left")
        node = stack.pop()
        out.append((node.get("key"), node.get("value")))
        node = node.get("right")
    return out


def _plain(v: Any) -> Any:
    return v.text if isinstance(v, _Str) else v


def _same(a: Any, b: _Obj) -> bool:
    """A Throwable's ``cause`` is the Throwable itself until set: without ids, the same class and
    the same message read at the same place is taken as that."""
    return isinstance(a, _Obj) and a.sig == b.sig and (not a.fields or _plain(a.get("detailMessage")) ==
                                                       _plain(b.get("detailMessage")))


def _stack(trace: Any) -> list[str] | None:
    if not isinstance(trace, _Arr) or not trace.length:
        return None
    out = []
    for el in trace.items:
        f = {n: _plain(x) for n, x in el.fields}
        where = f"{f.get('fileName')}:{f.get('lineNumber')}" if f.get("fileName") else "Unknown Source"
        out.append(f"{f.get('declaringClass')}.{f.get('methodName')}({where})")
    return out


async def to_snapshot(vm: Debuggee, event: Any, limits: Limits, watch: list[str]) -> tuple[dict[str, Any], bool]:
    """A JdwpdCapture event as ``jdwpd.snapshot/1`` data (``Snapshot.data``), and whether it is
    complete (False: a JDK collection was cut earlier than the standard path cuts it)."""
    flags, frames, watch_values = _read(bytes(event.data))
    conv = _Converter(vm, limits, ByteBudget(limits.bytes))
    truncated: list[str] = ["frames"] if flags & CaptureFlag.FRAMES else []
    out_frames = []
    for i, ((tag, ref, method, index), local_vars, this) in enumerate(frames):
        t = await vm.types.type(ref, tag)
        loc = await vm.types.location(t, await vm.types.method(t, method), index)
        entry: dict[str, Any] = {"location": loc.to_python()}
        if i < limits.locals_frames:
            if conv.budget.left >= 0:
                # no variable table (no -g, native): no locals, as the standard path reads none
                entry["locals"] = {name: await conv.value(v) for name, v in local_vars or ()}
                if this is not None:
                    entry["this"] = await conv.value(this)
            else:
                entry["@truncated"] = "budget"
        out_frames.append(entry)
    watches = []
    for text, v in zip(watch, watch_values, strict=True):
        if isinstance(v, _Err):
            watches.append({"expression": text, "error": _ERRORS.get(v.reason, v.reason)})
        else:
            watches.append({"expression": text, "value": await conv.value(v)})
    if conv.budget.left < 0 or flags & (CaptureFlag.BYTES | CaptureFlag.TIME):
        truncated.append("budget")
    if conv.incomplete:
        truncated.append("depth")
    thread = await vm.thread(event.thread)
    location = await vm.types.location_from_wire(event.location)
    return {
        "schema": SCHEMA,
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
        "thread": {"id": thread.id, "name": thread.name},
        "location": location.to_python(),
        "frames": out_frames,
        "watches": watches,
        "limits": attrs.asdict(limits),
        "truncated": truncated,
    }, not conv.incomplete


#: The agent's reasons for a watch it could not evaluate, in the interpreter's words.
_ERRORS = {"null": "NullPointerException", "index": "ArrayIndexOutOfBoundsException",
           "arithmetic": "ArithmeticException: / by zero", "type": "ClassCastException"}
