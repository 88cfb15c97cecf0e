"""A VM that ends right after a hit: the handlers of its last events still find it there.

The API asks every VM to wait at its death (a VMDeath request that suspends all, as JDI documents
for the purpose) until the handlers of the events it sent before are done.  Without that, a
handler that asks the VM anything after a short-lived JVM's last hit (an in-VM snapshot resolving
its lines, a script reading threads) met VM_DEAD, and `jdwpd ci` lost snapshots under load.
"""

from __future__ import annotations

import pytest
import trio
from api_support import open_shop

pytestmark = pytest.mark.jvm


async def test_a_handler_still_queries_a_vm_that_ended_after_its_hit(server_kind, shop_classes, shop_lines):
    seen = []
    async with open_shop(server_kind, shop_classes, "shop.Brief") as vm:
        bp = await vm.breakpoint(f"Checkout.java:{shop_lines['shop_pay']}", suspend="none")

        async def slow_handler(hit):
            await trio.sleep(1.0)  # the program has long ended by now
            seen.append(sorted(t.name for t in await vm.threads()))

        bp.on_hit(slow_handler)
        await vm.resume()
        with trio.fail_after(30):
            await vm.dead.wait()
        assert seen and "DestroyJavaVM" in seen[0], seen  # asked at the death: main is ending the VM


async def test_in_vm_snapshots_of_a_short_lived_vm_are_complete(server_kind, shop_classes, shop_lines):
    async with open_shop(server_kind, shop_classes, "shop.Brief") as vm:
        sp = await vm.snapshots(f"Checkout.java:{shop_lines['shop_pay']}", condition="order.id == 1")
        await vm.resume()
        snaps = [s async for s in sp.snapshots(limit=1, timeout=30)]
        with trio.fail_after(30):
            await vm.dead.wait()
    assert snaps[0].data["location"]["line"] == shop_lines["shop_pay"]
    assert [f["location"]["method"] for f in snaps[0].data["frames"]] == ["pay", "checkout", "main"]
