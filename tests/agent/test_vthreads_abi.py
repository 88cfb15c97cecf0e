"""agent/vthreads.h defines JDK 21's virtual-thread JVMTI/JNI names by position, because the agent is
built against the JDK 17 headers: each position must be where a JDK 21+ jvmti.h and jni.h name it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from jdwpd.testing import jdks

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-pthread"]


@pytest.fixture(scope="module")
def jdk21() -> jdks.Jdk:
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    jdk = jdks.find_jdk(21, under_test=False)  # its headers: not the JDK under test
    if jdk is None:
        pytest.skip(jdks.MISSING_REASON.format(n=21))
    return jdk


def _includes(jdk: jdks.Jdk) -> list[str]:
    return [f"-I{jdk.include}", f"-I{jdk.include / 'linux'}", f"-I{ROOT / 'agent'}"]


def test_positions_match_the_jdk21_headers(jdk21, tmp_path):
    exe = tmp_path / "vthreads_abi"
    source = ROOT / "tests/agent/c/vthreads_abi.c"
    build = subprocess.run(["gcc", *FLAGS, *_includes(jdk21), "-o", str(exe), str(source)],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0 and run.stdout.strip() == "OK", run.stdout + run.stderr


def test_agent_also_builds_against_the_jdk21_headers(jdk21, tmp_path):
    """Nothing in vthreads.h clashes with the names the newer headers bring.  Built unoptimized: a clash
    is a compile error at any level, and the warnings that need -O2's analysis are about our own code,
    which the session's -O2 build (tests/agent/conftest.py) checks; -O2 took 2.6 times as long (11.1 s, loaded)."""
    sources = sorted(str(p) for p in (ROOT / "agent").glob("*.c"))
    out = tmp_path / "agent.so"
    build = subprocess.run(["gcc", *FLAGS, "-O0", "-fPIC", "-shared", *_includes(jdk21), "-o", str(out), *sources,
                            "-lpthread", "-ldl"], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
