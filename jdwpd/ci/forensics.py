"""Hang forensics: what every thread of a VM is doing, written down before the command is ended.

For each thread: its state, its stack, the locals of its top frames, the monitors it owns and the
one it waits to enter (with that monitor's owner).  Threads waiting for each other's monitors in a
circle are a deadlock, named as such.  Works through standard JDWP, so against any server; locals
need a profile that can read them (not `inspect`), and their absence is said, not hidden.
"""

from __future__ import annotations

from typing import Any

from jdwpd.api import Limits, to_python
from jdwpd.api.errors import JdwpError

from .tests_seen import test_index

THREAD_STATUS = {0: "zombie", 1: "running", 2: "sleeping", 3: "monitor", 4: "wait", -1: "unknown"}
LOCALS_FRAMES = 3


async def _monitor_name(vm: Any, object_id: int) -> str:
    try:
        t = await vm.values.object_type(object_id)
        return f"{t.name}#{object_id}"
    except Exception:  # collected or unknown: the id still tells two monitors apart
        return f"object#{object_id}"


async def thread_report(vm: Any, thread: Any, limits: Limits) -> dict:
    report: dict[str, Any] = {"id": thread.id, "name": thread.name}
    try:
        status = (await vm.conn.command("ThreadReference", "Status", thread=thread.id)).thread_status
        report["state"] = THREAD_STATUS.get(status, str(status))
    except JdwpError as e:
        report["state"] = f"unknown ({e.name})"
        return report
    try:
        frames = await thread.frames(0, -1)
    except JdwpError as e:
        report["frames_error"] = e.name
        frames = []
    t = test_index([f.location.type.name for f in frames])
    if t is not None:  # which test the thread runs, and its locals however deep the test frame is
        report["test"] = f"{frames[t].location.type.name}.{frames[t].location.method.name}"
    joined = await _joined(vm, frames)
    if joined:
        report["joins"] = joined
    out = []
    for frame in [*frames[:limits.frames], *(frames[t:t + 1] if t is not None and t >= limits.frames else [])]:
        entry: dict[str, Any] = {"location": frame.location.to_python()}
        if frame.depth < LOCALS_FRAMES or frame.depth == t:
            try:
                entry["locals"] = {n: await to_python(v, limits) for n, v in (await frame.locals()).items()}
            except JdwpError as e:
                entry["locals_error"] = e.name  # e.g. NOT_IMPLEMENTED: a profile without local variables
            except Exception as e:  # absent debug info (no -g) and the like: the stack is still worth having
                entry["locals_error"] = str(e)
        out.append(entry)
    report["frames"] = out
    if len(frames) > limits.frames:
        report["frames_truncated"] = len(frames)
    try:
        owned = (await vm.conn.command("ThreadReference", "OwnedMonitors", thread=thread.id)).owned
        report["owns"] = [{"id": m.monitor.object_id, "name": await _monitor_name(vm, m.monitor.object_id)}
                          for m in owned if m.monitor.object_id]
    except JdwpError as e:
        report["owns_error"] = e.name
    try:
        waiting = (await vm.conn.command("ThreadReference", "CurrentContendedMonitor", thread=thread.id)).monitor
        if waiting.object_id:
            info = await vm.conn.command("ObjectReference", "MonitorInfo", object=waiting.object_id)
            report["waits_for"] = {"id": waiting.object_id, "name": await _monitor_name(vm, waiting.object_id),
                                   "owner": info.owner or None}
    except JdwpError as e:
        report["waits_for_error"] = e.name
    return report


async def _joined(vm: Any, frames: list[Any]) -> str | None:
    """The name of the thread a ``Thread.join`` near the top of the stack waits for."""
    for frame in frames[:4]:
        if frame.location.type.name == "java.lang.Thread" and frame.location.method.name == "join":
            try:
                this = await frame.this()
                return (await vm.thread(this.id)).name if this is not None else None
            except Exception:  # gone meanwhile: the join is still worth saying, unnamed
                return "?"
    return None


def deadlocks(threads: list[dict]) -> list[list[dict]]:
    """Cycles of threads each waiting for a monitor the next one owns (each cycle once)."""
    by_id = {t["id"]: t for t in threads}
    waits = {t["id"]: t["waits_for"]["owner"] for t in threads if t.get("waits_for", {}).get("owner")}
    cycles, seen = [], set()
    for start in waits:
        path, node = [], start
        while node in waits and node not in path:
            path.append(node)
            node = waits[node]
        if node in path:
            cycle = path[path.index(node):]
            key = frozenset(cycle)
            if key not in seen:
                seen.add(key)
                cycles.append([{"thread": by_id[t]["name"], "id": t, "waits_for": by_id[t]["waits_for"]["name"],
                                "held_by": by_id[waits[t]]["name"]} for t in cycle])
    return cycles


async def hang_report(vm: Any, limits: Limits) -> dict:
    """Suspend every thread, write each down, resume them (the command is ended next: a JVM whose
    threads are held would not run its shutdown)."""
    await vm.suspend()
    try:
        threads = [await thread_report(vm, t, limits) for t in await vm.threads()]
    finally:
        await vm.resume()
    return {"threads": threads, "deadlocks": deadlocks(threads)}
