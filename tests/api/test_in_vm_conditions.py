"""Conditions evaluated in the VM (jdwpd's extension) and here (the standard path) give the same
hits, values and log lines, on jdwpd and on the reference (where only the standard path exists).
shop.Order is not loaded when the breakpoints are set: a condition naming its fields moves into
the VM at its first hit."""

from __future__ import annotations

import re

import pytest
import trio
from api_support import open_shop

pytestmark = pytest.mark.jvm

CONDITIONS = [  # (at shop_checkout, at shop_pay)
    ("order.total > 100", "amount > 100 && revenue > 0"),
    ("i == 1 && order.id % 2 == 0", "order.id % 3 != 0 || amount < 10"),
    ("order.status == null || order.id > 3", "this.revenue >= 200L"),
    ("order.items.size() == 2", "paid.size() > 2"),  # calls: the standard path on both servers
]


async def _hits(server_kind, shop_classes, lines, conditions, in_vm):
    async with open_shop(server_kind, shop_classes) as vm:
        bp = await vm.breakpoint(f"Checkout.java:{lines['shop_checkout']}", condition=conditions[0], in_vm=in_vm,
                                 allow_invoke=True)
        log = await vm.logpoint(f"Checkout.java:{lines['shop_pay']}", "id={order.id} amount={amount}",
                                condition=conditions[1], in_vm=in_vm, allow_invoke=True)
        await vm.resume()
        seen = []
        async for hit in bp.hits(limit=4, timeout=30):
            local = await hit.frame.locals()
            seen.append((await local["order"].get("id"), local["i"], await hit.evaluate("order.total")))
            await hit.resume()
        lines = await log.wait_lines(4, timeout=30)
        return seen, lines[:4], await vm.has_extension(), (bool(bp.in_vm_requests), bool(log.in_vm_requests))


async def test_same_hits_in_the_vm_and_here(server_kind, shop_classes, shop_lines):
    with trio.fail_after(300):
        for conditions in CONDITIONS:
            here = await _hits(server_kind, shop_classes, shop_lines, conditions, False)
            there = await _hits(server_kind, shop_classes, shop_lines, conditions, True)
            assert here[:2] == there[:2], conditions
            assert there[2] == (server_kind == "jdwpd")
            ext = server_kind == "jdwpd"
            assert there[3] == (ext and "size()" not in conditions[0], ext and "size()" not in conditions[1])
            assert here[3] == (False, False)


async def _lines(server_kind, shop_classes, line, template, condition, in_vm):
    async with open_shop(server_kind, shop_classes) as vm:
        log = await vm.logpoint(f"Checkout.java:{line}", template, condition=condition, in_vm=in_vm)
        await vm.resume()
        lines = await log.wait_lines(6, timeout=30)
        return lines[:6], bool(log._capture_parts)


async def test_logpoint_lines_captured_in_the_vm_equal_the_standard_ones(server_kind, shop_classes, shop_lines):
    """A template of primitives and Strings is captured by the VM (no stop at all) under jdwpd."""
    line = shop_lines["shop_pay"]
    with trio.fail_after(300):
        for template, condition in (("amount={amount} revenue={revenue} big={amount > 100} half={amount / 2.0}",
                                     None),
                                    ("r={revenue % 7} neg={-amount} c={(char) (65 + amount % 26)}", "amount > 5")):
            here = await _lines(server_kind, shop_classes, line, template, condition, False)
            there = await _lines(server_kind, shop_classes, line, template, condition, True)
            assert here[0] == there[0], template
            assert there[1] == (server_kind == "jdwpd") and not here[1]


async def test_a_condition_that_cannot_be_evaluated_stops_on_both_paths(server_kind, shop_classes, shop_lines):
    """As debuggers do: where the condition throws (here / by zero at i == 1) the breakpoint stops,
    and ``bp.condition_errors`` says where and what Java would have thrown, in the VM or here."""
    condition = "order.id / (i - 1) > 2"
    results = []
    with trio.fail_after(300):
        for in_vm in (False, True):
            async with open_shop(server_kind, shop_classes) as vm:
                bp = await vm.breakpoint(f"Checkout.java:{shop_lines['shop_checkout']}", condition=condition,
                                         in_vm=in_vm)
                await vm.resume()
                seen = []
                async for hit in bp.hits(limit=6, timeout=30):
                    local = await hit.frame.locals()
                    seen.append((await local["order"].get("id"), local["i"]))
                    # the hits where it threw say so; the others held
                    assert (hit.condition_error or "").startswith("ArithmeticException") == (local["i"] == 1), \
                        (hit.condition_error, local["i"])
                    await hit.resume()
                failed = sum(1 for _, i in seen if i == 1)
                errors = [re.match(r"(\S+): (\w+)", e).groups() for e in bp.condition_errors[:failed]]
                results.append((seen, errors, len(bp.condition_errors) >= failed, bool(bp.in_vm_requests)))
    (here, here_errors, here_all, here_vm), (there, there_errors, there_all, there_vm) = results
    assert here == there and here_errors == there_errors, results
    assert any(i == 1 for _, i in here) and here_all and there_all
    assert {name for _, name in here_errors} == {"ArithmeticException"}, here_errors
    assert (here_vm, there_vm) == (False, server_kind == "jdwpd")


async def test_a_logpoint_whose_condition_fails_logs_on_both_paths(server_kind, shop_classes, shop_lines):
    """The same rule for a logpoint captured in the VM: where its condition throws, it logs."""
    line = shop_lines["shop_pay"]
    condition = "revenue / (amount - amount) > 0"  # a long / by zero at every hit
    with trio.fail_after(300):
        here = await _lines(server_kind, shop_classes, line, "amount={amount}", condition, False)
        there = await _lines(server_kind, shop_classes, line, "amount={amount}", condition, True)
    assert here[0] == there[0] and len(here[0]) == 6, (here, there)
    assert there[1] == (server_kind == "jdwpd")


async def test_a_snapshot_whose_condition_fails_says_so_on_both_paths(server_kind, shop_classes, shop_lines):
    """Snapshot points follow the same rule: captured where the condition throws, and the
    snapshot says why (``snap.condition_error``), in the VM and over JDWP alike."""
    condition = "order.id / (i - 1) > 2"
    results = []
    with trio.fail_after(300):
        for in_vm in (False, True):
            async with open_shop(server_kind, shop_classes) as vm:
                sp = await vm.snapshots(f"Checkout.java:{shop_lines['shop_checkout']}", condition=condition,
                                        in_vm=in_vm)
                await vm.resume()
                got = []
                async for snap in sp.snapshots(limit=6, timeout=30):
                    got.append((snap.locals["i"], (snap.condition_error or "").split(":")[0].split(" ")[0],
                                snap.in_vm))
                results.append(got)
    assert [g[:2] for g in results[0]] == [g[:2] for g in results[1]], results
    assert all((i == 1) == (error == "ArithmeticException") for i, error, _ in results[1]), results
    assert any(i == 1 for i, _, _ in results[1])
    assert all(in_vm == (server_kind == "jdwpd") for _, _, in_vm in results[1]), results
