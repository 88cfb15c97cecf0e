"""What the far side reads at a stop, next to the agent, so that the near side need not ask across.

After a stop that suspended every thread, debuggers ask the same things, one round trip each (the IDE
waterfall, bench/remote_java/client/IdeWaterfall.java): every thread's name and state, the stopped
thread's frames, the top frames' visible locals, `this` and its fields, each object's type, strings'
text, arrays' lengths, and the class facts those need once.  Here those are read in a few local
round trips (each a batch of requests) and sent as one STOP_BUNDLE with the stop
(protocol/remote.py).  Requests are the agent-link requests the daemon makes, with the same bodies;
locals and fields are answered by slot and by field (``SlotValues``), whatever subset or order the
debugger asks for.

Everything read is what the agent answers at this moment, with every thread suspended: nothing can
change it until the near side sends a request that may (the near side then drops the bundle).  Class
facts never change for a class id (an unloaded class's CLASS_UNLOADED drops the bundle too) and are
sent once per near side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jdwpd.daemon.fast.stop_ahead import Entry
from jdwpd.daemon.fast.stop_read import Facts as FarFacts
from jdwpd.daemon.fast.stop_read import StopReader
from jdwpd.daemon.fast.stop_read import read_stop as _read_stop

if TYPE_CHECKING:
    from .relay import FarRelay

__all__ = ["FarFacts", "read_stop"]


async def read_stop(relay: FarRelay, event: dict) -> list[Entry]:
    """The stop's reads (jdwpd/daemon/fast/stop_read.py, the plan the daemon's own link reads ahead by too),
    asked next to the agent in a few batches; class facts once per near side."""
    return await _read_stop(StopReader(relay.ask, relay.facts), event, whole_vm=True)
