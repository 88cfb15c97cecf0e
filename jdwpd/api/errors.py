"""The API's typed errors: what went wrong, and what to do about it.

    try:
        await vm.breakpoint("Nope.java:12")
    except jdwpd.JdwpError as e:
        print(e.code, e.name)          # 21 INVALID_CLASS

Every wait of the API takes a timeout and raises ``Timeout`` when it passes; a VM (or socket)
that goes away ends every wait with ``VMDisconnected``.
"""

from __future__ import annotations

from protocol.constants import ErrorCode

__all__ = ["ApiError", "JdwpError", "VMDisconnected", "Timeout", "LocationError", "InvalidStateError",
           "RequestError", "RequestDisabled", "CapturesDropped", "RequestWarning"]


class ApiError(Exception):
    """Base of the errors of ``jdwpd``'s scripting API."""


class JdwpError(ApiError):
    """The JDWP server answered a command with an error code.

    ``code`` is the JDWP error number, ``name`` its name in the JDWP spec (``INVALID_OBJECT``),
    ``command`` the command that failed (``ObjectReference.GetValues``).
    """

    def __init__(self, code: int, command: str, hint: str = "") -> None:
        try:
            name = ErrorCode(code).name
        except ValueError:
            name = f"ERROR_{code}"
        self.code = code
        self.name = name
        self.command = command
        text = f"{command}: {name} ({code})"
        if hint:
            text += f": {hint}"
        super().__init__(text)


class VMDisconnected(ApiError):
    """The VM ended or the connection to its JDWP server closed; nothing more can be asked of it."""


class Timeout(ApiError, TimeoutError):
    """A wait passed its timeout (the operation is cancelled; the VM is as it was)."""


class LocationError(ApiError, ValueError):
    """A location as written (``File.java:42``, ``pkg.Class.method``) could not be understood or has no code."""


class InvalidStateError(ApiError, RuntimeError):
    """The call needs a state the object is not in (a frame of a thread that runs, a hit already resumed)."""


class RequestError(ApiError):
    """A request (breakpoint, logpoint, watch ...) can serve no more hits: what it found only when
    its class loaded (a field or method that does not exist there, ...).  Raised by that request's
    own waits and iterators, once the hits it queued before are taken; every other request goes on.

    ``request`` is the request, ``reason`` why, ``hits`` how many hits it delivered before.
    """

    def __init__(self, request: object, reason: str, hits: int) -> None:
        self.request = request
        self.reason = reason
        self.hits = hits
        super().__init__(f"{request}: {reason} (after {hits} hit{'s' if hits != 1 else ''})")


class RequestDisabled(RequestError):
    """The server disabled the request: the budget the script gave it ran out (``reason``:
    ``"cpu_quota"``, ``"hit_cap"``, ``"expired"``, ``"rate"``), or a snapshot point took its
    ``max_hits`` snapshots."""


class CapturesDropped(RequestError):
    """Lines of an in-VM logpoint (or snapshots of an in-VM snapshot point) that the VM took but
    dropped: the daemon could not take them as fast as the program hit, and the agent's queue to
    it was full (docs/extensions.md, "Captures and a slow daemon").  Raised by a wait for lines or
    snapshots that can no longer come (the VM ended, or the request did); ``dropped`` says how many
    were lost, ``hits`` how many arrived."""

    def __init__(self, request: object, reason: str, hits: int, dropped: int) -> None:
        self.dropped = dropped
        super().__init__(request, reason, hits)


class RequestWarning(UserWarning):
    """A request stopped serving hits, or the VM dropped some of its captures, where no wait of
    the script's would say so: it has ``on_hit`` handlers (or an ``echo``), which are simply not
    called any more.  The request says the same (``disabled``, ``error``, ``dropped``)."""


# Hints for the errors a script meets most, so that the message says what to do.
HINTS: dict[int, str] = {  # keyed by any error code a reply carries
    ErrorCode.THREAD_NOT_SUSPENDED: "the thread runs; read frames and locals at a hit, before resuming it",
    ErrorCode.INVALID_FRAMEID: "the frame is gone (its thread was resumed since); take frames again at the next hit",
    ErrorCode.INVALID_OBJECT: "the object was collected; keep it with obj.pin() while you need it",
    ErrorCode.ABSENT_INFORMATION: "compile the class with -g for line numbers and local variables",
    ErrorCode.NOT_IMPLEMENTED: "this server does not offer that command",
    ErrorCode.VM_DEAD: "the VM has ended",
    ErrorCode.OPAQUE_FRAME: "a native frame has no locals",
}
