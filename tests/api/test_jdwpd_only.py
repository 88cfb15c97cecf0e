"""What only jdwpd offers: a script and jdb on one VM at once, each seeing only its own events;
and attach_pid (`jdwpd attach`) to a JVM started without any agent."""

from __future__ import annotations

import subprocess

import pytest
import trio
from api_support import java_argv
from conftest_skip import skip_unless_jdwpd

import jdwpd
from jdwpd.testing import jvm
from jdwpd.testing.jdb import open_jdb

pytestmark = pytest.mark.jvm


def test_script_and_jdb_at_once(shop_classes, shop_lines):
    skip_unless_jdwpd()
    with jdwpd.sync.launch(java_argv(shop_classes)) as vm:
        host, port = vm.process.address.rsplit(":", 1)
        with open_jdb(host, int(port), timeout=30) as jdb:
            jdb.start()
            jdb.command("stop in shop.Checkout.report", expect=r"Deferring|Set breakpoint")
            bp = vm.breakpoint("shop.Checkout.pay")
            vm.resume()
            hits = []
            for hit in bp.hits(limit=4, timeout=30):
                hits.append((hit.frame.location.method.name, hit.frame.locals()["order"].get("id")))
                hit.resume()
            assert hits == [("pay", 1), ("pay", 2), ("pay", 3), ("pay", 4)]
            out = jdb.wait_for(r"Breakpoint hit: .*shop\.Checkout\.report")
            assert "shop.Checkout.pay" not in out
            assert jdb.command("where", expect=r"shop\.Main\.main").count("shop.Checkout.report") == 1
            jdb.command("clear shop.Checkout.report", expect=r"Removed")
            jdb.send("cont")
            jdb.quit()
            assert bp.hit_total == 4


async def test_attach_pid(shop_classes):
    skip_unless_jdwpd()
    proc = subprocess.Popen([*java_argv(shop_classes)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=jvm.jvm_workdir())
    try:
        with trio.fail_after(120):
            async with jdwpd.attach_pid(proc.pid) as vm:
                names = {t.name for t in await vm.threads()}
                assert {"main", "auditor"} <= names
                checkout = await vm.class_named("shop.Checkout")
                assert await checkout.get("instances") == 1
                main = await vm.thread_named("main")
                await main.suspend()
                frames = await main.frames()
                assert frames[-1].location.method.name == "main"
                await main.resume()
        assert proc.poll() is None  # the JVM runs on after the script
    finally:
        proc.kill()
        proc.wait(timeout=30)
