"""A debugger that leaves while it holds the VM: the program must go on and end as it would have.

The debugger stops main at a breakpoint (SUSPEND_ALL), suspends it once more,
leaves a breakpoint and a method-entry request behind, then either disposes
(VirtualMachine.Dispose) or simply vanishes (closes the socket).  A third variant
ends the VM with VirtualMachine.Exit instead.  Both the
reference agent and jdwpd must undo the suspensions and drop the requests: the
program prints exactly what it prints undebugged and exits with 0.
"""

from __future__ import annotations

import contextlib
import subprocess

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import JdwpClosedError, open_jdwp_client
from protocol import messages
from protocol.constants import EventKind, SuspendPolicy, TypeTag
from protocol.wire import Location

pytestmark = pytest.mark.jvm

M = messages.Modifiers


def undebugged_stdout(classes) -> str:
    proc = subprocess.run([jvm.java_executable(), "-cp", str(classes), "Sample"], capture_output=True, text=True,
                          timeout=60, cwd=jvm.jvm_workdir())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


async def leave_while_holding(kind: str, classes, markers: dict[str, int], how: str) -> tuple[int, str, str]:
    """(exit code, the program's stdout, everything the debuggee printed, for messages)."""
    async with jvm.open_jvm(kind, classes, "Sample") as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port) as c:
                await c.next_event(timeout=30)
                await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE,
                                suspend_policy=SuspendPolicy.EVENT_THREAD,
                                modifiers=[M.ClassMatch(class_pattern="Sample")])
                await c.command("VirtualMachine", "Resume")
                _policy, events = await c.wait_for_event(EventKind.CLASS_PREPARE, timeout=30)
                sample = events[0].type_id
                main_method = next(x for x in (await c.command("ReferenceType", "Methods", ref_type=sample)).declared
                                   if x.name == "main")
                table = await c.command("Method", "LineTable", ref_type=sample, method_id=main_method.method_id)
                where = Location(TypeTag.CLASS, sample, main_method.method_id,
                                 next(li.line_code_index for li in table.lines
                                      if li.line_number == markers["MAIN_LOCALS"]))
                await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                suspend_policy=SuspendPolicy.ALL, modifiers=[M.LocationOnly(loc=where)])
                await c.command("ThreadReference", "Resume", thread=events[0].thread)
                _policy, events = await c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
                main = events[0].thread
                await c.command("ThreadReference", "Suspend", thread=main)
                await c.command("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY,
                                suspend_policy=SuspendPolicy.ALL, modifiers=[M.ClassMatch(class_pattern="Sample")])
                count = (await c.command("ThreadReference", "SuspendCount", thread=main)).suspend_count
                if how == "dispose":
                    await c.command("VirtualMachine", "Dispose")
                elif how == "exit":
                    # The VM may die before the reply is out: a reply, or the connection closing, are both fine.
                    with contextlib.suppress(JdwpClosedError):
                        code, _ = await c.command_raw("VirtualMachine", "Exit", exit_code=3)
                        assert code == 0
            rc = await vm.wait_exit(60)
        except BaseException as e:
            e.add_note(f"debuggee ({kind}) output:\n{vm.output.describe()}")
            raise
        stdout = "".join(line + "\n" for line in vm.output.lines("stdout") if not jvm.REFERENCE_READY.search(line))
        assert count == 2, "the breakpoint's suspension and ours"
        return rc, stdout, vm.output.describe()


@pytest.mark.parametrize("how", ["dispose", "vanish"])
def test_leaving_debugger_lets_the_program_finish(server_kind, how, sample_classes, sample_markers):
    rc, stdout, output = trio.run(leave_while_holding, server_kind, sample_classes, sample_markers, how)
    assert rc == 0, output
    assert stdout == undebugged_stdout(sample_classes), output


def test_exit_ends_the_vm_with_the_code(server_kind, sample_classes, sample_markers):
    """VirtualMachine.Exit while stopped before the program printed anything."""
    rc, stdout, output = trio.run(leave_while_holding, server_kind, sample_classes, sample_markers, "exit")
    assert rc == 3, output
    assert stdout == "", output
