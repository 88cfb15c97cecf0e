"""What a user tries first on a running JVM: `jdwpd attach PID`, then `jdb -attach` (docs/profiles.md,
"A VM attached at run time").

HotSpot grants exception events only to agents loaded at start-up.  jdb, like Eclipse, asks for
uncaught exceptions by itself when it attaches; refusing that request (NOT_IMPLEMENTED) made JDI throw
UnsupportedOperationException and jdb die before its first prompt.  Such a request is accepted and
never fires (the daemon says so); what the user asks for and the VM cannot do is refused precisely.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.jdb import open_jdb
from jdwpd.testing.jvm import java_executable
from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy
from tests.robustness.daemon_support import robustness_classes

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
READY = re.compile(r"listening for debuggers at (\S+):(\d+)")


@pytest.fixture
def attached(tmp_path):
    """A Ticker JVM started without any agent, and `jdwpd attach` serving it: (host, port, daemon log)."""
    classes = robustness_classes()  # compiled once per source content, not once per test
    jvm = subprocess.Popen([java_executable(), "-cp", str(classes), "Ticker", "400", "50"],
                           stdout=subprocess.PIPE, text=True)
    daemon = None
    try:
        assert jvm.stdout.readline().startswith("tick")
        daemon = subprocess.Popen([*jdwpd_argv(), "attach", str(jvm.pid), "--jdwp", "127.0.0.1:0"],
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
        log: list[str] = []
        timer = threading.Timer(60, daemon.kill)
        timer.start()
        for line in daemon.stderr:
            log.append(line)
            if m := READY.search(line):
                break
        timer.cancel()
        assert m, "".join(log)
        threading.Thread(target=lambda: log.extend(daemon.stderr), daemon=True).start()
        yield m.group(1), int(m.group(2)), log
    finally:
        for p in (daemon, jvm):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(10)
        if daemon is not None:
            try:
                os.killpg(daemon.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_jdb_attaches_inspects_and_is_told_what_the_vm_cannot_do(attached):
    host, port, log = attached
    with open_jdb(host, port, timeout=30) as jdb:
        jdb.start(expect=r"Initializing jdb")
        jdb.command("threads", expect=r"main")
        jdb.command("suspend", expect=r"All threads suspended")
        jdb.command("where all", expect=r"Ticker\.main \(Ticker\.java:\d+\)")
        jdb.command("stop in Ticker.tick", expect=r"not supported on the target VM")
        jdb.command("resume", expect=r"All threads resumed")
        out = jdb.output
        jdb.quit()
    assert "Internal exception" not in out, out
    assert "UnsupportedOperationException" not in out, out
    assert any("request for uncaught exceptions is accepted and will not fire" in line for line in log), log


async def test_uncaught_only_is_accepted_and_caught_is_refused(attached):
    host, port, _ = attached
    async with open_jdwp_client(host, port, timeout=20) as c:
        ok = await c.command("EventRequest", "Set", event_kind=EventKind.EXCEPTION,
                             suspend_policy=SuspendPolicy.ALL,
                             modifiers=[{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0, "caught": False,
                                         "uncaught": True}])
        assert ok.request_id > 0
        await c.command("EventRequest", "Clear", event_kind=EventKind.EXCEPTION, request_id=ok.request_id)
        for caught, uncaught in ((True, True), (True, False)):
            code, _ = await c.command_raw(
                "EventRequest", "Set", event_kind=EventKind.EXCEPTION, suspend_policy=SuspendPolicy.ALL,
                modifiers=[{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0, "caught": caught,
                            "uncaught": uncaught}])
            assert code == ErrorCode.NOT_IMPLEMENTED
        code, _ = await c.command_raw("EventRequest", "Set", event_kind=EventKind.EXCEPTION,
                                      suspend_policy=SuspendPolicy.ALL, modifiers=[])
        assert code == ErrorCode.NOT_IMPLEMENTED
