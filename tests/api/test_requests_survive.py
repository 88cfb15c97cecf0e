"""Requests on ordinary code (issue 30): a type not loaded yet, a member that does not exist, a hot
line.  Nothing the script asked for ends the session or vanishes without a word: what cannot be
served fails on its own request, every other request goes on, and no budget applies unless the
script gives one.  One script, both servers (the reference has only the standard path).

tests/java/tokens: ``Main`` holds a ``Token`` local whose class the verifier loads (checking a
``Word`` is one) but does not prepare before ``Main``'s breakpoints are set, so its fields are not
known then (the daemon's compiler met CLASS_NOT_PREPARED and the session died).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from api_support import open_shop

import jdwpd
from jdwpd.testing import debuggees

pytestmark = pytest.mark.jvm

TOKENS = Path(__file__).resolve().parents[1] / "java" / "tokens"
EXPECTED_TOKENS = ["let", "answer", "=", "42", "+", "width", "*", "(", "height", "-", "1", ")", ";"]


@pytest.fixture(scope="module")
def tokens_classes() -> Path:
    return debuggees.compile_sources(TOKENS)


@pytest.fixture(scope="module")
def tokens_lines() -> dict[str, int]:
    return debuggees.all_markers(TOKENS)


async def test_requests_naming_a_class_not_prepared_yet(server_kind, tokens_classes, tokens_lines):
    """A condition, a logpoint template and a snapshot watch that read a field of a local whose
    class is loaded but not prepared when they are set: the same hits as the standard path, and
    under jdwpd they move into the VM once the class is there."""
    loop = f"Main.java:{tokens_lines['tokens_loop']}"
    with trio.fail_after(120):
        async with open_shop(server_kind, tokens_classes, "tokens.Main") as vm:
            bp = await vm.breakpoint(loop, condition="token.name != null && token.name.length() > 4")
            log = await vm.logpoint(loop, "tok={token.name} len={token.name.length()}", allow_invoke=True)
            plain_log = await vm.logpoint(loop, "tok={token.name}")
            snaps = await vm.snapshots(loop, watch=["token.name"], condition="token.made > 0")
            await vm.resume()
            seen = []
            async for hit in bp.hits(limit=2, timeout=30):
                seen.append(await hit.evaluate("token.name"))
                await hit.resume()
            assert seen == ["answer", "width"]
            first = await snaps.wait(timeout=30)
            assert first.data["watches"][0]["value"] == "let"
            await snaps.clear()
            lines = await plain_log.wait_lines(len(EXPECTED_TOKENS), timeout=30)
            assert lines[:len(EXPECTED_TOKENS)] == [f"tok={t}" for t in EXPECTED_TOKENS]
            lines = await log.wait_lines(3, timeout=30)
            assert lines[:3] == ["tok=let len=3", "tok=answer len=6", "tok== len=1"]
            if server_kind == "jdwpd":  # the condition moved into the VM at a hit, and so did the logpoint
                assert bp._in_vm_requests and not bp._retry
            await log.clear()
            await plain_log.clear()


async def test_what_cannot_be_served_fails_on_its_request_and_the_others_go_on(server_kind, tokens_classes,
                                                                              tokens_lines):
    """Found when the class loads: a watched field and a method that do not exist.  Their waits
    raise RequestError saying what; a breakpoint set beside them still hits; the VM runs to its end."""
    with trio.fail_after(120):
        async with open_shop(server_kind, tokens_classes, "tokens.Main") as vm:
            with pytest.raises(jdwpd.ExpressionError, match="unclosed"):  # checked when it is made
                await vm.logpoint(f"Main.java:{tokens_lines['tokens_loop']}", "tok={token.name")
            with pytest.raises(jdwpd.ExpressionError):
                await vm.breakpoint(f"Main.java:{tokens_lines['tokens_loop']}", condition="token.name ==")
            field = await vm.watch("tokens.Token.nosuch")
            method = await vm.method_exits("tokens.Token.nosuch")
            end = await vm.breakpoint(f"Main.java:{tokens_lines['tokens_end']}")
            await vm.resume()
            with pytest.raises(jdwpd.RequestError, match="has no field 'nosuch'; its fields: name, kind, made") as e:
                await field.wait(timeout=30)
            assert e.value.request is field and e.value.hits == 0 and field.error
            with pytest.raises(jdwpd.RequestError, match="has no method 'nosuch'"):
                async for _ in method.hits(timeout=30):
                    pass
            hit = await end.wait(timeout=30)
            assert await hit.evaluate("total") > 0
            await hit.resume()
            if vm.process is not None:
                assert await vm.process.wait(timeout=30) == 0


async def test_a_hot_condition_true_at_a_late_call_fires_and_a_hot_logpoint_loses_no_line(tokens_classes,
                                                                                       tokens_lines):
    """jdwpd only (the reference would stop for each of the two million calls): no budget unless
    asked, so the condition that turns true at the 2,000,000th call fires; a logpoint on the same
    hot line delivers every line, in order."""
    calls = 2_000_000
    hot = f"Hot.java:{tokens_lines['tokens_hot']}"
    with trio.fail_after(240):
        async with jdwpd.launch([*_java(tokens_classes), "1", str(calls)], suspend=True) as vm:
            bp = await vm.breakpoint(hot, condition=f"i == {calls - 1}L")
            await vm.resume()
            hit = await bp.wait(timeout=180)
            assert await hit.evaluate("i") == calls - 1 and bp.disabled is None
            await bp.clear()
            await hit.resume()
        async with jdwpd.launch([*_java(tokens_classes), "1", "20000"], suspend=True) as vm:
            log = await vm.logpoint(hot, "i={i}")
            await vm.resume()
            assert await vm.process.wait(timeout=120) == 0
            lines = await log.wait_lines(20_000, timeout=60)
            assert lines == [f"i={i}" for i in range(20_000)]
            assert log._capture_parts and log.disabled is None


async def test_a_budget_the_script_gives_disables_loudly(tokens_classes, tokens_lines):
    """``cpu_quota`` on a breakpoint: when it runs out, the wait raises RequestDisabled naming it."""
    hot = f"Hot.java:{tokens_lines['tokens_hot']}"
    with trio.fail_after(240):
        async with jdwpd.launch([*_java(tokens_classes), "1", "50000000"], suspend=True) as vm:
            bp = await vm.breakpoint(hot, condition="i < 0L", cpu_quota=0.000001)
            await vm.resume()
            with pytest.raises(jdwpd.RequestDisabled, match=r"cpu_quota.*after 0 hits") as e:
                await bp.wait(timeout=120)
            assert e.value.reason.endswith("(cpu_quota)") and bp.disabled == "cpu_quota"


def _java(classes: Path) -> list[str]:
    from api_support import java_argv

    return java_argv(classes, "tokens.Main")


async def test_the_exception_a_script_raises_or_waits_for_arrives_as_itself(server_kind, tokens_classes):
    """One cause, not an ExceptionGroup around one: ``except jdwpd.Timeout`` catches a wait's timeout
    out of ``jdwpd.launch`` and ``jdwpd.attach`` alike."""
    from api_support import java_argv

    from jdwpd.testing import jvm

    async def timeout_in(vm):
        bp = await vm.breakpoint("tokens.Main.main")
        await bp.wait(timeout=0.5)  # held at the start: never hit

    async def own_error(vm):
        raise KeyError("mine")

    with trio.fail_after(120):
        for body, expected in ((timeout_in, jdwpd.Timeout), (own_error, KeyError)):
            if server_kind == "jdwpd":
                with pytest.raises(expected):
                    async with jdwpd.launch(java_argv(tokens_classes, "tokens.Main"), suspend=True) as vm:
                        await body(vm)
                continue
            async with jvm.open_reference_jvm(tokens_classes, "tokens.Main") as debuggee:
                with pytest.raises(expected):
                    async with jdwpd.attach(debuggee.address) as vm:
                        await body(vm)
