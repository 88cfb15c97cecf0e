"""A class defined twice, by two class loaders: a location lands in both copies (and in both copies
of its nested and anonymous classes), hits come from each copy, and each hit reads its own copy's
values; the same on both servers.  tests/java/loaders: Loaders defines loaders.Plugin through two
URLClassLoaders (parent: the bootstrap loader) and calls the copies in turn."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from api_support import open_shop

from jdwpd.testing import debuggees

pytestmark = pytest.mark.jvm

LOADERS = Path(__file__).resolve().parents[1] / "java" / "loaders"


@pytest.fixture(scope="module")
def loaders_classes() -> Path:
    return debuggees.compile_sources(LOADERS)


async def test_class_of_two_loaders(server_kind, loaders_classes):
    L = debuggees.all_markers(LOADERS)
    with trio.fail_after(120):
        async with open_shop(server_kind, loaders_classes, "loaders.Loaders") as vm:
            # Set while the VM is held at its start: no copy of Plugin is loaded yet.
            by_file = await vm.breakpoint(f"Plugin.java:{L['loaders_apply']}")
            by_method = await vm.breakpoint("loaders.Plugin.applyAsInt")
            nested = await vm.breakpoint(f"loaders.Plugin:{L['loaders_nested']}")  # Plugin$Helper
            anon = await vm.breakpoint(f"loaders/Plugin.java:{L['loaders_anon']}")  # Plugin$1
            points = {"file": by_file, "method": by_method, "nested": nested, "anon": anon}
            assert [bp.resolved for bp in points.values()] == [False] * 4
            await vm.resume()
            seen = []
            late = None
            for _copy in range(2):
                hit = await by_method.wait(30)
                same = await by_file.wait(30)  # the same stop, caught by both forms
                loader = await hit.location.type.class_loader()
                row = {
                    "apply": str(hit.location),
                    "same": (same.location == hit.location, same.thread == hit.thread),
                    "n": (await hit.locals())["n"],
                    "name": await hit.evaluate("this.name"),
                    "loader": await loader.get("name"),
                }
                plugin = hit.location.type
                await same.resume()
                await hit.resume()
                hit = await nested.wait(30)
                row["nested"] = str(hit.location)
                row["start"] = await hit.evaluate("start")
                helper = hit.location.type
                await hit.resume()
                hit = await anon.wait(30)
                row["anon"] = str(hit.location)
                row["total"] = await hit.evaluate("this.val$helper.total")
                row["outer"] = await hit.evaluate("this$0.name")
                anon_type = hit.location.type
                if late is None and _copy == 1:
                    # Both copies are loaded now: a breakpoint set now finds both among the loaded classes.
                    late = await vm.breakpoint(f"Plugin.java:{L['loaders_anon']}")
                # The copy's classes share its loader (held here: the VM ends after the last hit).
                loaders = {(await t.class_loader()).id for t in (plugin, helper, anon_type)}
                assert loaders == {loader.id}, (row, loaders)
                await hit.resume()
                seen.append((row, plugin.id, helper.id, anon_type.id, loader.id))

            rows = [r for r, *_ in seen]
            assert rows == [
                {"apply": f"loaders.Plugin.applyAsInt(Plugin.java:{L['loaders_apply']})", "same": (True, True),
                 "n": 10, "name": "first", "loader": "first",
                 "nested": f"loaders.Plugin$Helper.<init>(Plugin.java:{L['loaders_nested']})", "start": 20,
                 "anon": f"loaders.Plugin$1.run(Plugin.java:{L['loaders_anon']})", "total": 21, "outer": "first"},
                {"apply": f"loaders.Plugin.applyAsInt(Plugin.java:{L['loaders_apply']})", "same": (True, True),
                 "n": 20, "name": "second", "loader": "second",
                 "nested": f"loaders.Plugin$Helper.<init>(Plugin.java:{L['loaders_nested']})", "start": 40,
                 "anon": f"loaders.Plugin$1.run(Plugin.java:{L['loaders_anon']})", "total": 41, "outer": "second"},
            ]
            # Two copies of each class (two class objects, two loaders), each hit from its own copy.
            first, second = seen[0][1:], seen[1][1:]
            assert all(a != b for a, b in zip(first, second, strict=True)), (first, second)
            # Each breakpoint was resolved in both copies: two locations, one per class object.
            column = {"file": 0, "method": 0, "nested": 1, "anon": 2}
            for name, bp in points.items():
                types = sorted(loc.type.id for loc in bp.locations)
                assert types == sorted([first[column[name]], second[column[name]]]), (name, bp.locations)
            assert late is not None and sorted(loc.type.id for loc in late.locations) == sorted([first[2], second[2]])
            assert vm.unresolved() == []
