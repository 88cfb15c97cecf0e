"""Locals read in place (agent/slots.c) where it is hardest: references while collectors move
them, every HotSpot collector, checked JNI, a virtual thread, and a hot loop's compiled frame
that the breakpoint turned back into an interpreted one.

A reference local is read through a pointer to its slot, which HotSpot resolves in the VM as it
does a native method's arguments; these tests make the collectors move the objects between hits
(a thread allocating without pause in a small heap) and require every hit the program's own Java
gives, no fallback to a walk or to JVMTI, and no complaint from -Xcheck:jni.
"""

from __future__ import annotations

import re
import subprocess

import pytest
import trio

from jdwpd.testing import debuggees, jdks, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol import Value
from protocol.agent_code import IN_PLACE_JDKS
from protocol.constants import EventKind, SuspendPolicy, Tag
from tests.ext.ext_support import (
    TIMEOUT,
    breakpoint_mods,
    conditional,
    in_place_or_skip,
    jdk_feature,
    location_of_line,
    prepare,
)

pytestmark = pytest.mark.jvm

STRESS = """\
import java.util.concurrent.atomic.AtomicInteger;

public class SlotsStress {
    static volatile Object sink;
    static volatile boolean stop;
    static final AtomicInteger trues = new AtomicInteger();
    static String target = "k200000";

    static long work(long n, String tag) {
        long acc = 0;
        String s = tag;
        for (int i = 0; i < n && !stop; i++) {
            byte[] junk = new byte[64 + (i & 7)];
            if (i % 1000 == 0) s = "k" + i;
            if (s.equals(target) && i % 100 == 7 && junk.length > 63) trues.incrementAndGet();
            acc += s.length() + junk.length; // @bp
        }
        return acc;
    }

    public static void main(String[] args) throws Exception {
        long n = Long.parseLong(args[0]);
        if (args.length > 3) target = args[3];
        Thread churn = new Thread(() -> { while (!stop) sink = new byte[65536]; });
        churn.setDaemon(true);
        churn.start();
        Runnable body = () -> sink = work(n, "start");
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        Thread[] ts = new Thread[workers];
        for (int w = 0; w < workers; w++) {
            if (args.length > 1 && args[1].equals("virtual")) {
                Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
                ts[w] = (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class)
                        .invoke(builder, body);
            } else {
                ts[w] = new Thread(body, "worker-" + w);
                ts[w].start();
            }
        }
        for (Thread t : ts) t.join();
        stop = true; // @stop
        System.out.println("DONE " + trues); // @done
    }
}
"""


CONDITION = 's.equals("k200000") && i % 100 == 7 && junk.length > 63'  # the program counts it too
N = 300_000
# The gate's runs walk every local (the slow path) and check which path was taken and the exact count,
# not the collector's stress: a short loop whose condition is true ten times (2,007 to 2,907).
GATE_N = 3_000
GATE_CONDITION = 's.equals("k2000") && i % 100 == 7 && junk.length > 63'


@pytest.fixture(scope="module")
def stress(tmp_path_factory):
    out = tmp_path_factory.mktemp("slots")
    (out / "SlotsStress.java").write_text(STRESS)
    subprocess.run([debuggees.default_javac(), "-g", "--release", debuggees.default_release(),
                    "-d", str(out), str(out / "SlotsStress.java")], check=True,
                   timeout=120)
    lines = {tag: n for n, text in enumerate(STRESS.splitlines(), 1) for tag in ("bp", "done", "stop")
             if f"// @{tag}" in text}
    return out, lines


async def _set_condition(c, ref, method, index, text, suspend) -> int:
    r = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index, expression=text)
    assert r.status == 0, r.message
    budget = await c.command("Jdwpd", "DefineBudget", hit_cap=0, expires_millis=0, rate_per_second=0, cpu_ppm=0,
                             flags=0)
    req = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=suspend,
                          modifiers=breakpoint_mods(ref, method, index, conditional(r.expr_id),
                                                    conditional(budget.budget_id)))
    return req.request_id


async def _start_counting(c, lines, condition: str = CONDITION) -> tuple[int, int, int]:
    """Up to the program's start: CONDITION at @bp (suspend NONE), a stop at @done, the VM resumed;
    (class, request, the done method)."""
    await c.command("VirtualMachine", "JdwpdHello", client_version=2)
    ref = await prepare(c, "SlotsStress")
    method, index = await location_of_line(c, ref, lines["bp"])
    rid = await _set_condition(c, ref, method, index, condition, SuspendPolicy.NONE)
    done_method, done_index = await location_of_line(c, ref, lines["done"])
    await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                    modifiers=breakpoint_mods(ref, done_method, done_index))
    await c.command("VirtualMachine", "Resume")
    return ref, rid, done_method


async def _hits_until_done(c, rid: int, done_method: int) -> int:
    """The request's hits until the VM stops at @done (held there: the caller asks its stats)."""
    hits = 0
    while True:
        _, events = await c.next_event(TIMEOUT)
        hits += sum(1 for e in events if e.request_id == rid)
        if any(int(e.event_kind) == EventKind.BREAKPOINT and e.location.method_id == done_method for e in events):
            return hits


def _runs() -> list:
    newer = jdks.find_jdk(21)
    skip = pytest.mark.skipif(newer is None, reason=jdks.missing_reason(21))
    return [pytest.param(None, ["-XX:+UseSerialGC"], "platform", id="serial"),
            pytest.param(None, ["-XX:+UseParallelGC"], "platform", id="parallel"),
            pytest.param(None, ["-XX:+UseG1GC", "-Xcheck:jni"], "platform", id="g1-checked-jni"),
            pytest.param(None, ["-XX:+UseZGC"], "platform", id="zgc"),
            pytest.param(None, ["-XX:+UseShenandoahGC"], "platform", id="shenandoah"),
            pytest.param(newer.java if newer else None, ["-XX:+UseZGC"], "platform", id="jdk21+-zgc", marks=skip),
            pytest.param(newer.java if newer else None, ["-XX:+UseG1GC", "-Xcheck:jni"], "virtual",
                         id="jdk21+-virtual-thread", marks=skip)]


@pytest.mark.parametrize(("java", "gc", "thread"), _runs())
async def test_references_read_in_place_while_collectors_move_them(stress, java, gc, thread):
    in_place_or_skip(java)
    classes, lines = stress
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "SlotsStress", [str(N), thread], java=java,
                                jvm_args=["-Xmx64m", "-Xlog:gc:stderr", *gc]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            _, rid, done_method = await _start_counting(c, lines)
            hits = await _hits_until_done(c, rid, done_method)
            stats = await c.command("Jdwpd", "RequestStats", request_id=rid)
            await c.command("VirtualMachine", "Resume")
            await vm.wait_exit(TIMEOUT)
    gcs = len(set(re.findall(r"GC\((\d+)\)", vm.output.text())))
    assert f"DONE {hits}" in vm.output.text() and hits == 10, vm.output.describe()
    assert stats.evaluations == N and stats.hits == 10, stats
    assert stats.locals_walked == stats.locals_by_jvmti == 0 and stats.locals_in_frame >= N, stats
    assert gcs >= 3, f"the collector ran {gcs} times: the objects did not move\n{vm.output.describe()}"
    checked = vm.output.text()
    assert "FATAL ERROR" not in checked and "JNI " not in checked.replace("JNI global refs", ""), checked[-3000:]


@pytest.mark.parametrize("faked", [26, 11, 17])
async def test_a_jdk_not_tested_for_reading_in_place_reads_by_a_walk(stress, faked):
    """agent/hotspot_gate.h: on a JDK feature version outside protocol/agent_code.py's IN_PLACE_JDKS
    (faked here: -Djdwpd.test.jdkFeature=26 takes the VM for JDK 26 as well as its own) nothing of
    HotSpot's is read, not even the jmethodID: every local is walked, and the condition still
    holds exactly the program's own count.  Faking a tested version (17) changes nothing (on a
    tested JDK; on another, nothing is read in place whatever is faked, and where that JDK has no
    walk either, as 11, JVMTI reads)."""
    classes, lines = stress
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "SlotsStress", [str(GATE_N), "platform", "1", "k2000"],
                                jvm_args=[f"-Djdwpd.test.jdkFeature={faked}"]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            _, rid, done_method = await _start_counting(c, lines, GATE_CONDITION)
            hits = await _hits_until_done(c, rid, done_method)
            stats = await c.command("Jdwpd", "RequestStats", request_id=rid)
            await c.command("VirtualMachine", "Resume")
            await vm.wait_exit(TIMEOUT)
    assert f"DONE {hits}" in vm.output.text() and hits == 10, vm.output.describe()
    assert stats.evaluations == GATE_N and stats.hits == 10, stats
    if jdk_feature() not in IN_PLACE_JDKS:
        assert stats.locals_in_frame == 0 and stats.locals_walked + stats.locals_by_jvmti >= GATE_N, stats
    elif faked in IN_PLACE_JDKS:
        assert stats.locals_in_frame >= GATE_N and stats.locals_walked + stats.locals_by_jvmti == 0, stats
    else:
        assert stats.locals_in_frame == 0 and stats.locals_by_jvmti == 0 and stats.locals_walked >= GATE_N, stats


async def test_a_hot_loop_compiled_before_its_breakpoint_is_read_in_place(stress):
    """The loop runs compiled (on-stack replacement) for a second before the condition is set: the
    breakpoint makes HotSpot rebuild that frame as an interpreted one, which must read the same."""
    in_place_or_skip()
    classes, lines = stress
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "SlotsStress", [str(10 ** 12)]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.command("VirtualMachine", "JdwpdHello", client_version=1)
            ref = await prepare(c, "SlotsStress")
            method, index = await location_of_line(c, ref, lines["bp"])
            await c.command("VirtualMachine", "Resume")
            await trio.sleep(1.5)
            rid = await _set_condition(c, ref, method, index, 'i % 50000 == 7 && s.length() > 1 && acc > 0',
                                       SuspendPolicy.EVENT_THREAD)
            slots = {v.name: v for v in (await c.command("Method", "VariableTable", ref_type=ref,
                                                          method_id=method)).slots}
            seen = []
            while len(seen) < 4:
                _, events = await c.next_event(TIMEOUT)
                for e in (e for e in events if e.request_id == rid):
                    frame = (await c.command("ThreadReference", "Frames", thread=e.thread, start_frame=0,
                                             length=1)).frames[0]
                    values = await c.command("StackFrame", "GetValues", thread=e.thread, frame=frame.frame_id,
                                             slots=[{"slot": slots["i"].slot, "sigbyte": Tag.INT},
                                                    {"slot": slots["acc"].slot, "sigbyte": Tag.LONG}])
                    seen.append(tuple(v.slot_value.value for v in values.values))
                    await c.command("ThreadReference", "Resume", thread=e.thread)
            stats = await c.command("Jdwpd", "RequestStats", request_id=rid)
            await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=rid)
            fields = {f.name: f.field_id for f in (await c.command("ReferenceType", "Fields", ref_type=ref)).declared}
            await c.command("ClassType", "SetValues", clazz=ref, values=[(fields["stop"], Value(Tag.BOOLEAN, True))])
            await vm.wait_exit(TIMEOUT)
    assert all(i % 50000 == 7 and acc > 0 for i, acc in seen), seen
    assert seen[0][0] > 50000, "the loop ran a while before the breakpoint"
    assert stats.locals_walked == stats.locals_by_jvmti == 0, stats
    assert stats.locals_in_frame >= 3 * 50000 and stats.trues >= 4, stats


NO_ALLOC = """\
import java.lang.management.ManagementFactory;

public class NoAlloc {
    static int sink;

    static void loop(int n, String s) {
        for (int i = 0; i < n; i++) {
            sink += i; // @bp
        }
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        loop(1000, "warm");  // the first hit at the location learns its slots
        long idle0 = mx.getThreadAllocatedBytes(id);
        long idle1 = mx.getThreadAllocatedBytes(id);  // what asking costs
        long before = mx.getThreadAllocatedBytes(id);
        loop(n, "measured");
        long after = mx.getThreadAllocatedBytes(id);
        System.out.println("ALLOCATED " + (after - before - (idle1 - idle0)));
    }
}
"""


@pytest.mark.parametrize("mode", [pytest.param((), id="in-place"),
                                  pytest.param(("-Djdwpd.frameLocals=false",), id="walked")])
async def test_a_false_condition_on_locals_allocates_nothing_on_the_java_heap(tmp_path, mode):
    """Issue 20: no allocation on the event path.  The walk's frames are Java objects (a few
    hundred bytes a hit); read in place, a condition on a local and a reference allocates none."""
    if not mode:
        in_place_or_skip()
    (tmp_path / "NoAlloc.java").write_text(NO_ALLOC)
    subprocess.run([debuggees.default_javac(), "-g", "--release", debuggees.default_release(),
                    "-d", str(tmp_path), str(tmp_path / "NoAlloc.java")],
                   check=True, timeout=120)
    line = next(n for n, text in enumerate(NO_ALLOC.splitlines(), 1) if "// @bp" in text)
    n = 100_000
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", tmp_path, "NoAlloc", [str(n)], jvm_args=list(mode)) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.command("VirtualMachine", "JdwpdHello", client_version=1)
            ref = await prepare(c, "NoAlloc")
            method, index = await location_of_line(c, ref, line)
            await _set_condition(c, ref, method, index, 's.length() == 0 || i < 0', SuspendPolicy.NONE)
            await c.command("VirtualMachine", "Resume")
            await vm.wait_exit(TIMEOUT)
            assert vm.output.wait_for(re.compile(r"ALLOCATED (-?\d+)"), None, TIMEOUT)
    allocated = int(re.search(r"ALLOCATED (-?\d+)", vm.output.text()).group(1))
    if mode:
        assert allocated > 50 * n, f"the walk allocates per hit: {allocated} bytes for {n} hits"
    else:
        assert allocated <= 1024, f"{allocated} bytes allocated by {n} false conditions read in place"


async def test_threads_read_in_place_while_breakpoints_come_and_go(stress):
    """Four threads at the same conditional breakpoint, each learning its slots for itself, while
    a debugger sets and clears another breakpoint again and again: every new breakpoint makes each
    thread learn again (a location may be another method's bytecode by then); no hit is lost or
    invented."""
    in_place_or_skip()
    classes, lines = stress
    workers = 4
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "SlotsStress", [str(N), "platform", str(workers)],
                                jvm_args=["-Xmx64m"]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            ref, rid, done_method = await _start_counting(c, lines)
            churned, finished = 0, False
            stop_method, stop_index = await location_of_line(c, ref, lines["stop"])

            async def churn():  # a breakpoint that hits once at most (main's), set and cleared
                nonlocal churned
                while not finished:
                    r = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                        suspend_policy=SuspendPolicy.NONE,
                                        modifiers=breakpoint_mods(ref, stop_method, stop_index))
                    await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=r.request_id)
                    churned += 1
                    await trio.sleep(0.002)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(churn)
                hits = await _hits_until_done(c, rid, done_method)
                finished = True
            stats = await c.command("Jdwpd", "RequestStats", request_id=rid)
            await c.command("VirtualMachine", "Resume")
            await vm.wait_exit(TIMEOUT)
    assert f"DONE {hits}" in vm.output.text() and hits == 10 * workers, vm.output.describe()
    assert stats.evaluations == N * workers and stats.locals_by_jvmti == 0, stats
    assert stats.locals_in_frame >= N * workers - 20 * churned, (stats, churned)
    assert churned >= 10, "the breakpoints came and went while the threads ran"
