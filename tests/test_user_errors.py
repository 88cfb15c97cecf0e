"""Every user error gets one clear line and a status scripts can test, never a traceback (docs/cli.md).

Each case runs the installed command line as a user would, with what the user got wrong.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess

import pytest

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import jvm

USAGE, FAILED = 2, 1


def jdwpd(*args: str, cwd=None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*jdwpd_argv(), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def one_clear_line(result: subprocess.CompletedProcess, status: int, *words: str) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines, f"no message at all (status {result.returncode})"
    last = lines[-1]
    assert result.returncode == status, (result.returncode, result.stderr)
    assert last.startswith("jdwpd"), last
    for word in words:
        assert word in last, (word, last)
    return last


@pytest.fixture
def busy_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    yield s.getsockname()[1]
    s.close()


@pytest.fixture
def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize("args, words", [
    (["bogus"], ["invalid choice"]),
    (["launch"], ["java command after '--'"]),
    (["launch", "--jdwp", "nowhere", "--", "java", "-version"], ["not HOST:PORT"]),
    (["launch", "--jdwp", "127.0.0.1:70000", "--", "java", "-version"], ["out of range"]),
    (["launch", "--agent-timeout", "-1", "--", "java", "-version"], ["non-negative"]),
    (["launch", "--profile", "everything", "--", "java", "-version"], ["invalid choice"]),
    (["launch", "--", "/nonexistent/bin/java", "-version"], ["cannot find"]),
    (["launch", "--", "python3", "x.py"], ["not a java launcher"]),
    (["launch", "--jdwp", "192.0.2.1:5005", "--", "java", "-version"], ["cannot listen", "192.0.2.1"]),
    (["serve", "--secret-file", "s"], ["required", "--link"]),
    (["serve", "--link", "unix:/nonexistent/dir/link.sock", "--secret-file", "/nonexistent/dir/secret"], []),
    (["attach", "abc"], ["invalid int"]),
    (["attach", "999999999"], ["no process"]),
    (["record", "--listen", "127.0.0.1:0"], ["required", "--to"]),
    (["java-home", "/proc/jdwpd-cannot-be-here"], ["/proc/jdwpd-cannot-be-here"]),
    (["demo", "--jdwp", "nope"], ["not HOST:PORT"]),
])
def test_wrong_arguments_are_one_line(args, words):
    one_clear_line(jdwpd(*args), USAGE, *words)


def test_busy_ports_are_one_line(busy_port, tmp_path):
    one_clear_line(jdwpd("launch", "--jdwp", f"127.0.0.1:{busy_port}", "--", "java", "-version"), USAGE,
                   "cannot listen", "in use")
    secret = tmp_path / "secret"
    one_clear_line(jdwpd("serve", "--link", f"127.0.0.1:{busy_port}", "--secret-file", str(secret)), USAGE,
                   "cannot listen for agents", "in use")
    one_clear_line(jdwpd("serve", "--link", f"unix:{tmp_path / 'l.sock'}", "--secret-file", str(secret),
                         "--jdwp", f"127.0.0.1:{busy_port}"), USAGE, "cannot listen for debuggers")
    one_clear_line(jdwpd("record", "--listen", f"127.0.0.1:{busy_port}", "--to", "127.0.0.1:1"), USAGE,
                   "cannot listen", "in use")


def test_unreachable_debugger_is_one_line(closed_port):
    one_clear_line(jdwpd("launch", "--connect", f"127.0.0.1:{closed_port}", "--", "java", "-version"), USAGE,
                   "cannot connect", "refused")


def test_a_secret_file_others_can_read_is_refused(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("00" * 32)
    secret.chmod(0o644)
    one_clear_line(jdwpd("serve", "--link", f"unix:{tmp_path / 'l.sock'}", "--secret-file", str(secret)), USAGE,
                   "chmod 600")


def test_unwritable_output_is_one_line(tmp_path):
    one_clear_line(jdwpd("record", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:1", "--out",
                         "/nonexistent/dir/trace.jsonl"), USAGE, "--out")


def test_attach_refuses_a_process_that_is_not_a_jvm_and_leaves_it_alive():
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        one_clear_line(jdwpd("attach", str(sleeper.pid), "--jdwp", "127.0.0.1:0"), USAGE, "not a Java VM")
        assert sleeper.poll() is None, "attach signalled a process that is no JVM"
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.jvm
def test_a_jvm_that_does_not_start_says_so_in_the_jvms_words(tmp_path):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    result = jdwpd("launch", "--jdwp", "127.0.0.1:0", "--", "java", "-cp", str(tmp_path), "no.such.Main")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr  # the JVM's own status, as `java` alone gives
    assert "Could not find or load main class no.such.Main" in result.stderr


@pytest.mark.jvm
def test_version_and_doctor_name_the_agent_build_and_the_java():
    version = jdwpd("--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("jdwpd ") and "agent built against JDK" in version.stdout, version.stdout
    doctor = jdwpd("doctor", timeout=120)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    for label in ("java:", "java version:", "agent loads into this java: yes", "dynamic attach", "virtual threads:"):
        assert label in doctor.stdout, (label, doctor.stdout)
    # this machine's HotSpot (x86_64) exports its VMStructs: locals are read in place (tests/ext/test_slots.py)
    in_place = platform.machine() == "x86_64"
    assert ("locals of in-VM conditions: read in place" in doctor.stdout) == in_place, doctor.stdout


def test_doctor_without_java_says_what_to_install(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "JDWPD_JAVA")}
    env["PATH"] = str(tmp_path)
    result = subprocess.run([*jdwpd_argv(), "doctor"], capture_output=True, text=True, timeout=60,
                            env=env)
    assert result.returncode == 1
    assert "java: NOT FOUND" in result.stdout and "install" in result.stdout


@pytest.mark.jvm
def test_an_optional_agent_that_cannot_start_lets_the_jvm_run(tmp_path):
    """`jdwpd ci` gives optional=y: a JVM a build daemon starts after the run (its secret gone) must start."""
    agent = jdwpd("agent-path").stdout.strip()
    options = f"link=unix:{tmp_path / 'gone.sock'},secretfile={tmp_path / 'gone-secret'}"
    plain = subprocess.run(["java", f"-agentpath:{agent}={options}", "-version"], capture_output=True, text=True,
                           timeout=60)
    assert plain.returncode == 2 and "cannot read secretfile" in plain.stderr  # explicit: never a silent VM
    optional = subprocess.run(["java", f"-agentpath:{agent}={options},optional=y", "-version"],
                              capture_output=True, text=True, timeout=60)
    assert optional.returncode == 0, optional.stderr
    assert "optional=y: the JVM runs without the agent" in optional.stderr
    assert "version" in optional.stderr
