"""Issue 19's example, adapted to shop.Main's lines: the API's acceptance, on both servers."""

from __future__ import annotations

import json

import pytest
import trio
from api_support import java_argv, open_shop

import jdwpd

pytestmark = pytest.mark.jvm


async def test_issue_example(server_kind, shop_classes, shop_lines):
    L = shop_lines
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            assert vm.held_at_start
            bp = await vm.breakpoint(f"Checkout.java:{L['shop_checkout']}", condition="order.total > 100")
            log = await vm.logpoint(f"Checkout.java:{L['shop_pay']}", "paid {order.id} amount={amount}")
            assert {b.spec.text for b in vm.unresolved()} == {bp.spec.text, log.spec.text}  # not loaded yet
            await vm.resume()
            seen = []
            async for hit in bp.hits(limit=3, timeout=30):
                frame = hit.frame
                assert str(frame.location) == f"shop.Checkout.checkout(Checkout.java:{L['shop_checkout']})"
                local = await frame.locals()
                assert set(local) == {"order", "i"}
                assert local["order"].type.name == "shop.Order"
                seen.append((await local["order"].get("id"), local["i"]))
                assert await hit.evaluate("order.items.size() * 2") == 4
                await hit.resume()
            assert seen == [(2, 1), (4, 3), (6, 1)]  # the odd orders have a lamp: total > 100
            assert bp.cleared  # spent at its limit (a one-shot breakpoint is hits(limit=1), or vm.run_to)
            assert vm.unresolved() == []

            snap = await vm.snapshot(f"Checkout.java:{L['shop_report']}", limits=jdwpd.Limits(frames=5, depth=2),
                                     timeout=30)
            data = json.loads(snap.to_json())
            assert data["schema"] == "jdwpd.snapshot/1"
            assert data["location"]["method"] == "report" and data["location"]["line"] == L["shop_report"]
            assert [f["location"]["method"] for f in data["frames"]] == ["report", "main"]
            assert data["frames"][0]["locals"] == {"round": 2}
            paid = data["frames"][0]["this"]["paid"]
            assert paid["@type"] == "java.util.LinkedHashMap" and paid["@size"] == 8
            assert paid["@entries"][0][0] == 1 and paid["@entries"][0][1]["@truncated"] == "depth"

            exc = await vm.exception("java.lang.IllegalStateException", caught=False, uncaught=True, timeout=30)
            assert exc.thrown.type.name == "java.lang.IllegalStateException"
            assert str(exc.location) == f"shop.Main.lambda$main$1(Main.java:{L['shop_throw']})"
            assert exc.catch_location is None
            view = await exc.thrown.view()
            assert view.message.startswith("round ") and view.message.endswith(" failed")
            await exc.resume()

            lines = await log.lines()
            assert lines[:4] == ["paid 1 amount=2", "paid 2 amount=127", "paid 3 amount=7", "paid 4 amount=132"]


@pytest.mark.parametrize("server_kind", ["jdwpd"])
def test_issue_example_sync(server_kind, shop_classes, shop_lines):
    """The blocking half of the example (jdwpd.launch only: launch is jdwpd's)."""
    line = shop_lines["shop_checkout"]
    with jdwpd.sync.launch(java_argv(shop_classes)) as vm:
        bp = vm.breakpoint(f"Checkout.java:{line}")
        vm.resume()
        hit = bp.wait(timeout=30)
        local = hit.frame.locals()
        assert local["i"] == 0 and repr(local["order"]).startswith("<shop.Order#")
        assert local["order"].invoke("toString") == "Order#1(ada)"
        hit.resume()
        assert [h.frame.locals()["i"] for h in _resumed(bp.hits(limit=2, timeout=30))] == [1, 2]


def _resumed(hits):
    for h in hits:
        yield h
        h.resume()
