"""`jdwpd demo`: debug the bundled sample end to end, as a script would.

Launches jdwpd/samples/Sample.java under `jdwpd launch --suspend`, attaches over
JDWP, waits for the class to load, sets a breakpoint on the line marked
``@marker demo-break``, and when it hits prints the stack, the locals (objects
opened one level) and runs the program to its end.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

import trio

from jdwpd.api.connection import Connection, open_connection
from jdwpd.api.errors import VMDisconnected
from jdwpd.own_command import jdwpd_argv
from protocol.constants import EventKind, ModKind, SuspendPolicy, Tag, TypeTag
from protocol.wire import Location, Value

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "Sample.java"
READY = re.compile(r"jdwpd: listening for debuggers at (\S+):(\d+)")
TIMEOUT = 60


class DemoError(Exception):
    """The demo cannot run here: one line that says why and what to do."""


def sample_classes() -> Path:
    """The folder holding Sample.class: the one the build put beside Sample.java (an installed jdwpd
    needs no javac), else, in a source tree whose build is older than the source, a fresh compile."""
    shipped = SAMPLE.parent / "Sample.class"
    if shipped.is_file() and shipped.stat().st_mtime >= SAMPLE.stat().st_mtime:
        return SAMPLE.parent
    if not SAMPLE.is_file():
        raise DemoError(f"the sample program is missing from this installation ({SAMPLE}): reinstall jdwpd")
    if shutil.which("javac") is None:
        if shipped.is_file():
            return SAMPLE.parent
        raise DemoError("the sample is not compiled and javac is not on PATH: reinstall jdwpd (its build compiles "
                        "the sample) or install a JDK")
    source = SAMPLE.read_bytes()
    key = hashlib.sha256(source).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "jdwpd" / "demo" / key
    if not (cache / "Sample.class").exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-g", "-encoding", "UTF-8", "-d", str(cache), str(SAMPLE)], check=True)
    return cache


def marker_line(name: str) -> int:
    for number, line in enumerate(SAMPLE.read_text().splitlines(), 1):
        if f"@marker {name}" in line:
            return number
    raise LookupError(name)


class Printer:
    """Renders JDWP values the way a person reads them, one JVM round trip per object."""

    def __init__(self, client: Connection) -> None:
        self.c = client

    async def type_name(self, ref_type: int) -> str:
        sig = (await self.c.command("ReferenceType", "Signature", ref_type=ref_type)).signature
        return signature_to_name(sig)

    async def value(self, v: Value, depth: int = 0) -> str:
        tag = v.tag
        if tag == Tag.STRING and v.value:
            text = (await self.c.command("StringReference", "Value", string_object=v.value)).string_value
            return repr(text).replace("'", '"') if text.isprintable() else repr(text)
        if tag in (Tag.OBJECT, Tag.ARRAY, Tag.THREAD, Tag.CLASS_OBJECT, Tag.CLASS_LOADER, Tag.THREAD_GROUP):
            obj = v.object_id
            if not obj:
                return "null"
            ref = await self.c.command("ObjectReference", "ReferenceType", object=obj)
            name = await self.type_name(ref.type_id)
            if tag == Tag.ARRAY:
                return await self.array(obj, name)
            if depth > 0:
                return f"{name}@{obj}"
            return f"{name}@{obj} " + await self.fields(obj, ref.type_id)
        if tag == Tag.CHAR:
            return repr(chr(cast(int, v.value)))  # a UTF-16 code unit
        if tag == Tag.BOOLEAN:
            return "true" if v.value else "false"
        return str(v.value)

    async def array(self, array_id: int, name: str) -> str:
        length = (await self.c.command("ArrayReference", "Length", array_object=array_id)).array_length
        if length == 0:  # no index is valid in an empty array, not even 0 with length 0
            return f"{name[:-2]}[0] {{}}"
        region = await self.c.command("ArrayReference", "GetValues", array_object=array_id, first_index=0,
                                      length=min(length, 8))
        values = region.values
        if values.tag in (Tag.OBJECT, Tag.STRING, Tag.ARRAY):
            items = [await self.value(x, 1) for x in values.values]
        else:
            items = [str(x) for x in values.values]
        more = ", ..." if length > 8 else ""
        return f"{name[:-2]}[{length}] {{{', '.join(items)}{more}}}"

    async def fields(self, object_id: int, ref_type: int) -> str:
        fields = (await self.c.command("ReferenceType", "Fields", ref_type=ref_type)).declared
        instance = [f for f in fields if not f.mod_bits & 0x0008]  # not static
        if not instance:
            return "{}"
        got = await self.c.command("ObjectReference", "GetValues",
                                   {"object": object_id, "fields": [f.field_id for f in instance]})
        parts = [f"{f.name}={await self.value(v.value, 1)}" for f, v in zip(instance, got.values, strict=True)]
        return "{" + ", ".join(parts) + "}"


def signature_to_name(sig: str) -> str:
    dims = len(sig) - len(sig.lstrip("["))
    base = sig[dims:]
    prim = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float",
            "D": "double", "V": "void"}
    name = prim.get(base) or base[1:-1].replace("/", ".")
    return name + "[]" * dims


async def line_of(c: Connection, ref_type: int, method_id: int, index: int) -> int:
    table = await c.command("Method", "LineTable", ref_type=ref_type, method_id=method_id)
    best = -1
    for row in table.lines:
        if row.line_code_index <= index:
            best = row.line_number
    return best


async def wait_for_event(c: Connection, kind: EventKind) -> tuple:
    """Skip composites until one holds an event of ``kind``; that composite's events (the VM's own
    VMStart and VMDeath come whether asked for or not)."""
    with trio.fail_after(TIMEOUT):
        while True:
            _, events = await c.next_event(TIMEOUT)
            if any(int(e.event_kind) == int(kind) for e in events):
                return events


async def debug_session(host: str, port: int, out: Callable[[str], object]) -> None:
    async with open_connection(host, port, timeout=TIMEOUT) as c:
        version = await c.command("VirtualMachine", "Version")
        out(f"attached to {version.vm_name} {version.vm_version} over JDWP {version.jdwp_major}.{version.jdwp_minor}")
        await wait_for_event(c, EventKind.VM_START)
        prepare = await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE,
                                  suspend_policy=SuspendPolicy.EVENT_THREAD,
                                  modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Sample"}])
        await c.command("VirtualMachine", "Resume")
        events = await wait_for_event(c, EventKind.CLASS_PREPARE)
        sample = next(e for e in events if e.event_kind == EventKind.CLASS_PREPARE).type_id
        await c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=prepare.request_id)

        line = marker_line("demo-break")
        methods = (await c.command("ReferenceType", "Methods", ref_type=sample)).declared
        main = next(m for m in methods if m.name == "main")
        table = await c.command("Method", "LineTable", ref_type=sample, method_id=main.method_id)
        index = min(row.line_code_index for row in table.lines if row.line_number == line)
        location = Location(TypeTag.CLASS, sample, main.method_id, index)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                        suspend_policy=SuspendPolicy.EVENT_THREAD,
                        modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": location}])
        out(f"breakpoint set at Sample.java:{line}")
        await c.command("VirtualMachine", "Resume")

        events = await wait_for_event(c, EventKind.BREAKPOINT)
        hit = next(e for e in events if e.event_kind == EventKind.BREAKPOINT)
        thread_name = (await c.command("ThreadReference", "Name", thread=hit.thread)).thread_name
        out(f'breakpoint hit in thread "{thread_name}"')
        p = Printer(c)
        frames = (await c.command("ThreadReference", "Frames", thread=hit.thread, start_frame=0, length=-1)).frames
        out("stack:")
        for depth, f in enumerate(frames):
            loc = f.location
            name = await p.type_name(loc.class_id)
            method = next((m.name for m in (await c.command("ReferenceType", "Methods", ref_type=loc.class_id)).declared
                           if m.method_id == loc.method_id), "?")
            out(f"  [{depth}] {name}.{method} (line {await line_of(c, loc.class_id, loc.method_id, loc.index)})")
        variables = await c.command("Method", "VariableTable", ref_type=sample, method_id=main.method_id)
        visible = [v for v in variables.slots if v.code_index <= index < v.code_index + v.length]
        got = await c.command("StackFrame", "GetValues", thread=hit.thread, frame=frames[0].frame_id,
                              slots=[{"slot": v.slot, "sigbyte": ord(v.signature[0])} for v in visible])
        out("locals:")
        for var, value in zip(visible, got.values, strict=True):
            out(f"  {signature_to_name(var.signature)} {var.name} = {await p.value(value.slot_value)}")
        out("resuming to the end of the program")
        await c.command("VirtualMachine", "Resume")
        try:
            await wait_for_event(c, EventKind.VM_DEATH)
        except VMDisconnected:  # the VM may close the connection without a VM_DEATH nobody asked for
            pass


def run_demo(host: str, port: int) -> int:
    try:
        classes = sample_classes()
    except DemoError as e:
        print(f"jdwpd demo: {e}", file=sys.stderr)
        return 1
    if shutil.which("java") is None:
        print("jdwpd demo: java is not on PATH: install a Java runtime (apt-get install openjdk-17-jre-headless) "
              "or put its bin/ on PATH", file=sys.stderr)
        return 1
    cmd = [*jdwpd_argv(), "launch", "--jdwp", f"{host}:{port}", "--suspend", "--",
           "java", "-cp", str(classes), "Sample"]
    print("$ jdwpd launch --suspend -- java -cp ... Sample", flush=True)
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None  # a pipe, asked for
    try:
        ready = None
        for line in proc.stderr:
            sys.stderr.write(line)
            if ready := READY.search(line):
                break
        if ready is None:
            print("jdwpd demo: jdwpd launch ended before it listened", file=sys.stderr)
            return 1
        # keep forwarding the daemon's messages while the session runs
        trio.run(_session_and_forward, ready.group(1), int(ready.group(2)), proc)
        code = proc.wait(TIMEOUT)
        print(f"the program exited with code {code}", flush=True)
        return 0 if code == 0 else 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def _session_and_forward(host: str, port: int, proc: subprocess.Popen) -> None:
    async with trio.open_nursery() as nursery:
        stderr = proc.stderr
        assert stderr is not None  # a pipe, asked for

        async def forward() -> None:
            await trio.to_thread.run_sync(lambda: [sys.stderr.write(line) for line in stderr])

        nursery.start_soon(forward)
        with trio.fail_after(TIMEOUT * 2):
            await debug_session(host, port, lambda s: print(s, flush=True))
