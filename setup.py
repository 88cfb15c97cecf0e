"""Builds the native JVMTI agent as part of `pip install`.

The agent is not a Python extension: it is a plain shared library that the JVM
loads with -agentpath.  We still hang it on build_ext so that regular and
editable installs both compile it and place it inside the package.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
AGENT_NAME = "jdwpd._agent.libjdwpd_agent"
CFLAGS = ["-std=c99", "-O2", "-g", "-fPIC", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-pthread"]


def find_java_home():
    """JAVA_HOME if it has jni.h, else the JDK that `javac` on PATH belongs to."""
    candidates = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    javac = shutil.which("javac")
    if javac:
        candidates.append(Path(os.path.realpath(javac)).parent.parent)
    for home in candidates:
        if (home / "include" / "jni.h").is_file():
            return home
    return None


class BuildAgent(build_ext):
    def get_ext_filename(self, fullname):
        # distutils asks with the last name part (get_ext_fullpath), setuptools' editable
        # install with the full dotted name: both must land on the same plain .so name
        if fullname == AGENT_NAME:
            return os.path.join(*fullname.split(".")) + ".so"
        if fullname == AGENT_NAME.rsplit(".", 1)[1]:
            return fullname + ".so"
        return super().get_ext_filename(fullname)

    def build_extension(self, ext):
        if ext.name != AGENT_NAME:
            return super().build_extension(ext)
        home = find_java_home()
        if home is None:
            sys.stderr.write(
                "\njdwpd: JDK headers (jni.h, jvmti.h) not found: install a JDK "
                "(apt-get install openjdk-17-jdk-headless) or set JAVA_HOME to one.\n\n")
            raise SystemExit(1)
        cc = os.environ.get("CC", "gcc")
        out = Path(self.get_ext_fullpath(ext.name))
        out.parent.mkdir(parents=True, exist_ok=True)
        sources = sorted(str(p) for p in (ROOT / "agent").glob("*.c"))
        cmd = [cc, *CFLAGS, "-shared", f"-I{home / 'include'}", f"-I{home / 'include' / 'linux'}",
               f"-I{ROOT / 'agent'}", "-o", str(out), *sources, "-lpthread"]
        self.announce(" ".join(cmd), level=2)
        subprocess.run(cmd, check=True)


setup(
    ext_modules=[Extension(AGENT_NAME, sources=[])],
    cmdclass={"build_ext": BuildAgent},
)
