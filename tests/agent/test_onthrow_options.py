"""onthrow=/onuncaught= on the agent and on `jdwpd launch`: what is refused, and that a dormant agent
stays away from the daemon until its exception (the sessions themselves: tests/differential/test_onthrow.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from agent_support import assert_refused, java_with_agent

from jdwpd.daemon.link.launcher import new_secret_file
from jdwpd.own_command import jdwpd_argv


def test_bad_onthrow_options_exit_2_with_one_line(agent_so, classes, tmp_path):
    _, secret = new_secret_file(tmp_path)
    base = f"link=unix:/tmp/x.sock,secretfile={secret}"
    cases = {
        f"{base},onthrow=java.lang.Error,profile=nothrow": "need profile=full",
        f"{base},onuncaught=y,profile=inspect": "need profile=full",
        f"{base},onuncaught=maybe": "'onuncaught'",
        f"{base},onthrow=": "'onthrow'",
        f"{base},onthrow=[I": "'onthrow'",
        f"{base},onthrow=java.lang.Error,launch=/bin/echo": "'launch' is not the agent's",
    }
    assert_refused(agent_so, classes, cases)


@pytest.mark.parametrize("trigger", ["onthrow=NeverThrown", "onuncaught=y", None])
def test_a_dormant_agent_never_connects_without_its_exception(agent_so, classes, tmp_path, trigger):
    secret, secret_path = new_secret_file(tmp_path)
    path = tmp_path / "link.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(path))
        listener.listen(4)
        listener.setblocking(False)
        opts = f"link=unix:{path},secretfile={secret_path}" + (f",{trigger}" if trigger else "")
        result = java_with_agent(agent_so, classes, opts)
        assert result.returncode == 0 and result.stdout.strip() == "hello", result
        try:
            listener.accept()[0].close()
            connected = True
        except BlockingIOError:
            connected = False
    # Without a trigger option the agent connects at VMInit (the control: the check can see it).
    assert connected == (trigger is None)


def test_with_no_daemon_the_woken_agent_lets_every_thread_go_after_its_timeout(agent_so, tmp_path):
    """suspend=y stops every thread at the trigger; with nobody at the link address for timeout= ms the
    program runs on, the other threads too (the debuggee checks that its ticker thread counts again)."""
    from jdwpd.testing import debuggees

    sources = Path(__file__).resolve().parents[1] / "differential" / "onthrow_java"
    _, secret_path = new_secret_file(tmp_path)
    opts = (f"link=unix:{tmp_path / 'nobody.sock'},secretfile={secret_path},suspend=y,timeout=300,"
            f"onthrow=java.lang.IllegalStateException")
    result = subprocess.run(["java", f"-agentpath:{agent_so}={opts}", "-cp", str(debuggees.compile_sources(sources)),
                             "Trigger"], input="go\n", capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result
    assert result.stdout.splitlines() == ["ready", "subclass caught", "after -4", "ticker runs"], result


def _launch(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", *args, "--", "java",
                           "-version"], capture_output=True, text=True, timeout=60)


def test_launch_refuses_what_cannot_work():
    for args, needle in [(("--onthrow", "java.lang.Error", "--profile", "nothrow"), "--profile full"),
                         (("--onuncaught", "--profile", "inspect"), "--profile full"),
                         (("--launch", "/bin/echo"), "--onthrow or --onuncaught"),
                         (("--onthrow", "a;b"), "not a class name")]:
        result = _launch(*args)
        assert result.returncode == 2, (args, result)
        assert needle in result.stderr, (args, result.stderr)
