"""The agent's in-callback programs: condition bytecode, capture specs, budgets (docs/extensions.md).

The daemon compiles a Java expression (``jdwpd/expr/agent_code.py``) into a small stack bytecode that
the agent runs in the JVMTI callback (``agent/cond.c``); captures and budgets are fixed records.  All
three reach the agent inside the Conditional modifier of SET_REQUEST (``protocol/link.py``: the
modifier carries the JDWP exprID and the object's bytes).  This module holds their numbers and
layouts; ``gen_c_header.py`` prints the enums for the C side.

Program (ObjKind.CONDITION), big-endian:

    u8 kind=1, u8 result tag, u64 method (0: no local or ``this``), u16 max_stack,
    u16 nclasses, u64 class ids..., u16 nstrings, (u16 length, u16 UTF-16 units...)...,
    u32 code length, code

Every instruction is an opcode byte and fixed operands.  Jumps are forward only (i16 offset from the
end of the jump instruction), so a program ends within its length; the agent still bounds steps
and stack depth and checks every operand's type at run time, so a malformed program is a false
condition with reason TYPE, never a wrong read.

Capture (ObjKind.CAPTURE): u8 kind=2, u16 frames, u16 locals_frames, u16 depth, u16 max_string,
u16 max_items, u32 max_bytes, u32 max_micros, u8 what (CaptureWhat), u16 nwatches, (u32 length,
program)...

Budget (ObjKind.BUDGET): u8 kind=3, u32 hit_cap, i64 expires_ms (relative to the request's set
time; 0: never), u32 rate (hits per second; 0: none), u32 cpu_ppm (0: no quota).

Catch filter (ObjKind.CATCH): u8 kind=4, u16 n, (u32 length, UTF-8 class pattern)... caught in,
u16 n, (u32 length, UTF-8)... not caught in.  An Exception event passes when its exception is
uncaught, or when the class of the method that catches it matches a "caught in" pattern (none:
any class) and no "not caught in" one (JDWP's class patterns: exact, or one ``*`` at either end).
"""

from __future__ import annotations

import enum
import struct
from typing import Any

import attrs


class ObjKind(enum.IntEnum):
    CONDITION = 1
    CAPTURE = 2
    BUDGET = 3
    CATCH = 4


class Op(enum.IntEnum):
    """Opcodes.  T below is one of the stack types I (int, also boolean/byte/char/short), J, F, D,
    L (a VM object or null), K (a string constant)."""

    END = 0x00  # pop the result
    CONST_I = 0x01  # i32
    CONST_J = 0x02  # i64
    CONST_F = 0x03  # u32 bits
    CONST_D = 0x04  # u64 bits
    CONST_NULL = 0x05
    CONST_S = 0x06  # u16 string constant index -> K
    LOCAL = 0x08  # u8 JNI tag (Z B C S I J F D L), u16 slot: the event frame's local
    THIS = 0x09  # the event frame's `this` (null in a static method)
    FIELD = 0x0A  # u8 tag, u16 class index, u64 field id: pop object (null: NPE; not an instance: TYPE)
    STATIC = 0x0B  # u8 tag, u16 class index, u64 field id
    ALEN = 0x0C  # pop array -> I
    AGET = 0x0D  # u8 component tag: pop index, array
    SLEN = 0x10  # pop string -> I
    SEQ = 0x11  # pop b, a: a.equals(b) (a null: NPE)
    SCHAR = 0x12  # pop index, string -> I (char)
    INSTANCEOF = 0x14  # u16 class index: pop L -> I
    CHECKCAST = 0x15  # u16 class index: pop L, push it (not an instance: CLASS_CAST)
    ACMP = 0x16  # u8 cond EQ/NE: pop two L -> I (identity)
    ISNULL = 0x17  # pop L -> I
    ARITH = 0x18  # u8 type (I J F D), u8 ArithOp: pop b, a -> a op b (NEG pops one)
    CMP = 0x19  # u8 type, u8 Cond: pop b, a -> I
    CONV = 0x1A  # u8 from type, u8 to tag (I J F D B C S)
    NOT = 0x1B  # pop I -> I (x == 0)
    POP = 0x1C
    JMP = 0x20  # i16 forward offset
    JMPF = 0x21  # i16: pop I, jump if 0
    JMPT = 0x22  # i16: pop I, jump if not 0


class ArithOp(enum.IntEnum):
    ADD = 1
    SUB = 2
    MUL = 3
    DIV = 4
    REM = 5
    NEG = 6
    SHL = 7  # I and J only; the count is an I
    SHR = 8
    USHR = 9
    AND = 10
    OR = 11
    XOR = 12


class Cond(enum.IntEnum):
    EQ = 1
    NE = 2
    LT = 3
    GE = 4
    GT = 5
    LE = 6


class Reason(enum.IntEnum):
    """Why a condition was false without being evaluated to false (counted per request)."""

    NULL = 1  # NullPointerException
    INDEX = 2  # array or string index out of bounds
    ARITHMETIC = 3  # integer division by zero
    TYPE = 4  # an operand of the wrong type, a failed cast, a malformed program
    OTHER = 5  # a JVMTI error (no such local here, ...), the step or stack bound


class Disabled(enum.IntEnum):
    """Why a request disabled itself (the JdwpdDisabled event's reason)."""

    HIT_CAP = 1
    EXPIRED = 2
    RATE = 3
    CPU_QUOTA = 4


MAX_STACK = 32  # cells; the compiler refuses deeper programs
MAX_CODE = 16384  # bytes of code per program
DEFAULT_CPU_PPM = 10_000  # 1% of one CPU, as production snapshot debuggers default
CPU_WINDOW_MS = 2000  # the quota's bucket holds this much time's worth of quota (a burst)
EVENT_COST_NS = 5000  # charged per event sent: the callback's cost of encoding and sending it

#: The JDK feature versions on which the agent reads HotSpot's internals (agent/slots.c: VMStructs
#: offsets, the interpreter frame, a jmethodID taken as a Method**): exactly those the suites run
#: tests/ext/test_slots.py and test_live_locals.py on.  Such reads are not checked by anything but
#: our tests, and a later JDK may change what they read (JDK 26's jmethodIDs are no longer Method**,
#: JDK-8268406), so any other version reads a condition's locals by a stack walk.  The agent
#: (agent/hotspot_gate.h, through the generated header) and `jdwpd doctor` read this one list; add
#: a version here only with a run of those tests on it.
IN_PLACE_JDKS = (17, 21, 25)

# Capture blob (the JdwpdCapture event's data), version 2, big-endian; str = u32 length + UTF-8:
#   u8 version, u8 flags (CaptureFlag), u16 nframes,
#   per frame: u8 ref kind, u64 class, u64 method, u64 index (a link location), u8 read: 0 (a frame
#              below locals_frames: nothing follows), 1 (u16 count, (str name, item)..., then item
#              `this`: the locals live at the frame's index, in table order) or 2 (no variable table:
#              item `this` only); `this` is tag 0 when not asked, static or native
#   u16 nwatches, item per watch.
#   item: u8 tag, then: Z u8 | B i8 | C u16 | S i16 | I i32 | J i64 | F f32 | D f64 | N (null) |
#         s u32 length, u16 kept, kept UTF-16 units | L [u64 id] str class signature, u8 truncated
#         (depth or items), u16 count, (str field, item)... (instance fields, own class first) |
#         [ [u64 id] str signature, u32 length, u16 kept, items... | E u8 Reason |
#         X (not read: a limit was hit)
#   An object's and an array's id (the JDWP object id, as in any reply) is there when flags has IDS.
CAPTURE_VERSION = 2


class CaptureFlag(enum.IntFlag):
    BYTES = 1  # stopped at max_bytes
    TIME = 2  # stopped at max_micros
    FRAMES = 4  # the stack had more frames than asked
    IDS = 8  # objects and arrays carry their ids (not a cut: the capture asked for them)


class CaptureWhat(enum.IntFlag):
    THIS = 1  # `this` of every frame whose locals are read
    IDS = 2  # object ids: the daemon counts them as handed to the session, as any reply's


class BudgetFlag(enum.IntFlag):
    #: A condition that fails (a Reason) counts as true: the hit is reported, a JdwpdConditionError
    #: with the reason just before it, as a debugger stops where a condition cannot be evaluated.
    STOP_ON_ERROR = 1


_BUDGET = struct.Struct(">BIqIII")


def encode_budget(hit_cap: int = 0, expires_ms: int = 0, rate: int = 0, cpu_ppm: int = DEFAULT_CPU_PPM,
                  flags: int = 0) -> bytes:
    return _BUDGET.pack(ObjKind.BUDGET, hit_cap, expires_ms, rate, cpu_ppm, flags)


def valid_class_pattern(pattern: str) -> bool:
    """JDWP's class pattern (ClassMatch): a name, or one ``*`` at its start or its end."""
    body = pattern[1:] if pattern.startswith("*") else pattern[:-1] if pattern.endswith("*") else pattern
    return pattern == "*" or (bool(body) and "*" not in body)


def class_pattern_matches(pattern: str, name: str) -> bool:
    """``name`` matches a JDWP class pattern (the agent's rule, agent/class_names.c)."""
    if pattern.startswith("*"):
        return name.endswith(pattern[1:])
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


def catch_passes(catcher: str | None, caught_in: tuple[str, ...] | list[str],
                 not_caught_in: tuple[str, ...] | list[str]) -> bool:
    """Whether an exception caught in class ``catcher`` (None: uncaught) passes a catch filter."""
    if catcher is None:
        return True
    return ((not caught_in or any(class_pattern_matches(p, catcher) for p in caught_in))
            and not any(class_pattern_matches(p, catcher) for p in not_caught_in))


def encode_catch_filter(caught_in: list[str] | tuple[str, ...], not_caught_in: list[str] | tuple[str, ...]) -> bytes:
    """A catch filter's bytes; ValueError for a pattern that is not a JDWP class pattern."""
    out = [struct.pack(">B", ObjKind.CATCH)]
    for patterns in (caught_in, not_caught_in):
        out.append(struct.pack(">H", len(patterns)))
        for pattern in patterns:
            if not valid_class_pattern(pattern):
                raise ValueError(f"{pattern!r} is not a class pattern (a name, or one '*' at its start or end)")
            data = pattern.encode()
            out.append(struct.pack(">I", len(data)) + data)
    return b"".join(out)


_CAPTURE = struct.Struct(">BHHHHHIIBH")


def encode_capture(frames: int, locals_frames: int, depth: int, max_string: int, max_items: int,
                   max_bytes: int, max_micros: int, this: bool, watches: list[bytes], ids: bool = False) -> bytes:
    what = (CaptureWhat.THIS if this else 0) | (CaptureWhat.IDS if ids else 0)
    out = [_CAPTURE.pack(ObjKind.CAPTURE, frames, locals_frames, depth, max_string, max_items, max_bytes,
                         max_micros, what, len(watches))]
    for w in watches:
        out.append(struct.pack(">I", len(w)) + w)
    return b"".join(out)


_ITEM_FIXED = {"Z": ">B", "B": ">b", "C": ">H", "S": ">h", "I": ">i", "J": ">q", "F": ">f", "D": ">d"}


class MissingField(KeyError):
    """A field asked of a captured object that the capture does not hold (its depth ran out first)."""


@attrs.frozen
class CapturedObject:
    sig: str
    cut: bool  # the agent's depth or item limit: fewer fields than the object has
    fields: tuple[tuple[str, Any], ...]  # in the order the agent read them (shadowed names twice)
    id: int = 0  # its JDWP object id when the capture asked for ids (CaptureWhat.IDS), else 0

    def get(self, name: str) -> Any:
        for n, v in self.fields:
            if n == name:
                return v
        raise MissingField(name)


@attrs.frozen
class CapturedArray:
    sig: str
    length: int
    items: tuple[Any, ...]  # the first len(items) of length
    id: int = 0


@attrs.frozen
class CapturedString:
    text: str
    length: int  # UTF-16 units in the VM's string
    kept: int  # UTF-16 units captured


@attrs.frozen
class CapturedError:
    reason: str


@attrs.frozen
class NotRead:
    """An item the agent did not read: its byte or time limit was hit."""


@attrs.frozen
class CapturedFrame:
    ref_kind: int
    ref: int
    method: int
    index: int
    locals: tuple[tuple[str, Any], ...] | None  # None: a frame below the locals' limit
    this: Any = None  # the frame's `this` (None: static, not asked, or a frame without locals)


@attrs.frozen
class Capture:
    flags: int
    frames: tuple[CapturedFrame, ...]
    watches: tuple[Any, ...]

    @property
    def this(self) -> Any:
        """The top frame's ``this``."""
        return self.frames[0].this if self.frames else None

    @property
    def truncated(self) -> list[str]:
        return [(f.name or "").lower() for f in CaptureFlag if self.flags & f]  # (a member's name is never None)


class _Blob:
    def __init__(self, data: bytes, ids: bool = False) -> None:
        self.data, self.pos, self.ids = data, 0, ids

    def take(self, fmt: str) -> Any:
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def str(self) -> str:
        n = self.take(">I")
        raw = self.data[self.pos:self.pos + n]
        self.pos += n
        return raw.decode("utf-8", "replace")

    def item(self) -> Any:
        tag = chr(self.take(">B"))
        if tag in _ITEM_FIXED:
            v = self.take(_ITEM_FIXED[tag])
            return bool(v) if tag == "Z" else chr(v) if tag == "C" else v  # a char is a str, as JDWP's reads
        if tag in "N\0":
            return None
        if tag == "s":
            length, kept = self.take(">IH")
            text = self.data[self.pos:self.pos + 2 * kept].decode("utf-16-be", "surrogatepass")
            self.pos += 2 * kept
            return CapturedString(text, length, kept)
        if tag == "L":
            oid = self.take(">Q") if self.ids else 0
            sig = self.str()
            cut, n = self.take(">BH")
            return CapturedObject(sig, bool(cut), tuple((self.str(), self.item()) for _ in range(n)), oid)
        if tag == "[":
            oid = self.take(">Q") if self.ids else 0
            sig = self.str()
            length, kept = self.take(">IH")
            return CapturedArray(sig, length, tuple(self.item() for _ in range(kept)), oid)
        if tag == "E":
            return CapturedError(Reason(self.take(">B")).name.lower())
        if tag == "X":
            return NotRead()
        raise ValueError(f"capture item tag {tag!r}")


def read_capture(data: bytes) -> Capture:
    """A JdwpdCapture event's data, every item kept as the agent wrote it (order, cuts, lengths)."""
    version, flags = struct.unpack_from(">BB", data) if len(data) >= 2 else (None, 0)
    if version != CAPTURE_VERSION:
        raise ValueError(f"capture version {version}")
    b = _Blob(data, bool(flags & CaptureFlag.IDS))
    _, _, nframes = b.take(">BBH")
    frames = []
    for _ in range(nframes):
        ref_kind, ref, method, index = b.take(">BQQQ")
        local_vars, this = None, None
        read = b.take(">B")
        if read:
            local_vars = tuple((b.str(), b.item()) for _ in range(b.take(">H"))) if read == 1 else ()
            this = b.item()
        frames.append(CapturedFrame(ref_kind, ref, method, index, local_vars, this))
    watches = tuple(b.item() for _ in range(b.take(">H")))
    if b.pos != len(data):
        raise ValueError(f"{len(data) - b.pos} bytes after the capture")
    return Capture(flags, tuple(frames), watches)


def capture_ids(data: bytes) -> list[int]:
    """The object ids a capture that carries them holds (with repeats, as a reply's are counted)."""
    if len(data) < 2 or data[0] != CAPTURE_VERSION or not data[1] & CaptureFlag.IDS:
        return []
    out: list[int] = []

    def walk(item: Any) -> None:
        if isinstance(item, CapturedObject):
            if item.id:
                out.append(item.id)
            for _, v in item.fields:
                walk(v)
        elif isinstance(item, CapturedArray):
            if item.id:
                out.append(item.id)
            for v in item.items:
                walk(v)

    try:
        c = read_capture(data)
    except (ValueError, struct.error):  # not the agent's: it holds no ids to count
        return []
    for f in c.frames:
        for _, v in f.locals or ():
            walk(v)
        walk(f.this)
    for w in c.watches:
        walk(w)
    return out


def _plain(item: Any) -> Any:
    if isinstance(item, CapturedString):
        return item.text if item.kept == item.length else {"@string": item.text, "@length": item.length,
                                                            "@truncated": "max_string"}
    if isinstance(item, CapturedObject):
        out: dict[str, Any] = {"@type": item.sig, **({"@id": item.id} if item.id else {})}
        for name, value in item.fields:
            out[name] = _plain(value)
        if item.cut:
            out["@truncated"] = True
        return out
    if isinstance(item, CapturedArray):
        items = [_plain(x) for x in item.items]
        if len(items) == item.length and not item.id:
            return items
        out = {"@type": item.sig, **({"@id": item.id} if item.id else {}), "@length": item.length, "@items": items}
        if len(items) < item.length:
            out["@truncated"] = True
        return out
    if isinstance(item, CapturedError):
        return {"@error": item.reason}
    if isinstance(item, NotRead):
        return {"@truncated": "limit"}
    return item


def decode_capture(data: bytes) -> dict[str, Any]:
    """A JdwpdCapture event's data as plain Python: frames (location ids and locals), this, watches,
    and which limits cut it (``truncated``)."""
    c = read_capture(data)
    frames = []
    for f in c.frames:
        frame: dict[str, Any] = {"class": f.ref, "method": f.method, "index": f.index}
        if f.locals is not None:
            frame["locals"] = {name: _plain(value) for name, value in f.locals}
            frame["this"] = _plain(f.this)
        frames.append(frame)
    return {"frames": frames, "this": _plain(c.this), "watches": [_plain(w) for w in c.watches],
            "truncated": c.truncated}
