"""Agent_OnAttach: the agent loaded into a running JVM (HotSpot dynamic attach) connects and works with
what HotSpot still offers after startup."""

from __future__ import annotations

import shutil
import subprocess

from jdwpd.testing.jvm import java_executable
import tempfile
from pathlib import Path

import pytest
import trio
from agent_support import Jvm

from jdwpd.errors import AgentError
from jdwpd.daemon.link.agent_link import accept_agent, open_unix_listener
from jdwpd.daemon.link.attach import AttachError, load_agent
from jdwpd.daemon.link.launcher import agent_option_string, new_secret_file
from protocol import link as L

pytestmark = pytest.mark.jvm


async def test_live_attach(agent_so, classes, lines):
    workdir = Path(tempfile.mkdtemp(prefix="jdwpd-attach-"))
    proc = await trio.lowlevel.open_process([java_executable(), "-cp", str(classes), "Target"], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE)
    listener = await open_unix_listener(str(workdir / "link.sock"))
    jvm = Jvm(proc, None, listener, b"", workdir)
    try:
        await jvm.expect("ready")
        secret, secret_path = new_secret_file(workdir)
        opts = agent_option_string(workdir / "link.sock", secret_path)
        # jdwpd's own attach client (jcmd's argument parser splits option strings at '=').
        await trio.to_thread.run_sync(lambda: load_agent(proc.pid, str(agent_so), opts, timeout=20))
        with trio.fail_after(20):
            jvm.link = await accept_agent(await listener.accept(), secret)
        hello = jvm.link.hello
        assert hello["flags"] & L.HelloFlag.LIVE_ATTACH and hello["flags"] & L.HelloFlag.VM_STARTED
        assert hello["caps"] & (1 << L.CapBit.SUSPEND)
        target = await jvm.class_id("LTarget;")
        assert (await jvm.request("CLASS_SOURCE_FILE", ref=target))["source_file"] == "Target.java"
        main = await jvm.thread_named("main")
        await jvm.request("THREAD_SUSPEND", thread=main)
        assert (await jvm.request("THREAD_FRAME_COUNT", thread=main))["count"] > 0
        await jvm.request("THREAD_RESUME", thread=main)
        if not hello["caps"] & (1 << L.CapBit.BREAKPOINTS):
            loc = await jvm.location_of_line(target, "twice", lines["TWICE"])
            with pytest.raises(AgentError) as e:
                await jvm.request("SET_REQUEST", request_id=1, event_kind=2, suspend_policy=1,
                                  modifiers=[{"mod_kind": 7, "args": {"location": loc}}])
            assert e.value.status == L.LinkStatus.NOT_CAPABLE
        # A second load into the same VM is refused; the first agent carries on.
        with pytest.raises(AttachError, match="refused to start"):
            await trio.to_thread.run_sync(lambda: load_agent(proc.pid, str(agent_so), opts, timeout=20))
        assert (await jvm.request("ALL_THREADS"))["threads"]
        await jvm.send("run 2")
        await jvm.expect("ok run")
        await jvm.send("exit")
        await jvm.expect("bye")
        assert await jvm.wait_exit() == 0
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                proc.kill()
            with trio.move_on_after(10):
                await proc.wait()
            if jvm.link is not None:
                await jvm.link.aclose()
            await listener.aclose()
            shutil.rmtree(workdir, ignore_errors=True)
