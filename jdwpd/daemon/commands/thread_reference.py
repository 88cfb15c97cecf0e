"""ThreadReference command set (11).

Thread ids are object ids; the agent answers INVALID_ID for an unknown id and
JVMTI INVALID_THREAD for an object that is no thread, which jdwp_code_for turns
into the reference's INVALID_OBJECT and INVALID_THREAD.  Suspensions are counted
for this session by the façade (jdwpd/daemon/facade/threads.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.facade.threads import debugger_resumed
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ThreadReference

SET_NAME = "ThreadReference"


async def name(ctx: Context, cmd: ThreadReference.Name.Command) -> Any:
    return {"thread_name": await ctx.vm.thread_name(cmd.thread)}


async def suspend(ctx: Context, cmd: ThreadReference.Suspend.Command) -> Any:
    await ctx.vm.suspend_thread(ctx.session, cmd.thread)


async def resume(ctx: Context, cmd: ThreadReference.Resume.Command) -> Any:
    try:
        await ctx.vm.resume_thread(ctx.session, cmd.thread)
    finally:
        debugger_resumed(ctx.session)


async def status(ctx: Context, cmd: ThreadReference.Status.Command) -> Any:
    thread_status, suspend_status = await ctx.vm.thread_status(cmd.thread)
    return {"thread_status": thread_status, "suspend_status": suspend_status}


async def thread_group(ctx: Context, cmd: ThreadReference.ThreadGroup.Command) -> Any:
    return {"group": await ctx.vm.thread_group(cmd.thread)}


async def frame_count(ctx: Context, cmd: ThreadReference.FrameCount.Command) -> Any:
    return {"frame_count": await ctx.vm.frame_count(cmd.thread)}


async def frames(ctx: Context, cmd: ThreadReference.Frames.Command) -> Any:
    found = await ctx.vm.frames(cmd.thread, cmd.start_frame, cmd.length)
    return {"frames": [{"frame_id": frame_id, "location": location} for frame_id, location in found]}


async def owned_monitors(ctx: Context, cmd: ThreadReference.OwnedMonitors.Command) -> Any:
    return {"owned": await ctx.vm.owned_monitors(cmd.thread)}


async def current_contended_monitor(ctx: Context, cmd: ThreadReference.CurrentContendedMonitor.Command) -> Any:
    return {"monitor": await ctx.vm.contended_monitor(cmd.thread)}


async def stop(ctx: Context, cmd: ThreadReference.Stop.Command) -> Any:
    await ctx.vm.stop_thread(cmd.thread, cmd.throwable)


async def interrupt(ctx: Context, cmd: ThreadReference.Interrupt.Command) -> Any:
    await ctx.vm.interrupt_thread(cmd.thread)


async def suspend_count(ctx: Context, cmd: ThreadReference.SuspendCount.Command) -> Any:
    return {"suspend_count": await ctx.vm.suspend_count(cmd.thread)}


async def owned_monitors_stack_depth_info(ctx: Context,
                                          cmd: ThreadReference.OwnedMonitorsStackDepthInfo.Command) -> Any:
    owned = await ctx.vm.owned_monitors_with_depth(cmd.thread)
    return {"owned": [{"monitor": monitor, "stack_depth": depth} for monitor, depth in owned]}


async def force_early_return(ctx: Context, cmd: ThreadReference.ForceEarlyReturn.Command) -> Any:
    await ctx.vm.force_early_return(cmd.thread, cmd.value)


# JDWP gained ThreadReference.IsVirtual and the PlatformThreadsOnly modifier with virtual threads.
VIRTUAL_THREADS_SINCE = 19


async def is_virtual(ctx: Context, cmd: ThreadReference.IsVirtual.Command) -> Any:
    if ctx.vm.jvmti_version()[0] < VIRTUAL_THREADS_SINCE:
        raise JdwpError(ErrorCode.NOT_IMPLEMENTED, "this VM's JDWP has no IsVirtual")
    return {"is_virtual": await ctx.vm.thread_is_virtual(cmd.thread)}


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
