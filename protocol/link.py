"""The agent link: framed binary messages between the daemon and the JVMTI agent.

This module is the single source of truth for every number the C agent and the
daemon share: frame layout, message kinds, status codes, capability bits,
object-kind tags, link-level event payloads.  ``gen_c_header.py`` turns it into
``agent/link_protocol.h``; a test fails when the two disagree.

Why a schema table and not hand-written codecs: the C side writes and reads the
same layouts by hand, so the layout must be readable as data (docs/link.md is
derived from it) and the Python side must not drift from it.

Frame: ``length:u32 id:u32 kind:u16 status:u16 body`` big-endian, ``length``
counting the 12-byte header.  Requests come from the daemon with id > 0; the
agent answers with the same id and kind, ``status`` 0 for success or a JVMTI
error number (or one of ``LinkStatus``), the reply body present only on
success.  Agent-initiated messages (events, notices) carry id 0.

Everything here is sans-I/O: bytes in, typed values out.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from .link_basics import SECRET_SIZE as SECRET_SIZE  # defined there for the JVM's command line, before attrs
from .link_basics import Profile as Profile
from .wire import decode_mutf8, encode_jdwp_string

MAGIC = b"JDWPDLNK"
LINK_VERSION = 1
HEADER = struct.Struct(">IIHH")
HEADER_SIZE = HEADER.size
MAX_FRAME = 64 * 1024 * 1024  # RedefineClasses carries whole class files
NONCE_SIZE = 16
PROOF_SIZE = 32
DAEMON_LABEL = b"jdwpd-daemon"
AGENT_LABEL = b"jdwpd-agent"


class LinkError(Exception):
    """A malformed frame or body on the agent link."""


class HelloFlag(enum.IntFlag):
    LIVE_ATTACH = 1  # loaded by dynamic attach: OnLoad-only capabilities are absent
    VM_STARTED = 2  # VMInit has happened
    SUSPEND_ON_START = 4  # VMInit is parked waiting for the first debugger's resume
    # onthrow=/onuncaught= (the agent woke at an exception): the start event for the first debugger is
    # the EXCEPTION hit with request id 0 that follows the hello, not VMStart; SUSPEND_ON_START is set too.
    STARTED_BY_EXCEPTION = 8


class LinkStatus(enum.IntEnum):
    """Reply statuses that are not JVMTI error numbers (those stay below 1000)."""

    OK = 0
    BAD_MESSAGE = 1000  # body could not be parsed
    UNKNOWN_KIND = 1001
    INVALID_ID = 1002  # object/thread/class id unknown to the agent's table
    COLLECTED = 1003  # the id was valid, its object has been collected
    NOT_SUSPENDED = 1004  # the agent's suspend count for the thread is zero
    NOT_AT_EVENT = 1005  # invoke on a thread not parked at an event
    INVALID_METHOD = 1006  # method id never handed out by the agent
    INVALID_FIELD = 1007  # field id never handed out by the agent
    NOT_CAPABLE = 1008  # the agent's capability profile lacks what this needs
    BUSY = 1009  # e.g. an invoke already pending on that thread
    INTERNAL = 1010


class CapBit(enum.IntEnum):
    """Bits of the agent's capability mask (HELLO and VM_INFO)."""

    WATCH_FIELD_MODIFICATION = 0
    WATCH_FIELD_ACCESS = 1
    GET_BYTECODES = 2
    GET_SYNTHETIC_ATTRIBUTE = 3
    GET_OWNED_MONITOR_INFO = 4
    GET_CURRENT_CONTENDED_MONITOR = 5
    GET_MONITOR_INFO = 6
    REDEFINE_CLASSES = 7
    POP_FRAME = 8
    FORCE_EARLY_RETURN = 9
    GET_SOURCE_DEBUG_EXTENSION = 10
    BREAKPOINTS = 11
    SINGLE_STEP = 12
    ACCESS_LOCAL_VARIABLES = 13
    EXCEPTION_EVENTS = 14
    FRAME_POP_EVENTS = 15
    METHOD_ENTRY_EVENTS = 16
    METHOD_EXIT_EVENTS = 17
    MONITOR_EVENTS = 18
    GET_CONSTANT_POOL = 19
    GET_OWNED_MONITOR_STACK_DEPTH_INFO = 20
    TAG_OBJECTS = 21  # instances, instance counts, referring objects
    SUSPEND = 22
    SIGNAL_THREAD = 23  # Stop, Interrupt
    LINE_NUMBERS = 24
    SOURCE_FILE_NAME = 25
    MAINTAIN_ORIGINAL_METHOD_ORDER = 26
    REDEFINE_ANY_CLASS = 27
    SUPPORT_VIRTUAL_THREADS = 28


class ObjectKind(enum.IntEnum):
    """How the agent classifies an object; the values are JDWP's value tags."""

    OBJECT = ord("L")
    STRING = ord("s")
    THREAD = ord("t")
    THREAD_GROUP = ord("g")
    CLASS_LOADER = ord("l")
    CLASS_OBJECT = ord("c")
    ARRAY = ord("[")


class RefKind(enum.IntEnum):
    """Reference type kinds; the values are JDWP's TypeTag."""

    CLASS = 1
    INTERFACE = 2
    ARRAY = 3


class InvokeKind(enum.IntEnum):
    STATIC = 1  # ClassType / InterfaceType.InvokeMethod
    INSTANCE = 2  # ObjectReference.InvokeMethod, virtual dispatch
    NONVIRTUAL = 3  # ObjectReference.InvokeMethod with INVOKE_NONVIRTUAL
    NEW_INSTANCE = 4  # ClassType.NewInstance


# Value tags (JDWP's numbers) and the payload size of each on the link.
PRIMITIVE_SIZES = {
    ord("B"): 1, ord("C"): 2, ord("D"): 8, ord("F"): 4, ord("I"): 4,
    ord("J"): 8, ord("S"): 2, ord("Z"): 1, ord("V"): 0,
}
OBJECT_TAGS = frozenset(int(k) for k in ObjectKind)

# Field types of the schema.  Lists are ("list", fields); variants are
# ("variant", selector_field_name, {selector_value: fields}).
U8, BOOL, U16, I32, I64, ID, STR, BYTES, VALUE, TAGGED, LOC = (
    "u8", "bool", "u16", "i32", "i64", "id", "str", "bytes", "value", "tagged", "loc")


def lst(*fields: tuple) -> tuple:
    return ("list", fields)


#: Kinds below are the handshake's and the agent's own messages (id 0); from here on, the daemon's requests.
FIRST_REQUEST_KIND = 16


@attrs.frozen
class MessageSpec:
    kind: int
    name: str
    request: tuple
    reply: tuple
    doc: str
    # May let a thread run or change what the VM would answer (False: it only reads, or suspends);
    # what it would drop is the reply memo's thread answers (jdwpd/daemon/fast/memo.py).  New messages
    # thaw until shown otherwise.
    thaws: bool = True
    suspends: bool = False  # holds a thread, or every thread, more
    # A request's agent file (agent/<handled_in>.c); its handler there is ``handler``: the file's name,
    # '_', the kind's name in lower case (exec_classes_class_signature).  The table kind -> handler is
    # generated into agent/link_protocol.h (LINK_HANDLERS), and dispatch.c looks every request up in it.
    handled_in: str = ""
    # The handler sends the reply itself, or returns a status for dispatch.c to send (INVOKE answers
    # when the call returns); the others fill the reply body and dispatch.c frames and sends it.
    replies_itself: bool = False

    @property
    def is_request(self) -> bool:
        return self.kind >= FIRST_REQUEST_KIND

    @property
    def handler(self) -> str:
        """The agent's C function that handles this request ("" for the handshake's and the agent's own)."""
        return f"{self.handled_in}_{self.name.lower()}" if self.handled_in else ""


MESSAGES: dict[int, MessageSpec] = {}
BY_NAME: dict[str, MessageSpec] = {}


def _msg(kind: int, name: str, request: Sequence[tuple[str, Any]], reply: Sequence[tuple[str, Any]], doc: str, *,
         thaws: bool = True, suspends: bool = False, handled_in: str = "", replies_itself: bool = False) -> None:
    spec = MessageSpec(kind, name, tuple(request), tuple(reply), doc, thaws, suspends, handled_in, replies_itself)
    assert kind not in MESSAGES and name not in BY_NAME, name
    assert bool(handled_in) == spec.is_request, f"{name}: every request, and only a request, names its agent file"
    MESSAGES[kind] = spec
    BY_NAME[name] = spec


# --- handshake (id 0, status 0) -------------------------------------------------
_msg(1, "HELLO", [("magic", BYTES), ("version", I32), ("pid", I64), ("nonce", BYTES),
                  ("flags", I32), ("caps", I64), ("profile", STR)], [],
     "agent -> daemon, first frame after connect")
_msg(2, "CHALLENGE", [("nonce", BYTES), ("proof", BYTES)], [],
     "daemon -> agent: its nonce and HMAC(secret, DAEMON_LABEL + agent nonce)")
_msg(3, "AUTH", [("proof", BYTES)], [], "agent -> daemon: HMAC(secret, AGENT_LABEL + daemon nonce)")
_msg(4, "WELCOME", [], [], "daemon -> agent: authenticated; requests may follow")

# --- agent-initiated (id 0) -----------------------------------------------------
_msg(8, "EVENT", [], [], "agent -> daemon: one composite of hits; body is EVENT_BODY")
_msg(9, "NOTICE", [("what", I32), ("detail", STR)], [],
     "agent -> daemon: VM_DEATH notice (what=1) after the last events; log lines (what=2)")
_msg(10, "CLASS_UNLOADED", [("ref", ID), ("signature", STR)], [],
     "agent -> daemon: a class whose id the agent handed out was unloaded (its id is dead), reported "
     "whether or not a CLASS_UNLOAD request asks, before the next event")
_msg(11, "STOP_READS", [("thread", ID), ("done", I64), ("suspend_count", I32), ("frames", BYTES), ("slots", BYTES),
                        ("values", BYTES)], [],
     "agent -> daemon, just before the EVENT of a stop of one thread at a place ARM_READS armed, in the "
     "same write: frames is THREAD_FRAMES(thread, 0, -1)'s reply body, values FRAME_GET_LOCALS(thread, 0, "
     "slots)'s (slots: that request's count and pairs), suspend_count THREAD_STATUS', read in the event's "
     "callback once its suspend policy applied; done: the id of the last request the agent had run before "
     "it read")

# --- VM -------------------------------------------------------------------------
_msg(16, "VM_INFO", [], [("flags", I32), ("caps", I64), ("properties", lst(("key", STR), ("value", STR)))],
     "system properties (GetSystemProperties) and capabilities held", thaws=False, handled_in="exec_vm")
_msg(17, "ALL_CLASSES", [], [("classes", lst(("ref", ID), ("ref_kind", U8), ("status", I32),
                                                 ("signature", STR), ("generic", STR)))],
     "GetLoadedClasses; status is JVMTI class status bits; generic '' when none", thaws=False, handled_in="exec_vm")
_msg(18, "ALL_THREADS", [], [("threads", lst(("thread", ID),))], "live application threads (not the agent's)",
     thaws=False, handled_in="exec_vm")
_msg(19, "TOP_THREAD_GROUPS", [], [("groups", lst(("group", ID),))], "", thaws=False, handled_in="exec_vm")
_msg(20, "SUSPEND_ALL", [], [], "every application thread's suspend count += 1", thaws=False, suspends=True,
     handled_in="exec_vm")
_msg(21, "RESUME_ALL", [], [], "every application thread with count > 0: count -= 1", handled_in="exec_vm")
_msg(22, "EXIT", [("code", I32)], [], "reply is sent, then the VM exits with code",
     handled_in="dispatch", replies_itself=True)
_msg(23, "CREATE_STRING", [("utf", STR)], [("string", ID)], "", handled_in="exec_vm")
_msg(24, "RELEASE_IDS", [("ids", lst(("id", ID),))], [],
     "forget ids no debugger holds any more (weak refs deleted, tags cleared)", thaws=False, handled_in="exec_vm")
_msg(25, "INSTANCE_COUNTS", [("refs", lst(("ref", ID),))], [("counts", lst(("count", I64),))], "", thaws=False,
     handled_in="exec_vm")
_msg(26, "REDEFINE_CLASSES", [("classes", lst(("ref", ID), ("bytes", BYTES)))], [], "", handled_in="exec_vm")
_msg(27, "ALL_MODULES", [], [("modules", lst(("module", ID),))], "", thaws=False, handled_in="exec_vm")
_msg(28, "GC", [], [], "ForceGarbageCollection, for tests of collected ids", handled_in="exec_vm")
_msg(29, "AGENT_STATS", [], [("counters", lst(("name", STR), ("value", I64)))],
     "live ids, pins, breakpoints set, filters, agent threads, global refs: leak checks", thaws=False,
     handled_in="exec_vm")

_msg(30, "CLASSES_BY_SIGNATURE", [("signature", STR)], [("classes", lst(("ref", ID), ("ref_kind", U8),
                                                                        ("status", I32)))],
     "the loaded classes of that signature (ALL_CLASSES' entries for it, without handing out every class's id)",
     thaws=False, handled_in="exec_vm")

# --- reference types --------------------------------------------------------------
_msg(32, "CLASS_SIGNATURE", [("ref", ID)], [("ref_kind", U8), ("signature", STR), ("generic", STR)], "", thaws=False,
     handled_in="exec_classes")
_msg(33, "CLASS_STATUS", [("ref", ID)], [("status", I32)], "JVMTI class status bits", thaws=False,
     handled_in="exec_classes")
_msg(34, "CLASS_MODIFIERS", [("ref", ID)], [("modifiers", I32)], "", thaws=False, handled_in="exec_classes")
_msg(35, "CLASS_LOADER", [("ref", ID)], [("loader", ID)], "0 for the bootstrap loader", thaws=False,
     handled_in="exec_classes")
_msg(36, "CLASS_SUPERCLASS", [("ref", ID)], [("superclass", ID)], "0 for none", thaws=False, handled_in="exec_classes")
_msg(37, "CLASS_INTERFACES", [("ref", ID)], [("interfaces", lst(("ref", ID),))], "", thaws=False,
     handled_in="exec_classes")
_msg(38, "CLASS_SOURCE_FILE", [("ref", ID)], [("source_file", STR)], "JVMTI ABSENT_INFORMATION when none", thaws=False,
     handled_in="exec_classes")
_msg(39, "CLASS_SOURCE_DEBUG_EXTENSION", [("ref", ID)], [("extension", STR)], "", thaws=False,
     handled_in="exec_classes")
_msg(40, "CLASS_FIELDS", [("ref", ID)], [("fields", lst(("field", ID), ("name", STR), ("signature", STR),
                                                           ("generic", STR), ("modifiers", I32),
                                                           ("synthetic", BOOL)))], "declared fields, in order",
     thaws=False, handled_in="exec_classes")
_msg(41, "CLASS_METHODS", [("ref", ID)], [("methods", lst(("method", ID), ("name", STR), ("signature", STR),
                                                             ("generic", STR), ("modifiers", I32),
                                                             ("synthetic", BOOL)))], "declared methods, in order",
     thaws=False, handled_in="exec_classes")
_msg(42, "CLASS_VERSION", [("ref", ID)], [("major", I32), ("minor", I32)], "", thaws=False, handled_in="exec_classes")
_msg(43, "CLASS_CONSTANT_POOL", [("ref", ID)], [("count", I32), ("bytes", BYTES)], "", thaws=False,
     handled_in="exec_classes")
_msg(44, "CLASS_MODULE", [("ref", ID)], [("module", ID)], "", thaws=False, handled_in="exec_classes")
_msg(45, "CLASS_INSTANCES", [("ref", ID), ("max", I32)], [("instances", lst(("object", TAGGED),))], "", thaws=False,
     handled_in="exec_vm")
_msg(46, "CLASS_GET_STATICS", [("ref", ID), ("fields", lst(("field", ID), ("tag", U8)))],
     [("values", lst(("value", VALUE),))], "tag: the field's JDWP value tag from its signature", thaws=False,
     handled_in="exec_classes")
_msg(47, "CLASS_SET_STATICS", [("ref", ID), ("values", lst(("field", ID), ("value", VALUE)))], [], "",
     handled_in="exec_classes")
_msg(48, "LOADER_VISIBLE_CLASSES", [("loader", ID)], [("classes", lst(("ref", ID), ("ref_kind", U8)))], "", thaws=False,
     handled_in="exec_classes")
_msg(49, "CLASS_OBJECT_KIND", [("ref", ID)], [("ref_kind", U8)], "class, interface or array", thaws=False,
     handled_in="exec_classes")
_msg(50, "MODULE_INFO", [("module", ID)], [("name", STR), ("loader", ID)], "", thaws=False, handled_in="exec_vm")

# --- methods -----------------------------------------------------------------------
_msg(56, "METHOD_LINE_TABLE", [("method", ID)],
     [("start", I64), ("end", I64), ("lines", lst(("index", I64), ("line", I32)))],
     "JVMTI NATIVE_METHOD for native methods, ABSENT_INFORMATION without a table", thaws=False,
     handled_in="exec_classes")
_msg(57, "METHOD_VARIABLE_TABLE", [("method", ID)],
     [("arg_slots", I32), ("variables", lst(("start", I64), ("name", STR), ("signature", STR),
                                            ("generic", STR), ("length", I32), ("slot", I32)))], "", thaws=False,
     handled_in="exec_classes")
_msg(58, "METHOD_BYTECODES", [("method", ID)], [("bytecodes", BYTES)], "", thaws=False, handled_in="exec_classes")
_msg(59, "METHOD_IS_OBSOLETE", [("method", ID)], [("obsolete", BOOL)], "", thaws=False, handled_in="exec_classes")
_msg(60, "METHOD_DECLARING_CLASS", [("method", ID)], [("ref", ID), ("ref_kind", U8)], "", thaws=False,
     handled_in="exec_classes")

# --- objects, strings, arrays ----------------------------------------------------
_msg(64, "OBJECT_TYPE", [("object", ID)], [("kind", U8), ("ref", ID), ("ref_kind", U8)],
     "kind: ObjectKind; ref: the object's class", thaws=False, handled_in="exec_objects")
_msg(65, "OBJECT_GET_FIELDS", [("object", ID), ("fields", lst(("field", ID), ("tag", U8)))],
     [("values", lst(("value", VALUE),))], "", thaws=False, handled_in="exec_objects")
_msg(66, "OBJECT_SET_FIELDS", [("object", ID), ("values", lst(("field", ID), ("value", VALUE)))], [], "",
     handled_in="exec_objects")
_msg(67, "OBJECT_MONITOR_INFO", [("object", ID)],
     [("owner", ID), ("entry_count", I32), ("waiters", lst(("thread", ID),))], "", thaws=False,
     handled_in="exec_objects")
_msg(68, "OBJECT_PIN", [("object", ID)], [], "DisableCollection: a strong global ref, counted", thaws=False,
     handled_in="exec_objects")
_msg(69, "OBJECT_UNPIN", [("object", ID)], [], "EnableCollection", thaws=False, handled_in="exec_objects")
_msg(70, "OBJECT_IS_COLLECTED", [("object", ID)], [("collected", BOOL)], "", thaws=False, handled_in="exec_objects")
_msg(71, "OBJECT_REFERRERS", [("object", ID), ("max", I32)], [("referrers", lst(("object", TAGGED),))], "", thaws=False,
     handled_in="exec_vm")
_msg(72, "STRING_VALUE", [("string", ID)], [("utf", STR)],
     "standard UTF-8: the agent converts the JVM's modified UTF-8 (all link strings are standard UTF-8)", thaws=False,
     handled_in="exec_objects")
_msg(73, "ARRAY_LENGTH", [("array", ID)], [("length", I32)], "", thaws=False, handled_in="exec_objects")
_msg(74, "ARRAY_GET", [("array", ID), ("first", I32), ("length", I32)],
     [("tag", U8), ("values", lst(("value", VALUE),))],
     "tag: component tag; every value tagged on the link (the daemon strips primitives)", thaws=False,
     handled_in="exec_objects")
_msg(75, "ARRAY_SET", [("array", ID), ("first", I32), ("values", lst(("value", VALUE),))], [], "",
     handled_in="exec_objects")
_msg(76, "ARRAY_NEW", [("ref", ID), ("length", I32)], [("array", TAGGED)], "ref: the array type",
     handled_in="exec_objects")

# --- threads and groups ------------------------------------------------------------
_msg(80, "THREAD_INFO", [("thread", ID)],
     [("name", STR), ("group", ID), ("priority", I32), ("daemon", BOOL), ("virtual", BOOL)], "", thaws=False,
     handled_in="exec_threads")
_msg(81, "THREAD_STATUS", [("thread", ID)],
     [("state", I32), ("suspend_count", I32), ("at_event", BOOL), ("frame_generation", I64)],
     "state: JVMTI thread state bits; suspend_count: the agent's; at_event: parked by an event; "
     "frame_generation: the thread's real resumes since its record began (0 again for an ended thread "
     "a debugger suspends), the generation of its frame ids as the reference counts it", thaws=False,
     handled_in="exec_threads")
_msg(82, "THREAD_SUSPEND", [("thread", ID)], [], "count += 1", thaws=False, suspends=True, handled_in="exec_threads")
_msg(83, "THREAD_RESUME", [("thread", ID)], [], "count -= 1 if > 0", handled_in="exec_threads")
_msg(84, "THREAD_FRAMES", [("thread", ID), ("start", I32), ("length", I32)],
     [("frames", lst(("ref", ID), ("ref_kind", U8), ("method", ID), ("index", I64))), ("frame_generation", I64)],
     "length -1: all remaining. NOT_SUSPENDED unless the thread is suspended; frame_generation as in "
     "THREAD_STATUS", thaws=False, handled_in="exec_threads")
_msg(85, "THREAD_FRAME_COUNT", [("thread", ID)], [("count", I32)], "NOT_SUSPENDED unless suspended", thaws=False,
     handled_in="exec_threads")
_msg(86, "THREAD_OWNED_MONITORS", [("thread", ID)], [("monitors", lst(("object", TAGGED), ("depth", I32)))], "",
     thaws=False, handled_in="exec_threads")
_msg(87, "THREAD_CONTENDED_MONITOR", [("thread", ID)], [("object", TAGGED)], "", thaws=False, handled_in="exec_threads")
_msg(88, "THREAD_STOP", [("thread", ID), ("throwable", ID)], [], "", handled_in="exec_threads")
_msg(89, "THREAD_INTERRUPT", [("thread", ID)], [], "", handled_in="exec_threads")
_msg(90, "THREAD_POP_FRAMES", [("thread", ID), ("depth", I32)], [], "pops frames 0..depth inclusive",
     handled_in="exec_threads")
_msg(91, "THREAD_FORCE_EARLY_RETURN", [("thread", ID), ("value", VALUE)], [], "", handled_in="exec_threads")
_msg(92, "GROUP_INFO", [("group", ID)], [("name", STR), ("parent", ID)], "", thaws=False, handled_in="exec_vm")
_msg(93, "GROUP_CHILDREN", [("group", ID)], [("threads", lst(("thread", ID),)), ("groups", lst(("group", ID),))], "",
     thaws=False, handled_in="exec_vm")

# --- frames ----------------------------------------------------------------------------
_msg(94, "ARM_READS", [("method", ID), ("index", I64), ("slots", lst(("slot", I32), ("tag", U8)))], [],
     "read the stack and these locals (primitive tags, at most 32) of the top frame at every stop of one "
     "thread at (method, index), and send them as STOP_READS with its EVENT; ILLEGAL_ARGUMENT for more "
     "slots or another tag", thaws=False, handled_in="stop_reads")
_msg(96, "FRAME_GET_LOCALS", [("thread", ID), ("depth", I32), ("slots", lst(("slot", I32), ("tag", U8)))],
     [("values", lst(("value", VALUE),))], "", thaws=False, handled_in="exec_threads")
_msg(97, "FRAME_SET_LOCALS", [("thread", ID), ("depth", I32), ("values", lst(("slot", I32), ("value", VALUE)))],
     [], "", handled_in="exec_threads")
_msg(98, "FRAME_THIS", [("thread", ID), ("depth", I32)], [("object", TAGGED)], "null for static and native",
     thaws=False, handled_in="exec_threads")

# --- invoke --------------------------------------------------------------------------
_msg(100, "INVOKE", [("thread", ID), ("kind", U8), ("ref", ID), ("object", ID), ("method", ID),
                     ("options", I32), ("args", lst(("value", VALUE),))],
     [("result", VALUE), ("exception", TAGGED)],
     "runs on the parked event thread; options: JDWP InvokeOptions bits", handled_in="invoke", replies_itself=True)
_msg(101, "INVOKE_DETACH", [("thread", ID), ("drop_count", I32), ("drop_all", BOOL)], [("state", U8)],
     "the debugger of the thread's invoke left: when the call ends the thread's count comes back less "
     "drop_count (not below 0), and with drop_all the other threads are not suspended again; state 0: no "
     "invoke (ended: what it lifted is back), 1: running, detached, 2: not started, dropped (its reply "
     "answers NOT_AT_EVENT)", handled_in="invoke")

# --- event requests -------------------------------------------------------------------
MODIFIER_FIELDS: dict[int, tuple] = {
    1: (("count", I32),),
    # Conditional: the JDWP exprID and, for an id of jdwpd's extension, the object it names
    # (protocol/agent_code.py: a condition program, a capture or a budget); empty: filters nothing.
    2: (("expr_id", I32), ("program", BYTES)),
    3: (("thread", ID),),
    4: (("ref", ID),),
    5: (("pattern", STR),),
    6: (("pattern", STR),),
    7: (("location", LOC),),
    8: (("ref", ID), ("caught", BOOL), ("uncaught", BOOL)),
    9: (("ref", ID), ("field", ID)),
    10: (("thread", ID), ("size", I32), ("depth", I32)),
    11: (("object", ID),),
    12: (("pattern", STR),),
    13: (),
}
_msg(112, "SET_REQUEST",
     [("request_id", I32), ("event_kind", U8), ("suspend_policy", U8),
      ("modifiers", lst(("mod_kind", U8), ("args", ("variant", "mod_kind", MODIFIER_FIELDS))))],
     [], "compile one JDWP event request into an agent filter; numbers are JDWP's", thaws=False, handled_in="dispatch")
_msg(113, "CLEAR_REQUEST", [("request_id", I32)], [], "no error if absent", thaws=False, handled_in="dispatch")
_msg(114, "CLEAR_ALL_REQUESTS", [], [], "", thaws=False, handled_in="dispatch")
_msg(115, "RELEASE_START", [], [], "suspend-on-start: the debugger has resumed; nothing else to do",
     handled_in="dispatch")

# --- class facts in one round trip (appended) ----------------------------------------
_msg(116, "CLASS_METHODS_LINES", [("ref", ID)],
     [("methods", lst(("method", ID), ("name", STR), ("signature", STR), ("generic", STR), ("modifiers", I32),
                      ("synthetic", BOOL), ("lines_status", I32), ("start", I64), ("end", I64),
                      ("lines", lst(("index", I64), ("line", I32)))))],
     "CLASS_METHODS with each method's line table: lines_status is GetLineNumberTable's JVMTI error "
     "(0: lines valid); start/end are GetMethodLocation's (-1 when it fails)", thaws=False, handled_in="exec_classes")

# --- steps by the default stratum (appended) ------------------------------------------
_msg(117, "SET_DEFAULT_STRATUM", [("stratum", STR)], [],
     "VirtualMachine.SetDefaultStratum for the agent's line steps, VM-wide: '' means each class's own "
     "SMAP default; a class with a SourceDebugExtension is stepped by that stratum's lines", thaws=False,
     handled_in="smap")

# --- jdwpd's extension (docs/extensions.md) ----------------------------------------
_msg(118, "EXT_STATS", [("request_id", I32)], [("counters", lst(("name", STR), ("value", I64)))],
     "a request's in-agent condition and budget counters (evaluations, trues, errors by reason, cost, "
     "hits, disabled); INVALID_ID for a request the agent does not hold", handled_in="ext")

# --- the EVENT body ------------------------------------------------------------------
# Payload of one hit, by JDWP event kind.  The agent sends one EVENT per
# callback that matched anything: every hit shares thread and suspend policy.
HIT_FIELDS: dict[int, tuple] = {
    1: (("location", LOC),),  # SINGLE_STEP
    2: (("location", LOC),),  # BREAKPOINT
    4: (("location", LOC), ("exception", TAGGED), ("catch_location", LOC)),  # EXCEPTION (class 0: uncaught)
    6: (),  # THREAD_START
    7: (),  # THREAD_DEATH
    8: (("ref_kind", U8), ("ref", ID), ("signature", STR), ("status", I32)),  # CLASS_PREPARE
    9: (("signature", STR),),  # CLASS_UNLOAD
    20: (("location", LOC), ("ref_kind", U8), ("ref", ID), ("field", ID), ("object", TAGGED)),  # FIELD_ACCESS
    21: (("location", LOC), ("ref_kind", U8), ("ref", ID), ("field", ID), ("object", TAGGED),
         ("value", VALUE)),  # FIELD_MODIFICATION
    40: (("location", LOC),),  # METHOD_ENTRY
    41: (("location", LOC),),  # METHOD_EXIT
    42: (("location", LOC), ("value", VALUE)),  # METHOD_EXIT_WITH_RETURN_VALUE
    43: (("object", TAGGED), ("location", LOC)),  # MONITOR_CONTENDED_ENTER
    44: (("object", TAGGED), ("location", LOC)),  # MONITOR_CONTENDED_ENTERED
    45: (("object", TAGGED), ("location", LOC), ("timeout", I64)),  # MONITOR_WAIT
    46: (("object", TAGGED), ("location", LOC), ("timed_out", BOOL)),  # MONITOR_WAITED
    90: (),  # VM_START
    99: (),  # VM_DEATH
    # extension (protocol/agent_code.py): a capture in place of the request's own event, and a request
    # that disabled itself (its budget ran out); source_kind is the JVMTI-side event kind that fired.
    200: (("location", LOC), ("source_kind", U8), ("data", BYTES)),
    201: (("reason", I32),),
    202: (("location", LOC), ("reason", I32)),  # a condition that failed, the request's hit next
}
EVENT_BODY = (
    ("thread", ID),
    ("suspend_policy", U8),  # the strongest policy among the hits, already applied
    ("hits", lst(("request_id", I32), ("event_kind", U8), ("data", ("variant", "event_kind", HIT_FIELDS)))),
)
NOTICE_VM_DEATH = 1
NOTICE_LOG = 2


# --- codec ---------------------------------------------------------------------------
_U8 = struct.Struct(">B")
_U16 = struct.Struct(">H")
_I32 = struct.Struct(">i")
_U32 = struct.Struct(">I")
_I64 = struct.Struct(">q")
_U64 = struct.Struct(">Q")
_LOC = struct.Struct(">BQQQ")
_PRIM = {
    ord("B"): struct.Struct(">b"), ord("C"): struct.Struct(">H"), ord("D"): struct.Struct(">d"),
    ord("F"): struct.Struct(">f"), ord("I"): _I32, ord("J"): _I64, ord("S"): struct.Struct(">h"),
    ord("Z"): _U8,
}


@attrs.frozen
class LinkValue:
    """A value on the link: tag (JDWP value tag) and a Python value (object: its id)."""

    tag: int
    value: Any


@attrs.frozen
class LinkLocation:
    ref_kind: int
    ref: int
    method: int
    index: int


@attrs.frozen
class Tagged:
    kind: int
    object: int


def _encode(fields: Sequence[tuple], values: Mapping[str, Any], out: list[bytes]) -> None:
    for name, ftype in fields:
        v = values[name]
        if isinstance(ftype, tuple):
            if ftype[0] == "list":
                out.append(_U32.pack(len(v)))
                for item in v:
                    _encode(ftype[1], item, out)
            else:  # variant: selected by a sibling field already written
                _encode(ftype[2][values[ftype[1]]], v, out)
        elif ftype == U8 or ftype == BOOL:
            out.append(_U8.pack(int(v)))
        elif ftype == U16:
            out.append(_U16.pack(v))
        elif ftype == I32:
            out.append(_I32.pack(v))
        elif ftype == I64:
            out.append(_I64.pack(v))
        elif ftype == ID:
            out.append(_U64.pack(v))
        elif ftype == STR:
            # standard UTF-8, as JDWP: the agent converts to and from the JVM's modified UTF-8
            b = v if isinstance(v, bytes) else encode_jdwp_string(v)
            out.append(_U32.pack(len(b)))
            out.append(b)
        elif ftype == BYTES:
            out.append(_U32.pack(len(v)))
            out.append(bytes(v))
        elif ftype == VALUE:
            out.append(encode_value(v))
        elif ftype == TAGGED:
            out.append(_U8.pack(v.kind) + _U64.pack(v.object))
        elif ftype == LOC:
            out.append(_LOC.pack(v.ref_kind, v.ref, v.method, v.index))
        else:  # pragma: no cover - schema error
            raise AssertionError(ftype)


def encode_value(v: LinkValue) -> bytes:
    if v.tag in OBJECT_TAGS:
        return _U8.pack(v.tag) + _U64.pack(v.value)
    if v.tag == ord("V"):
        return _U8.pack(v.tag)
    codec = _PRIM.get(v.tag)
    if codec is None:
        raise LinkError(f"unknown value tag {v.tag}")
    return _U8.pack(v.tag) + codec.pack(v.value)


class _Reader:
    __slots__ = ("data", "pos", "what")

    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.pos = 0
        self.what = what

    def take(self, n: int, field: str) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise LinkError(f"{self.what}: truncated at field {field!r}")
        b = self.data[self.pos:end]
        self.pos = end
        return b

    def unpack(self, codec: struct.Struct, field: str) -> Any:
        return codec.unpack(self.take(codec.size, field))[0]


def _decode(fields: Sequence[tuple], r: _Reader) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, ftype in fields:
        if isinstance(ftype, tuple):
            if ftype[0] == "list":
                n = r.unpack(_U32, name)
                if n > len(r.data) - r.pos:  # every item takes at least a byte
                    raise LinkError(f"{r.what}: count {n} of {name!r} exceeds the frame")
                out[name] = [_decode(ftype[1], r) for _ in range(n)]
            else:
                sel = out[ftype[1]]
                sub = ftype[2].get(sel)
                if sub is None:
                    raise LinkError(f"{r.what}: unknown {ftype[1]} {sel}")
                out[name] = _decode(sub, r)
        elif ftype == U8:
            out[name] = r.unpack(_U8, name)
        elif ftype == BOOL:
            out[name] = bool(r.unpack(_U8, name))
        elif ftype == U16:
            out[name] = r.unpack(_U16, name)
        elif ftype == I32:
            out[name] = r.unpack(_I32, name)
        elif ftype == I64:
            out[name] = r.unpack(_I64, name)
        elif ftype == ID:
            out[name] = r.unpack(_U64, name)
        elif ftype == STR:
            n = r.unpack(_U32, name)
            raw = r.take(n, name)
            try:
                out[name] = raw.decode("ascii") if raw.isascii() else decode_mutf8(raw)
            except ValueError:
                raise LinkError(f"{r.what}: {name!r} is not UTF-8") from None
        elif ftype == BYTES:
            n = r.unpack(_U32, name)
            out[name] = r.take(n, name)
        elif ftype == VALUE:
            out[name] = _decode_value(r, name)
        elif ftype == TAGGED:
            kind = r.unpack(_U8, name)
            out[name] = Tagged(kind, r.unpack(_U64, name))
        elif ftype == LOC:
            out[name] = LinkLocation(*_LOC.unpack(r.take(_LOC.size, name)))
        else:  # pragma: no cover
            raise AssertionError(ftype)
    return out


def _decode_value(r: _Reader, field: str) -> LinkValue:
    tag = r.unpack(_U8, field)
    if tag in OBJECT_TAGS:
        return LinkValue(tag, r.unpack(_U64, field))
    if tag == ord("V"):
        return LinkValue(tag, None)
    codec = _PRIM.get(tag)
    if codec is None:
        raise LinkError(f"{r.what}: unknown value tag {tag} in {field!r}")
    v = r.unpack(codec, field)
    return LinkValue(tag, bool(v) if tag == ord("Z") else v)


def encode_body(fields: Sequence[tuple], values: Mapping[str, Any]) -> bytes:
    out: list[bytes] = []
    _encode(fields, values, out)
    return b"".join(out)


def decode_body(fields: Sequence[tuple], data: bytes, what: str) -> dict[str, Any]:
    r = _Reader(data, what)
    out = _decode(fields, r)
    if r.pos != len(data):
        raise LinkError(f"{what}: {len(data) - r.pos} trailing bytes")
    return out


def frame(msg_id: int, kind: int, status: int, body: bytes = b"") -> bytes:
    return HEADER.pack(HEADER_SIZE + len(body), msg_id, kind, status) + body


def encode_request(msg_id: int, name: str, **values: Any) -> bytes:
    spec = BY_NAME[name]
    return frame(msg_id, spec.kind, 0, encode_body(spec.request, values))


def encode_reply(msg_id: int, kind: int, status: int, values: Mapping[str, Any] | None = None) -> bytes:
    """The agent's side; Python uses it in tests and in fake agents."""
    body = encode_body(MESSAGES[kind].reply, values) if status == 0 and values is not None else b""
    return frame(msg_id, kind, status, body)


_FAST_REPLY: dict[int, Any] = {}  # kind -> generated decoder (link_fast.py), or False: generic only
#: What the generated decoders make values of (link_fast.compile_decoder's ``types``).
LINK_TYPES = (OBJECT_TAGS, LinkValue, Tagged, LinkLocation)


def prepare_reply(kind: int) -> None:
    """Make now the reply decoder that the first reply of this kind would make (~0.1 ms)."""
    if kind not in _FAST_REPLY:
        from .link_fast import compile_decoder

        _FAST_REPLY[kind] = compile_decoder(MESSAGES[kind].reply, LINK_TYPES) or False


def reply_prepared(kind: int) -> bool:
    return kind in _FAST_REPLY


def decode_reply(kind: int, body: bytes) -> dict[str, Any]:
    spec = MESSAGES[kind]
    fast = _FAST_REPLY.get(kind)
    if fast is None:
        prepare_reply(kind)
        fast = _FAST_REPLY[kind]
    if fast:
        try:
            return fast(body)
        except Exception:
            pass  # not well-formed: the generic decoder below names what is wrong
    return decode_body(spec.reply, body, spec.name)


def decode_request(kind: int, body: bytes) -> dict[str, Any]:
    spec = MESSAGES.get(kind)
    if spec is None:
        raise LinkError(f"unknown message kind {kind}")
    return decode_body(spec.request, body, spec.name)


def encode_event(values: Mapping[str, Any]) -> bytes:
    return frame(0, BY_NAME["EVENT"].kind, 0, encode_body(EVENT_BODY, values))


_EVENT_HEAD = struct.Struct(">QBI")  # thread, suspend_policy, hits
_LOCATED_HIT = struct.Struct(">iB" + _LOC.format[1:])  # request_id, event_kind, its one LOC
_LOCATED_KINDS = frozenset(kind for kind, fields in HIT_FIELDS.items() if fields == (("location", LOC),))


def decode_event(body: bytes) -> dict[str, Any]:
    """EVENT_BODY decoded; an event of hits that carry a location alone (steps, breakpoints, method
    entries and exits: every stop of a logpoint) by one struct a hit, the rest by the schema."""
    head, each = _EVENT_HEAD.size, _LOCATED_HIT.size
    if len(body) >= head:
        thread, policy, count = _EVENT_HEAD.unpack_from(body)
        if len(body) == head + count * each:
            hits = []
            for request_id, kind, *location in _LOCATED_HIT.iter_unpack(body[head:]):
                if kind not in _LOCATED_KINDS:
                    break
                hits.append({"request_id": request_id, "event_kind": kind,
                             "data": {"location": LinkLocation(*location)}})
            else:
                return {"thread": thread, "suspend_policy": policy, "hits": hits}
    return decode_body(EVENT_BODY, body, "EVENT")


@attrs.frozen
class Frame:
    id: int
    kind: int
    status: int
    body: bytes


class LinkConnection:
    """Incremental framer: feed bytes, take whole frames.  No I/O."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buf = bytearray()
        self._max = max_frame

    def receive_data(self, data: bytes | bytearray) -> None:  # trio streams give either
        self._buf += data

    def unframed(self) -> bytes:
        """The bytes received that no whole frame took yet (what a handshake's framer hands on)."""
        return bytes(self._buf)

    def frames(self) -> Iterator[Frame]:
        buf = self._buf
        while len(buf) >= HEADER_SIZE:
            length, msg_id, kind, status = HEADER.unpack_from(buf)
            if length < HEADER_SIZE or length > self._max:
                raise LinkError(f"frame length {length} out of range")
            if len(buf) < length:
                return
            body = bytes(buf[HEADER_SIZE:length])
            del buf[:length]
            yield Frame(msg_id, kind, status, body)


# --- authentication ------------------------------------------------------------------
def proof(secret: bytes, label: bytes, nonce: bytes) -> bytes:
    return hmac.new(secret, label + nonce, hashlib.sha256).digest()


def check_proof(secret: bytes, label: bytes, nonce: bytes, claimed: bytes) -> bool:
    return hmac.compare_digest(proof(secret, label, nonce), claimed)


def parse_secret(text: str) -> bytes:
    """The secret file holds SECRET_SIZE bytes as hex, optionally followed by a newline."""
    s = text.strip()
    try:
        raw = bytes.fromhex(s)
    except ValueError:
        raise LinkError("secret file does not hold hex") from None
    if len(raw) != SECRET_SIZE:
        raise LinkError(f"secret must be {SECRET_SIZE} bytes, got {len(raw)}")
    return raw
