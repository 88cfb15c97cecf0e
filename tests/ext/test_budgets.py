"""Budgets of in-agent requests (hit cap, expiry, rate, CPU quota), hostile conditions, and what a
standard client sees: the reference's answers, with and without the extension."""

from __future__ import annotations

import re
import subprocess
import time

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.debuggees import javac_argv
from jdwpd.testing.jvm import java_executable
from protocol.agent_code import BudgetFlag, Disabled, Reason
from protocol.constants import ErrorCode, EventKind, SuspendPolicy
from tests.ext.ext_support import TIMEOUT, breakpoint_mods, conditional, location_of_line, prepare

pytestmark = pytest.mark.jvm

SPIN = """\
public class Spin {
    static int always = 1;
    static int sink;

    static void hit(int i, int[] arr, String s) {
        sink = i; // @bp
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        long pauseNanos = Long.parseLong(args[1]);
        int[] arr = {1, 2, 3};
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            hit(i, arr, i % 2 == 0 ? null : "s");
            if (pauseNanos > 0) Thread.sleep(pauseNanos / 1000000, (int) (pauseNanos % 1000000));
        }
        System.out.println("NS_PER_ITER " + (System.nanoTime() - t0) / (double) n);
        Thread.sleep(1000);  // time for the test to ask RequestStats
    }
}
"""


@pytest.fixture(scope="module")
def spin_classes(tmp_path_factory):
    out = tmp_path_factory.mktemp("spin")
    (out / "Spin.java").write_text(SPIN)
    subprocess.run([*javac_argv(), "-g", "-d", str(out), str(out / "Spin.java")], check=True, timeout=120)
    line = next(n for n, text in enumerate(SPIN.splitlines(), 1) if "// @bp" in text)
    return out, line


async def _run(spin_classes, n: int, pause_ns: int, condition: str, budget: dict | None,
               policy=SuspendPolicy.NONE, sets: list | None = None):
    """Run Spin with one conditional breakpoint; (breakpoint events, disabled reasons, stats, stdout).
    ``sets``: filled with each event set's (kind, reason) pairs."""
    classes, line = spin_classes
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "Spin", [str(n), str(pause_ns)]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.command("VirtualMachine", "JdwpdHello", client_version=1)
            ref = await prepare(c, "Spin")
            method, index = await location_of_line(c, ref, line)
            r = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index,
                                expression=condition)
            assert r.status == 0, r
            mods = [conditional(r.expr_id)]
            if budget is not None:
                mods.append(conditional((await c.command("Jdwpd", "DefineBudget", **budget)).budget_id))
            req = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=policy,
                                  modifiers=breakpoint_mods(ref, method, index, *mods))
            await c.command("VirtualMachine", "Resume")
            hits, disabled, order = 0, [], []
            while True:
                _, evs = await c.next_event(TIMEOUT)
                if sets is not None and not any(int(e.event_kind) == EventKind.VM_DEATH for e in evs):
                    sets.append([(int(e.event_kind), getattr(e, "reason", None)) for e in evs])
                    errors = [e for e in evs if int(e.event_kind) == EventKind.JDWPD_CONDITION_ERROR]
                    if errors:  # where the failure was: the hit's own place and thread
                        assert (errors[0].thread, errors[0].location) == (evs[1].thread, evs[1].location)
                for e in evs:
                    k = int(e.event_kind)
                    order.append(k)
                    if k == EventKind.BREAKPOINT:
                        hits += 1
                        if policy != SuspendPolicy.NONE:
                            await c.command("ThreadReference", "Resume", thread=e.thread)
                    elif k == EventKind.JDWPD_DISABLED:
                        assert e.request_id == req.request_id
                        disabled.append(e.reason)
                if any(int(e.event_kind) == EventKind.VM_DEATH for e in evs):
                    break
                if disabled and not stats_taken(locals()):
                    stats = await c.command("Jdwpd", "RequestStats", request_id=req.request_id)
            if not disabled:
                stats = None
            await vm.wait_exit(TIMEOUT)
            return hits, disabled, stats, vm.output.text("stdout"), order


def stats_taken(scope: dict) -> bool:
    return "stats" in scope


async def test_hit_cap_sends_that_many_then_says_why(spin_classes):
    hits, disabled, stats, _, order = await _run(spin_classes, 200, 0, "i % 2 == 0",
                                                 {"hit_cap": 5, "expires_millis": 0, "rate_per_second": 0,
                                                  "cpu_ppm": 0, "flags": 0})
    assert hits == 5 and disabled == [Disabled.HIT_CAP]
    assert order.index(EventKind.JDWPD_DISABLED) == 5  # after the last hit
    assert stats.hits == 5 and stats.evaluations == 9 and stats.disabled_reason == Disabled.HIT_CAP


async def test_expiry(spin_classes):
    hits, disabled, _, _, _ = await _run(spin_classes, 400, 2_000_000, "always == 1",
                                         {"hit_cap": 0, "expires_millis": 150, "rate_per_second": 0, "cpu_ppm": 0,
                                          "flags": 0})
    assert disabled == [Disabled.EXPIRED]
    assert 10 < hits < 300, hits


async def test_rate_limit(spin_classes):
    hits, disabled, _, _, _ = await _run(spin_classes, 100_000, 0, "always == 1",
                                         {"hit_cap": 0, "expires_millis": 0, "rate_per_second": 20, "cpu_ppm": 0,
                                          "flags": 0})
    assert disabled == [Disabled.RATE]
    assert 15 <= hits <= 25, hits  # a second's worth as a burst


async def test_default_cpu_quota_protects_a_hot_loop(spin_classes):
    """A condition true at every hit of a hot loop, default budget (1% of a CPU): the request disables
    itself with CPU_QUOTA, and what it cost stays within the quota's 2 s bucket plus 1% of the run."""
    n = 3_000_000
    t0 = time.monotonic()
    hits, disabled, stats, out, _ = await _run(spin_classes, n, 0, "always == 1", None)
    took = time.monotonic() - t0
    assert disabled == [Disabled.CPU_QUOTA], (hits, disabled)
    assert 0 < hits < n
    assert stats.cost_nanos <= 20_000_000 + 0.01 * took * 1e9 + 5_000_000, stats
    # The program's own clock: the whole loop took at most the quota's burst and some slack (JIT
    # recompiling the method the breakpoint left) more than it takes with no debugger.
    classes, _ = spin_classes
    plain = subprocess.run([java_executable(), "-cp", str(classes), "Spin", str(n), "0"], capture_output=True,
                           text=True,
                           timeout=120, check=True).stdout
    per = float(re.search(r"NS_PER_ITER ([0-9.]+)", out).group(1))
    plain_per = float(re.search(r"NS_PER_ITER ([0-9.]+)", plain).group(1))
    print(f"hot loop, condition true every hit, default quota: {per:.1f} ns/iteration vs {plain_per:.1f} plain; "
          f"{hits} hits before CPU_QUOTA, {stats.cost_nanos / 1e6:.1f} ms charged")
    assert (per - plain_per) * n < 250e6, (per, plain_per)


async def test_hostile_conditions_are_false_with_a_reason(spin_classes):
    """Index out of bounds, null, / 0: false, counted; the program runs to its end."""
    # (the reasons counted are checked in test_conditions.py through RequestStats)
    for condition in ("arr[i] > 0", "s.length() == 1", "10 / (i - i) == 1"):
        hits, disabled, _, out, _ = await _run(spin_classes, 50, 0, condition,
                                               {"hit_cap": 0, "expires_millis": 0, "rate_per_second": 0,
                                                "cpu_ppm": 0, "flags": 0}, policy=SuspendPolicy.EVENT_THREAD)
        assert "NS_PER_ITER" in out and not disabled
        expect = {"arr[i] > 0": 3, "s.length() == 1": 25, "10 / (i - i) == 1": 0}[condition]
        assert hits == expect, (condition, hits)


async def test_a_failing_condition_stops_when_the_budget_says_so_and_says_why(spin_classes):
    """BudgetFlag.STOP_ON_ERROR: a condition that cannot be evaluated counts as true, as a debugger
    stops where it cannot evaluate one; its reason comes just before the hit, in the same set."""
    n = 50
    cases = {"arr[i] > 0": (3, 47, Reason.INDEX), "s.length() == 1": (25, 25, Reason.NULL),
             "10 / (i - i) == 1": (0, 50, Reason.ARITHMETIC)}  # (true hits, failures, reason)
    for condition, (trues, failures, reason) in cases.items():
        sets: list = []
        hits, disabled, _, _, _ = await _run(spin_classes, n, 0, condition,
                                             {"hit_cap": 0, "expires_millis": 0, "rate_per_second": 0, "cpu_ppm": 0,
                                              "flags": BudgetFlag.STOP_ON_ERROR},
                                             policy=SuspendPolicy.EVENT_THREAD, sets=sets)
        failed = [(EventKind.JDWPD_CONDITION_ERROR, reason), (EventKind.BREAKPOINT, None)]
        assert sets.count(failed) == failures and sets.count([(EventKind.BREAKPOINT, None)]) == trues, (condition, sets)
        assert len(sets) == hits == n and not disabled, condition


async def test_a_standard_client_sees_the_reference_behaviour(spin_classes):
    """The probe (VirtualMachine.JdwpdHello) is NOT_IMPLEMENTED on the reference; before it, jdwpd
    answers set 128 NOT_IMPLEMENTED too; both accept a Conditional modifier and ignore it for a client
    without the extension.  (Set 128 is never sent to the reference: it crashes its JVM, see
    docs/extensions.md.)"""
    classes, line = spin_classes
    for kind in ("reference", "jdwpd"):
        with trio.fail_after(2 * TIMEOUT):
            async with jvm.open_jvm(kind, classes, "Spin", ["20", "0"]) as vm, \
                    open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
                ref = await prepare(c, "Spin")
                method, index = await location_of_line(c, ref, line)
                if kind == "jdwpd":
                    for name, fields in (("CompileCondition", {"ref_type": ref, "method_id": method, "index": index,
                                                               "expression": "i > 3"}),
                                         ("DefineBudget", {"hit_cap": 1, "expires_millis": 0,
                                                           "rate_per_second": 0, "cpu_ppm": 0, "flags": 0}),
                                         ("RequestStats", {"request_id": 1})):
                        code, _ = await c.command_raw("Jdwpd", name, fields)
                        assert code == ErrorCode.NOT_IMPLEMENTED, (kind, name, code)
                await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                suspend_policy=SuspendPolicy.NONE,
                                modifiers=breakpoint_mods(ref, method, index, conditional(1)))
                await c.command("VirtualMachine", "Resume")
                hits = 0
                while True:
                    _, evs = await c.next_event(TIMEOUT)
                    hits += sum(int(e.event_kind) == EventKind.BREAKPOINT for e in evs)
                    if any(int(e.event_kind) == EventKind.VM_DEATH for e in evs):
                        break
                assert hits == 20, (kind, hits)
                await vm.wait_exit(TIMEOUT)
        with trio.fail_after(2 * TIMEOUT):
            async with jvm.open_jvm(kind, classes, "Spin", ["1", "0"]) as vm, \
                    open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
                code, reply = await c.command_raw("VirtualMachine", "JdwpdHello", client_version=1)
                assert code == (ErrorCode.NOT_IMPLEMENTED if kind == "reference" else 0), (kind, code)
                await c.command("VirtualMachine", "Version")  # the VM lives on
