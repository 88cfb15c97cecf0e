"""What GDB and JDI write (issue 30, item 6) and waits that end with their cause (item 7), on both
servers: set a local, a field, a static, array elements; force an early return; stop at method
entries; a step from main as the VM ends; a step another request's hit blocks; a wait on a VM still
held at its start; a handler that steps."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from api_support import open_shop

import jdwpd
from jdwpd.testing import debuggees

pytestmark = pytest.mark.jvm

WRITES = Path(__file__).resolve().parents[1] / "java" / "writes"


@pytest.fixture(scope="module")
def writes_classes() -> Path:
    return debuggees.compile_sources(WRITES)


@pytest.fixture(scope="module")
def writes_lines() -> dict[str, int]:
    return debuggees.all_markers(WRITES)


def at(lines: dict[str, int], marker: str) -> str:
    return f"Main.java:{lines[marker]}"


async def test_writes(server_kind, writes_classes, writes_lines):
    with trio.fail_after(120):
        async with open_shop(server_kind, writes_classes, "writes.Main") as vm:
            set_here = await vm.breakpoint(at(writes_lines, "writes_set"))
            decide = await vm.breakpoint(at(writes_lines, "writes_decide"))
            greet = await vm.breakpoint(at(writes_lines, "writes_greet"))
            end = await vm.breakpoint(at(writes_lines, "writes_end"))
            await vm.resume()

            hit = await set_here.wait(timeout=60)
            await hit.frame.set("local", 7)
            await hit.frame.set("text", "after")
            numbers = await hit.frame.get("numbers")
            await numbers.set(0, 9, 8)
            with pytest.raises(IndexError):
                await numbers.set(2, 1, 1)
            m = await hit.frame.get("m")
            await m.set("label", "changed")
            main_class = await vm.class_named("writes.Main")
            await main_class.set("limit", 42)
            labels = await main_class.get("LABELS")
            await labels.set(0, "z")
            with pytest.raises(KeyError, match="no variable 'nope'"):
                await hit.frame.set("nope", 1)
            with pytest.raises(TypeError):
                await hit.frame.set("local", "not an int")
            with pytest.raises(AttributeError):
                await m.set("nope", 1)
            assert await hit.evaluate("local") == 7 and await hit.evaluate("text") == "after"
            await hit.resume()

            hit = await decide.wait(timeout=60)
            await hit.thread.force_return(99)
            await hit.resume()
            hit = await greet.wait(timeout=60)
            await hit.thread.force_return("forced")
            await hit.resume()

            hit = await end.wait(timeout=60)
            summary = await hit.evaluate("summary")
            await hit.resume()
    assert summary == ("local=7 text=after numbers=9,8 count=5 label=changed limit=42 LABELS=z "
                       "decided=99 greet=forced")


async def test_method_entries(server_kind, writes_classes):
    with trio.fail_after(120):
        async with open_shop(server_kind, writes_classes, "writes.Main") as vm:
            entries = await vm.method_entries("writes.*")
            await vm.resume()
            names = []
            async for hit in entries.hits(limit=5, timeout=60):
                names.append(hit.location.method.name)
                assert hit.location.index == 0
                await hit.resume()
    assert names == ["<clinit>", "main", "<init>", "decide", "greet"]


async def test_waits_end_with_their_cause(server_kind, writes_classes, writes_lines):
    with trio.fail_after(180):
        async with open_shop(server_kind, writes_classes, "writes.Main") as vm:
            with pytest.raises(jdwpd.Timeout, match="still held at its start"):
                await vm.snapshot(at(writes_lines, "writes_set"), timeout=0.5)
            set_here = await vm.breakpoint(at(writes_lines, "writes_set"))
            decide = await vm.breakpoint(at(writes_lines, "writes_decide"))
            await vm.resume()
            hit = await set_here.wait(timeout=60)
            # the step over decide(...)'s line runs into decide's breakpoint, whose hit nobody takes
            step = await hit.step_over()   # to the decide(...) line
            with pytest.raises(jdwpd.Timeout, match=r"held by breakpoint Main.java:\d+ at writes.Main.decide"):
                await step.step_over(timeout=3)
            blocker = await decide.wait(timeout=10)
            await decide.clear()
            end = await vm.breakpoint(at(writes_lines, "writes_end"))
            await blocker.resume()
            hit = await end.wait(timeout=60)
            await end.clear()
            started = trio.current_time()
            with pytest.raises(jdwpd.VMDisconnected, match="during the step"):
                await hit.step_out(timeout=60)   # main returns, the VM ends
            assert trio.current_time() - started < 30


async def test_a_handler_that_steps_leaves_the_thread_running(server_kind, writes_classes, writes_lines):
    """The thread is resumed when the handler returns, where its steps left it."""
    with trio.fail_after(120):
        async with open_shop(server_kind, writes_classes, "writes.Main") as vm:
            set_here = await vm.breakpoint(at(writes_lines, "writes_set"))
            end = await vm.breakpoint(at(writes_lines, "writes_end"))
            stepped = []

            @set_here.on_hit
            async def step_once(hit):
                stepped.append((await hit.step_over()).location.line)

            await vm.resume()
            hit = await end.wait(timeout=60)   # reached only if the stepped-to stop was resumed
            assert stepped == [writes_lines["writes_set"] + 1]
            await hit.resume()


async def test_method_exits_stop_only_where_the_method_returns(server_kind, writes_classes):
    """``method_exits`` on a class whose other methods run 260,000 times: only the method's own returns
    stop (recursion included: each call's value), an exit by an exception is not one, and the program
    is not slowed to a crawl by stops in the other methods."""
    from api_support import java_argv

    from jdwpd.testing import jvm

    async def run(vm):
        target = await vm.method_exits("writes.Busy.target")
        fails = await vm.method_exits("writes.Busy.fails")
        await vm.resume()
        values = []
        async for hit in target.hits(limit=3, timeout=120):
            values.append(hit.return_value)
            await hit.resume()
        hit = await fails.wait(timeout=120)
        assert hit.return_value == 7
        await hit.resume()
        return values

    with trio.fail_after(240):
        if server_kind == "jdwpd":
            async with jdwpd.launch([*java_argv(writes_classes, "writes.Main"), "busy"], suspend=True) as vm:
                values = await run(vm)
        else:
            async with jvm.open_reference_jvm(writes_classes, "writes.Main", ["busy"]) as debuggee, \
                    jdwpd.attach(debuggee.address) as vm:
                values = await run(vm)
    assert values == [20000, 20001, 20003]
