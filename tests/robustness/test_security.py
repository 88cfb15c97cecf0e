"""Who may debug: --allow refuses other peers before the handshake; --read-only refuses every change."""

from __future__ import annotations

import re
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.debuggees import javac_argv
from protocol.constants import ErrorCode

pytestmark = pytest.mark.jvm
SAMPLE = Path(__file__).resolve().parents[2] / "jdwpd" / "samples" / "Sample.java"
READY = re.compile(r"listening for debuggers at (\S+):(\d+)")


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample")
    subprocess.run([*javac_argv(), "-g", "-d", str(out), str(SAMPLE)], check=True, timeout=120)
    return out


@contextmanager
def launched(classes, *daemon_args):
    proc = subprocess.Popen([*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", "--suspend",
                             *daemon_args, "--", "java", "-cp", str(classes), "Sample"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        for line in proc.stderr:
            if m := READY.search(line):
                break
        else:
            raise AssertionError(f"jdwpd launch never listened: {proc.stderr.read()}")
        yield int(m.group(2)), proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)


async def test_allow_list_refuses_others_before_the_handshake(classes):
    with launched(classes, "--allow", "10.9.8.7") as (port, proc):
        with trio.fail_after(20):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            data = b""
            try:
                await stream.send_all(b"JDWP-Handshake")
                while chunk := await stream.receive_some(100):  # closed without a handshake answer
                    data += chunk
            except trio.BrokenResourceError:
                pass  # reset: closed before our handshake was even read
            assert data == b""
        assert proc.poll() is None  # the refusal harmed nothing
    with launched(classes, "--allow", "127.0.0.0/8;10.0.0.0/8") as (port, _):
        async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
            assert (await c.command("VirtualMachine", "Version")).jdwp_major >= 1


def test_allow_rejects_what_is_no_address():
    result = subprocess.run([*jdwpd_argv(), "launch", "--allow", "not-an-address", "--", "java"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == "jdwpd: --allow: 'not-an-address' is not an address or a network"


async def test_read_only_refuses_every_change_and_answers_queries(classes):
    with launched(classes, "--read-only") as (port, proc):
        async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
            assert (await c.command("VirtualMachine", "AllThreads")).threads
            code, _ = await c.command_raw("VirtualMachine", "CreateString", utf="x")
            assert code == ErrorCode.NOT_IMPLEMENTED
            code, _ = await c.command_raw("VirtualMachine", "Exit", exit_code=3)
            assert code == ErrorCode.NOT_IMPLEMENTED
            code, _ = await c.command_raw("VirtualMachine", "RedefineClasses", classes=[])
            assert code == ErrorCode.NOT_IMPLEMENTED
            await c.command("VirtualMachine", "Resume")
        assert proc.wait(30) == 0  # Exit was refused: the program ran to its own end


async def test_the_secret_stays_out_of_process_listings_and_the_link_is_owner_only(classes):
    with launched(classes) as (port, proc):
        children = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
        cmdline = open(f"/proc/{children[0]}/cmdline", "rb").read().decode().split("\0")
        agent = next(arg for arg in cmdline if arg.startswith("-agentpath:"))
        options = dict(item.split("=", 1) for item in agent.split("=", 1)[1].split(","))
        secret_file = options["secretfile"]
        secret = open(secret_file).read().strip()
        assert len(secret) == 64
        for pid in (proc.pid, int(children[0])):
            assert secret not in open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
            assert secret not in open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace")
        link = options["link"].removeprefix("unix:")
        import os
        import stat

        assert stat.S_ISSOCK(os.stat(link).st_mode) and os.stat(link).st_mode & 0o077 == 0
        assert os.stat(secret_file).st_mode & 0o077 == 0
        assert os.stat(os.path.dirname(link)).st_mode & 0o077 == 0


def test_listening_beyond_loopback_warns_that_jdwp_has_no_authentication(capsys):
    from jdwpd.daemon.endpoints import bind_jdwp

    bind_jdwp("127.0.0.1", 0).close()
    assert capsys.readouterr().err == ""
    bind_jdwp("0.0.0.0", 0).close()  # bound and closed at once: nothing is ever accepted on it
    err = capsys.readouterr().err
    assert "warning" in err and "no authentication" in err
