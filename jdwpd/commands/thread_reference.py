"""ThreadReference command set (11).

Thread ids are object ids; the agent answers INVALID_ID for an unknown id and
JVMTI INVALID_THREAD for an object that is no thread, which jdwp_code_for turns
into the reference's INVALID_OBJECT and INVALID_THREAD.  Suspensions go through
the VM so that they are counted for this session.
"""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import debugger_resumed, request, tagged, to_link
from jdwpd.errors import JdwpError
from jdwpd.model.frames import make_frame_id
from jdwpd.vm import jdwp_suspend_status, jdwp_thread_status
from protocol.constants import ErrorCode
from protocol.link import CapBit
from protocol.wire import Location

SET_NAME = "ThreadReference"
_JVMTI_ALIVE = 0x1


async def _info(ctx: Any, thread: int) -> dict:
    return await request(ctx.vm.link, "THREAD_INFO", thread=thread)


async def name(ctx: Any, cmd: Any) -> Any:
    return {"thread_name": (await _info(ctx, cmd.thread))["name"]}


async def suspend(ctx: Any, cmd: Any) -> Any:
    await ctx.vm.suspend_thread(ctx.session, cmd.thread)


async def resume(ctx: Any, cmd: Any) -> Any:
    try:
        await ctx.vm.resume_thread(ctx.session, cmd.thread)
    finally:
        debugger_resumed(ctx)


async def status(ctx: Any, cmd: Any) -> Any:
    s = await request(ctx.vm.link, "THREAD_STATUS", thread=cmd.thread)
    # An ended thread is never SUSPENDED, whatever a debugger's count of it (the reference takes that
    # flag from JVMTI alone).
    count = s["suspend_count"] if s["state"] & _JVMTI_ALIVE else 0
    return {"thread_status": jdwp_thread_status(s["state"], s["at_event"]),
            "suspend_status": jdwp_suspend_status(s["state"], count)}


async def thread_group(ctx: Any, cmd: Any) -> Any:
    return {"group": (await _info(ctx, cmd.thread))["group"]}


async def frame_count(ctx: Any, cmd: Any) -> Any:
    # A thread that has ended answers as in the reference: THREAD_NOT_SUSPENDED until a debugger
    # suspends it, INVALID_THREAD while one does (the agent keeps its count; agent/threads.c).
    r = await request(ctx.vm.link, "THREAD_FRAME_COUNT", thread=cmd.thread)
    return {"frame_count": r["count"]}


async def frames(ctx: Any, cmd: Any) -> Any:
    return await _frames(ctx, cmd.thread, cmd.start_frame, cmd.length)


async def _frames(ctx: Any, thread: int, start: int, length: int) -> Any:
    if start == 0 and length == -1:
        # The question debuggers ask at every stop, answered in one round trip: no index
        # can be wrong here.
        r = await ctx.vm.link.request("THREAD_FRAMES", thread=thread, start=0, length=-1)
        reply = _frames_reply(ctx, thread, 0, r)
        ctx.vm.locals_ahead.saw_frames(thread, r["frame_generation"], r["frames"])
        return reply
    count = (await ctx.vm.link.request("THREAD_FRAME_COUNT", thread=thread))["count"]
    if length == -1:
        length = count - start
    if length == 0:
        return {"frames": []}
    if start < 0 or start > count - 1:
        raise JdwpError(ErrorCode.INVALID_INDEX, f"start {start} of {count} frames")
    if length < 0 or length + start > count:
        raise JdwpError(ErrorCode.INVALID_LENGTH, f"{length} frames from {start} of {count}")
    r = await ctx.vm.link.request("THREAD_FRAMES", thread=thread, start=start, length=length)
    return _frames_reply(ctx, thread, start, r)


def _frames_reply(ctx: Any, thread: int, start: int, r: dict) -> dict:
    generation = r["frame_generation"]
    ctx.vm.threads.frames_handed_out(thread, generation)
    return {"frames": [{"frame_id": make_frame_id(generation, start + i),
                        "location": Location(f["ref_kind"], f["ref"], f["method"], f["index"])}
                       for i, f in enumerate(r["frames"])]}


async def _require_suspended(ctx: Any, thread: int) -> None:
    """The reference checks the suspend count before the monitor queries."""
    s = await request(ctx.vm.link, "THREAD_STATUS", thread=thread)
    if s["suspend_count"] == 0:
        raise JdwpError(ErrorCode.THREAD_NOT_SUSPENDED)


async def owned_monitors(ctx: Any, cmd: Any) -> Any:
    await _require_suspended(ctx, cmd.thread)
    r = await request(ctx.vm.link, "THREAD_OWNED_MONITORS", thread=cmd.thread)
    return {"owned": [tagged(m["object"]) for m in r["monitors"]]}


async def current_contended_monitor(ctx: Any, cmd: Any) -> Any:
    if not cmd.thread:
        raise JdwpError(ErrorCode.INVALID_THREAD, "null thread")
    await _require_suspended(ctx, cmd.thread)
    r = await request(ctx.vm.link, "THREAD_CONTENDED_MONITOR", thread=cmd.thread)
    return {"monitor": tagged(r["object"])}


async def stop(ctx: Any, cmd: Any) -> Any:
    await request(ctx.vm.link, "THREAD_STOP", thread=cmd.thread, throwable=cmd.throwable)


async def interrupt(ctx: Any, cmd: Any) -> Any:
    await request(ctx.vm.link, "THREAD_INTERRUPT", thread=cmd.thread)


async def suspend_count(ctx: Any, cmd: Any) -> Any:
    s = await request(ctx.vm.link, "THREAD_STATUS", thread=cmd.thread)
    return {"suspend_count": s["suspend_count"]}


async def owned_monitors_stack_depth_info(ctx: Any, cmd: Any) -> Any:
    if not cmd.thread:
        raise JdwpError(ErrorCode.INVALID_THREAD, "null thread")
    await _require_suspended(ctx, cmd.thread)
    if not ctx.vm.has(CapBit.GET_OWNED_MONITOR_STACK_DEPTH_INFO):
        raise JdwpError(ErrorCode.NOT_IMPLEMENTED, "this VM's capability profile has no monitor depths")
    r = await request(ctx.vm.link, "THREAD_OWNED_MONITORS", thread=cmd.thread)
    return {"owned": [{"monitor": tagged(m["object"]), "stack_depth": m["depth"]} for m in r["monitors"]]}


async def force_early_return(ctx: Any, cmd: Any) -> Any:
    await request(ctx.vm.link, "THREAD_FORCE_EARLY_RETURN", thread=cmd.thread, value=to_link(cmd.value))


# JDWP gained ThreadReference.IsVirtual and the PlatformThreadsOnly modifier with virtual threads.
VIRTUAL_THREADS_SINCE = 19


async def is_virtual(ctx: Any, cmd: Any) -> Any:
    if ctx.vm.jvmti_version()[0] < VIRTUAL_THREADS_SINCE:
        raise JdwpError(ErrorCode.NOT_IMPLEMENTED, "this VM's JDWP has no IsVirtual")
    return {"is_virtual": bool((await _info(ctx, cmd.thread))["virtual"])}


HANDLERS = {
    "Name": name,
    "Suspend": suspend,
    "Resume": resume,
    "Status": status,
    "ThreadGroup": thread_group,
    "Frames": frames,
    "FrameCount": frame_count,
    "OwnedMonitors": owned_monitors,
    "CurrentContendedMonitor": current_contended_monitor,
    "Stop": stop,
    "Interrupt": interrupt,
    "SuspendCount": suspend_count,
    "OwnedMonitorsStackDepthInfo": owned_monitors_stack_depth_info,
    "ForceEarlyReturn": force_early_return,
    "IsVirtual": is_virtual,
}
