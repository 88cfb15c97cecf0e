"""However the JVM ends, debuggers hear VM_DEATH (where they asked) and a clean close; launch passes on the code."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing.client import JdwpClosedError, open_jdwp_client
from jdwpd.testing.debuggees import javac_argv
from protocol.constants import EventKind, SuspendPolicy

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
READY = re.compile(r"listening for debuggers at (\S+):(\d+)")


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    out = tmp_path_factory.mktemp("ends")
    subprocess.run([*javac_argv(), "-g", "-d", str(out), str(HERE / "java" / "Ends.java")], check=True, timeout=120)
    return out


def launch(classes, *args: str) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", "--suspend", "--",
                             "java", "-cp", str(classes), "Ends", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in proc.stderr:
        if m := READY.search(line):
            return proc, int(m.group(2))
    proc.kill()
    raise AssertionError("jdwpd launch never listened")


def jvm_pid_of(launcher: subprocess.Popen) -> int:
    children = Path(f"/proc/{launcher.pid}/task/{launcher.pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


@pytest.mark.parametrize(("how", "args", "code"), [
    ("normal", ["normal"], 0),
    ("exit", ["exit", "42"], 42),
    ("throw", ["throw"], 1),
    ("kill -9", ["hang"], -signal.SIGKILL),
])
async def test_every_way_the_jvm_ends(classes, how, args, code):
    launcher, port = launch(classes, *args)
    try:
        async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
            await c.wait_for_event(EventKind.VM_START, 20)
            await c.command("EventRequest", "Set", event_kind=EventKind.VM_DEATH,
                            suspend_policy=SuspendPolicy.NONE, modifiers=[])
            await c.command("VirtualMachine", "Resume")
            if how == "kill -9":
                launcher.stdout.readline()  # "started": the program runs
                os.kill(jvm_pid_of(launcher), signal.SIGKILL)
            else:
                _, events = await c.wait_for_event(EventKind.VM_DEATH, 20)
                # as the reference sends it: the requested VM_DEATH and the automatic one (request 0)
                assert [e.event_kind for e in events] == [EventKind.VM_DEATH, EventKind.VM_DEATH]
                assert events[0].request_id != 0 and events[1].request_id == 0
            with trio.fail_after(20):  # and then the connection closes cleanly
                while True:
                    try:
                        await c.next_event(20)
                    except JdwpClosedError:
                        break
        launcher_code = await trio.to_thread.run_sync(launcher.wait, 30)
        assert launcher_code == (code if code >= 0 else 128 - code)  # a signal: the shell's 128 + N
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait(10)
