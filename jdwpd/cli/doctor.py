"""`jdwpd --version` and `jdwpd doctor`: what this installation is, and what this machine offers.

One line per fact, so that a bug report can paste them. Nothing here imports trio or the daemon:
both run in a fraction of a second, except the one check that starts a JVM under jdwpd.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable

from jdwpd import __version__
from jdwpd.own_command import jdwpd_argv
from protocol.agent_code import IN_PLACE_JDKS

AGENT_DIR = pathlib.Path(__file__).resolve().parents[1] / "_agent"
#: The first JDK whose JVMTI serves virtual threads (docs/virtual_threads.md).
VIRTUAL_THREADS_JDK = 21
#: The JDK feature releases jdwpd supports: the suites run on each (.ci/other_jdks; docs/jdks.md).
SUPPORTED_JDKS = (11, 17, 21, 25)
#: What jdwpd cannot do on a JDK older than 21, and why (docs/jdks.md, "JDK 11").
BEFORE_21_LIMITS = ("no virtual threads (they arrive with JDK 21: no Thread.ofVirtual, no JVMTI 21 functions; "
                    "--include-virtual-threads lists nothing more)")


def build_facts() -> dict:
    """What the build recorded about the agent (setup.py writes _agent/build.json)."""
    try:
        return json.loads((AGENT_DIR / "build.json").read_text())
    except (OSError, ValueError):
        return {}


def version_text() -> str:
    facts = build_facts()
    if not (AGENT_DIR / "libjdwpd_agent.so").is_file():
        agent = "agent not built"
    elif facts:
        vendor = f" ({facts['jdk_implementor']})" if facts.get("jdk_implementor") else ""
        agent = f"agent built against JDK {facts.get('jdk_version', '?')}{vendor} with {facts.get('compiler', '?')}"
    else:
        agent = "agent built (no build record)"
    return f"jdwpd {__version__} ({agent}; Python {sys.version.split()[0]})"


def java_version(java: str) -> tuple[str, int | None]:
    """``java -version``'s first line and the feature release number, or the reason it failed."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot run: {e}", None
    first = (out.stderr or out.stdout).splitlines()[:1]
    text = first[0] if first else f"exit status {out.returncode}"
    m = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if not m:
        return text, None
    feature = int(m.group(1))
    if feature == 1 and m.group(2):  # 1.8.0_x
        feature = int(m.group(2))
    return text, feature


def agent_loads(java: str) -> str:
    """Start ``java -version`` under ``jdwpd launch``: the agent loads, proves the secret over the link
    and the JVM ends. Returns "" on success, else the reason."""
    cmd = [*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", "--", java, "-version"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return "no answer within 60 s"
    if out.returncode == 0:
        return ""
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else f"exit status {out.returncode}"


def attach_facts() -> str:
    """HotSpot's dynamic attach needs the same user and a shared /tmp; ptrace is not involved, but a
    bug report about attach is easier to read with the scope in it."""
    try:
        scope = pathlib.Path("/proc/sys/kernel/yama/ptrace_scope").read_text().strip()
    except OSError:
        scope = "n/a"
    tmp_ok = os.access(tempfile.gettempdir(), os.W_OK)
    verdict = "permitted" if tmp_ok else f"blocked ({tempfile.gettempdir()} not writable)"
    return (f"{verdict} for JVMs of user {os.geteuid()} (HotSpot attach socket in /tmp; ptrace_scope={scope}, "
            "not used by HotSpot attach)")


def release_feature(java: str) -> int | None:
    """The feature release the ``release`` file of ``java``'s home states (JAVA_VERSION="26"), or None."""
    home = pathlib.Path(os.path.realpath(java)).parent.parent
    try:
        m = re.search(r'^JAVA_VERSION="(\d+)(?:\.(\d+))?', (home / "release").read_text(errors="replace"), re.MULTILINE)
    except OSError:
        return None
    if not m:
        return None
    return int(m.group(2)) if m.group(1) == "1" and m.group(2) else int(m.group(1))


def locals_in_place(java: str, feature: int | None = None) -> str:
    """How the agent will read a breakpoint condition's locals in this java (docs/extensions.md, "How
    the agent reads locals"): in place needs x86_64, a JDK feature version among those the suites test
    it on (protocol/agent_code.py IN_PLACE_JDKS, the list the agent's gate reads: agent/hotspot_gate.h)
    and a libjvm that exports HotSpot's VMStructs; the agent checks in that order, and so does this.
    `feature` is ``java -version``'s (java_version); without it, the release file's."""
    tested = ", ".join(str(v) for v in IN_PLACE_JDKS)
    if platform.machine() not in ("x86_64", "AMD64", "amd64"):
        return f"by a stack walk: reading in place knows the interpreter frames of x86_64, not {platform.machine()}"
    if feature is None:
        feature = release_feature(java)
    if feature is None:
        return (f"by a stack walk: this java's JDK version is unreadable, and reading in place is only for "
                f"the versions tested for it ({tested})")
    if feature not in IN_PLACE_JDKS:
        return f"by a stack walk: JDK {feature} is not among the versions tested for reading in place ({tested})"
    home = pathlib.Path(os.path.realpath(java)).parent.parent
    libjvm = next((p for p in (home / "lib" / "server" / "libjvm.so", home / "jre" / "lib" / "server" / "libjvm.so")
                   if p.is_file()), None)
    if libjvm is None:
        return f"by a stack walk: no lib/server/libjvm.so under {home} (not HotSpot?)"
    wanted, tail = b"gHotSpotVMStructs", b""
    with open(libjvm, "rb") as f:
        while chunk := f.read(1 << 20):
            if wanted in tail + chunk:
                return (f"in place: JDK {feature} is tested for it ({tested}), HotSpot's VMStructs exported, "
                        "x86_64; checked at every hit")
            tail = chunk[-len(wanted):]
    return f"by a stack walk: {libjvm} exports no VMStructs"


def jdk_support(feature: int | None) -> tuple[str, bool]:
    """Whether jdwpd supports this JDK release, and what it cannot do there (docs/jdks.md)."""
    tested = ", ".join(map(str, SUPPORTED_JDKS))
    if feature is None:
        return f"unknown (java version unreadable); supported: JDK {tested}", True
    if feature < SUPPORTED_JDKS[0]:
        return (f"NO: JDK {feature} is older than {SUPPORTED_JDKS[0]}, the oldest jdwpd supports "
                f"(supported: {tested})"), False
    if feature in SUPPORTED_JDKS:
        text = f"JDK {feature}, supported and tested (supported: {tested})"
    elif feature > SUPPORTED_JDKS[-1]:
        text = (f"JDK {feature} is newer than any tested ({tested}): expected to work, HotSpot's internals are "
                "not read (see the locals line)")
    else:
        text = f"JDK {feature} is not tested (supported: {tested}); the releases around it are"
    if feature < VIRTUAL_THREADS_JDK:
        text += f"; on JDK {feature}: {BEFORE_21_LIMITS}"
        if feature not in IN_PLACE_JDKS and feature <= SUPPORTED_JDKS[-1]:
            text += ("; in-VM conditions read locals by a stack walk, not in place (HotSpot's internals are read "
                     f"only on the JDKs tested for it: {', '.join(map(str, IN_PLACE_JDKS))}; see the locals line)")
    return text, True


def run_doctor(out: Callable[[str], object] = print) -> int:
    """Print the facts; exit status 0 when jdwpd can debug a JVM on this machine, 1 otherwise."""
    ok = True
    out(f"version: {version_text()}")
    out(f"package: {pathlib.Path(__file__).resolve().parents[1]}")
    agent = AGENT_DIR / "libjdwpd_agent.so"
    if agent.is_file():
        out(f"agent: {agent}")
    else:
        out(f"agent: MISSING ({agent}): reinstall jdwpd (`pip install .` builds it; needs gcc and a JDK)")
        ok = False
    sample = pathlib.Path(__file__).resolve().parents[1] / "samples" / "Sample.class"
    out(f"demo sample: {'compiled, ready' if sample.is_file() else 'not compiled: `jdwpd demo` will need javac'}")
    java = os.environ.get("JDWPD_JAVA") or shutil.which("java")
    if java is None and os.environ.get("JAVA_HOME"):
        candidate = pathlib.Path(os.environ["JAVA_HOME"]) / "bin" / "java"
        java = str(candidate) if candidate.is_file() else None
    if java is None:
        out("java: NOT FOUND on PATH: install a Java runtime (apt-get install openjdk-17-jre-headless)")
        return 1
    out(f"java: {os.path.realpath(java)}")
    text, feature = java_version(java)
    out(f"java version: {text}")
    support, supported = jdk_support(feature)
    out(f"java support: {support}")
    ok = ok and supported
    reason = agent_loads(java) if agent.is_file() else "agent missing"
    out(f"agent loads into this java: {'yes' if not reason else 'NO: ' + reason}")
    ok = ok and not reason
    out(f"dynamic attach (jdwpd attach PID): {attach_facts()}")
    out(f"locals of in-VM conditions: read {locals_in_place(java, feature)}")
    if feature is None:
        out("virtual threads: unknown (java version unreadable)")
    elif feature >= VIRTUAL_THREADS_JDK:
        out(f"virtual threads: yes (JDK {feature}; listed with --include-virtual-threads)")
    else:
        out(f"virtual threads: no (JDK {feature}; they arrive with JDK {VIRTUAL_THREADS_JDK})")
    javac = shutil.which("javac")
    out(f"javac: {os.path.realpath(javac) if javac else 'not found (not needed to run jdwpd)'}")
    return 0 if ok else 1
