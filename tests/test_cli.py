"""The command line's promises: one clear line and a non-zero exit for every user error; exit codes passed on."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from jdwpd.own_command import jdwpd_argv

JDWPD = jdwpd_argv()


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*JDWPD, *args], capture_output=True, text=True, timeout=timeout)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("jdwpd: ")
    return lines[0]


def test_launch_refuses_a_command_that_is_not_java():
    result = run("launch", "--jdwp", "127.0.0.1:0", "--", "ls", "-l")
    assert result.returncode == 2
    assert "not a java launcher" in one_error_line(result)


def test_launch_without_a_command_says_how():
    result = run("launch")
    assert result.returncode == 2
    assert "java command" in one_error_line(result)


def test_launch_on_a_busy_port_fails_before_starting_a_jvm():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run("launch", "--jdwp", f"127.0.0.1:{port}", "--", "java", "-version")
    assert result.returncode == 2
    assert f"cannot listen for debuggers on 127.0.0.1:{port}" in one_error_line(result)
    assert "openjdk" not in result.stderr.lower()  # no JVM ran


@pytest.mark.jvm
def test_launch_reports_a_jvm_that_dies_before_its_agent_connects():
    result = run("launch", "--jdwp", "127.0.0.1:0", "--", "java", "-XX:+NoSuchOptionAnywhere", "-version")
    assert result.returncode != 0
    assert "exited with code 1 before its agent connected" in result.stderr.splitlines()[-1]


@pytest.mark.jvm
@pytest.mark.parametrize("code", [0, 7])
def test_launch_exits_with_the_jvms_exit_code(tmp_path, code):
    (tmp_path / "Exit.java").write_text(
        "public class Exit { public static void main(String[] a) { System.exit(Integer.parseInt(a[0])); } }")
    subprocess.run(["javac", "-d", str(tmp_path), str(tmp_path / "Exit.java")], check=True, timeout=120)
    result = run("launch", "--jdwp", "127.0.0.1:0", "--", "java", "-cp", str(tmp_path), "Exit", str(code))
    assert result.returncode == code, result.stderr
    assert "jdwpd: listening for debuggers at 127.0.0.1:" in result.stderr


def test_attach_to_a_missing_process_is_one_line():
    pid = 2**22 + 12345  # beyond pid_max's default: never a live process
    result = run("attach", str(pid), "--jdwp", "127.0.0.1:0")
    assert result.returncode == 2
    assert f"no process with pid {pid}" in one_error_line(result)


@pytest.mark.jvm
def test_attach_refused_by_disable_attach_mechanism(tmp_path):
    (tmp_path / "Wait.java").write_text(
        "public class Wait { public static void main(String[] a) throws Exception { Thread.sleep(60000); } }")
    subprocess.run(["javac", "-d", str(tmp_path), str(tmp_path / "Wait.java")], check=True, timeout=120)
    jvm = subprocess.Popen(["java", "-XX:+DisableAttachMechanism", "-cp", str(tmp_path), "Wait"])
    try:
        result = run("attach", str(jvm.pid), "--jdwp", "127.0.0.1:0")
        assert result.returncode == 2
        assert "DisableAttachMechanism" in one_error_line(result)
        assert jvm.poll() is None  # the JVM is unharmed
    finally:
        jvm.kill()
        jvm.wait()


def test_serve_refuses_a_secret_file_others_can_read(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("00" * 32)
    os.chmod(secret, 0o644)
    result = run("serve", "--link", f"unix:{tmp_path / 'link.sock'}", "--secret-file", str(secret),
                 "--jdwp", "127.0.0.1:0")
    assert result.returncode == 2
    assert "readable by others" in one_error_line(result)
