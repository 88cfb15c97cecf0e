"""Exception requests filtered by where the exception is caught (issue 31.10): ``vm.catch(...,
caught_in=..., not_caught_in=...)`` reports an uncaught exception, or a caught one whose catching
method's class matches ``caught_in`` and not ``not_caught_in``.  Under jdwpd the VM judges each
throw (jdwpd's extension, docs/extensions.md "DefineCatchFilter"): the others never leave it; under
the reference the API judges them and lets their threads go.  The same hits either way.

tests/java/catches: library code that catches its own throws, a framework class that does too, a
runner that calls a "test" by reflection and records what it throws, and an uncaught exception in
a background thread.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from api_support import open_shop

from jdwpd.testing import debuggees

pytestmark = pytest.mark.jvm

CATCHES = Path(__file__).resolve().parents[1] / "java" / "catches"
ROUNDS = 200  # catches.Main.ROUNDS


@pytest.fixture(scope="module")
def catches_classes() -> Path:
    return debuggees.compile_sources(CATCHES)


@pytest.fixture(scope="module")
def catches_lines() -> dict[str, int]:
    return debuggees.all_markers(CATCHES)


async def test_only_what_a_runner_catches_or_nobody_catches_is_reported(server_kind, catches_classes, catches_lines):
    # reflection's own catch comes first on JDKs whose Method.invoke is made of method handles (18+)
    caught_in = ("catches.runner.*", "jdk.internal.reflect.*")
    with trio.fail_after(120):
        async with open_shop(server_kind, catches_classes, "catches.Main") as vm:
            source = await vm.catch(None, caught_in=caught_in, not_caught_in=("catches.runner.Checks",))
            done = await vm.breakpoint(f"catches.Main:{catches_lines['done']}")
            seen: list[tuple[str, str | None]] = []

            @source.on_hit
            async def record(hit):
                catch = hit.catch_location
                seen.append((hit.thrown.type_name, catch.type.name if catch else None))

            await vm.resume()
            at_end = await done.wait(timeout=60)
            if server_kind == "jdwpd":
                # every caught throw was judged in the VM, and only the reported ones were sent
                [(_, rid)] = source._requests
                stats = await vm.conn.command("Jdwpd", "RequestStats", request_id=rid)
                assert stats.evaluations >= 2 * ROUNDS, stats
                assert stats.hits == len(seen), (stats, seen)
            await at_end.resume()
            await vm.dead.wait()
    thrown = [name for name, _ in seen]
    assert "java.lang.NumberFormatException" not in thrown, seen  # caught by the library and by Checks
    assert ("java.lang.IllegalStateException", None) in seen  # uncaught, in the background thread
    assert "java.lang.NullPointerException" in thrown  # what the runner records
    for _name, catch in seen:
        assert catch is None or catch.startswith(("catches.runner.Runner", "jdk.internal.reflect.")), seen


async def test_a_catch_filter_pattern_is_a_jdwp_class_pattern(server_kind, catches_classes):
    """Exact names and one ``*`` at either end, as ClassMatch; anything else is refused at once."""
    with trio.fail_after(60):
        async with open_shop(server_kind, catches_classes, "catches.Main") as vm:
            for bad in ("catches.*.Runner", "", "**"):
                with pytest.raises(ValueError, match="pattern"):
                    await vm.catch(None, caught_in=(bad,))
