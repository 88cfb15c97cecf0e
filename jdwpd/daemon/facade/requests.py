"""Event requests: installed in the agent and in the request table (model/requests.py) together, owned
by the session that set them, so that its departure clears them."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from jdwpd.errors import AgentError, JdwpError
from protocol.constants import ErrorCode, EventKind

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.model.requests import EventRequest, RequestTable

log = logging.getLogger(__name__)


class RequestOperations:
    """The façade's event request operations (a mixin of jdwpd.daemon.vm.VM)."""

    link: Any
    requests: RequestTable

    async def add_request(self, request: EventRequest, *, cannot_fail: bool = False) -> None:
        """Install a request.  ``cannot_fail``: the caller proved the agent will take it, so it
        goes out without waiting for the agent's reply (commands/event_request.py, _agent_cannot_refuse)."""
        # In the table before the agent has it: its first hit may overtake the reply.
        self.requests.add(request)
        if request.in_agent:
            try:
                if cannot_fail:
                    await self.link.post("SET_REQUEST", on_refused=lambda status: self._refused(request, status),
                                         **request.agent_fields())
                else:
                    await self.link.request("SET_REQUEST", **request.agent_fields())
            except BaseException:
                self.requests.remove(request.agent_id)
                raise

    def _refused(self, request: EventRequest, status: int) -> None:
        # A proof in commands/event_request.py was wrong: the debugger was told the request is
        # set, and it never fires.  Kept as retired, so that its Clear finds it.
        log.warning("the agent refused request %d (%s), already answered as set: status %d",
                    request.request_id, EventKind(request.event_kind).name, status)
        if self.requests.get(request.agent_id) is request:
            self.requests.add(attrs.evolve(request, in_agent=False))

    async def clear_request(self, request: EventRequest) -> None:
        # Out of the table first: a hit already on its way is dropped (and a suspension it made,
        # given back) by route().  The agent cannot refuse the clear and runs it before anything
        # sent after it, so nobody waits for its reply (a link round trip less per jdb step).
        self.requests.remove(request.agent_id)
        if request.in_agent:
            await self.link.post("CLEAR_REQUEST", request_id=request.agent_id)

    async def retire_request(self, request: EventRequest) -> None:
        """Take a request out of the agent but keep it for its debugger (it just never fires)."""
        if request.in_agent:
            self.requests.add(attrs.evolve(request, in_agent=False))
            await self.link.post("CLEAR_REQUEST", request_id=request.agent_id)  # as in clear_request

    async def clear_requests(self, requests: Iterable[EventRequest]) -> None:
        for r in list(requests):
            await self.clear_request(r)

    async def request_counters(self, request: EventRequest) -> dict[str, int]:
        """The agent's counters of a request with a jdwpd condition or budget (docs/extensions.md)."""
        try:
            r = await self.link.request("EXT_STATS", request_id=request.agent_id)
        except AgentError as e:
            raise JdwpError(ErrorCode.INVALID_EVENT_TYPE, "the agent no longer holds that request") from e
        return {x["name"]: x["value"] for x in r["counters"]}
