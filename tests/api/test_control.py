"""Steps, watchpoints, suspend policies, hit counts, callbacks that act (a forced race), run_to,
errors and a VM that dies mid-wait; the same on both servers."""

from __future__ import annotations

import os
import signal

import pytest
import trio
from api_support import open_shop

import jdwpd

pytestmark = pytest.mark.jvm


async def test_steps(server_kind, shop_classes, shop_lines):
    L = shop_lines
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            hit = await vm.run_to(f"Checkout.java:{L['shop_checkout']}", timeout=30)
            assert vm.requests() == []  # run_to's breakpoint went with its hit: GDB's tbreak and continue
            nxt = await hit.step_over()
            assert nxt.location.line == L["shop_checkout"] + 1
            into = await nxt.step_into()
            assert str(into.location) == f"shop.Checkout.pay(Checkout.java:{L['shop_pay']})"
            over = await into.step_over()
            assert over.location.line == L["shop_pay"] + 1
            out = await over.step_out()
            assert (out.location.method.name, out.location.line) == ("checkout", L["shop_after_pay"])
            over = await out.step_over()
            assert over.location.line == L["shop_after_pay"] + 1
            # java.* is excluded by default: stepping into a JDK call lands back in our code
            await over.resume()


async def test_watchpoint_with_stack(server_kind, shop_classes):
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            watch = await vm.watch("shop.Checkout.revenue", modify=True)
            await vm.resume()
            got = []
            async for hit in watch.hits(limit=2, timeout=30):
                assert isinstance(hit, jdwpd.WatchHit) and hit.is_modification
                frames = await hit.frames()
                got.append((hit.value, hit.new_value, [f.location.method.name for f in frames]))
                await hit.resume()
            assert got == [(0, 2, ["pay", "checkout", "main"]), (2, 129, ["pay", "checkout", "main"])]


async def test_suspend_policies_and_hit_count(server_kind, shop_classes, shop_lines):
    line = shop_lines["shop_pay"]
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            quiet = await vm.breakpoint(f"Checkout.java:{line}", suspend="none")
            third = await vm.breakpoint(f"Checkout.java:{line}", hit_count=3, suspend="all")
            await vm.resume()
            hit = await third.wait(30)
            assert await hit.evaluate("amount") == 7
            main = await vm.thread_named("main")
            assert await main.is_suspended()
            unheld = await quiet.wait(30)
            with pytest.raises(jdwpd.InvalidStateError, match="suspend='none'"):
                unheld.frame  # noqa: B018
            await hit.resume()
            assert quiet.hit_total >= 3


async def test_on_hit_handlers_force_a_race(server_kind, shop_classes, shop_lines):
    """Hold main inside pay() (revenue not yet added) until the auditor thread reads the revenue:
    the handler waits on another breakpoint, evaluates and sets breakpoints, what GDB's stop()
    forbids.  The auditor sees the revenue before the payment: the race, forced."""
    L = shop_lines
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            pay = await vm.breakpoint(f"Checkout.java:{L['shop_pay']}", hit_count=2)
            done = trio.Event()
            events = []

            @pay.on_hit
            async def hold_main(hit):
                events.append(("main in pay", await hit.evaluate("amount"), await hit.evaluate("this.revenue")))
                audit = await vm.breakpoint(f"Main.java:{L['shop_audit']}")
                other = await audit.wait(30)
                await audit.clear()
                step = await other.step_over()  # the auditor reads revenue while main is held
                events.append((step.thread.name, await step.evaluate("seen")))
                await step.resume()
                done.set()

            await vm.resume()
            await done.wait()
            assert events == [("main in pay", 127, 2), ("auditor", 2)]


async def test_errors(server_kind, shop_classes):
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            with pytest.raises(jdwpd.JdwpError) as e:
                await vm.conn.command("ObjectReference", "ReferenceType", object=123456789)
            assert (e.value.code, e.value.name) == (20, "INVALID_OBJECT")
            bp = await vm.breakpoint("shop.Checkout.report")
            with pytest.raises(jdwpd.Timeout):
                await bp.wait(0.2)  # held at the start: nothing runs
            await vm.resume()
            hit = await bp.wait(30)
            await hit.resume()
            # the VM dies while a wait is under way: the wait ends with VMDisconnected
            never = await vm.breakpoint("shop.Checkout.refundAll")
            pid = None
            threads = await vm.threads()
            assert any(t.name == "main" for t in threads)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_kill_soon, vm, pid)
                with pytest.raises(jdwpd.VMDisconnected):
                    await never.wait(30)


async def _kill_soon(vm, pid):
    await trio.sleep(0.2)
    await vm.exit(3)


def test_import_is_cheap():
    import subprocess
    import sys

    code = "import sys, jdwpd; assert 'trio' not in sys.modules and 'jdwpd.api' not in sys.modules; jdwpd.Limits"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


_ = (os, signal)
