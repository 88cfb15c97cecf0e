"""Errors of the daemon, and the one place where agent statuses become JDWP error codes."""

from __future__ import annotations

from protocol.constants import ErrorCode
from protocol.link import LinkStatus


class JdwpError(Exception):
    """Raised by a command handler: the dispatcher answers with this error code."""

    def __init__(self, code: int, detail: str = "") -> None:
        super().__init__(f"{ErrorCode(code).name}{': ' + detail if detail else ''}")
        self.code = int(code)


class AgentError(Exception):
    """The agent answered a link request with a non-zero status."""

    def __init__(self, status: int, request: str = "") -> None:
        super().__init__(f"agent status {status} for {request}")
        self.status = status
        self.request = request


class AgentLinkClosed(Exception):
    """The link to the agent is gone (VM dead, or agent disconnected)."""


# JVMTI error numbers were designed to coincide with JDWP's where both exist;
# the statuses below are the agent's own and need a choice.
_LINK_TO_JDWP: dict[int, ErrorCode] = {  # keyed by any status the agent sends
    LinkStatus.BAD_MESSAGE: ErrorCode.INTERNAL,
    LinkStatus.UNKNOWN_KIND: ErrorCode.NOT_IMPLEMENTED,
    LinkStatus.INVALID_ID: ErrorCode.INVALID_OBJECT,
    LinkStatus.COLLECTED: ErrorCode.INVALID_OBJECT,
    LinkStatus.NOT_SUSPENDED: ErrorCode.THREAD_NOT_SUSPENDED,
    LinkStatus.NOT_AT_EVENT: ErrorCode.INVALID_THREAD,
    LinkStatus.INVALID_METHOD: ErrorCode.INVALID_METHODID,
    LinkStatus.INVALID_FIELD: ErrorCode.INVALID_FIELDID,
    LinkStatus.NOT_CAPABLE: ErrorCode.NOT_IMPLEMENTED,
    LinkStatus.BUSY: ErrorCode.ALREADY_INVOKING,
    LinkStatus.INTERNAL: ErrorCode.INTERNAL,
}
# The JVMTI errors the reference passes on as the JDWP error of the same number;
# JVMTI numbers it does not list become INTERNAL there, and so here.
_JVMTI_SAME_NUMBER = frozenset({
    0, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 25, 31, 32, 34, 35, 40, 41, 50, 51, 52,
    60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 100, 101, 102, 103, 110, 111, 112, 113, 115,
})
# Numbers no JVMTI error uses: the agent answers these JDWP errors itself (array bounds, counts).
_JDWP_ONLY = frozenset({30, 33, 42, 500, 502, 503, 504, 506, 507, 508, 511, 512})
_JVMTI_TO_JDWP = {
    15: ErrorCode.INVALID_THREAD,  # JVMTI_ERROR_THREAD_NOT_ALIVE
    73: ErrorCode.NOT_IMPLEMENTED,  # JVMTI_ERROR_UNSUPPORTED_OPERATION (JDK 19+, virtual threads), as there
    98: ErrorCode.NOT_IMPLEMENTED,  # JVMTI_ERROR_NOT_AVAILABLE
    99: ErrorCode.NOT_IMPLEMENTED,  # JVMTI_ERROR_MUST_POSSESS_CAPABILITY
}


def jdwp_code_for(status: int) -> int:
    """Map an agent status (JVMTI error or LinkStatus) to a JDWP error code."""
    if status in _LINK_TO_JDWP:
        return int(_LINK_TO_JDWP[status])
    if status in _JVMTI_TO_JDWP:
        return int(_JVMTI_TO_JDWP[status])
    if status in _JVMTI_SAME_NUMBER or status in _JDWP_ONLY:
        return status
    return int(ErrorCode.INTERNAL)
