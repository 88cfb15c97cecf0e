"""jdwpd: an out-of-process Java debugger server, and a Python API for scripted debugging.

``import jdwpd`` stays cheap (the CLI starts with it): the API's names (``jdwpd.launch``,
``jdwpd.attach``, ``jdwpd.Limits``, ``jdwpd.JdwpError``, ...) and ``jdwpd.sync`` are imported on
first use, through the module's ``__getattr__``.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_API_NAMES = frozenset({
    "launch", "attach", "attach_pid", "VM", "Process", "Breakpoint", "Logpoint", "ExceptionBreakpoint",
    "Watchpoint", "Hit", "ExceptionHit", "WatchHit", "Snapshot", "SnapshotPoint", "Limits", "to_python", "Thread",
    "Frame",
    "ReferenceType", "ClassType", "InterfaceType", "ArrayType", "Method", "Field", "Location", "ObjectRef",
    "ArrayRef", "ApiError", "JdwpError", "VMDisconnected", "Timeout", "LocationError", "InvalidStateError",
    "InvocationError", "ExpressionError", "EvaluationError", "InvocationException", "RequestError", "RequestDisabled",
    "CapturesDropped", "RequestWarning",
})


def __getattr__(name: str) -> Any:
    if name in _API_NAMES:
        from jdwpd import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    if name == "sync":
        import importlib

        return importlib.import_module("jdwpd.sync")
    raise AttributeError(f"module 'jdwpd' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API_NAMES, "sync", "api"})
