"""JDI unchanged through `jdwpd connect`: the scripted JDI session of tests/clients/JdiClient.java (the one
tests/differential/test_jdi_session.py compares with the reference) gives the same transcript through the
remote link as through `jdwpd launch`.  Slow: two full sessions."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import trio
from remote_kit import FAR_READY, open_near

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, jvm

pytestmark = [pytest.mark.jvm, pytest.mark.slow]
CLIENTS = Path(__file__).resolve().parents[1] / "clients"
FAR_READY_ARGS = ("--suspend", "--")


def jdi(client: Path, port: int, markers: dict[str, int]) -> str:
    cmd = [jvm.tools_java(), "-Duser.language=en", "-Duser.country=US", "-cp", str(client), "JdiClient", "127.0.0.1",
           str(port), *[f"{k}={v}" for k, v in sorted(markers.items())]]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return out.stdout


async def test_jdi_transcript_through_connect_is_launchs(tmp_path, sample_classes, sample_markers):
    client = debuggees.compile_sources(CLIENTS)
    with jvm.debuggee_jvm("jdwpd", sample_classes, "Sample") as vm:
        local = await trio.to_thread.run_sync(jdi, client, vm.port, sample_markers)
    secret = tmp_path / "secret"
    far_cmd = [*jdwpd_argv(), "launch", "--remote", "127.0.0.1:0", "--secret-file", str(secret), *FAR_READY_ARGS,
               jvm.java_executable(), "-Duser.language=en", "-Duser.country=US", "-cp", str(sample_classes), "Sample"]
    async with jvm.open_command("jdwpd", far_cmd, ready=FAR_READY) as far, \
            open_near(f"127.0.0.1:{far.port}", secret) as near:
        remote = await trio.to_thread.run_sync(jdi, client, near.port, sample_markers)
    assert remote.rstrip().endswith("end")
    assert remote == local
