"""agent/hotspot_gate.h: HotSpot's internals are read only on the JDK feature versions the suites test
reading in place on (protocol/agent_code.py IN_PLACE_JDKS, carried to C by the generated header); a
version a test fakes can take the reads away, never allow them.  The same gate on a real JVM:
tests/ext/test_hotspot_gate.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from protocol.agent_code import IN_PLACE_JDKS

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"]


def jvmti_version(feature: int, minor: int = 0, micro: int = 0) -> int:
    """What GetVersionNumber gives on JDK `feature` (JVMTI_VERSION in its jvmti.h; JDK 8's is 1.2)."""
    if feature == 8:
        return 0x30010200 + micro
    return 0x30000000 + (feature << 16) + (minor << 8) + micro


@pytest.fixture(scope="module")
def gate(tmp_path_factory) -> Path:
    javac = shutil.which("javac")
    if shutil.which("gcc") is None or javac is None:
        pytest.skip("needs gcc and a JDK's headers")
    home = Path(os.path.realpath(javac)).parent.parent
    exe = tmp_path_factory.mktemp("gate") / "hotspot_gate"
    build = subprocess.run(["gcc", *FLAGS, f"-I{home / 'include'}", f"-I{home / 'include' / 'linux'}",
                            f"-I{ROOT / 'agent'}", "-o", str(exe), str(ROOT / "tests/agent/c/hotspot_gate.c")],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    return exe


def decide(gate: Path, cases: list[tuple[int, int]]) -> list[tuple[int, str, int]]:
    args = [str(a) for version, faked in cases for a in (hex(version), faked)]
    run = subprocess.run([str(gate), *args], capture_output=True, text=True, timeout=30, check=True)
    rows = [line.split() for line in run.stdout.splitlines()]
    assert len(rows) == len(cases), run.stdout
    return [(int(feature), verdict, int(untested)) for _, feature, verdict, untested in rows]


def test_the_list_is_the_tested_one():
    """Changing it means running tests/ext/test_slots.py and test_live_locals.py on the new JDK first."""
    assert IN_PLACE_JDKS == (17, 21, 25)


def test_only_the_tested_feature_versions_are_allowed(gate):
    features = [8, 9, 11, 16, 17, 18, 20, 21, 22, 24, 25, 26, 27, 40]
    cases = [(jvmti_version(f, minor, micro), 0) for f in features for minor, micro in ((0, 0), (0, 2), (1, 0))]
    got = decide(gate, cases)
    for (version, _), (feature, verdict, untested) in zip(cases, got, strict=True):
        expected = 1 if version < 0x30020000 else version >> 16 & 0xFFF
        assert feature == expected, hex(version)
        allowed = feature in IN_PLACE_JDKS
        assert verdict == ("allow" if allowed else "refuse"), (hex(version), verdict)
        assert untested == (0 if allowed else feature), hex(version)


def test_a_faked_version_takes_the_reads_away_and_never_allows_them(gate):
    cases = [(jvmti_version(17), 26), (jvmti_version(25), 11), (jvmti_version(21), -1),  # faked untested: refused
             (jvmti_version(17), 25), (jvmti_version(25), 17),  # faked tested on a tested VM: allowed
             (jvmti_version(26), 25), (jvmti_version(11), 17)]  # the VM's own version still decides
    assert decide(gate, cases) == [(17, "refuse", 26), (25, "refuse", 11), (21, "refuse", -1),
                                   (17, "allow", 0), (25, "allow", 0),
                                   (26, "refuse", 26), (11, "refuse", 11)]


def test_the_gate_comes_before_every_internal_read():
    """slots_enable asks the gate before its first VMStructs lookup, and slots_open reads nothing
    (the jmethodID least of all) unless slots_enable got through."""
    source = (ROOT / "agent/slots.c").read_text()
    enable = source[source.index("bool slots_enable("):]
    assert enable.index("hotspot_gate_open(") < enable.index("struct_offset(")
    assert enable.index("hotspot_gate_open(") < enable.index("eetop")
    opened = source[source.index("bool slots_open("):]
    assert opened.index("state() <= 0") < opened.index("*(const void *const *)method")
    agent = {p.name: p.read_text() for p in (ROOT / "agent").glob("*.c")}
    readers = sorted(name for name, text in agent.items() if "gHotSpot" in text or "eetop" in text)
    assert readers == ["slots.c"], f"HotSpot internals read outside slots.c, gate them too: {readers}"
