"""Snapshots captured in the VM (jdwpd's extension: the thread never waits for the script) and read
over standard JDWP (the thread held) give the same ``jdwpd.snapshot/1`` data: the same frames,
locals, ``this``, watches and truncation marks, on jdwpd and on the reference (standard path only).

Object ids (``@id``) are the VM's JDWP ids on both paths; two runs of the program hand out
different numbers, so they are compared by identity: renumbered in order of first appearance (the
same object twice keeps one number).  The places are chosen where the JDK collections' insides fit
within the agent's extra depth (``jdwpd.api.capture.EXTRA_DEPTH``): a LinkedHashMap of one entry
(each further entry is one level deeper in its raw fields).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
from api_support import open_shop

import jdwpd
from jdwpd.testing import jvm

pytestmark = pytest.mark.jvm

WATCH = ["order.total * 2", "order.customer", "order.items", "order.status", "order.tags", "paid", "this.revenue",
         "order.note", "amount / 0", "order.missing"]


def _comparable(data: dict, ids: dict[int, int] | None = None) -> dict:
    """The snapshot without time and thread id, its object ids renumbered by first appearance (keys
    in sorted order: the paths list a frame's locals in different orders)."""
    ids = {} if ids is None else ids

    def renumber(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: (ids.setdefault(v, len(ids) + 1) if k == "@id" else renumber(v)) for k, v in sorted(x.items())}
        if isinstance(x, list):
            return [renumber(v) for v in x]
        return x

    return renumber({k: v for k, v in data.items() if k not in ("time", "thread")})


async def _snapshots(kind: str, classes, lines, in_vm: bool, *, warm: bool, limits: jdwpd.Limits,
                     watch: list[str]) -> tuple[list[dict], int]:
    async with open_shop(kind, classes) as vm:
        if warm:  # shop.Order loaded before the snapshot point is set: in the VM from its first hit
            hit = await vm.run_to(f"Checkout.java:{lines['shop_checkout']}", timeout=30)
            sp = await vm.snapshots(f"Checkout.java:{lines['shop_pay']}", limits=limits, watch=watch,
                                    condition="order.id <= 2", in_vm=in_vm)
            await hit.resume()
        else:  # set before shop.Order loads: the first hit is read over JDWP, the next in the VM
            sp = await vm.snapshots(f"Checkout.java:{lines['shop_pay']}", limits=limits, watch=watch,
                                    condition="order.id <= 2", in_vm=in_vm)
            await vm.resume()
        snaps = [s async for s in sp.snapshots(limit=2, timeout=30)]
        assert all(s.data["thread"]["name"] == "main" for s in snaps)
        ids: dict[int, int] = {}  # one numbering for the run: an object seen in two snapshots keeps its number
        return [_comparable(s.data, ids) for s in snaps], sp.in_vm_requests


@pytest.mark.parametrize("warm", [True, False], ids=["loaded", "loading"])
async def test_in_vm_snapshots_equal_the_standard_ones(server_kind, shop_classes, shop_lines, warm):
    limits = jdwpd.Limits(frames=5, depth=3)
    with trio.fail_after(180):
        here, n_here = await _snapshots(server_kind, shop_classes, shop_lines, False, warm=warm, limits=limits,
                                        watch=WATCH)
        there, n_there = await _snapshots(server_kind, shop_classes, shop_lines, True, warm=warm, limits=limits,
                                          watch=WATCH[:-2])  # the VM refuses the two errors: see below
    assert n_here == 0
    # a watch that the VM cannot run (a compile error) keeps the whole point on the standard path
    assert n_there == (1 if server_kind == "jdwpd" else 0)
    for a, b in zip(here, there, strict=True):
        a["watches"] = a["watches"][:-2]
        a["limits"] = b["limits"]
        assert a == b
    first = there[1]
    assert first["frames"][0]["locals"]["order"]["id"] == 2 and "this" in first["frames"][0]
    assert first["frames"][0]["this"]["paid"]["@size"] == 1
    assert [w["expression"] for w in first["watches"]] == WATCH[:-2]


async def test_runtime_errors_and_cuts_are_the_same(server_kind, shop_classes, shop_lines):
    """A watch that fails as it runs, strings and items cut, the byte budget: the same marks."""
    limits = jdwpd.Limits(frames=2, locals_frames=1, depth=2, string=2, items=1, bytes=400)
    watch = ["order.customer", "order.items", "amount / (amount - amount)"]
    with trio.fail_after(180):
        here, _ = await _snapshots(server_kind, shop_classes, shop_lines, False, warm=True, limits=limits,
                                   watch=watch)
        there, n = await _snapshots(server_kind, shop_classes, shop_lines, True, warm=True, limits=limits,
                                    watch=watch)
    assert n == (1 if server_kind == "jdwpd" else 0)
    assert here == there
    assert here[1]["truncated"] == ["frames", "budget"], here[1]
    assert '"@truncated": "string"' in json.dumps(here[1]) and '"@truncated": "items"' in json.dumps(here[1])


async def _one_snapshot_on_each_server(shop_classes, location: str, **kw) -> list[tuple[dict, bool]]:
    """``vm.snapshot`` on jdwpd, then on the reference: (comparable data, captured in the VM)."""
    got = []
    with trio.fail_after(180):
        for kind in ("jdwpd", "reference"):
            async with open_shop(kind, shop_classes) as vm:
                async with trio.open_nursery() as n:
                    n.start_soon(vm.resume)
                    snap = await vm.snapshot(location, timeout=60, **kw)
                got.append((_comparable(snap.data), snap.in_vm))
    return got


async def test_vm_snapshot_takes_the_vm_path_on_jdwpd(shop_classes, shop_lines):
    """``vm.snapshot`` (one capture) on jdwpd, against the same read over JDWP on the reference.
    Order 6 pays in the second round: by then the point captures in the VM on jdwpd."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    (ours, in_vm), (theirs, ref_in_vm) = await _one_snapshot_on_each_server(
        shop_classes, f"Checkout.java:{shop_lines['shop_pay']}", watch=["order.id"], condition="order.id == 6",
        limits=jdwpd.Limits(frames=3, depth=1), in_vm=True)
    assert in_vm and not ref_in_vm
    assert ours == theirs
    assert ours["watches"] == [{"expression": "order.id", "value": 6}]


async def test_vm_snapshot_reads_a_cut_capture_again_from_the_held_thread(shop_classes, shop_lines):
    """At shop_report ``this.paid`` is a LinkedHashMap of 4 entries per round, a chain deeper than
    the VM reads: ``vm.snapshot`` on jdwpd sees the cut and reads the same held hit over JDWP, so
    it gives the reference's snapshot, no mark of a cut."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    (ours, in_vm), (theirs, ref_in_vm) = await _one_snapshot_on_each_server(
        shop_classes, f"Checkout.java:{shop_lines['shop_report']}", condition="round == 2",
        limits=jdwpd.Limits(frames=2, depth=2))
    assert not in_vm and not ref_in_vm
    assert ours == theirs
    assert ours["truncated"] == [] and ours["frames"][0]["this"]["paid"]["@size"] == 8


async def test_a_collection_cut_earlier_in_the_vm_is_marked_and_read_over_jdwp_next(shop_classes, shop_lines):
    """At shop_report ``this.paid`` is a LinkedHashMap of 4 entries per round: a chain deeper than
    the agent's extra depth.  The VM's first snapshot says so (``truncated`` has ``depth``); the
    point then reads over JDWP, and its next snapshot is the standard one."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    limits = jdwpd.Limits(frames=2, depth=2)
    with trio.fail_after(120):
        async with open_shop("jdwpd", shop_classes) as vm:
            sp = await vm.snapshots(f"Checkout.java:{shop_lines['shop_report']}", limits=limits, max_hits=None)
            await vm.resume()
            got, paths = [], []
            # no quota: every hit made before the switch is captured (how many depends on speed)
            async for snap in sp.snapshots(limit=2000, timeout=30):
                got.append(snap.data)
                paths.append(snap.in_vm)
                if "depth" not in snap.data["truncated"]:
                    break
    first, second = got[0], got[-1]
    assert "depth" in first["truncated"]
    assert first["frames"][0]["this"]["paid"]["@truncated"] == "depth"
    # The thread is not held at an in-VM capture: hits that come before the point has switched to
    # JDWP are captured in the VM too; the first one read over JDWP is the standard snapshot.
    size = second["frames"][0]["this"]["paid"]["@size"]
    assert "depth" not in second["truncated"] and size >= 8 and size % 4 == 0, (size, len(got))
    assert paths[0] and not paths[-1], paths  # the VM's capture first, the last read over JDWP
