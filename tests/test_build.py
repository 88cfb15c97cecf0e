"""The agent builds from source, warning-free, and the install explains a missing JDK in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jdwpd.own_command import jdwpd_argv

ROOT = Path(__file__).resolve().parents[1]


def java_home() -> Path:
    javac = shutil.which("javac")
    assert javac, "javac must be on PATH for the tests"
    return Path(os.path.realpath(javac)).parent.parent


def test_agent_builds_with_all_warnings_as_errors(tmp_path):
    home = java_home()
    out = tmp_path / "libjdwpd_agent.so"
    sources = sorted(str(p) for p in (ROOT / "agent").glob("*.c"))
    assert sources, "agent/ has no C sources"
    cmd = ["gcc", "-std=c99", "-O2", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-pthread",
           f"-I{home / 'include'}", f"-I{home / 'include' / 'linux'}", f"-I{ROOT / 'agent'}", "-o", str(out),
           *sources, "-lpthread", "-ldl"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0


def test_link_header_is_generated_from_the_python_tables():
    result = subprocess.run([sys.executable, "-m", "protocol.gen_c_header", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_install_without_jdk_headers_says_what_to_do(tmp_path):
    """No jni.h anywhere: one clear line, not a compiler traceback."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("gcc", "cc"):
        if shutil.which(tool):
            (bindir / tool).symlink_to(shutil.which(tool))
    env = {"PATH": str(bindir), "HOME": str(tmp_path), "JAVA_HOME": str(tmp_path / "no-jdk")}
    result = subprocess.run([sys.executable, str(ROOT / "setup.py"), "-q", "build_ext", "--build-lib",
                             str(tmp_path / "build"), "--build-temp", str(tmp_path / "tmp")],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert any("JDK headers" in line and "openjdk-17-jdk-headless" in line and "JAVA_HOME" in line
               for line in lines), result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.jvm
def test_agent_path_is_loadable_by_java():
    path = subprocess.run([*jdwpd_argv(), "agent-path"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert path.returncode == 0, path.stderr
    lib = Path(path.stdout.strip())
    assert lib.is_absolute() and lib.is_file()


def test_cli_help_and_version():
    for args in (["--help"], ["--version"], ["launch", "--help"]):
        result = subprocess.run([*jdwpd_argv(), *args], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
    version = subprocess.run([*jdwpd_argv(), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("jdwpd ")


def test_agent_compiles_without_feature_macros_on_the_command_line():
    """Each source asks for the POSIX it uses, so plain `gcc -std=c99` (as the review hook runs it) is clean."""
    home = java_home()
    sources = sorted(str(p) for p in (ROOT / "agent").glob("*.c"))
    cmd = ["gcc", "-std=c99", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{home / 'include'}",
           f"-I{home / 'include' / 'linux'}", f"-I{ROOT / 'agent'}", *sources]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_the_agents_java_class_header_is_made_from_its_source():
    result = subprocess.run([sys.executable, str(ROOT / "agent" / "java" / "class_header.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_every_tracked_data_file_of_the_packages_is_package_data():
    """`pip install .` takes a package's non-Python files only where pyproject's package-data names them:
    a file tracked in jdwpd/ or protocol/ and named by no pattern is missing from every user's install."""
    import fnmatch
    import tomllib

    root = Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(["git", "ls-files", "jdwpd", "protocol"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.split()
    missing = []
    for path in tracked:
        if path.endswith(".py"):
            continue
        package, _, inside = path.partition("/")
        if not any(fnmatch.fnmatch(inside, p) for p in patterns.get(package, [])):
            missing.append(path)
    assert missing == []
