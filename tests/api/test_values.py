"""Values, JDK views, to_python under limits, invoke and expressions; the same on both servers."""

from __future__ import annotations

import pytest
import trio
from api_support import open_shop

import jdwpd
from jdwpd.api.views import EnumValue, OptionalValue
from jdwpd.testing import debuggees

pytestmark = pytest.mark.jvm


async def _at_pay(vm, lines, nth=2):
    bp = await vm.breakpoint(f"Checkout.java:{lines['shop_pay']}", hit_count=nth)
    await vm.resume()
    return await bp.wait(30)


async def test_values_and_views(server_kind, shop_classes, shop_lines):
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            hit = await _at_pay(vm, shop_lines)
            local = await hit.frame.locals()
            assert local["amount"] == 127
            order = local["order"]
            fields = await order.fields()
            assert (fields["id"], fields["customer"], fields["total"]) == (2, "bob", 127.0)
            assert await order.get("customer") == "bob"
            items = await fields["items"].view()
            bought = [{"name": "pen", "price": 2.5, "quantity": 2}, {"name": "lamp", "price": 61.0, "quantity": 2}]
            if int(debuggees.default_release()) < 16:  # no records: Item is a class (Order.java-release11)
                assert [await i.fields() for i in items] == bought
            else:
                assert [await i.view() for i in items] == bought
            assert await fields["tags"].view() == ["web", "eu"]
            assert await fields["status"].view() == EnumValue("shop.Status", "NEW", 0)
            assert await fields["note"].view() == OptionalValue(None, False)
            this = await hit.frame.this()
            assert this.type.name == "shop.Checkout"
            paid = await (await this.get("paid")).view()
            assert list(paid) == [1] and paid[1].type.name == "shop.Order"
            assert await (await vm.class_named("shop.Checkout")).get("instances") == 1
            # arrays: the list's backing array, sliced
            data = await fields["items"].get("elementData")
            assert len(data) >= 2 and (await data[0:2])[1] == items[1] and await data[5] is None
            # to_python under limits: depth, items, strings, each cut marked
            small = jdwpd.Limits(depth=1, items=1, string=3)
            got = await order.to_python(small)
            assert got["@type"] == "shop.Order" and got["customer"] == {
                "@type": "java.lang.String", "@value": "bob", "@length": 3, "@truncated": "string"} or \
                got["customer"] == "bob"
            assert got["items"] == {"@type": "java.util.ArrayList", "@id": fields["items"].id, "@truncated": "depth"}
            got = await order.to_python(jdwpd.Limits(depth=2, items=1, string=2))
            assert got["customer"]["@truncated"] == "string" and got["customer"]["@value"] == "bo"
            assert got["items"]["@size"] == 2 and got["items"]["@truncated"] == "items"
            assert got["status"] == {"@type": "shop.Status", "@enum": "NEW"}
            assert got["tags"]["@items"] == [{"@type": "java.lang.String", "@value": "we", "@length": 3,
                                              "@truncated": "string"}]
            await hit.resume()


async def test_invoke_and_expressions(server_kind, shop_classes, shop_lines):
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            hit = await _at_pay(vm, shop_lines)
            order = await hit.frame.get("order")
            assert await order.invoke("toString") == "Order#2(bob)"
            assert await hit.evaluate("order.customer + \"!\"") == "bob!"
            assert await hit.evaluate("amount > 100 && order.items.size() == 2") is True
            assert await hit.evaluate("order.status") == await order.get("status")
            assert await hit.evaluate("order.tags.get(1).length()") == 2
            with pytest.raises(jdwpd.ExpressionError) as e:
                await hit.evaluate("order.items.size(", allow_invoke=True)
            assert e.value.column is not None
            with pytest.raises(jdwpd.ExpressionError):
                await hit.evaluate("order.items.size()", allow_invoke=False)
            with pytest.raises(jdwpd.ExpressionError):
                await vm.breakpoint("Checkout.java:1", condition="a +* b")
            await hit.resume()


async def test_condition_with_invoke_needs_opt_in(server_kind, shop_classes, shop_lines):
    line = shop_lines["shop_checkout"]
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            bp = await vm.breakpoint(f"Checkout.java:{line}", condition="order.items.size() == 2",
                                     allow_invoke=True)
            await vm.resume()
            got = []
            async for hit in bp.hits(limit=2, timeout=30):
                got.append(await hit.evaluate("order.id"))
                await hit.resume()
            assert got == [2, 4]
