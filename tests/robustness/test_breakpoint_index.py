"""A breakpoint index inside an instruction is refused with INVALID_LOCATION.

JVMTI's SetBreakpoint checks only that the index is inside the method's code; HotSpot then
overwrites that byte (an operand) with the breakpoint opcode, and the thread that runs the
instruction reads a wrong constant or jumps wrong: the reference agent takes such a request and
the VM crashes (SIGSEGV, seen on OpenJDK 17).  jdwpd refuses it: a deliberate difference.  Every
index of methods holding every variable-length instruction (tableswitch, lookupswitch, wide,
invokeinterface, invokedynamic, multianewarray, ldc_w, ldc2_w) is tried, `javap -c` telling where
instructions start; then a breakpoint at every start, and the program must run to its end.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.jvm import java_executable
from protocol.constants import ErrorCode, EventKind, SuspendPolicy
from tests.ext.ext_support import TIMEOUT, breakpoint_mods, prepare

pytestmark = pytest.mark.jvm

CONSTANTS = 300  # string constants: the later ones need ldc_w
LOCALS = 270  # ints: the later ones need wide loads, stores and iinc


def _source() -> str:
    strings = ", ".join(f'"c{k}"' for k in range(CONSTANTS))
    decls = "\n".join(f"        int v{k} = a + {k};" for k in range(LOCALS))
    return f"""\
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

public class Instructions {{
    static int dense(int k) {{
        switch (k) {{ case 0: return 10; case 1: return 11; case 2: return 12; case 3: return 13; default: return -1; }}
    }}

    static int sparse(int k) {{
        switch (k) {{ case -100000: return 1; case 7: return 2; case 4096: return 3; default: return 0; }}
    }}

    static long wide(int a) {{
{decls}
        v{LOCALS - 1} += 1000;
        long big = 123456789012L;
        double d = 2.5e100;
        return v{LOCALS - 1} + v0 + big + (long) (d / 1e100);
    }}

    static int calls(int k) {{
        List<Integer> list = new ArrayList<>();
        list.add(k);
        IntUnaryOperator twice = x -> x * 2;
        int[][] grid = new int[2][3];
        grid[1][2] = twice.applyAsInt(list.size());
        String[] many = {{ {strings} }};
        return grid[1][2] + ("s" + k).length() + many[{CONSTANTS - 1}].length();
    }}

    public static void main(String[] args) {{
        long sum = 0;
        for (int k = 0; k < 5; k++) sum += dense(k) + sparse(k == 2 ? 4096 : k) + wide(k) + calls(k);
        System.out.println("SUM " + sum);
    }}
}}
"""


@pytest.fixture(scope="module")
def instructions(tmp_path_factory):
    if shutil.which("javap") is None:
        pytest.skip("javap (a JDK tool) is not on PATH")
    out = tmp_path_factory.mktemp("instructions")
    (out / "Instructions.java").write_text(_source())
    subprocess.run([debuggees.default_javac(), "-g", "--release", debuggees.default_release(),
                    "-d", str(out), str(out / "Instructions.java")], check=True,
                   timeout=120)
    listing = subprocess.run(["javap", "-c", "-p", "-cp", str(out), "Instructions"], check=True, timeout=120,
                             capture_output=True, text=True).stdout
    starts: dict[str, list[int]] = {}
    method = None
    for line in listing.splitlines():
        m = re.match(r"\s+(?:static |public |private |final )*[\w.<>\[\]]+ (\w+)\(", line)
        if m:
            method = m.group(1)
            starts[method] = []
        m = re.match(r"\s+(\d+): [a-z]", line)  # not a switch case (N: target)
        if m and method is not None:
            starts[method].append(int(m.group(1)))
    plain = subprocess.run([java_executable(), "-cp", str(out), "Instructions"], check=True, timeout=120,
                           capture_output=True,
                           text=True).stdout
    return out, starts, plain.strip()


async def test_an_index_inside_an_instruction_is_refused_and_every_start_is_taken(instructions):
    classes, starts, plain = instructions
    with trio.fail_after(6 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "Instructions") as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            ref = await prepare(c, "Instructions")
            methods = {m.name: m for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared}
            refused = taken = 0
            opcodes_seen = set()
            for name in ("dense", "sparse", "wide", "calls"):
                method = methods[name].method_id
                code = (await c.command("Method", "Bytecodes", ref_type=ref, method_id=method)).bytes
                opcodes_seen |= {code[pc] for pc in starts[name]}
                begins = set(starts[name])
                assert len(begins) > 3 and max(begins) < len(code), name
                for index in range(len(code)):
                    status, reply = await c.command_raw(
                        "EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.NONE,
                        modifiers=breakpoint_mods(ref, method, index))
                    if index in begins:
                        assert status == 0, (name, index, status)
                        taken += 1
                        if index:  # the first of each method stays: the program runs through them all
                            await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT,
                                            request_id=reply.request_id)
                    else:
                        assert status == ErrorCode.INVALID_LOCATION, (name, index, status)
                        refused += 1
            # tableswitch, lookupswitch, wide, invokeinterface, invokedynamic, multianewarray, ldc_w, ldc2_w
            assert {0xAA, 0xAB, 0xC4, 0xB9, 0xBA, 0xC5, 0x13, 0x14} <= opcodes_seen, sorted(opcodes_seen)
            for name in ("dense", "sparse", "wide", "calls"):  # now every start of every method
                for index in starts[name][1:]:
                    await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                    suspend_policy=SuspendPolicy.NONE,
                                    modifiers=breakpoint_mods(ref, methods[name].method_id, index))
            await c.command("VirtualMachine", "Resume")
            hits = 0
            while True:
                _, events = await c.next_event(TIMEOUT)
                hits += sum(1 for e in events if int(e.event_kind) == EventKind.BREAKPOINT)
                if any(int(e.event_kind) == EventKind.VM_DEATH for e in events):
                    break
            assert await vm.wait_exit(TIMEOUT) == 0
    assert plain in vm.output.text(), vm.output.describe()
    assert refused > 500 and taken > 300 and hits > 5 * taken // 2, (refused, taken, hits)
