"""A daemon's folder goes with it; a killed daemon's folder goes with the next daemon's start."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from jdwpd.daemon.link import workdirs
from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import jvm


def folder(root: Path, name: str, owner: str | None, *, mode: int = 0o700, age: float = 0.0) -> Path:
    path = root / f"jdwpd-{name}"
    path.mkdir(mode=mode)
    path.chmod(mode)
    if owner is not None:
        (path / "owner").write_text(owner + "\n")
    if age:
        then = time.time() - age
        os.utime(path, (then, then))
    return path


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_the_sweep_takes_only_folders_whose_owner_is_surely_gone(tmp_path):
    me = f"{os.getpid()} {workdirs.process_start_time(os.getpid())}"
    live = folder(tmp_path, "live", me)
    dead = folder(tmp_path, "dead", f"{dead_pid()} 12345")
    reused = folder(tmp_path, "reused", f"{os.getpid()} 1")  # our pid, another start time: another process
    young = folder(tmp_path, "young-unrecorded", None)
    old = folder(tmp_path, "old-unrecorded", None, age=2 * workdirs.UNRECORDED_GRACE_SECONDS)
    shared = folder(tmp_path, "shared", f"{dead_pid()} 1", mode=0o755)  # no daemon of ours made that
    jvm_dir = folder(tmp_path, "jvm-x", f"{dead_pid()} 1")  # the test kit's, not a daemon's
    other = tmp_path / "other-dead"
    other.mkdir()
    removed = set(workdirs.sweep_stale(str(tmp_path)))
    assert removed == {str(dead), str(reused), str(old)}
    for kept in (live, young, shared, jvm_dir, other):
        assert kept.exists(), kept


def test_made_folders_are_private_and_name_their_owner(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    path = Path(workdirs.make_workdir())
    try:
        assert path.parent == tmp_path
        assert path.stat().st_mode & 0o777 == 0o700
        pid, started = (path / "owner").read_text().split()
        assert int(pid) == os.getpid() and started == workdirs.process_start_time(os.getpid())
        assert workdirs.sweep_stale(str(tmp_path)) == []
    finally:
        import shutil

        shutil.rmtree(path)


@pytest.mark.jvm
def test_a_killed_daemons_folder_is_removed_by_the_next_daemon(tmp_path):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    daemon = subprocess.Popen([*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", "--suspend", "--",
                               "java", "-version"], stderr=subprocess.PIPE, text=True, env=env,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        for line in daemon.stderr:
            if re.search(r"listening for debuggers", line) or time.monotonic() > deadline:
                break
        left = [p for p in tmp_path.iterdir() if p.name.startswith("jdwpd-")]
        assert len(left) == 1 and (left[0] / "link.sock").exists(), left
    finally:
        os.killpg(daemon.pid, signal.SIGKILL)  # the daemon and its JVM: no finally of theirs runs
        daemon.wait(30)
    assert left[0].exists(), "a SIGKILLed daemon cannot have removed its folder"
    again = subprocess.run([*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", "--", "java",
                            "-version"], capture_output=True, text=True, env=env, timeout=60)
    assert again.returncode == 0, again.stderr
    assert not left[0].exists()
    assert [p for p in tmp_path.iterdir() if p.name.startswith("jdwpd-")] == []
