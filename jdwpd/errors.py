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
_LINK_TO_JDWP = {
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
# JVMTI errors whose JDWP counterpart differs from the number (jvmti.h vs jdwp.spec).
_JVMTI_TO_JDWP = {
    99: ErrorCode.NOT_IMPLEMENTED,  # JVMTI_ERROR_MUST_POSSESS_CAPABILITY
    112: ErrorCode.VM_DEAD,  # JVMTI_ERROR_WRONG_PHASE
}


def jdwp_code_for(status: int) -> int:
    """Map an agent status (JVMTI error or LinkStatus) to a JDWP error code."""
    if status in _LINK_TO_JDWP:
        return int(_LINK_TO_JDWP[status])
    if status in _JVMTI_TO_JDWP:
        return int(_JVMTI_TO_JDWP[status])
    try:
        return int(ErrorCode(status))
    except ValueError:
        return int(ErrorCode.INTERNAL)
