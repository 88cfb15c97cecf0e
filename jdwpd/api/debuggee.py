"""The VM as the API's parts see it: the protocol ``api.VM`` meets.

The model (types, values, threads, frames), the hits and the event router each hold the VM they
belong to.  They name its type by this protocol, not by ``vm.VM``, so that none of them imports
vm.py, which imports them all: the API imports one way, vm.py at its top (tests/test_layers.py).
The model's objects reach one another through it (a type's static value is a value, a value's
thread a thread), so the model's modules know one another's types; nothing above the model does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .connection import Connection
    from .threads import Thread
    from .types import ReferenceType, TypeCache
    from .values import Values

__all__ = ["Debuggee"]


class Debuggee(Protocol):
    """What the model, the hits and the router use of the VM."""

    conn: Connection
    types: TypeCache
    values: Values

    async def thread(self, thread_id: int) -> Thread:
        """The thread of that ID (one object per thread)."""
        ...

    async def classes_named(self, name: str) -> list[ReferenceType]:
        """Every loaded type of that name."""
        ...

    async def has_extension(self, features: int = 0) -> bool:
        """Whether the server runs conditions in the VM (jdwpd's extension), with ``features``."""
        ...
