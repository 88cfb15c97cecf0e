"""Stops jdwpd pushes with their events (jdwpd/api/pushed_stops.py): a script sees the same frames and
values on both servers, writes and invokes at a held hit see their effect, and on jdwpd the hits
after the first at a line cost no Frames or GetValues round trip for primitive locals."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
from api_support import java_argv

import jdwpd
from jdwpd.testing import debuggees, jvm

pytestmark = pytest.mark.jvm

PUSHED = Path(__file__).resolve().parents[1] / "java" / "pushed"
HITS = 12


@pytest.fixture(scope="module")
def pushed_classes() -> Path:
    return debuggees.compile_sources(PUSHED)


@contextlib.asynccontextmanager
async def open_pushed(kind: str, classes: Path) -> AsyncIterator[jdwpd.VM]:
    if kind == "jdwpd":
        async with jdwpd.launch([*java_argv(classes, "pushed.Main"), str(HITS)], suspend=True) as vm:
            yield vm
    else:
        async with jvm.open_reference_jvm(classes, "pushed.Main", [str(HITS)]) as debuggee, \
                jdwpd.attach(debuggee.address) as vm:
            yield vm


async def test_held_hits_read_write_and_invoke_as_on_the_reference(server_kind, pushed_classes):
    line = debuggees.all_markers(PUSHED)["pushed_step"]
    seen = []
    with trio.fail_after(120):
        async with open_pushed(server_kind, pushed_classes) as vm:
            bp = await vm.breakpoint(f"Main.java:{line}")
            await vm.resume()
            for k in range(HITS):
                hit = await bp.wait(timeout=60)
                values = await hit.frame.locals()
                assert values == {"i": k, "l": 10 * k, "d": k / 2, "z": k % 2 == 0, "c": chr(ord("a") + k),
                                  "s": f"s{k}"}, k
                frames = await hit.frames()
                seen.append([(f.location.method.name, f.location.line) for f in frames])
                assert await hit.thread.frame_count() == len(frames) == 3
                if k == 3:
                    # a write: what is read next is the new value, not the one pushed with the stop
                    await hit.frame.set("l", 5000)
                    assert await hit.frame.get("l") == 5000
                    assert (await hit.frame.locals())["l"] == 5000
                if k == 4:  # the write took: step() added 3 + 5000 at the hit before
                    main_class = await vm.class_named("pushed.Main")
                    assert await main_class.get("total") == 11 * (0 + 1 + 2) + 3 + 5000
                if k == 5:
                    # an invoke runs the thread: what is read next is read anew (twice: a static method
                    # of the frame's own class, called by its simple name in a static method)
                    assert await hit.frame.evaluate("twice(i)", allow_invoke=True) == 10
                    assert await hit.frame.get("i") == 5
                    assert [f.location.method.name for f in await hit.frames()] == ["step", "outer", "main"]
                await hit.resume()
            await bp.clear()  # the program may have ended already: the last hit was resumed
            await vm.dead.wait()
            pushed = vm.conn.pushed_stops
            if server_kind == "jdwpd":
                # every hit after the first at the line: FrameCount, two Frames and a GetValues of
                # the primitive locals answered here
                assert pushed is not None and pushed.answered >= 3 * (HITS - 2)
            else:
                assert pushed is None  # the reference offers no such thing
    assert all(s == seen[0] for s in seen)
    assert [m for m, _ in seen[0]] == ["step", "outer", "main"]
