"""Faults of the remote link: the near side killed, the link cut.  The JVM must go on as when a
debugger leaves (every thread resumed, every request gone), the debugger must see its connection end
(never a hang), and the near side must come back by itself when the link does, and say so."""

from __future__ import annotations

import re

import pytest
import trio
from remote_kit import open_far, open_near, open_relay

from jdwpd.testing.client import JdwpClient, JdwpClosedError, open_jdwp_client
from protocol import messages
from protocol.constants import EventKind, SuspendPolicy

pytestmark = pytest.mark.jvm


async def stop_in_work(client: JdwpClient) -> int:
    """A SUSPEND_ALL stop at RemoteTarget.work's entry (the VM held at its start is resumed); its thread."""
    await client.command("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY, suspend_policy=SuspendPolicy.ALL,
                         modifiers=[messages.Modifiers.ClassMatch(class_pattern="RemoteTarget")])
    await client.command("VirtualMachine", "Resume")
    while True:
        policy, events = await client.next_event(timeout=60)
        if any(e.event_kind == EventKind.METHOD_ENTRY for e in events):
            assert policy == SuspendPolicy.ALL
            return events[0].thread


def ticks(far) -> int:
    return len(re.findall(r"^tick \d+", far.output.text("stdout"), re.M))


async def runs_on(far, more: int = 15, timeout: float = 30) -> None:
    """The JVM's ticker prints `more` more ticks: its threads run, and (work() being entered every
    millisecond) no entry request of the gone debugger suspends them again."""
    start = ticks(far)
    with trio.fail_after(timeout):
        while ticks(far) < start + more:
            await trio.sleep(0.05)


async def held(far, quiet: float = 0.6) -> bool:
    before = ticks(far)
    await trio.sleep(quiet)
    return ticks(far) <= before + 1


async def wait_text(debuggee, pattern: str, timeout: float = 30) -> None:
    with trio.move_on_after(timeout):
        while not re.search(pattern, debuggee.output.text("stderr")):
            await trio.sleep(0.05)
        return
    raise AssertionError(f"no {pattern!r} within {timeout} s:\n{debuggee.output.describe()}")


async def no_one_holds_main(near_port: int) -> None:
    async with open_jdwp_client("127.0.0.1", near_port) as client:
        for item in (await client.command("VirtualMachine", "AllThreads")).threads:
            thread = item.thread
            name = (await client.command("ThreadReference", "Name", thread=thread)).thread_name
            count = (await client.command("ThreadReference", "SuspendCount", thread=thread)).suspend_count
            assert count == 0, f"{name} is still suspended ({count})"


async def test_near_side_killed_mid_stop_leaves_the_jvm_running(tmp_path):
    secret = tmp_path / "secret"
    async with open_far(secret) as far:
        async with open_near(f"127.0.0.1:{far.port}", secret) as near:
            async with open_jdwp_client("127.0.0.1", near.port) as client:
                await stop_in_work(client)
                assert await held(far)
                near.kill()  # SIGKILL: no goodbye to anyone
                await client.wait_closed(timeout=20)
        await runs_on(far)
        await wait_text(far, r"left: the JVM runs on")
        # a new near side adopts the same VM: nothing is held, no old request fires
        async with open_near(f"127.0.0.1:{far.port}", secret) as near:
            await no_one_holds_main(near.port)
            await runs_on(far, more=5)


async def test_link_cut_ends_the_session_cleanly_and_the_near_side_reconnects(tmp_path):
    secret = tmp_path / "secret"
    async with open_far(secret) as far, open_relay(("127.0.0.1", far.port)) as relay, \
            open_near(f"127.0.0.1:{relay.port}", secret) as near:
        async with open_jdwp_client("127.0.0.1", near.port) as client:
            await stop_in_work(client)
            assert await held(far)
            relay.cut(refuse=True)
            await client.wait_closed(timeout=20)  # the debugger sees its end, no hang
            with pytest.raises((JdwpClosedError, trio.BrokenResourceError, trio.ClosedResourceError)):
                await client.command("VirtualMachine", "Version", timeout=10)
        await runs_on(far)
        await wait_text(near, r"lost the link to the far side")
        await wait_text(near, r"the link to .* is down")
        relay.heal()
        await wait_text(near, r"reconnected to the far side")
        await no_one_holds_main(near.port)
        # and a debugger stops it again through the new link
        async with open_jdwp_client("127.0.0.1", near.port) as client:
            await stop_in_work(client)
            assert await held(far)
            await client.command("VirtualMachine", "Resume")
        await runs_on(far, more=5)
