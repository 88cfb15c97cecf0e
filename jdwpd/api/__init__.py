"""jdwpd's scripting API: a JDWP client for scripted debugging of any JVM (trio; blocking: ``jdwpd.sync``).

    import trio, jdwpd

    async def main():
        async with jdwpd.launch(["java", "-cp", "classes", "shop.Main"]) as vm:
            bp = await vm.breakpoint("Checkout.java:42", condition="order.total > 100")
            await vm.resume()
            async for hit in bp.hits(limit=3, timeout=30):
                print(hit.location, await hit.frame.locals())
                await hit.resume()

    trio.run(main)

See docs/scripting.md for the tutorial and the reference.
"""

from jdwpd.expr import EvaluationError, ExpressionError, InvocationException

from .catches import ExceptionBreakpoint
from .connection import Connection, open_connection
from .entry import Process, attach, attach_pid, launch
from .errors import (
                     ApiError,
                     CapturesDropped,
                     InvalidStateError,
                     JdwpError,
                     LocationError,
                     RequestDisabled,
                     RequestError,
                     RequestWarning,
                     Timeout,
                     VMDisconnected,
)
from .hits import DEFAULT_STEP_EXCLUDES, ExceptionHit, Hit, WatchHit
from .locations import LocationSpec, parse_location
from .logpoints import Logpoint
from .requests import Breakpoint, Watchpoint
from .snapshot import SCHEMA, Snapshot
from .snapshot_point import SnapshotPoint
from .threads import Frame, Thread
from .types import ArrayType, ClassType, Field, InterfaceType, Location, Method, ReferenceType
from .values import ArrayRef, ClassObjectRef, InvocationError, ObjectRef
from .views import EnumValue, Limits, OptionalValue, ThrowableView, to_python, view
from .vm import VM

__all__ = [
    "launch", "attach", "attach_pid", "VM", "Process", "Connection", "open_connection",
    "Breakpoint", "Logpoint", "ExceptionBreakpoint", "Watchpoint", "Hit", "ExceptionHit", "WatchHit",
    "Snapshot", "SnapshotPoint", "SCHEMA", "Limits", "to_python", "view", "EnumValue", "OptionalValue", "ThrowableView",
    "Thread", "Frame", "ReferenceType", "ClassType", "InterfaceType", "ArrayType", "Method", "Field", "Location",
    "ObjectRef", "ArrayRef", "ClassObjectRef", "LocationSpec", "parse_location", "DEFAULT_STEP_EXCLUDES",
    "ApiError", "JdwpError", "VMDisconnected", "Timeout", "LocationError", "InvalidStateError", "InvocationError",
    "ExpressionError", "EvaluationError", "InvocationException", "RequestError", "RequestDisabled",
    "CapturesDropped", "RequestWarning",
]
