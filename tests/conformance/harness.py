"""Run one scenario under the reference agent and under jdwpd, side by side, and keep both transcripts.

A transcript entry is (keys, label, error code, normalized value).  ``keys`` say which registered
items the entry belongs to: the command's "Set.Command" label, or for an event composite
"Event.Composite" plus "Event.<KIND>" of every event it holds.  The suite compares, item by item,
the entries of the two transcripts.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import re
import subprocess
import traceback
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import attrs
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import JdwpClient, open_jdwp_client
from jdwpd.testing.normalize import Normalizer
from protocol.constants import EventKind, ModKind, SuspendPolicy, Tag
from tests.conformance.registry import Scenario, event_key

TIMEOUT = 30
RUN_TIMEOUT = 120


@attrs.frozen
class Entry:
    keys: tuple[str, ...]
    label: str
    code: int
    value: Any

    def shown(self) -> tuple:
        return (self.label, self.code, self.value)


@attrs.frozen
class Run:
    kind: str
    entries: tuple[Entry, ...]
    error: str | None  # the scenario's exception, formatted; None when it ran to its end
    output: str

    def of(self, key: str) -> list[tuple]:
        return [e.shown() for e in self.entries if key in e.keys]


class Transcript:
    """What a scenario drives: the raw client, plus recording with IDs normalized."""

    def __init__(self, client: JdwpClient, kind: str, classes: Path, markers: dict[str, int]) -> None:
        self.client = client
        self.kind = kind
        self.classes = classes
        self.markers = markers
        self.norm = Normalizer()
        self.entries: list[Entry] = []
        self._frame_names: dict[str, dict[int, str]] = {}
        self.address: tuple[str, int] = ("127.0.0.1", 0)
        self.output = jvm.OutputLog()

    # ---------------------------------------------------------- recording

    async def cmd(self, set_name: str, cmd_name: str, *, record: bool = True, note: str = "", **fields: Any):
        """(error code, reply) of one command; recorded unless ``record`` is False."""
        code, reply = await self.client.command_raw(set_name, cmd_name, fields, timeout=TIMEOUT)
        if record:
            label = f"{set_name}.{cmd_name}" + (f" [{note}]" if note else "")
            if (set_name, cmd_name) == ("ThreadReference", "Frames") and reply is not None:
                value = self._frames(fields["thread"], reply)
            else:
                value = self.norm(reply) if reply is not None else None
            self.entries.append(Entry((f"{set_name}.{cmd_name}",), label, code, value))
        return code, reply

    def _frames(self, thread: int, reply: Any) -> dict:
        """A frame id means something only with its thread (the two servers number them differently:
        the reference per thread, from 0): frames are named per thread, in order of appearance."""
        owner = self.norm.name("obj", thread)
        names = self._frame_names.setdefault(owner, {})
        return {"frames": [{"frame_id": names.setdefault(f.frame_id, f"{owner}/frame#{len(names) + 1}"),
                            "location": self.norm.location(f.location)} for f in reply.frames]}

    async def ok(self, set_name: str, cmd_name: str, *, record: bool = True, note: str = "", **fields: Any) -> Any:
        code, reply = await self.cmd(set_name, cmd_name, record=record, note=note, **fields)
        assert code == 0, f"{self.kind}: {set_name}.{cmd_name} [{note}] failed with error {code}"
        return reply

    async def raw(self, set_id: int, cmd_id: int, data: bytes, label: str, note: str = "") -> int:
        """A hand-made command body (malformed ones): only the error code is recorded."""
        pid = await self.client.send_packet(set_id, cmd_id, data)
        reply = await self.client.reply(pid, TIMEOUT)
        self.entries.append(Entry((label,), f"{label} [raw {note}]", reply.error_code, None))
        return reply.error_code

    @contextlib.contextmanager
    def isolated(self) -> Iterator[None]:
        """Entries recorded inside name no new IDs for the rest of the transcript: a known difference
        in them (an ID one server sends and the other does not) then does not shift later names."""
        saved = copy.deepcopy((self.norm.names, self.norm.counts, self._frame_names))
        try:
            yield
        finally:
            self.norm.names, self.norm.counts, self._frame_names = saved

    def note(self, key: str, label: str, value: Any) -> None:
        """Record something the scenario computed from answers (normalized like a reply)."""
        self.entries.append(Entry((key,), f"{key} [{label}]", 0, self.norm(value)))

    async def event(self, note: str = "") -> tuple[int, tuple]:
        """The next composite, recorded."""
        policy, events = await self.client.next_event(TIMEOUT)
        self.record_event(policy, events, note)
        return policy, events

    def record_event(self, policy: int, events: tuple, note: str = "") -> None:
        kinds = []
        for e in events:
            k = EventKind(int(e.event_kind)).name
            if k == "THREAD_END":
                k = "THREAD_DEATH"
            if k not in kinds:
                kinds.append(k)
        keys = ("Event.Composite", *(event_key(k) for k in kinds))
        # The kinds are in the value; the label stays the same when they differ, so that a known
        # difference can be named by it.
        label = "Event.Composite" + (f" [{note}]" if note else "")
        self.entries.append(Entry(keys, label, 0, self.norm((policy, events))))

    async def event_of(self, kind: int, note: str = "") -> Any:
        """The next composite, recorded; it must hold an event of ``kind``: that event."""
        _, events = await self.event(note)
        found = [e for e in events if int(e.event_kind) == int(kind)]
        assert found, f"{self.kind}: expected {EventKind(kind).name}, got {events}"
        return found[0]

    async def no_event(self, wait: float = 0.3) -> None:
        """Nothing more arrives within ``wait`` seconds (recorded as a fact)."""
        await trio.sleep(wait)
        left = self.client.pending_events()
        self.entries.append(Entry(("Event.Composite",), "no further event", 0, self.norm(left)))

    @contextlib.asynccontextmanager
    async def another_debugger(self) -> AsyncIterator[Transcript]:
        """A second connection to the same VM (once the first has gone): its own ID names, this
        transcript's entries."""
        deadline = trio.current_time() + TIMEOUT
        address = self.address
        while True:
            if self.kind == "reference":
                # The reference listens again after a debugger leaves, on a new port when it was given 0.
                ports = [int(m.group(1)) for line in self.output.lines("stdout")
                         if (m := jvm.REFERENCE_READY.search(line))]
                if len(ports) < 2:
                    if trio.current_time() > deadline:
                        raise AssertionError("the reference does not listen again")
                    await trio.sleep(0.05)
                    continue
                address = (address[0], ports[-1])
            try:
                connection = open_jdwp_client(*address, timeout=TIMEOUT)
                client = await connection.__aenter__()
                break
            except OSError:
                if trio.current_time() > deadline:
                    raise
                await trio.sleep(0.1)
        try:
            other = Transcript(client, self.kind, self.classes, self.markers)
            other.entries = self.entries
            other.address = address
            other.output = self.output
            yield other
        finally:
            await connection.__aexit__(None, None, None)

    # ---------------------------------------------------------- getting somewhere

    async def class_id(self, signature: str) -> int:
        r = await self.client.command("VirtualMachine", "ClassesBySignature", signature=signature, timeout=TIMEOUT)
        assert r.classes, f"{signature} not loaded"
        return r.classes[0].type_id

    async def methods(self, ref: int) -> dict[str, Any]:
        """name -> method (the first overload; ``name(sig)`` keys every one)."""
        r = await self.client.command("ReferenceType", "Methods", ref_type=ref, timeout=TIMEOUT)
        out: dict[str, Any] = {}
        for m in r.declared:
            out.setdefault(m.name, m)
            out[m.name + m.signature] = m
        return out

    async def fields(self, ref: int) -> dict[str, Any]:
        r = await self.client.command("ReferenceType", "Fields", ref_type=ref, timeout=TIMEOUT)
        return {f.name: f for f in r.declared}

    async def location_of_line(self, ref: int, line: int) -> dict:
        for m in (await self.client.command("ReferenceType", "Methods", ref_type=ref, timeout=TIMEOUT)).declared:
            code, table = await self.client.command_raw("Method", "LineTable", ref_type=ref, method_id=m.method_id,
                                                        timeout=TIMEOUT)
            for entry in table.lines if code == 0 else ():
                if entry.line_number == line:
                    return {"type_tag": 1, "class_id": ref, "method_id": m.method_id,
                            "index": entry.line_code_index}
        raise AssertionError(f"no code at line {line}")

    async def set_request(self, kind: int, *mods: dict, policy: int = SuspendPolicy.ALL, note: str = "") -> int:
        r = await self.ok("EventRequest", "Set", event_kind=kind, suspend_policy=policy, modifiers=list(mods),
                          note=note)
        return r.request_id

    async def breakpoint(self, ref: int, marker: str, policy: int = SuspendPolicy.ALL, *extra: dict) -> int:
        loc = await self.location_of_line(ref, self.markers[marker])
        return await self.set_request(EventKind.BREAKPOINT, {"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}, *extra,
                                      policy=policy, note=marker)

    async def start(self, main_class: str) -> int:
        """From VMStart (recorded) to the ClassPrepare of ``main_class`` (recorded): its type id."""
        await self.event_of(EventKind.VM_START, "start")
        rid = await self.set_request(EventKind.CLASS_PREPARE,
                                     {"mod_kind": ModKind.CLASS_MATCH, "class_pattern": main_class})
        await self.ok("VirtualMachine", "Resume")
        ev = await self.event_of(EventKind.CLASS_PREPARE, main_class)
        await self.ok("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=rid)
        return ev.type_id

    async def run_to(self, ref: int, marker: str) -> Any:
        """Resume to a one-shot SUSPEND_ALL breakpoint at ``marker``: the breakpoint event."""
        rid = await self.breakpoint(ref, marker)
        await self.ok("VirtualMachine", "Resume")
        ev = await self.event_of(EventKind.BREAKPOINT, marker)
        await self.ok("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=rid)
        return ev

    async def frames(self, thread: int) -> list:
        return list((await self.client.command("ThreadReference", "Frames", thread=thread, start_frame=0,
                                               length=-1, timeout=TIMEOUT)).frames)

    async def to_the_end(self) -> None:
        """Clear everything, resume, and record events up to VMDeath."""
        await self.ok("EventRequest", "ClearAllBreakpoints")
        await self.ok("VirtualMachine", "Resume")
        while True:
            policy, events = await self.event("to the end")
            if any(int(e.event_kind) == EventKind.VM_DEATH for e in events):
                return
            if policy != SuspendPolicy.NONE:
                await self.ok("VirtualMachine", "Resume", note="to the end")


def int_value(v: int) -> tuple[int, int]:
    return (Tag.INT, v)


# ---------------------------------------------------------------- running


@functools.cache
def java_feature_release() -> int:
    """The feature release (17, 25...) of the java the tests debug; 0 when it cannot be run."""
    try:
        out = subprocess.run([jvm.java_executable(), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    m = re.search(r'version "(\d+)', out.stderr)
    return int(m.group(1)) if m else 0



async def _run_one(kind: str, scn: Scenario, classes: Path, markers: dict[str, int], tmp: Path) -> Run:
    entries: list[Entry] = []
    error = None
    output = ""
    crash_dir = tmp / f"{scn.name}-{kind}"
    crash_dir.mkdir(parents=True, exist_ok=True)
    jvm_args = (f"-XX:ErrorFile={crash_dir}/hs_err_%p.log",)
    try:
        with trio.fail_after(RUN_TIMEOUT):
            async with jvm.open_jvm(kind, classes, scn.main, scn.args, jvm_args=jvm_args) as debuggee:
                try:
                    async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                        t = Transcript(client, kind, classes, markers)
                        t.address = (debuggee.host, debuggee.port)
                        t.output = debuggee.output
                        try:
                            await scn.run(t)
                        finally:
                            entries = t.entries
                finally:
                    output = debuggee.output.describe()
    except BaseException as e:  # noqa: B036 - a timeout or a failed assertion is this side's result
        if isinstance(e, KeyboardInterrupt):
            raise
        error = "".join(traceback.format_exception(e))
    return Run(kind, tuple(entries), error, output)


def run_pair(scn: Scenario, classes: Path, markers: dict[str, int], tmp: Path) -> dict[str, Run]:
    """Both servers at once (two JVMs, no shared state): {"reference": Run, "jdwpd": Run}."""
    runs: dict[str, Run] = {}

    async def both() -> None:
        async def one(kind: str) -> None:
            runs[kind] = await _run_one(kind, scn, classes, markers, tmp)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(one, "reference")
            if jvm.jdwpd_available():
                nursery.start_soon(one, "jdwpd")

    trio.run(both)
    return runs
