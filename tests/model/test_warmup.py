"""The warm-up (jdwpd/daemon/fast/warmup.py): which codecs it makes, in what order, and when it stops.

Codecs are cached per ID sizes, so each test uses sizes no other test uses and starts cold.  The
live effect is measured by `python -m bench --only ide`; every daemon of the suite runs it.
"""

from __future__ import annotations

import types

import pytest
import trio

from jdwpd.daemon.fast import warmup
from protocol import link, messages, spec
from protocol.wire import IDSizes


def fresh_vm(sizes: IDSizes) -> types.SimpleNamespace:
    return types.SimpleNamespace(id_sizes=sizes, sessions=[], dead=False)


def served_commands() -> list:
    return [cs for cs in spec.COMMANDS.values() if cs is not messages.COMPOSITE]


def test_every_step_together_makes_every_codec_a_server_uses():
    sizes = IDSizes(8, 8, 8, 8, 4)
    assert not any(messages.server_prepared(cs, sizes) for cs in served_commands())
    for step in warmup.steps(sizes):
        step()
    assert all(messages.server_prepared(cs, sizes) for cs in served_commands())
    assert all(messages.event_prepared(alt.kind, sizes) for alt in spec.EVENT_SELECT.alts)
    assert all(link.reply_prepared(kind) for kind in link.MESSAGES)


def test_the_attach_commands_come_first():
    sizes = IDSizes(8, 8, 8, 4, 8)
    first = [spec.by_name(*label.split(".")) for label in warmup.FIRST_COMMANDS]
    assert len(set(first)) == len(first)
    all_steps = warmup.steps(sizes)
    for cs in first:
        assert not messages.server_prepared(cs, sizes)
        next(all_steps)()
        assert messages.server_prepared(cs, sizes)
    later = [cs for cs in served_commands() if cs not in first]
    assert later and not any(messages.server_prepared(cs, sizes) for cs in later)


async def test_it_runs_until_a_debugger_sends_its_first_command():
    vm = fresh_vm(IDSizes(8, 8, 4, 8, 8))
    made: list[int] = []

    async def warm() -> None:
        made.append(await warmup.warm(vm))

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warm)
            for _ in range(5):
                await trio.sleep(0)
            debugger = types.SimpleNamespace(commands_read=0)  # connected, silent: it goes on
            vm.sessions.append(debugger)
            for _ in range(5):
                await trio.sleep(0)
            debugger.commands_read = 1
    total = len(list(warmup.steps(vm.id_sizes)))
    assert 8 <= made[0] <= 12 < total, made
    # what it did not make is made at first use, as always
    parent = spec.by_name("ThreadGroupReference", "Parent")
    assert not messages.server_prepared(parent, vm.id_sizes)
    assert messages.decode_command(parent, b"\0\0\0\x07", vm.id_sizes).group == 7


async def test_with_nobody_asking_it_makes_everything_then_ends():
    vm = fresh_vm(IDSizes(4, 8, 8, 8, 8))
    with trio.fail_after(60):
        made = await warmup.warm(vm)
    assert made == len(list(warmup.steps(vm.id_sizes)))
    assert all(messages.server_prepared(cs, vm.id_sizes) for cs in served_commands())


async def test_a_script_session_counts_as_a_debugger_that_spoke():
    vm = fresh_vm(IDSizes(8, 4, 8, 8, 8))
    vm.sessions.append(object())  # no commands_read: the scripting API's session
    assert await warmup.warm(vm) == 0


async def test_a_dead_vm_or_a_failing_step_ends_it_quietly(monkeypatch: pytest.MonkeyPatch):
    vm = fresh_vm(IDSizes(4, 4, 8, 8, 8))
    vm.dead = True
    assert await warmup.warm(vm) == 0

    def failing(sizes):
        yield lambda: None
        yield lambda: 1 / 0
        yield lambda: None

    monkeypatch.setattr(warmup, "steps", failing)
    assert await warmup.warm(fresh_vm(IDSizes(4, 4, 4, 8, 8))) == 1
