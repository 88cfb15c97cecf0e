"""Differential runs for the type and object command sets: one scenario, two servers, same transcript.

A scenario is ``async def scenario(t: Transcript) -> None``.  It drives a raw JDWP client
through ``t.cmd(...)``, which records (command, error code, reply) with IDs normalized.
``differential(kind, ...)`` runs it under the reference agent and under jdwpd on the same
debuggee and asserts that the two transcripts are identical, entry by entry; scenario code
may also assert facts about the answers (that is how a scenario shows it reached the state
it meant to test).
"""

from __future__ import annotations

import contextlib
import pprint
from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import JdwpClient, open_jdwp_client
from jdwpd.testing.normalize import Normalizer
from protocol.constants import EventKind, ModKind, SuspendPolicy

TIMEOUT = 60


class Transcript:
    def __init__(self, client: JdwpClient, kind: str) -> None:
        self.client = client
        self.kind = kind
        self.norm = Normalizer()
        self.entries: list[tuple[str, int, Any]] = []
        self._started = False

    async def cmd(self, set_name: str, cmd_name: str, *, record: bool = True, note: str = "", **fields: Any):
        """(error code, reply) of one command; recorded unless ``record`` is False."""
        code, reply = await self.client.command_raw(set_name, cmd_name, fields, timeout=TIMEOUT)
        if record:
            label = f"{set_name}.{cmd_name}" + (f" [{note}]" if note else "")
            self.entries.append((label, code, self.norm(reply) if reply is not None else None))
        return code, reply

    async def ok(self, set_name: str, cmd_name: str, **fields: Any) -> Any:
        code, reply = await self.cmd(set_name, cmd_name, **fields)
        assert code == 0, f"{self.kind}: {set_name}.{cmd_name} failed with error {code}"
        return reply

    def note(self, label: str, value: Any) -> None:
        """Record something the scenario computed (normalized like a reply)."""
        self.entries.append((label, 0, self.norm(value)))

    async def nested_types(self, ref: int, note: str = "") -> tuple[int, list[str]]:
        """NestedTypes as sorted signatures: its order follows HotSpot's class dictionary, which
        differs from run to run (even between two runs of the reference agent)."""
        code, reply = await self.cmd("ReferenceType", "NestedTypes", ref_type=ref, record=False)
        sigs = []
        if reply is not None:
            for c in reply.classes:
                sig = await self.client.command("ReferenceType", "Signature", ref_type=c.type_id, timeout=TIMEOUT)
                sigs.append((int(c.ref_type_tag), sig.signature))
        self.note(f"ReferenceType.NestedTypes [{note}]", (code, sorted(sigs)))
        return code, sorted(sigs)

    # ---------------------------------------------------------- getting somewhere

    async def class_id(self, signature: str) -> int:
        r = await self.client.command("VirtualMachine", "ClassesBySignature", signature=signature, timeout=TIMEOUT)
        assert r.classes, f"{signature} not loaded"
        return r.classes[0].type_id

    async def vm_started(self) -> None:
        """Wait for the VMStart composite, as every debugger does before it resumes: the reference
        suspends the VM for its start on another thread than the one that reads commands, so a
        Resume sent before VMStart may come first, resume nothing, and leave the VM suspended for
        good (seen about once in 50 sessions that pipeline their first commands)."""
        if not self._started:
            await self.client.wait_for_event(EventKind.VM_START, timeout=TIMEOUT)
            self._started = True

    async def run_to_line(self, class_name: str, line: int) -> tuple[int, int]:
        """From the start of the VM, run until a breakpoint at ``class_name:line``: (thread, class id)."""
        c = self.client
        await self.vm_started()
        prep = await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE,
                               suspend_policy=SuspendPolicy.ALL,
                               modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": class_name}],
                               timeout=TIMEOUT)
        await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
        _, events = await c.wait_for_event(EventKind.CLASS_PREPARE, timeout=TIMEOUT)
        ref = next(e for e in events if int(e.event_kind) == EventKind.CLASS_PREPARE).type_id
        await c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=prep.request_id,
                        timeout=TIMEOUT)
        lines = None
        for m in (await c.command("ReferenceType", "Methods", ref_type=ref, timeout=TIMEOUT)).declared:
            table = await c.command_raw("Method", "LineTable", ref_type=ref, method_id=m.method_id, timeout=TIMEOUT)
            if table[0] == 0:
                for entry in table[1].lines:
                    if entry.line_number == line:
                        lines = (m.method_id, entry.line_code_index)
                        break
            if lines:
                break
        assert lines, f"no code at {class_name}:{line}"
        method_id, index = lines
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                        modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                    "loc": {"type_tag": 1, "class_id": ref, "method_id": method_id, "index": index}}],
                        timeout=TIMEOUT)
        await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
        _, events = await c.wait_for_event(EventKind.BREAKPOINT, timeout=TIMEOUT)
        bp = next(e for e in events if int(e.event_kind) == EventKind.BREAKPOINT)
        return bp.thread, ref


async def _run(kind: str, classes_dir, main: str, scenario) -> list:
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm(kind, classes_dir, main) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind)
                await scenario(t)
                return t.entries


async def differential(classes_dir, main: str, scenario) -> list:
    """Run ``scenario`` under both servers; assert equal transcripts; return the reference's."""
    reference = await _run("reference", classes_dir, main, scenario)
    if not jvm.jdwpd_available():
        pytest.skip(f"{jvm.JDWPD_UNAVAILABLE_REASON} (the reference side ran and passed)")
    ours = await _run("jdwpd", classes_dir, main, scenario)
    for i, (want, got) in enumerate(zip(reference, ours, strict=False)):
        assert got == want, (
            f"entry {i} differs\n--- reference ---\n{pprint.pformat(want)}\n--- jdwpd ---\n{pprint.pformat(got)}")
    assert len(ours) == len(reference)
    return reference


def field_ids(reply: Any) -> dict[str, int]:
    return {f.name: f.field_id for f in reply.declared}


def method_ids(reply: Any) -> dict[tuple[str, str], int]:
    return {(m.name, m.signature): m.method_id for m in reply.declared}


NODEBUG_SOURCE = """\
public class NoDebug {
    static int twice(int x) {
        int y = x * 2;
        return y;
    }

    native void nothing();

    public static void main(String[] args) throws Exception {
        twice(3);
        Sample.main(args);
    }
}
"""


def nodebug_classpath(tmp_dir, sample_classes) -> str:
    """A classpath whose main class NoDebug (no debug attributes at all) then runs Sample."""
    from pathlib import Path

    from jdwpd.testing import debuggees

    src = Path(tmp_dir) / "nodebug"
    src.mkdir(exist_ok=True)
    (src / "NoDebug.java").write_text(NODEBUG_SOURCE)
    out = debuggees.compile_sources(src, extra_args=("-g:none", "-cp", str(sample_classes)))
    return f"{out}:{sample_classes}"


@contextlib.asynccontextmanager
async def sample_in_process(sample_classes) -> AsyncIterator[tuple[Any, Any]]:
    """Sample under our agent, held at its start, with jdwpd.daemon.vm.VM serving it in this process (no JDWP
    bytes): (vm, the started JVM).  The caller lets the program end; the VM's tasks are then cancelled."""
    import subprocess

    from jdwpd.daemon.link import launcher
    from jdwpd.daemon.vm import VM
    from jdwpd.testing.jvm import java_executable

    try:
        launcher.agent_path()
    except launcher.AgentNotBuilt as e:
        pytest.skip(str(e))
    argv = [java_executable(), "-cp", str(sample_classes), "Sample"]
    async with trio.open_nursery() as nursery:
        started = await nursery.start(lambda task_status: launcher.start_jvm(
            argv, suspend=True, stdout=subprocess.DEVNULL, task_status=task_status))
        vm = VM(started.link)
        await nursery.start(vm.run)
        yield vm, started
        nursery.cancel_scope.cancel()
