"""The start hold's state machine (jdwpd/daemon/facade/start_hold.py), without a VM."""

from types import SimpleNamespace

import trio

from jdwpd.daemon.facade import start_hold
from jdwpd.daemon.facade.start_hold import StartHold, StartState
from protocol.constants import EventKind
from protocol.link import HelloFlag


def _session(dialed: bool = False) -> SimpleNamespace:
    return SimpleNamespace(dialed=dialed)


def _hit(kind: int, request_id: int = 0) -> dict:
    return {"event_kind": kind, "request_id": request_id, "data": {}}


def test_suspend_on_start_goes_to_the_first_debugger_and_its_resume_releases_it():
    hold = StartHold.from_hello(int(HelloFlag.SUSPEND_ON_START))
    first, second = _session(), _session()
    assert hold.state is StartState.WAITING and hold.pending
    assert hold.take(first) and not hold.take(second)
    assert hold.held_for(first) and not hold.held_for(second)
    hold.released()
    assert hold.state is StartState.RELEASED and not hold.pending and not hold.held_for(first)
    hold.released()  # a second release (a resume and a leaving racing) changes nothing
    assert hold.state is StartState.RELEASED


async def test_a_vm_not_held_has_nothing_to_take_and_no_start_to_wait_for():
    hold = StartHold.from_hello(0)
    assert hold.state is StartState.NOT_HELD and not hold.take(_session())
    with trio.fail_after(1):
        await hold.wait_arrival()
    # its VMStart is still the agent's own (request 0): taken out of the event, never routed
    hit = _hit(EventKind.VM_START)
    assert hold.start_hit([_hit(EventKind.CLASS_PREPARE, 3), hit]) is hit


def test_only_the_dialed_debugger_takes_a_start_meant_for_it():
    hold = StartHold.from_hello(int(HelloFlag.SUSPEND_ON_START), runs=True, goes_to_dialed=True)
    assert hold.runs
    assert not hold.take(_session(dialed=False))
    dialed = _session(dialed=True)
    assert hold.take(dialed) and hold.held_for(dialed)


def test_onthrow_start_is_the_waking_exception_while_held():
    hold = StartHold.from_hello(int(HelloFlag.SUSPEND_ON_START | HelloFlag.STARTED_BY_EXCEPTION))
    assert hold.kind == EventKind.EXCEPTION
    exc = _hit(EventKind.EXCEPTION)
    assert hold.start_hit([_hit(EventKind.EXCEPTION, 5)]) is None  # a debugger's own request
    assert hold.start_hit([exc]) is exc
    hold.arrived(7, event="the exception event")
    assert (hold.thread, hold.event) == (7, "the exception event")
    hold.take(_session())
    hold.released()
    assert hold.start_hit([exc]) is None  # released: an exception of request 0 is no start any more


async def test_the_owners_resume_waits_for_the_start_to_arrive(monkeypatch):
    monkeypatch.setattr(start_hold, "START_WAIT", 30.0)
    hold = StartHold.from_hello(int(HelloFlag.SUSPEND_ON_START))
    owner, other = _session(), _session()
    hold.take(owner)
    with trio.fail_after(1):
        await hold.before_resume(other)  # not the owner: no wait
    done = []

    async def resume() -> None:
        await hold.before_resume(owner)
        done.append(True)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(resume)
        await trio.sleep(0.05)
        assert not done
        hold.arrived(1)
    assert done and hold.thread == 1 and hold.event is None


async def test_waiting_for_a_start_that_never_comes_ends_after_start_wait(monkeypatch):
    monkeypatch.setattr(start_hold, "START_WAIT", 0.05)
    hold = StartHold.from_hello(int(HelloFlag.SUSPEND_ON_START))
    with trio.fail_after(5):
        await hold.wait_arrival()
    assert hold.thread is None
