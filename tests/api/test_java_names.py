"""Java names as a developer writes them (issue 30, items 5 and 9), on both servers: a static field
of the code's own class by its simple name in a static method, a lambda or an anonymous class;
simple names of imported classes; a captured local by its Java name; boxing in calls; a nested
class written with dots; a view of a subclass of a JDK collection."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from api_support import open_shop

from jdwpd.testing import debuggees

pytestmark = pytest.mark.jvm

NAMES = Path(__file__).resolve().parents[1] / "java" / "names"


@pytest.fixture(scope="module")
def names_classes() -> Path:
    return debuggees.compile_sources(NAMES)


@pytest.fixture(scope="module")
def names_lines() -> dict[str, int]:
    return debuggees.all_markers(NAMES)


async def test_names_resolve_as_javac_resolves_them(server_kind, names_classes, names_lines):
    spots = {name: f"Main.java:{names_lines[name]}" for name in
             ("names_in_static", "names_lambda", "names_anonymous", "names_inner")}
    results: dict[str, list] = {}
    with trio.fail_after(180):
        async with open_shop(server_kind, names_classes, "names.Main") as vm:
            points = {name: await vm.breakpoint(loc) for name, loc in spots.items()}
            catch = await vm.catch("names.Selector.ParseException", uncaught=False)
            await vm.resume()

            hit = await points["names_in_static"].wait(timeout=60)
            results["static"] = [
                await hit.evaluate("documentsParsed"),
                await hit.evaluate("NAMES[0]"),
                await hit.evaluate('cache.get("k").equals(42)'),      # 42 boxed to Integer
                await hit.evaluate("((Node) items.get(0)).label"),      # an imported simple name
                await hit.evaluate("page instanceof Page"),
                await hit.evaluate("items.get(1) instanceof Page"),
                await hit.evaluate("java.util.List.of(1, 2).size()"),   # boxing in a call
            ]
            viewed = await (await hit.evaluate("items")).view()  # a subclass of ArrayList reads as a list
            assert isinstance(viewed, list) and [await x.get("label") for x in viewed] == ["home", "leaf"], viewed
            await hit.resume()

            hit = await points["names_lambda"].wait(timeout=60)
            results["lambda"] = [await hit.evaluate("accum.get(0)"), await hit.evaluate("documentsParsed + 1")]
            await hit.resume()

            hit = await points["names_anonymous"].wait(timeout=60)
            results["anonymous"] = [await hit.evaluate("accum.size()"), await hit.evaluate("NAMES.length"),
                                    await hit.evaluate("documentsParsed")]
            await hit.resume()

            hit = await points["names_inner"].wait(timeout=60)
            results["inner"] = [await hit.evaluate("instanceCount")]
            await hit.resume()

            thrown = await catch.wait(timeout=60)
            assert thrown.thrown.type.name == "names.Selector$ParseException"
            await thrown.resume()
    assert results == {
        "static": [3, "alpha", True, "home", True, False, 2],
        "lambda": ["first", 4],
        "anonymous": [2, 2, 3],
        "inner": [11],
    }


async def test_the_in_vm_condition_reads_a_captured_local_by_its_name(names_classes, names_lines):
    """jdwpd compiles ``accum`` in an anonymous class as its ``val$accum`` field: the condition runs
    in the VM (the reference has no such path; the standard path is checked above)."""
    with trio.fail_after(120):
        async with open_shop("jdwpd", names_classes, "names.Main") as vm:
            bp = await vm.breakpoint(f"Main.java:{names_lines['names_anonymous']}",
                                     condition="accum != null && NAMES.length == 2")
            await vm.resume()
            hit = await bp.wait(timeout=60)
            assert bp.in_vm_requests and await hit.evaluate("accum.size()") == 2
            await hit.resume()
