"""`jdwpd attach PID`: a running JVM started without any agent becomes debuggable, within HotSpot's limits."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.jvm import java_executable
from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy, TypeTag
from protocol.wire import Location
from tests.robustness.daemon_support import robustness_classes

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
READY = re.compile(r"listening for debuggers at (\S+):(\d+)")


async def test_attach_serves_threads_stacks_and_redefinition_but_says_what_it_cannot(tmp_path):
    classes = robustness_classes()  # compiled once per source content, not once per test
    jvm = subprocess.Popen([java_executable(), "-cp", str(classes), "Ticker", "40", "50"],
                           stdout=subprocess.PIPE, text=True)
    daemon = None
    try:
        assert jvm.stdout.readline().startswith("tick")
        daemon = subprocess.Popen([*jdwpd_argv(), "attach", str(jvm.pid), "--jdwp", "127.0.0.1:0"],
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
        for line in daemon.stderr:
            if m := READY.search(line):
                break
        else:
            raise AssertionError("jdwpd attach never listened")
        async with open_jdwp_client("127.0.0.1", int(m.group(2)), timeout=20) as c:
            caps = await c.command("VirtualMachine", "CapabilitiesNew")
            assert caps.can_redefine_classes and caps.can_get_monitor_info
            assert not caps.can_pop_frames and not caps.can_force_early_return
            assert not caps.can_watch_field_access and not caps.can_watch_field_modification
            ref = (await c.command("VirtualMachine", "ClassesBySignature", signature="LTicker;")).classes[0].type_id
            tick = next(x for x in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared
                        if x.name == "tick")
            # what a live-loaded agent cannot have is refused precisely
            code, _ = await c.command_raw("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                          suspend_policy=SuspendPolicy.ALL,
                                          modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                                      "loc": Location(TypeTag.CLASS, ref, tick.method_id, 0)}])
            assert code == ErrorCode.NOT_IMPLEMENTED
            # threads and stacks work
            await c.command("VirtualMachine", "Suspend")
            threads = [t.thread for t in (await c.command("VirtualMachine", "AllThreads")).threads]
            names = {(await c.command("ThreadReference", "Name", thread=t)).thread_name: t for t in threads}
            main = names["main"]
            frames = (await c.command("ThreadReference", "Frames", thread=main, start_frame=0, length=-1)).frames
            assert frames and any(f.location.class_id == ref for f in frames)
            code, _ = await c.command_raw("StackFrame", "GetValues", thread=main, frame=frames[-1].frame_id,
                                          slots=[{"slot": 0, "sigbyte": ord("[")}])
            assert code == ErrorCode.NOT_IMPLEMENTED  # no can_access_local_variables after start-up
            await c.command("VirtualMachine", "Resume")
        # detached: the program runs to its own end
        assert await trio.to_thread.run_sync(jvm.wait, 60) == 0
        assert jvm.stdout.read().rstrip().endswith("done")
    finally:
        for p in (daemon, jvm):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(10)
        if daemon is not None and daemon.poll() is None:
            os.killpg(daemon.pid, signal.SIGKILL)
