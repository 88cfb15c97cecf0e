"""The codecs a debugger's first commands need, made before it asks.

A command's first use in a process generates its codecs (protocol/messages.py: attrs classes and
compiled code, 0.2-2 ms a command; 95 commands ~100 ms).  An IDE attaches with some thirty
commands in a row, so a fresh daemon answered its first session 25-40 ms slower than a warm one
(bench `ide`: 180-200 against 158 ms).  The reference, in C, has nothing to make.

So from the moment a VM is served until some debugger sends its first command, the daemon makes
them: the commands debuggers send first (jdb's attach and first stop, as recorded in
tests/fixtures/recordings/, then what JDI-based IDEs add), the events they ask for, the
agent-link decoders, then the rest;
one step per scheduler turn, so an accept, a handshake or an agent message waits at most one
step (~1 ms).  The first command ends it for good: from then on a step would land inside some
debugger's latency (tried in session 4 for idle moments during a session: Status 111 -> 123 us,
docs/performance_log.md).  What is not made by then is made at first use, as before.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import trio

from protocol import link, messages, spec
from protocol.constants import EventKind

from .settings import FAST

log = logging.getLogger(__name__)

# In the order debuggers send them on attach and at a first stop: jdb (the recordings), then what
# JDI-based IDEs add (IntelliJ, Eclipse, VS Code's java debugger).
FIRST_COMMANDS = (
    "VirtualMachine.IDSizes", "EventRequest.Set", "VirtualMachine.Version", "VirtualMachine.AllClassesWithGeneric",
    "EventRequest.Clear", "VirtualMachine.ClassPaths", "VirtualMachine.AllThreads", "ThreadReference.FrameCount",
    "ThreadReference.Name", "VirtualMachine.Resume", "ReferenceType.MethodsWithGeneric",
    "VirtualMachine.CapabilitiesNew", "ReferenceType.SourceDebugExtension", "Method.LineTable",
    "ThreadReference.Frames", "ReferenceType.SourceFile", "Method.VariableTableWithGeneric", "StackFrame.GetValues",
    "ObjectReference.ReferenceType", "ArrayReference.Length", "ClassType.Superclass", "ReferenceType.Interfaces",
    "ReferenceType.FieldsWithGeneric", "ObjectReference.InvokeMethod", "StringReference.Value",
    "ThreadReference.Status", "ObjectReference.GetValues", "VirtualMachine.TopLevelThreadGroups",
    "ThreadGroupReference.Name", "ThreadGroupReference.Children", "ThreadReference.ThreadGroup",
    # JDI and IDEs
    "VirtualMachine.Capabilities", "VirtualMachine.ClassesBySignature", "ReferenceType.SignatureWithGeneric",
    "ReferenceType.Signature", "ReferenceType.ClassLoader", "ReferenceType.Modifiers", "ReferenceType.Status",
    "ReferenceType.GetValues", "ReferenceType.Module", "ReferenceType.NestedTypes", "VirtualMachine.Suspend",
    "ThreadReference.Suspend", "ThreadReference.Resume", "ThreadReference.SuspendCount",
    "ThreadReference.OwnedMonitors", "ThreadReference.CurrentContendedMonitor", "StackFrame.ThisObject",
    "ArrayReference.GetValues", "ClassObjectReference.ReflectedType", "ObjectReference.IsCollected",
    "ObjectReference.DisableCollection", "ObjectReference.EnableCollection", "VirtualMachine.DisposeObjects",
    "ClassType.InvokeMethod", "VirtualMachine.CreateString", "Method.Bytecodes", "Method.IsObsolete",
    "VirtualMachine.Dispose",
)

FIRST_EVENTS = (
    EventKind.VM_START, EventKind.BREAKPOINT, EventKind.SINGLE_STEP, EventKind.CLASS_PREPARE,
    EventKind.THREAD_START, EventKind.THREAD_DEATH, EventKind.EXCEPTION, EventKind.METHOD_ENTRY,
    EventKind.METHOD_EXIT, EventKind.VM_DEATH,
)


def steps(sizes: Any) -> Iterator[Callable[[], None]]:
    """Every codec a serving daemon makes, most likely first, one step each."""
    first = [spec.by_name(*label.split(".")) for label in FIRST_COMMANDS]
    for cs in first:
        yield partial(messages.prepare_server, cs, sizes)
    for event_kind in FIRST_EVENTS:
        yield partial(messages.prepare_event, event_kind, sizes)
    for link_kind in link.MESSAGES:
        yield partial(link.prepare_reply, link_kind)
    for cs in spec.COMMANDS.values():
        if cs not in first and cs is not messages.COMPOSITE:
            yield partial(messages.prepare_server, cs, sizes)
    for alt in spec.EVENT_SELECT.alts:
        if alt.kind not in FIRST_EVENTS:
            yield partial(messages.prepare_event, alt.kind, sizes)


def debugger_spoke(vm: Any) -> bool:
    # A script session (no socket, no commands_read) counts as soon as it exists.
    return any(getattr(s, "commands_read", 1) for s in vm.sessions)


async def warm(vm: Any) -> int:
    """Make codecs until a debugger speaks (or all are made); how many steps were made."""
    made = 0
    if not FAST.warmup:
        return made
    began = time.perf_counter()
    for step in steps(vm.id_sizes):
        if debugger_spoke(vm) or vm.dead:
            break
        try:
            step()
        except Exception:  # a codec that cannot be made now fails at first use, where it is reported
            log.exception("warm-up stopped")
            break
        made += 1
        await trio.sleep(0)
    log.debug("made %d codecs before the first command, in %.1f ms", made, (time.perf_counter() - began) * 1e3)
    return made
