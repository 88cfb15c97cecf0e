"""Locations as people write them, resolved as classes load; the same on both servers."""

from __future__ import annotations

import pytest
import trio
from api_support import open_shop

import jdwpd
from jdwpd.api.locations import parse_location

pytestmark = pytest.mark.jvm


def test_parse_forms():
    assert parse_location("Checkout.java:42").source == "Checkout.java"
    assert parse_location("shop/Checkout.java:42").package_dir == "shop"
    spec = parse_location("shop.Checkout:42")
    assert (spec.class_name, spec.line) == ("shop.Checkout", 42)
    spec = parse_location("shop.Checkout.pay(Order, long)")
    assert (spec.class_name, spec.method, spec.arg_types) == ("shop.Checkout", "pay", ("Order", "long"))
    assert parse_location("shop.Checkout.<init>").method == "<init>"
    with pytest.raises(jdwpd.LocationError, match="File.java:LINE"):
        parse_location("Checkout.java:x:y")


async def test_location_forms(server_kind, shop_classes, shop_lines):
    L = shop_lines
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            by_file = await vm.breakpoint(f"shop/Checkout.java:{L['shop_pay']}")
            by_class = await vm.breakpoint(f"shop.Checkout:{L['shop_sum']}")
            by_method = await vm.breakpoint("shop.Checkout.report")
            by_sig = await vm.breakpoint("shop.Checkout.pay(Order,long)")
            lambda_line = await vm.breakpoint(f"Main.java:{L['shop_throw']}")
            record = await vm.breakpoint("shop.Item.price")  # a record's accessor, in Order.java
            blank = await vm.breakpoint(f"Checkout.java:{L['shop_checkout'] - 1}")  # an empty line
            await vm.resume()
            hits = {}
            hit = await by_class.wait(30)
            hits["sum"] = str(hit.location)
            await by_class.clear()
            await hit.resume()
            hit = await record.wait(30)
            hits["record"] = str(hit.location)
            await record.clear()
            await hit.resume()
            hit = await blank.wait(30)
            hits["blank"] = hit.location.line
            await blank.clear()
            await hit.resume()
            for name, bp in [("pay", by_file), ("sig", by_sig)]:
                hit = await bp.wait(30)
                hits[name] = str(hit.location)
                await bp.clear()
                await hit.resume()
            hit = await by_method.wait(30)
            hits["report"] = str(hit.location)
            await by_method.clear()
            await hit.resume()
            hit = await lambda_line.wait(30)
            hits["lambda"] = (str(hit.location), hit.thread.name.startswith("failing-"))
            await hit.resume()
            assert hits == {
                "sum": f"shop.Checkout.total(Checkout.java:{L['shop_sum']})",
                "record": "shop.Item.price(Order.java:29)",
                "blank": L["shop_checkout"],
                "pay": f"shop.Checkout.pay(Checkout.java:{L['shop_pay']})",
                "sig": f"shop.Checkout.pay(Checkout.java:{L['shop_pay']})",
                "report": f"shop.Checkout.report(Checkout.java:{L['shop_report']})",
                "lambda": (f"shop.Main.lambda$main$1(Main.java:{L['shop_throw']})", True),
            }


async def test_unresolved_lists_nearest_lines(server_kind, shop_classes, shop_lines):
    with trio.fail_after(120):
        async with open_shop(server_kind, shop_classes) as vm:
            start = await vm.breakpoint("shop.Checkout.report")
            await vm.resume()
            hit = await start.wait(30)  # Checkout is loaded now
            nowhere = await vm.breakpoint("Checkout.java:2")  # the imports
            assert vm.unresolved() == [nowhere]
            assert "no code at line 2 in shop.Checkout; nearest lines with code: 7" in nowhere.problem
            missing = await vm.breakpoint("shop.Checkout.refund")
            assert "has no method refund" in missing.problem and "pay" in missing.problem
            await hit.resume()
