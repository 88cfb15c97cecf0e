"""The remote link (docs/remote.md): `jdwpd launch --remote` beside the JVM, `jdwpd connect` beside the
debugger, TLS 1.3 between them with both ends proving the secret file.  Real processes, a real JVM, a
recording relay between the two sides; jdb attaches to the near side's port as to any JDWP server."""

from __future__ import annotations

import errno
import os
import socket
import ssl
import stat
import subprocess

import pytest
import trio
from remote_kit import SECRET_TEXT, near_command, open_far, open_near, open_relay, write_secret

from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.jdb import open_jdb

pytestmark = pytest.mark.jvm


def jdb_session(port: int) -> str:
    """Stop in RemoteTarget.work, read its locals (the run-time string among them), step, go on."""
    with open_jdb("127.0.0.1", port, timeout=60) as jdb:
        jdb.start()
        jdb.command("stop in RemoteTarget.work", expect=r"Deferring|Set breakpoint")
        out = jdb.command("run", expect=r"Breakpoint hit:.*RemoteTarget\.work")
        out += jdb.command("locals", expect=r"label = ")
        out += jdb.command("print this.tags.length", expect=r"= 3")
        out += jdb.command("next", expect=r"Step completed")
        out += jdb.command("where", expect=r"\[2\] RemoteTarget\.main")
        out += jdb.command("clear RemoteTarget.work", expect=r"Removed")
        jdb.command("cont", expect=r"", prompt=False)
        return out


async def test_jdb_through_connect_and_no_plaintext_on_the_wire(tmp_path):
    secret = tmp_path / "secret"
    async with open_far(secret) as far:
        # the far side made the secret, owner-only, as the agent and the near side require
        assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
        assert len(secret.read_text().strip()) == 64
        async with open_relay(("127.0.0.1", far.port)) as relay, \
                open_near(f"127.0.0.1:{relay.port}", secret) as near:
            out = await trio.to_thread.run_sync(jdb_session, near.port)
            assert f'label = "{SECRET_TEXT.decode()}"' in out, out
            assert "this.tags.length = 3" in out
            # the JVM runs on after the debugger's `cont`
            seen = far.output.text("stdout").count("tick")
            with trio.fail_after(20):
                while far.output.text("stdout").count("tick") < seen + 3:
                    await trio.sleep(0.05)
        # both directions are TLS from their first byte, and the string's text never crossed in clear
        assert relay.up[:1] == b"\x16" and relay.down[:1] == b"\x16"
        assert len(relay.up) > 2000 and len(relay.down) > 20000, (len(relay.up), len(relay.down))
        for data in (relay.up, relay.down):
            assert SECRET_TEXT not in data
            assert b"RemoteTarget" not in data and b"JDWPDLNK" not in data


async def test_a_wrong_secret_is_one_line_and_status_2_and_harms_nothing(tmp_path):
    secret = tmp_path / "secret"
    wrong = write_secret(tmp_path / "wrong")
    async with open_far(secret) as far:
        with trio.fail_after(60):
            proc = await trio.run_process(near_command(f"127.0.0.1:{far.port}", wrong), capture_stdout=True,
                                          capture_stderr=True, check=False)
        err = proc.stderr.decode()
        assert proc.returncode == 2, err
        assert len(err.strip().splitlines()) == 1, err
        assert "refused the link" in err and "secret" in err, err
        # a missing secret file: one line, status 2, and nothing made on the near side
        with trio.fail_after(60):
            proc = await trio.run_process(near_command(f"127.0.0.1:{far.port}", tmp_path / "none"),
                                          capture_stderr=True, check=False)
        assert proc.returncode == 2 and len(proc.stderr.decode().strip().splitlines()) == 1
        assert not (tmp_path / "none").exists()
        # the right secret still gets through, to a VM no one disturbed
        async with open_near(f"127.0.0.1:{far.port}", secret) as near, \
                open_jdwp_client("127.0.0.1", near.port) as client:
            version = await client.command("VirtualMachine", "Version")
            assert "jdwpd" in version.description or version.jdwp_major >= 1


def _probe(port: int, payload: bytes) -> bytes:
    """What the far port says to a peer that sends ``payload`` and waits (all it says until it closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        if payload:
            s.sendall(payload)
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            if e.errno != errno.ENOTCONN:
                raise
            # the far port reset the connection on our bytes before we shut down: what it sent, if
            # anything, is still read below
        got = b""
        try:
            while chunk := s.recv(4096):
                got += chunk
        except ConnectionResetError:
            pass  # closed with our bytes unread: a reset, still not a word
        return got


def _tls_without_secret(port: int) -> str:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
        try:
            with ctx.wrap_socket(raw) as s:
                s.settimeout(30)
                data = s.recv(4096)  # TLS 1.3: the server judges our (missing) certificate after the handshake
                return f"read {data!r}"
        except (ssl.SSLError, ConnectionError) as e:
            return f"refused: {e}"


async def test_the_far_port_says_nothing_to_a_stranger(tmp_path):
    secret = tmp_path / "secret"
    async with open_far(secret) as far:
        for payload in (b"JDWP-Handshake", b"\x00\xffgarbage" * 100, b""):
            with trio.fail_after(30):
                assert await trio.to_thread.run_sync(_probe, far.port, payload) == b""
        with trio.fail_after(30):
            outcome = await trio.to_thread.run_sync(_tls_without_secret, far.port)
        assert outcome.startswith("refused") or outcome == "read b''", outcome
        # nothing of the link leaked and nothing broke: the real near side is served as if none had come
        async with open_near(f"127.0.0.1:{far.port}", secret) as near, \
                open_jdwp_client("127.0.0.1", near.port) as client:
            threads = (await client.command("VirtualMachine", "AllThreads")).threads
            assert len(threads) >= 4
    assert "refused a peer" in far.output.text("stderr")


def test_launch_remote_needs_its_secret_file():
    from jdwpd.own_command import jdwpd_argv

    proc = subprocess.run([*jdwpd_argv(), "launch", "--remote", "127.0.0.1:0", "--", "java", "-version"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--secret-file" in proc.stderr
