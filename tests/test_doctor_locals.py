"""`jdwpd doctor` says how in-VM conditions will read locals in a given java, and why: in place only on
the JDK feature versions tested for it (protocol/agent_code.py IN_PLACE_JDKS, the list the agent's gate
reads: agent/hotspot_gate.h), else by a stack walk.  A JDK 26 is faked by a script named java that
prints its banner, in a home whose release file says 26 and whose libjvm is this machine's real one
(VMStructs exported): the version alone must send it to the walk."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from jdwpd.cli import doctor
from jdwpd.own_command import jdwpd_argv
from protocol.agent_code import IN_PLACE_JDKS

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="reading in place is for x86_64 only")

WALK_26 = "by a stack walk: JDK 26 is not among the versions tested for reading in place (17, 21, 25)"


def real_java() -> Path:
    java = shutil.which("java")
    if java is None:
        pytest.skip("needs a java")
    return Path(os.path.realpath(java))


def fake_home(tmp_path: Path, banner: str, release: str | None) -> str:
    """A JDK home with a java that prints `banner` as `java -version` does (and fails anything else),
    the real java's libjvm, and a release file saying `release`."""
    real = real_java().parent.parent
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "lib" / "server").mkdir(parents=True)
    (home / "lib" / "server" / "libjvm.so").symlink_to(real / "lib" / "server" / "libjvm.so")
    if release is not None:
        (home / "release").write_text(f'IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="{release}"\n')
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho '{banner}' >&2\nfor a; do [ \"$a\" = -version ] && exit 0; done\nexit 1\n")
    java.chmod(0o755)
    return str(java)


def test_the_tested_versions_are_the_agents():
    assert IN_PLACE_JDKS == (17, 21, 25)


def test_a_jdk_26_is_read_by_a_walk_and_told_why(tmp_path):
    java = fake_home(tmp_path, 'openjdk version "26" 2026-03-17', "26")
    text, feature = doctor.java_version(java)
    assert feature == 26, text
    assert doctor.locals_in_place(java, feature) == WALK_26
    assert doctor.locals_in_place(java) == WALK_26  # the release file says the same


def test_the_release_file_serves_when_the_banner_is_unreadable(tmp_path):
    java = fake_home(tmp_path, "something else", "26.0.1")
    assert doctor.java_version(java)[1] is None
    assert doctor.locals_in_place(java, None) == WALK_26
    tested = fake_home(tmp_path / "25", "something else", "25.0.2")
    assert doctor.locals_in_place(tested, None).startswith("in place: JDK 25 is tested for it (17, 21, 25)")
    unknown = fake_home(tmp_path / "none", "something else", None)
    assert doctor.locals_in_place(unknown, None).startswith("by a stack walk: this java's JDK version is unreadable")


def test_an_untested_jdk_11_is_read_by_a_walk(tmp_path):
    java = fake_home(tmp_path, 'openjdk version "11.0.13" 2021-10-19', "11.0.13")
    assert doctor.locals_in_place(java, doctor.java_version(java)[1]) == (
        "by a stack walk: JDK 11 is not among the versions tested for reading in place (17, 21, 25)")


def test_this_machines_java_is_read_in_place_when_tested():
    java = str(real_java())
    feature = doctor.java_version(java)[1]
    answer = doctor.locals_in_place(java, feature)
    if feature in IN_PLACE_JDKS:
        assert answer.startswith(f"in place: JDK {feature} is tested for it"), answer
    else:
        assert answer.startswith("by a stack walk: "), answer


def test_jdwpd_doctor_names_the_path_for_the_java_it_is_given(tmp_path):
    java = fake_home(tmp_path, 'openjdk version "26" 2026-03-17', "26")
    result = subprocess.run([*jdwpd_argv(), "doctor"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "JDWPD_JAVA": java}, cwd=tmp_path)
    assert f"locals of in-VM conditions: read {WALK_26}" in result.stdout, result.stdout + result.stderr


def test_the_support_line_says_what_jdk_11_cannot_do_and_why():
    """docs/jdks.md, "JDK 11": no virtual threads (JDK 21's), and conditions' locals by a walk (not tested in place)."""
    text, supported = doctor.jdk_support(11)
    assert supported and text.startswith("JDK 11, supported and tested (supported: 11, 17, 21, 25)"), text
    assert "no virtual threads (they arrive with JDK 21" in text, text
    assert "in-VM conditions read locals by a stack walk, not in place" in text and "17, 21, 25" in text, text
    assert doctor.jdk_support(21) == ("JDK 21, supported and tested (supported: 11, 17, 21, 25)", True)
    assert not doctor.jdk_support(8)[1]
