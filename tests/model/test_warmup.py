"""jdwpd/warmup.py: every codec generated while the daemon idles, nothing while it is busy."""

from __future__ import annotations

import pytest
import trio

from jdwpd import warmup
from protocol import link as L
from protocol import messages, spec
from protocol.wire import IDSizes

# Sizes no other test uses: this compiler starts empty, so what the warm-up made is visible.
SIZES = IDSizes(4, 8, 4, 8, 4)


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(warmup, "_remaining", None)
    monkeypatch.setattr(warmup, "_running", False)
    monkeypatch.setattr(warmup, "ENABLED", True)
    messages._COMPILERS.pop(SIZES, None)
    yield
    messages._COMPILERS.pop(SIZES, None)


def test_an_idle_daemon_generates_every_codec(fresh) -> None:
    async def main() -> None:
        with trio.fail_after(30):
            await warmup.warm_up(SIZES, cushion=0.0005)

    trio.run(main)
    assert warmup.remaining() == 0
    comp = messages._compiler(SIZES)
    for cs in spec.COMMANDS.values():
        if cs is messages.COMPOSITE:
            continue
        assert (cs.set_id, cs.cmd_id, "out") in comp.top_dec, cs.label
        assert (cs.set_id, cs.cmd_id, "reply") in comp.top_enc, cs.label
    assert (64, 100, "out") in comp.top_enc
    assert all(kind in L._FAST_REPLY for kind in L.MESSAGES)
    # What was generated is what a first use would have made: a reply encodes the same.
    version = spec.by_name("VirtualMachine", "Version")
    reply = {"description": "d", "jdwp_major": 17, "jdwp_minor": 0, "vm_version": "17", "vm_name": "x"}
    assert messages.encode_reply(version, reply, SIZES) == messages.encode_reply(version, reply)


def test_a_busy_daemon_does_not_warm_up_and_a_cancelled_warm_up_leaves_the_rest(fresh) -> None:
    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warmup.warm_up, SIZES, 0.002)
            end = trio.current_time() + 0.3
            while trio.current_time() < end:  # never blocked for 2 ms: never idle
                await trio.lowlevel.checkpoint()
            nursery.cancel_scope.cancel()

    trio.run(main)
    total = len(list(warmup._steps(SIZES)))
    assert warmup.remaining() in (total, total - 1)  # at most the step it was about to take
    assert not warmup._running

    async def again() -> None:
        with trio.fail_after(30):
            await warmup.warm_up(SIZES, cushion=0.0005)

    trio.run(again)
    assert warmup.remaining() == 0


def test_one_warm_up_at_a_time(fresh) -> None:
    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warmup.warm_up, SIZES, 0.0005)
            await trio.sleep(0)
            with trio.fail_after(1):
                await warmup.warm_up(SIZES)  # returns at once: the first one is under way
            nursery.cancel_scope.cancel()

    trio.run(main)
