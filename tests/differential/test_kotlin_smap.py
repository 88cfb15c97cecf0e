"""A class as kotlinc makes it, its SMAP included: reference vs jdwpd.

tests/differential/kotlin/classes holds KtInline.kt compiled by kotlinc 1.3.31 (Debian's `kotlin`
package), committed so that the test needs no Kotlin compiler; none of its code needs Kotlin's runtime
library.  To make it again (the markers' lines must stay those of the class file):

    kotlinc tests/differential/kotlin/KtInline.kt -d /tmp/kt && cp /tmp/kt/Kt*.class tests/differential/kotlin/classes/

Its inline functions give KtInlineKt the SMAP kotlinc writes: stratum Kotlin (the default) maps the
class's own lines one to one and the inlined bodies' line numbers (36 and up) back to the inline
functions' lines; KotlinDebug maps only the inlined lines, to their call sites, but comes after the
first "*E", where a JSR-45 reader stops, so a debugger that asks for it gets Kotlin's.  A debugger reads it
(ReferenceType.SourceDebugExtension) and steps by the stratum it sets (VirtualMachine.SetDefaultStratum):
every reply, event and line where a step ends must be the reference's.  test_step_strata.py covers the
rules on SMAPs made for the purpose; this is the real thing.
"""

from __future__ import annotations

import pprint
import shutil
from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import StepDepth, StepSize
from tests.conformance.harness import TIMEOUT, Transcript
from tests.differential.test_step_strata import steps_under_each_stratum

pytestmark = pytest.mark.jvm

HERE = Path(__file__).resolve().parent / "kotlin"
ROUNDS = 200
LINE, MIN = StepSize.LINE, StepSize.MIN
INTO, OVER, OUT = StepDepth.INTO, StepDepth.OVER, StepDepth.OUT
STRATA = [None, "Kotlin", "KotlinDebug", "Java", ""]
# (where the thread stops first, its steps)
CASES = [("KT_R2", [(LINE, INTO)] * 14), ("KT_W1", [(LINE, OVER)] * 8), ("KT_W2", [(LINE, OUT), (LINE, OVER)]),
         ("KT_R2", [(MIN, INTO)] * 6)]


def markers() -> dict[str, int]:
    return {**debuggees.markers(HERE / "KtInline.kt"), **debuggees.all_markers(HERE / "java")}


@pytest.fixture(scope="module")
def classpath(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kotlin")
    shutil.copytree(HERE / "classes", out, dirs_exist_ok=True)
    main = debuggees.compile_sources(HERE / "java", extra_args=("-cp", str(out)))
    shutil.copytree(main, out, dirs_exist_ok=True)
    return out


async def session(t: Transcript) -> None:
    kotlin = await t.start("KtInlineKt")  # prepared at KtMain's call of run()
    await t.ok("ReferenceType", "SourceDebugExtension", ref_type=kotlin)
    await t.ok("ReferenceType", "SourceFile", ref_type=kotlin)
    await steps_under_each_stratum(t, kotlin, STRATA, CASES)
    await t.to_the_end()


def _command(kind: str, classpath: Path) -> list[str]:
    args = (classpath, "KtMain", (str(ROUNDS),))
    return jvm.reference_command(*args) if kind == "reference" else jvm.jdwpd_command(*args)


async def _run(kind: str, classpath: Path) -> list:
    with trio.fail_after(180):
        async with jvm._open_trio(kind, _command(kind, classpath), 60, None) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind, classpath, markers())
                try:
                    await session(t)
                except BaseException as e:
                    raise AssertionError(f"{kind} failed after {len(t.entries)} entries:\n"
                                         f"{debuggee.output.describe()}") from e
                return [e.shown() for e in t.entries]


async def test_steps_in_a_kotlinc_class_end_where_the_reference_ends_them(classpath):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    want = await _run("reference", classpath)
    got = await _run("jdwpd", classpath)
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert g == w, f"entry {i} differs\n--- reference ---\n{pprint.pformat(w)}\n--- jdwpd ---\n{pprint.pformat(g)}"
    assert len(got) == len(want)

    # What makes the class worth testing: kotlinc's SMAP, KotlinDebug after its first "*E" (where a
    # JSR-45 reader stops: the reference then steps by the class's default, Kotlin, for KotlinDebug too),
    # and steps that stop in inlined code, whose line numbers (36 and up) only the SMAP explains.
    smap = str(next(value for (label, _, value) in want if "SourceDebugExtension" in label))
    assert smap.index("*S KotlinDebug") > smap.index("*E"), smap
    lines = {label: value for (label, _, value) in want if label.startswith("line [")}

    def ends(stratum, case: int) -> list[int]:
        marker, steps = CASES[case]
        return [lines[f"line [{stratum!r} {case}.{j}: {marker} {s.name} {d.name}]"] for j, (s, d) in enumerate(steps)]

    assert any(line >= 36 for line in ends("Java", 0))
    assert ends("KotlinDebug", 0) == ends("Kotlin", 0)
