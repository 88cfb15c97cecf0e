"""A debugger without a socket, for tests of the façade in-process: it owns requests, suspensions and
invokes as a debugger's session does, and leaving undoes what it did (VM.detach).

    async with ScriptSession(vm) as s:
        policy, events = await s.events.receive()

Events arrive as the same ``protocol.messages.Events`` objects a debugger's composites hold, as
(suspend_policy, events) pairs on ``events``.  The scripting API (jdwpd/api) is a JDWP client
instead; this is for tests that look at the façade's bookkeeping from inside.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import trio

from jdwpd.daemon.model.requests import EventRequest
from jdwpd.daemon.vm import VM
from protocol.constants import SuspendPolicy
from protocol.wire import Location, TaggedObjectID, Value


class ScriptSession:
    def __init__(self, vm: VM, name: str = "script") -> None:
        self.vm = vm
        self.name = name
        self.saw_vm_death = False
        self.dialed = False
        self._send, self.events = trio.open_memory_channel(math.inf)

    async def __aenter__(self) -> ScriptSession:
        await self.vm.attach(self)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        with trio.CancelScope(shield=True):
            await self.vm.detach(self)
        self._send.close()

    async def send_event(self, suspend_policy: int, events: tuple) -> None:
        self._send.send_nowait((int(suspend_policy), tuple(events)))

    async def suspend(self, thread: int | None = None) -> None:
        if thread is None:
            await self.vm.suspend_all(self)
        else:
            await self.vm.suspend_thread(self, thread)

    async def resume(self, thread: int | None = None) -> None:
        if thread is None:
            await self.vm.resume_all(self)
        else:
            await self.vm.resume_thread(self, thread)

    async def request(self, event_kind: int, suspend_policy: int = SuspendPolicy.NONE,
                      modifiers: Iterable[Any] = ()) -> EventRequest:
        """An event request owned by this session; modifiers are ``model.requests.Modifier``s."""
        req = self.vm.requests.new_request(self, event_kind, suspend_policy, tuple(modifiers))
        await self.vm.add_request(req)
        return req

    async def frames(self, thread: int) -> list[tuple[int, Location]]:
        """The suspended thread's frames: (frame id, location), the ids valid until it runs."""
        return await self.vm.frames(thread)

    async def invoke(self, kind: int, *, clazz: int, thread: int, method_id: int, args: list[Value],
                     options: int = 0, instance: int = 0) -> tuple[Value | TaggedObjectID, TaggedObjectID]:
        """Run a method on a thread this session holds (``protocol.link.InvokeKind``); the call is this
        session's, as a debugger's is: leaving while it runs detaches it."""
        return await self.vm.invoke(self, kind, clazz=clazz, thread=thread, method_id=method_id, args=args,
                                    options=options, instance=instance)
