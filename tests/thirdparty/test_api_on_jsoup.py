"""The scripting API on someone else's code (issue 30): jsoup, built from Debian's source package, driven by
tpdriver.Driver over jsoup's own test pages.  One script, both servers; the items of the issue as tests: requests
naming a class not prepared yet, requests that cannot be served, no budget unless asked, Java names as written,
writes, waits that end with their cause, views of JDK-collection subclasses."""

from __future__ import annotations

import re

import pytest
import trio
from thirdparty_support import open_driver

import jdwpd

pytestmark = pytest.mark.jvm

DONE = re.compile(r"driver: done documents=(\d+) pages=(\d+) words=(\d+) links=(\d+) cleaned=(\d+) caught=(\d+)")


async def test_late_types_and_bad_requests_never_end_the_session(server_kind, jsoup_driver):
    """``report`` is a Driver$Report, loaded at the first page's report: a condition, a logpoint template and a
    snapshot watch reading its fields work on both servers.  A watch and a method-exit request on members jsoup's
    classes do not have fail on themselves; the program runs to its end."""
    d = jsoup_driver
    with trio.fail_after(300):
        async with open_driver(server_kind, d) as session:
            vm = session.vm
            bp = await vm.breakpoint(d.location("report_ready"), condition="report.links > 10 && report.title != null")
            log = await vm.logpoint(d.location("report_ready"), "{report.title}|{report.words}")
            snaps = await vm.snapshots(d.location("page_done"), watch=["report.title", "links.size()"],
                                       condition="report.links > 0", max_hits=3)
            nosuch_field = await vm.watch("org.jsoup.nodes.Document.noSuchField")
            nosuch_method = await vm.method_exits("org.jsoup.select.QueryParser.noSuchMethod")
            with pytest.raises(jdwpd.ExpressionError):
                await vm.logpoint(d.location("report_ready"), "{report.title")
            await vm.resume()

            hit = await bp.wait(timeout=120)
            assert await hit.evaluate("report.links") > 10
            await bp.clear()
            await hit.resume()
            got = []
            with pytest.raises(jdwpd.RequestDisabled, match="max_hits=3"):
                async for snap in snaps.snapshots(timeout=120):
                    got.append(snap)
            titles = [s.data["watches"][0] for s in got]
            assert len(got) == 3 and all("value" in w or "error" in w for w in titles), titles
            with pytest.raises(jdwpd.RequestError, match="has no field 'noSuchField'"):
                await nosuch_field.wait(timeout=120)
            with pytest.raises(jdwpd.RequestError, match="has no method 'noSuchMethod'"):
                await nosuch_method.wait(timeout=120)
            assert await session.wait_exit(300) == 0
            lines = await log.lines()
            m = DONE.search(session.output())
            assert m, session.output()[-2000:]
            assert len(lines) == int(m.group(1)), (len(lines), m.group(0))  # every page's line, none dropped
            assert all(re.fullmatch(r".*\|\d+", line, re.S) for line in lines), lines[:5]


async def test_names_writes_and_views_on_jsoup(server_kind, jsoup_driver):
    d = jsoup_driver
    with trio.fail_after(300):
        async with open_driver(server_kind, d) as session:
            vm = session.vm
            static_method = await vm.breakpoint(d.location("static_method"))
            anonymous = await vm.breakpoint(d.location("anonymous"))
            page_done = await vm.breakpoint(d.location("page_done"))
            catch = await vm.catch("org.jsoup.select.Selector.SelectorParseException", uncaught=False)
            await vm.resume()

            hit = await anonymous.wait(timeout=120)
            assert await hit.evaluate("accum.size()") >= 0            # a captured local by its Java name
            await anonymous.clear()
            await hit.resume()

            hit = await page_done.wait(timeout=120)
            links = await hit.frame.get("links")                         # Driver$Links extends ArrayList
            viewed = await links.view()
            assert isinstance(viewed, list) and len(viewed) == await hit.evaluate("links.size()")
            assert await hit.evaluate("items.isEmpty() || items.get(0) instanceof Node") is True  # imported name
            assert await hit.evaluate("java.util.List.of(1, 2).contains(2)") is True        # boxing
            await hit.frame.set("totalLinks", 1_000_000)                 # a write, seen by the program
            await page_done.clear()
            await hit.resume()

            hit = await static_method.wait(timeout=120)
            assert await hit.evaluate("documentsParsed") >= 1          # a static by its simple name
            assert await hit.evaluate("NAMES[1]") == "links"
            assert await hit.evaluate("cache.size()") >= 0
            await static_method.clear()
            await hit.resume()

            thrown = await catch.wait(timeout=120)                      # a nested class written with dots
            assert thrown.thrown.type.name == "org.jsoup.select.Selector$SelectorParseException"
            await catch.clear()
            await thrown.resume()
            assert await session.wait_exit(300) == 0
            m = DONE.search(session.output())
            assert m and int(m.group(4)) >= 1_000_000, session.output()[-2000:]


async def test_a_hot_condition_and_a_hot_logpoint_on_jsoup(jsoup_driver):
    """jdwpd: the hot method's condition true at a late call fires (no quota), and a logpoint on it logs
    every call (12,000+ lines a round), in the VM."""
    d = jsoup_driver
    with trio.fail_after(300):
        async with open_driver("jdwpd", d) as session:
            vm = session.vm
            calls = await vm.breakpoint(d.location("hot"),
                                        condition="Driver.documentsParsed == 20 && text.length() > 40")
            log = await vm.logpoint(d.location("hot_return"), "{words}")
            await vm.resume()
            hit = await calls.wait(timeout=240)
            assert await hit.evaluate("documentsParsed") == 20 and calls.disabled is None
            await calls.clear()
            await hit.resume()
            assert await session.wait_exit(300) == 0
            lines = await log.lines()
            assert len(lines) > 10_000 and log.disabled is None and log._capture_parts, len(lines)
            assert all(line.isdigit() for line in lines)
