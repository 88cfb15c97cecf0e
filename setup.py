"""Builds the native JVMTI agent and the demo's classes as part of `pip install`.

The agent is not a Python extension: it is a plain shared library that the JVM
loads with -agentpath.  We still hang it on build_ext so that regular and
editable installs both compile it and place it inside the package.  The same
step compiles the bundled sample for the oldest JDK we support, so that an
installed jdwpd needs only `java` at run time (no javac, no JDK headers), and
records what the agent was built against for `jdwpd --version`.
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
AGENT_NAME = "jdwpd._agent.libjdwpd_agent"
#: The oldest JDK jdwpd supports: the sample's class files target it, so every supported JVM runs them.
OLDEST_JDK = 11
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
               f"-I{ROOT / 'agent'}", "-o", str(out), *sources, "-lpthread", "-ldl"]
        self.announce(" ".join(cmd), level=2)
        subprocess.run(cmd, check=True)
        self.compile_sample(home, out.parent.parent / "samples")
        facts = out.parent / "build.json"
        facts.write_text(json.dumps(build_facts(home, cc), indent=1) + "\n")
        self.extra_outputs = [facts, *sorted((out.parent.parent / "samples").iterdir())]

    def extra_mapping(self):
        """Build-dir file -> source-tree file, for inplace and editable installs (as the .so is mapped)."""
        build_lib = Path(self.build_lib).resolve()
        for path in getattr(self, "extra_outputs", []):
            path = Path(path).resolve()
            if build_lib in path.parents:
                yield str(path), str(ROOT / path.relative_to(build_lib))

    def get_outputs(self):
        return [*super().get_outputs(), *(str(p) for p in getattr(self, "extra_outputs", []))]

    def get_output_mapping(self):
        mapping = dict(super().get_output_mapping())
        if self.inplace:
            mapping.update(self.extra_mapping())
        return dict(sorted(mapping.items()))

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        for regular, inplace in self.extra_mapping():
            if regular != inplace:
                self.copy_file(regular, inplace, level=self.verbose)

    def compile_sample(self, home, dest):
        javac = home / "bin" / "javac"
        if not javac.is_file():
            sys.stderr.write(f"\njdwpd: javac not found in {home}: the build compiles the demo's sample; install "
                             "a full JDK (apt-get install openjdk-17-jdk-headless) or set JAVA_HOME to one.\n\n")
            raise SystemExit(1)
        dest.mkdir(parents=True, exist_ok=True)
        source = ROOT / "jdwpd" / "samples" / "Sample.java"
        if dest.resolve() != source.parent.resolve():
            shutil.copy2(source, dest / source.name)
        cmd = [str(javac), "-g", "--release", str(OLDEST_JDK), "-encoding", "UTF-8", "-d", str(dest), str(source)]
        self.announce(" ".join(cmd), level=2)
        subprocess.run(cmd, check=True)


def build_facts(home, cc):
    """What `jdwpd --version` reports about the agent's build."""
    release = {}
    release_file = home / "release"
    if release_file.is_file():
        for line in release_file.read_text(errors="replace").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                release[key.strip()] = value.strip().strip('"')
    compiler = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()
    return {"jdk_version": release.get("JAVA_VERSION", "unknown"),
            "jdk_runtime_version": release.get("JAVA_RUNTIME_VERSION", ""),
            "jdk_implementor": release.get("IMPLEMENTOR", ""),
            "jdk_home": str(home), "compiler": compiler[0] if compiler else cc,
            "sample_release": OLDEST_JDK}


def scratch_options():
    """pip builds in the checkout itself: setuptools' build/ and jdwpd.egg-info go to a folder of
    their own, removed when this build step ends, so that `pip install .` leaves the checkout as it
    found it (an editable install still writes the agent into jdwpd/_agent/, where it is ignored)."""
    scratch = tempfile.mkdtemp(prefix="jdwpd-build-")
    atexit.register(shutil.rmtree, scratch, True)
    return {"build": {"build_base": os.path.join(scratch, "build")}, "egg_info": {"egg_base": scratch}}


setup(
    ext_modules=[Extension(AGENT_NAME, sources=[])],
    cmdclass={"build_ext": BuildAgent},
    options=scratch_options(),
)
