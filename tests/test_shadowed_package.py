"""Every process jdwpd starts runs the installed jdwpd, whatever the current folder holds (issue 28).

A user standing in a clone of this repository (or in a project that vendors us) has a `jdwpd/`
folder in the current directory; `python -m jdwpd` would import it instead of the installed
package. Here that folder is a decoy that says so and fails; jdwpd's children must never reach it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jdwpd.testing import jvm

DECOY = "print('DECOY jdwpd imported from the working directory'); raise SystemExit(97)\n"


@pytest.fixture
def standing_in_a_clone(tmp_path) -> Path:
    """A working directory with a `jdwpd/` package that is not the installed one."""
    where = tmp_path / "clone"
    (where / "jdwpd").mkdir(parents=True)
    (where / "jdwpd" / "__init__.py").write_text(DECOY)
    (where / "jdwpd" / "__main__.py").write_text(DECOY)
    return where


def test_the_decoy_would_be_picked_up_by_a_plain_python_m(standing_in_a_clone):
    """The failure the fix is about: without -P, the working directory's jdwpd/ wins."""
    result = subprocess.run([sys.executable, "-m", "jdwpd", "--version"], cwd=standing_in_a_clone,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 97 and "DECOY" in result.stdout


@pytest.mark.jvm
def test_the_api_launch_starts_the_installed_daemon(standing_in_a_clone, tmp_path, sample_classes):
    """`jdwpd.launch` from a script, run where the current folder holds a jdwpd/ folder."""
    script = tmp_path / "script.py"   # the script's folder, not the clone, is sys.path[0]
    script.write_text(textwrap.dedent(f"""
        import trio, jdwpd
        async def main():
            argv = [{jvm.java_executable()!r}, "-cp", {str(sample_classes)!r}, "Sample"]
            async with jdwpd.launch(argv, suspend=True, timeout=60) as vm:
                print("threads", len(await vm.threads()))
                await vm.resume()
                print("exit", await vm.process.wait(timeout=60))
        trio.run(main)
    """))
    result = subprocess.run([sys.executable, str(script)], cwd=standing_in_a_clone, capture_output=True,
                            text=True, timeout=180)
    assert "DECOY" not in result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    assert "threads" in result.stdout and "exit 0" in result.stdout, result.stdout


@pytest.mark.jvm
def test_doctor_checks_the_installed_agent(standing_in_a_clone):
    result = subprocess.run([sys.executable, "-P", "-m", "jdwpd", "doctor"], cwd=standing_in_a_clone,
                            capture_output=True, text=True, timeout=120)
    assert "DECOY" not in result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_java_home_runs_the_installed_jdwpd_from_any_folder(standing_in_a_clone, tmp_path):
    """`jdwpd java-home`'s bin/java is what an IDE runs in the user's project folder."""
    home = tmp_path / "jdk-jdwpd"
    subprocess.run([sys.executable, "-P", "-m", "jdwpd", "java-home", str(home)], check=True,
                   capture_output=True, timeout=60)
    result = subprocess.run([str(home / "bin" / "java"), "-version"], cwd=standing_in_a_clone,
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "JAVA_HOME": ""})
    assert "DECOY" not in result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
