"""One module per JDWP command set.

Each module exposes ``HANDLERS: dict[str, Handler]`` keyed by the command's
name as in protocol.spec (e.g. "Signature"), and ``SET_NAME`` (e.g.
"ReferenceType").  A handler is ``async def handler(ctx, cmd) -> reply``:
``cmd`` is the decoded command message (protocol.messages.decode_command),
the reply is anything protocol.messages.encode_reply accepts (a Mapping of
snake_case field names, the reply attrs class, or a tuple in declared order),
or an ``Encoded``: the body already in JDWP bytes, with the object IDs it holds
(for a reply built straight from link bytes, or kept encoded in a cache).
Errors are raised as jdwpd.errors.JdwpError(code); an AgentError that escapes
a handler is mapped by jdwpd.errors.jdwp_code_for in the dispatcher.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from jdwpd.daemon.model.debugger import Debugger

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.vm import VM


class CommandSession(Debugger, Protocol):
    """What a handler needs of its session besides what the façade does: actions ordered after a reply.
    A protocol, not jdwpd.daemon.session.Session: the sessions import the command table."""

    def after_reply(self, packet_id: int, action: Callable[[], Awaitable[None]]) -> None:
        """Run ``action`` once the reply to ``packet_id`` is written."""

    def close_after_reply(self, packet_id: int) -> None:
        """Dispose: the reply goes out, then the session ends."""


@attrs.frozen
class Context:
    vm: VM
    session: CommandSession
    packet_id: int


Handler = Callable[[Context, Any], Awaitable[Any]]


@attrs.frozen
class Encoded:
    """A reply body in JDWP bytes for the VM's ID sizes, and the object IDs written in it (nonzero, with
    repeats, as protocol.object_ids.reply_ids would list them: DisposeObjects counts against them)."""

    body: bytes
    object_ids: list[int] = attrs.field(factory=list)
