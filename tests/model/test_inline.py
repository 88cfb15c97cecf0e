"""jdwpd.inline: handlers begun in the reader finish there, or go on in a task from where they stopped."""

from __future__ import annotations

import pathlib
import re

import pytest
import trio

from jdwpd.daemon.fast import inline


async def _cached() -> int:
    return 7


async def _needs_vm(log: list) -> str:
    log.append("before")
    await inline.handoff_point()
    log.append(("after", trio.lowlevel.current_task().name))
    await trio.sleep(0.001)
    return "answer"


def test_a_coroutine_that_waits_for_nothing_finishes_inline() -> None:
    assert inline.start(_cached()) == (True, 7)


async def test_the_handoff_point_is_a_no_op_outside_start() -> None:
    log: list = []
    assert await _needs_vm(log) == "answer"
    assert log[0] == "before"


async def test_a_coroutine_stopped_at_the_handoff_goes_on_in_another_task_where_it_stopped() -> None:
    log: list = []
    coro = _needs_vm(log)
    finished, stopped_on = inline.start(coro)
    assert not finished and inline.movable(stopped_on)
    assert log == ["before"]
    results = []

    async def finish() -> None:
        results.append(await inline.drive(coro, stopped_on))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(finish, name="finisher")
    assert results == ["answer"]
    assert log == ["before", ("after", "finisher")]  # not run twice, and in the new task


async def test_a_bare_schedule_point_is_movable_too() -> None:
    async def checkpointed() -> int:
        await trio.lowlevel.cancel_shielded_checkpoint()
        return 3

    coro = checkpointed()
    finished, stopped_on = inline.start(coro)
    assert not finished and inline.movable(stopped_on)
    with trio.fail_after(5):
        assert await inline.drive(coro, stopped_on) == 3


async def test_a_coroutine_blocked_on_an_event_is_driven_by_the_task_that_started_it() -> None:
    event = trio.Event()

    async def waits() -> str:
        await event.wait()
        return "woken"

    coro = waits()
    finished, stopped_on = inline.start(coro)
    assert not finished and not inline.movable(stopped_on)
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: _set_later(event))
            assert await inline.drive(coro, stopped_on) == "woken"


async def _set_later(event: trio.Event) -> None:
    await trio.sleep(0.01)
    event.set()


async def test_cancellation_reaches_the_driven_coroutine() -> None:
    cleaned = []

    async def slow() -> None:
        await inline.handoff_point()
        try:
            await trio.sleep(100)
        finally:
            cleaned.append(True)

    coro = slow()
    _, stopped_on = inline.start(coro)
    with trio.move_on_after(0.05) as scope:
        await inline.drive(coro, stopped_on)
    assert scope.cancelled_caught and cleaned == [True]


async def test_exceptions_come_out_of_drive() -> None:
    async def fails() -> None:
        await inline.handoff_point()
        raise ValueError("boom")

    coro = fails()
    _, stopped_on = inline.start(coro)
    with pytest.raises(ValueError, match="boom"):
        await inline.drive(coro, stopped_on)


# What may not happen in a command handler before its first link request: task-bound state.
_TASK_BOUND = re.compile(
    r"CancelScope|move_on_(after|at)|fail_(after|at)|open_nursery|\bLock\(|Semaphore|Limiter|\bsleep(_until)?\(")
_JDWPD = pathlib.Path(__file__).resolve().parents[2] / "jdwpd" / "daemon"


_COMMAND_PATHS = sorted([*_JDWPD.glob("commands/*.py"), *_JDWPD.glob("model/*.py"), _JDWPD / "dispatch.py"])


@pytest.mark.parametrize("path", _COMMAND_PATHS, ids=lambda p: p.name)
def test_command_paths_hold_no_task_bound_state(path: pathlib.Path) -> None:
    assert not _TASK_BOUND.search(path.read_text()), f"{path}: a cancel scope, nursery or lock in a command path"


async def test_a_wait_given_up_goes_on_in_another_task_and_looks_again() -> None:
    """What CommandOrder._go_on does when a command it goes on with waits on another task's fetch."""
    event = trio.Event()
    state = {"ready": False}

    async def waits_until_ready() -> str:
        while not state["ready"]:
            await event.wait()
        return ("woken in", trio.lowlevel.current_task().name)

    coro = waits_until_ready()
    finished, stopped_on = inline.start(coro)
    assert not finished and not inline.movable(stopped_on)
    woken = inline.give_up_wait(stopped_on)  # this task is no longer registered with the event
    assert woken is inline.WOKEN
    results = []

    async def finish() -> None:
        results.append(await inline.drive(coro, woken))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(finish, name="finisher")
            await trio.sleep(0.01)
            assert not results  # it looked again, found nothing ready, and waits in the finisher
            state["ready"] = True
            event.set()
    assert results == [("woken in", "finisher")]


# CommandOrder._go_on goes on with a command in the task that read its link reply; a wait the command
# then makes is given up and repeated in a worker, so every wait in a command path must look again
# when it returns (the class cache's does).  A new one: make it loop, and list it here.
_WAITS = re.compile(r"\.wait\(\)")
_WAITS_THAT_LOOK_AGAIN = {"fact_store.py": 1}  # FactStore._fact: while True ... wait() ... look again


@pytest.mark.parametrize("path", _COMMAND_PATHS, ids=lambda p: p.name)
def test_command_paths_wait_only_where_a_given_up_wait_looks_again(path: pathlib.Path) -> None:
    assert len(_WAITS.findall(path.read_text())) == _WAITS_THAT_LOOK_AGAIN.get(path.name, 0), path
