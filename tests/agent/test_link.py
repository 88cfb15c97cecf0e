"""The link itself: handshake, refusal, options, link loss, malformed input, VM exit time."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
import trio
from agent_support import assert_refused, java_with_agent, run_jvm

from jdwpd.errors import AgentError, AgentLinkClosed
from jdwpd.daemon.link.agent_link import HandshakeError
from jdwpd.daemon.link.launcher import agent_option_string, java_command_with_agent, new_secret_file
from protocol import link as L

pytestmark = pytest.mark.jvm


async def test_handshake_hello_and_vm_info(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        hello = jvm.link.hello
        assert hello["pid"] == jvm.proc.pid
        assert hello["profile"] == "full"
        assert hello["flags"] & L.HelloFlag.VM_STARTED
        assert not hello["flags"] & L.HelloFlag.LIVE_ATTACH
        assert hello["caps"] & (1 << L.CapBit.BREAKPOINTS)
        info = await jvm.request("VM_INFO")
        props = {p["key"]: p["value"] for p in info["properties"]}
        assert props["java.vm.specification.version"].isdigit()
        assert str(classes) in props["java.class.path"]
        assert info["caps"] == hello["caps"]
        await jvm.send("exit")
        await jvm.expect("bye")
        assert await jvm.wait_exit() == 0


@pytest.mark.parametrize("profile,present,absent", [
    ("nothrow", [L.CapBit.BREAKPOINTS, L.CapBit.SINGLE_STEP],
     [L.CapBit.EXCEPTION_EVENTS, L.CapBit.METHOD_EXIT_EVENTS, L.CapBit.FRAME_POP_EVENTS]),
    ("inspect", [L.CapBit.TAG_OBJECTS, L.CapBit.SUSPEND, L.CapBit.LINE_NUMBERS],
     [L.CapBit.BREAKPOINTS, L.CapBit.SINGLE_STEP, L.CapBit.ACCESS_LOCAL_VARIABLES, L.CapBit.EXCEPTION_EVENTS]),
])
async def test_profiles_hold_what_they_say(agent_so, classes, profile, present, absent):
    async with run_jvm(agent_so, classes, options={"profile": profile}) as jvm:
        caps = jvm.link.hello["caps"]
        assert jvm.link.hello["profile"] == profile
        for bit in present:
            assert caps & (1 << bit), bit
        for bit in absent:
            assert not caps & (1 << bit), bit
        if profile == "inspect":
            with pytest.raises(AgentError) as e:
                await jvm.request("SET_REQUEST", request_id=5, event_kind=2, suspend_policy=0, modifiers=[])
            assert e.value.status == L.LinkStatus.NOT_CAPABLE


async def test_wrong_secret_is_refused_and_the_vm_runs_on(agent_so, classes):
    async with run_jvm(agent_so, classes, connect=False) as jvm:
        with pytest.raises(HandshakeError):
            await jvm.accept(secret=os.urandom(32))
        await jvm.expect("ready")
        await jvm.send("run 3")
        await jvm.expect("ok run")
        # The agent retries; the daemon that holds the secret is accepted.
        jvm.link = await jvm.accept()
        assert (await jvm.request("ALL_THREADS"))["threads"]
        await jvm.send("exit")
        await jvm.expect("bye")
        assert await jvm.wait_exit() == 0



def test_bad_options_exit_2_with_one_line(agent_so, classes, tmp_path):
    secret, secret_path = new_secret_file(tmp_path)
    loose = tmp_path / "loose"
    loose.write_text(secret.hex())
    loose.chmod(0o644)
    short = tmp_path / "short"
    short.write_text("abcd")
    short.chmod(0o600)
    cases = {
        f"link=unix:/tmp/x.sock,secretfile={secret_path},foo=1": "unknown option 'foo'",
        f"secretfile={secret_path}": "missing required option 'link'",
        "link=unix:/tmp/x.sock": "missing required option 'secretfile'",
        f"link=unix:/tmp/x.sock,secretfile={secret_path},profile=fast": "'profile'",
        f"link=unix:/tmp/x.sock,secretfile={secret_path},suspend=maybe": "'suspend'",
        f"link=unix:/tmp/x.sock,secretfile={secret_path},timeout=soon": "'timeout'",
        f"link=unix:/tmp/x.sock,secretfile={secret_path},includevirtualthreads=yes": "'includevirtualthreads'",
        f"link=nowhere,secretfile={secret_path}": "'link'",
        f"link=unix:/tmp/x.sock,secretfile={loose}": "readable by group or others",
        f"link=unix:/tmp/x.sock,secretfile={short}": "hex characters",
        f"link=unix:/tmp/x.sock,secretfile={tmp_path}/missing": "cannot read secretfile",
    }
    assert_refused(agent_so, classes, cases)


def test_launcher_helpers(tmp_path):
    secret, path = new_secret_file(tmp_path)
    assert len(secret) == L.SECRET_SIZE
    assert path.stat().st_mode & 0o077 == 0
    assert L.parse_secret(path.read_text()) == secret
    opts = agent_option_string(("127.0.0.1", 4000), path, profile="nothrow", suspend=True, timeout=500)
    assert opts == f"link=127.0.0.1:4000,secretfile={path},profile=nothrow,suspend=y,timeout=500"
    assert agent_option_string("unix:/s", path, include_virtual_threads=True).endswith(",includevirtualthreads=y")
    cmd = java_command_with_agent(["/usr/bin/java", "-cp", "x", "Main"], "link=unix:/s,secretfile=/f")
    assert cmd[0] == "/usr/bin/java" and cmd[1].startswith("-agentpath:")
    assert cmd[1].endswith("=link=unix:/s,secretfile=/f")
    assert cmd[2:] == ["-cp", "x", "Main"]
    with pytest.raises(ValueError):
        java_command_with_agent(["python", "x.py"], opts)
    with pytest.raises(ValueError):
        agent_option_string("unix:/a,b", path)


async def test_malformed_requests_answer_errors_and_never_crash(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        link = jvm.link
        raw = link.stream

        async def raw_reply(frame: bytes) -> L.Frame:
            conn = L.LinkConnection()
            # Bypass AgentLink's encoder to send what it would never produce.
            await raw.send_all(frame)
            with trio.fail_after(10):
                while True:
                    conn.receive_data(await raw.receive_some(65536))
                    for f in conn.frames():
                        if f.id == 0xABCDEF:
                            return f

        kinds = [spec.kind for spec in L.MESSAGES.values() if spec.kind >= 16 and spec.request]
        for kind in kinds:
            for body in (b"", b"\x01", b"\xff" * 7, b"\x00" * 40 + b"\xff" * 40):
                f = await raw_reply(L.frame(0xABCDEF, kind, 0, body))
                assert f.status != 0, (kind, body)
                assert f.body == b""
        f = await raw_reply(L.frame(0xABCDEF, 999, 0, b""))
        assert f.status == L.LinkStatus.UNKNOWN_KIND
        # Well-formed bodies with ids the agent never handed out.
        for name, fields, status in [
            ("CLASS_SIGNATURE", {"ref": 10**9}, L.LinkStatus.INVALID_ID),
            ("OBJECT_TYPE", {"object": 0}, L.LinkStatus.INVALID_ID),
            ("METHOD_LINE_TABLE", {"method": 0xDEADBEEF}, L.LinkStatus.INVALID_METHOD),
            ("METHOD_DECLARING_CLASS", {"method": 8}, L.LinkStatus.INVALID_METHOD),
        ]:
            with pytest.raises(AgentError) as e:
                await jvm.request(name, **fields)
            assert e.value.status == status, name
        cls = await jvm.class_id("LTarget;")
        with pytest.raises(AgentError) as e:
            await jvm.request("CLASS_GET_STATICS", ref=cls, fields=[{"field": 0x1234, "tag": ord("I")}])
        assert e.value.status == L.LinkStatus.INVALID_FIELD
        # The VM is alive and well.
        await jvm.send("run 2")
        await jvm.expect("ok run")
        await jvm.send("exit")
        await jvm.expect("bye")
        assert await jvm.wait_exit() == 0


def _timed(cmd: list[str]) -> float:
    start = time.monotonic()
    result = subprocess.run(cmd, input=b"exit\n", capture_output=True, timeout=60)
    assert result.returncode == 0 and b"bye" in result.stdout, result
    return time.monotonic() - start


async def test_vm_exit_is_not_delayed(agent_so, classes, tmp_path):
    """A short JVM with the agent (connected, or with no daemon at all) ends as fast as a plain one."""
    secret, secret_path = new_secret_file(tmp_path)
    plain = ["java", "-cp", str(classes), "Target"]
    nobody = ["java", f"-agentpath:{agent_so}=link=unix:{tmp_path}/none.sock,secretfile={secret_path}",
              "-cp", str(classes), "Target"]
    # Best of 5: the machine is shared, and load only ever adds time.
    plain_t = min([await trio.to_thread.run_sync(_timed, plain) for _ in range(5)])
    nobody_t = min([await trio.to_thread.run_sync(_timed, nobody) for _ in range(5)])
    connected = []
    for _ in range(5):
        start = time.monotonic()
        async with run_jvm(agent_so, classes, "Target") as jvm:  # the daemon accepts and authenticates it
            await jvm.send("exit")
            await jvm.expect("bye")
            await jvm.wait_exit()
            connected.append(time.monotonic() - start)
    connected_t = min(connected)
    print(f"JVM run time (best of 5): plain {plain_t * 1000:.0f} ms, agent with no daemon {nobody_t * 1000:.0f} ms,"
          f" agent connected to a daemon {connected_t * 1000:.0f} ms")
    assert nobody_t - plain_t < 0.150
    assert connected_t - plain_t < 0.150


async def test_exit_request_replies_then_exits_with_the_code(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        assert await jvm.request("EXIT", code=42) == {}
        assert await jvm.wait_exit() == 42


def test_suspend_with_timeout_and_no_daemon_runs_anyway(agent_so, classes, tmp_path):
    _, secret_path = new_secret_file(tmp_path)
    start = time.monotonic()
    opts = f"link=unix:{tmp_path}/none.sock,secretfile={secret_path},suspend=y,timeout=300"
    result = java_with_agent(agent_so, classes, opts)
    assert result.returncode == 0 and result.stdout == "hello\n", result
    assert time.monotonic() - start >= 0.3


async def test_random_requests_never_crash_the_vm(agent_so, classes):
    """Seeded random bodies for every request kind (but EXIT) from an authenticated daemon."""
    import random

    rng = random.Random(1234)
    kinds = [spec.kind for spec in L.MESSAGES.values() if spec.kind >= 16 and spec.name != "EXIT"]
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        target = await jvm.class_id("LTarget;")
        main = await jvm.thread_named("main")
        group = (await jvm.request("THREAD_INFO", thread=main))["group"]
        loader = (await jvm.request("CLASS_LOADER", ref=target))["loader"]
        string = (await jvm.request("CREATE_STRING", utf="x"))["string"]
        module = (await jvm.request("ALL_MODULES"))["modules"][0]["module"]
        # Real ids of every sort, so that bodies get past the first checks and reach JVMTI/JNI.
        real_ids = [target, main, group, loader, string, module, await jvm.class_id("[I")]
        real_ids += [f["field"] for f in (await jvm.request("CLASS_FIELDS", ref=target))["fields"]]
        real_ids += [m["method"] for m in (await jvm.request("CLASS_METHODS", ref=target))["methods"]]
        conn = L.LinkConnection()
        stream = jvm.link.stream
        for n in range(1500):
            kind = rng.choice(kinds)
            body = bytearray(rng.randbytes(rng.choice([0, 1, 4, 8, 9, 13, 17, 24, 40, 100])))
            for at in range(0, len(body) - 7, 8):
                if rng.random() < 0.4:
                    body[at:at + 8] = rng.choice(real_ids).to_bytes(8, "big")
            if len(body) >= 13 and rng.random() < 0.3:
                body[8] = rng.choice(b"ILJ[sZBCSFD")  # a plausible value tag
            await stream.send_all(L.frame(n + 1, kind, 0, bytes(body)))
            with trio.fail_after(10):
                got = None
                while got is None:
                    for f in conn.frames():
                        got = f
                    if got is None:
                        conn.receive_data(await stream.receive_some(65536))
            assert got.id == n + 1 or got.id == 0
        # Whatever the noise did (suspensions, pins), the VM still answers and runs.
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        for _ in range(stats["suspend_all_depth"]):
            await jvm.request("RESUME_ALL")
        await jvm.request("CLEAR_ALL_REQUESTS")
        main = await jvm.thread_named("main")
        while (await jvm.request("THREAD_STATUS", thread=main))["suspend_count"]:
            await jvm.request("THREAD_RESUME", thread=main)
        await jvm.send("run 2")
        await jvm.expect("ok run")


async def test_start_jvm_task_owns_the_jvm_and_its_link(agent_so, classes, monkeypatch):
    from jdwpd.daemon.link import launcher

    monkeypatch.setattr(launcher, "agent_path", lambda: agent_so)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            codes = []

            async def run(task_status=trio.TASK_STATUS_IGNORED):
                codes.append(await launcher.start_jvm(["java", "-cp", str(classes), "Hello"], suspend=True,
                                                      stdout=subprocess.DEVNULL, task_status=task_status))

            launched = await nursery.start(run)
            assert launched.link.hello["pid"] == launched.process.pid
            assert launched.workdir.stat().st_mode & 0o077 == 0
            ev = await launched.link.events.receive()
            assert ev["hits"][0]["event_kind"] == 90 and ev["suspend_policy"] == 2
            await launched.link.request("RESUME_ALL")
        assert codes == [0]
        assert not launched.workdir.exists()


@pytest.mark.parametrize("header", [L.HEADER.pack(5, 1, 16, 0), L.HEADER.pack(L.MAX_FRAME + 1, 1, 16, 0)])
async def test_a_malformed_frame_ends_the_link_and_the_agent_comes_back(agent_so, classes, header):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        await jvm.link.stream.send_all(header + b"\x00" * 16)
        with pytest.raises(AgentLinkClosed), trio.fail_after(10):
            await jvm.link.request("VM_INFO")
        jvm.link = await jvm.accept()
        assert (await jvm.request("VM_INFO"))["caps"] == jvm.link.hello["caps"]
        await jvm.send("run 1")
        await jvm.expect("ok run")


async def test_tcp_loopback_link(agent_so, classes, tmp_path):
    secret, secret_path = new_secret_file(tmp_path)
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listener.socket.getsockname()[1]
    opts = agent_option_string(("127.0.0.1", port), secret_path, suspend=True)  # waits for us: no race
    proc = await trio.lowlevel.open_process(["java", f"-agentpath:{agent_so}={opts}", "-cp", str(classes), "Hello"],
                                            stdout=subprocess.PIPE)
    try:
        with trio.fail_after(20):
            from jdwpd.daemon.link.agent_link import accept_agent

            link = await accept_agent(await listener.accept(), secret)
            assert link.hello["pid"] == proc.pid
            assert (await link.events.receive())["hits"][0]["event_kind"] == 90
            await link.request("VM_INFO")
            await link.request("RESUME_ALL")
            assert await proc.wait() == 0
            await link.aclose()
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                proc.kill()
            with trio.move_on_after(10):
                await proc.wait()
            await listener.aclose()
            await proc.stdout.aclose()
