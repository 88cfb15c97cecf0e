"""Captures in the agent: a snapshot or logpoint hit with suspend policy NONE reads frames, locals,
`this` and watch expressions within its limits, marks what it cut, and sends one JdwpdCapture
event; the thread never waits for the daemon."""

from __future__ import annotations

import subprocess

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.debuggees import javac_argv
from protocol.agent_code import decode_capture
from protocol.constants import EventKind, SuspendPolicy
from tests.ext.ext_support import TIMEOUT, breakpoint_mods, conditional, location_of_line, prepare

pytestmark = pytest.mark.jvm

SNAP = """\
import java.util.ArrayList;
import java.util.List;

public class Snap {
    static class Item {
        String name;
        int qty;
        Item(String name, int qty) { this.name = name; this.qty = qty; }
    }

    static int sink;
    List<Item> items = new ArrayList<>();
    String label = "snap";
    int[] nums = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

    void d5(int n, String s) {
        sink = n * 2; // @bp
    }
    void d4(int n) { d5(n, "s" + n); }
    void d3(int n) { long l = n * 10L; d4(n); }
    void d2(int n) { d3(n); }
    void d1(int n) { d2(n); }

    public static void main(String[] args) throws Exception {
        Snap s = new Snap();
        s.items.add(new Item("lamp", 2));
        s.items.add(new Item("desk", 1));
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) s.d1(i);
        System.out.println("done " + sink);
    }
}
"""


@pytest.fixture(scope="module")
def snap_classes(tmp_path_factory):
    out = tmp_path_factory.mktemp("snap")
    (out / "Snap.java").write_text(SNAP)
    subprocess.run([*javac_argv(), "-g", "-d", str(out), str(out / "Snap.java")], check=True, timeout=120)
    return out, next(n for n, text in enumerate(SNAP.splitlines(), 1) if "// @bp" in text)


async def _captures(snap_classes, runs: int, limits: dict, watches: list[str], condition: str | None):
    classes, line = snap_classes
    with trio.fail_after(2 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "Snap", [str(runs)]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            hello = await c.command("VirtualMachine", "JdwpdHello", client_version=1)
            assert hello.features & 4
            ref = await prepare(c, "Snap")
            method, index = await location_of_line(c, ref, line)
            ids = []
            for w in watches:
                r = await c.command("Jdwpd", "CompileExpression", ref_type=ref, method_id=method, index=index,
                                    expression=w)
                assert r.status == 0, (w, r)
                ids.append({"expr_id": r.expr_id})
            cap = await c.command("Jdwpd", "DefineCapture", watches=ids, **limits)
            mods = [conditional(cap.capture_id)]
            if condition:
                r = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index,
                                    expression=condition)
                mods.insert(0, conditional(r.expr_id))
            await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.NONE,
                            modifiers=breakpoint_mods(ref, method, index, *mods))
            await c.command("VirtualMachine", "Resume")
            out = []
            while True:
                policy, evs = await c.next_event(TIMEOUT)
                for e in evs:
                    if int(e.event_kind) == EventKind.JDWPD_CAPTURE:
                        assert policy == SuspendPolicy.NONE and e.source_kind == EventKind.BREAKPOINT
                        assert (e.location.method_id, e.location.index) == (method, index)
                        out.append(decode_capture(e.data))
                    assert int(e.event_kind) != EventKind.BREAKPOINT  # the capture replaces it
                if any(int(e.event_kind) == EventKind.VM_DEATH for e in evs):
                    break
            await vm.wait_exit(TIMEOUT)
            assert "done" in vm.output.text("stdout")
            return out


LIMITS = {"frames": 5, "locals_frames": 5, "depth": 2, "max_string": 3, "max_items": 5, "max_bytes": 65536,
          "max_micros": 0, "this_object": True, "object_ids": False}


async def test_snapshot_of_five_frames_with_locals_to_depth_two(snap_classes):
    caps = await _captures(snap_classes, 6, LIMITS, ["label.length()", "nums[2] * n", "n > 1", '"x"'],
                           "n % 2 == 1")
    assert len(caps) == 3
    for n, cap in zip((1, 3, 5), caps, strict=True):
        assert cap["truncated"] == ["frames"]  # main is the sixth
        frames = cap["frames"]
        assert len(frames) == 5
        assert frames[0]["locals"] == {"n": n, "s": "s" + str(n)}, frames[0]
        assert frames[2]["locals"] == {"n": n, "l": n * 10}
        assert frames[1]["locals"] == {"n": n} and frames[3]["locals"] == {"n": n}
        this = cap["this"]
        assert this["@type"] == "LSnap;"
        assert this["label"] == {"@string": "sna", "@length": 4, "@truncated": "max_string"}
        assert this["nums"] == {"@type": "[I", "@length": 12, "@items": [1, 2, 3, 4, 5], "@truncated": True}
        items = this["items"]  # an ArrayList by its fields, one level down: its own fields' objects cut
        assert items["@type"] == "Ljava/util/ArrayList;" and items["size"] == 2
        assert items["elementData"] == {"@type": "[Ljava/lang/Object;", "@length": 10, "@items": [],
                                        "@truncated": True}
        assert cap["watches"] == [4, 3 * n, n > 1, "x"]


async def test_a_byte_budget_cuts_and_says_so(snap_classes):
    caps = await _captures(snap_classes, 2, {**LIMITS, "max_bytes": 150, "depth": 3}, [], None)
    assert len(caps) == 2
    for cap in caps:
        assert "bytes" in cap["truncated"]
        assert len(cap["frames"]) == 5  # frames always come; what they hold is cut
