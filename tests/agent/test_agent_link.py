"""AgentLink (the daemon side) under load against the real agent, and its handshake against bad peers."""

from __future__ import annotations

import os
import tempfile

import pytest
import trio
from agent_support import run_jvm

from jdwpd.errors import AgentError, AgentLinkClosed
from jdwpd.daemon.link.agent_link import HandshakeError, accept_agent, open_unix_listener
from protocol import link as L

pytestmark = pytest.mark.jvm


async def test_many_requests_in_flight_with_events_and_cancellations(agent_so, classes, lines):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        target = await jvm.class_id("LTarget;")
        loc = await jvm.location_of_line(target, "twice", lines["TWICE"])
        await jvm.request("SET_REQUEST", request_id=1, event_kind=2, suspend_policy=0,
                          modifiers=[{"mod_kind": 7, "args": {"location": loc}}])
        classes_list = (await jvm.request("ALL_CLASSES"))["classes"][:200]
        expected = {c["ref"]: c["signature"] for c in classes_list}
        got: dict[int, str] = {}
        events = []

        async def ask(ref: int) -> None:
            got[ref] = (await jvm.link.request("CLASS_SIGNATURE", ref=ref))["signature"]

        async def consume() -> None:
            while len(events) < 300:
                events.append(await jvm.link.events.receive())

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(consume)
                await jvm.send("run 300")
                for ref in expected:
                    nursery.start_soon(ask, ref)
                # Requests cancelled while in flight leave the link usable.
                for _ in range(20):
                    with trio.move_on_after(0):
                        await jvm.link.request("ALL_CLASSES")
        assert got == expected
        assert len(events) == 300 and all(e["hits"][0]["request_id"] == 1 for e in events)
        assert (await jvm.request("CLASS_SIGNATURE", ref=target))["signature"] == "LTarget;"
        await jvm.expect("ok run")
        with pytest.raises(AgentError):
            await jvm.request("CLASS_SIGNATURE", ref=0)
        await jvm.send("exit")
        await jvm.expect("bye")
        # When the agent goes, waiters and the event stream end cleanly.
        rest = []
        with trio.fail_after(20):
            async for msg in jvm.link.events:
                rest.append(msg)
        assert rest[-1] == {"notice": L.NOTICE_VM_DEATH, "detail": ""}
        with pytest.raises(AgentLinkClosed):
            await jvm.link.request("VM_INFO")


@pytest.mark.parametrize("payload", [b"", b"GET / HTTP/1.0\r\n\r\n", L.frame(0, 1, 0, b"\x00" * 5),
                                     L.encode_request(0, "HELLO", magic=b"NOTJDWPD", version=1, pid=1,
                                                      nonce=b"\x00" * 16, flags=0, caps=0, profile="full")])
async def test_handshake_refuses_peers_that_are_not_agents(payload):
    with tempfile.TemporaryDirectory() as d:
        listener = await open_unix_listener(os.path.join(d, "s"))
        async with listener:
            client = await trio.open_unix_socket(os.path.join(d, "s"))
            await client.send_all(payload)
            server = await listener.accept()
            with trio.fail_after(5), pytest.raises(HandshakeError):
                await accept_agent(server, os.urandom(32), timeout=0.5)
            await client.aclose()


async def test_handshake_refuses_an_agent_that_cannot_prove_the_secret():
    """A peer that sends a valid HELLO and a forged AUTH is refused."""
    with tempfile.TemporaryDirectory() as d:
        listener = await open_unix_listener(os.path.join(d, "s"))
        async with listener:
            client = await trio.open_unix_socket(os.path.join(d, "s"))
            hello = L.encode_request(0, "HELLO", magic=L.MAGIC, version=L.LINK_VERSION, pid=1, nonce=os.urandom(16),
                                     flags=0, caps=0, profile="full")
            await client.send_all(hello + L.encode_request(0, "AUTH", proof=b"\x00" * 32))
            server = await listener.accept()
            with trio.fail_after(5), pytest.raises(HandshakeError):
                await accept_agent(server, os.urandom(32))
            await client.aclose()
