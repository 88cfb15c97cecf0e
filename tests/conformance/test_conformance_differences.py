"""The deliberate differences of differences.py, proven on both servers.

The reference: one JVM per case (most of them die of it).  jdwpd: one JVM for all of them, which
must answer every case with its error and then still run an ordinary invoke.
"""

from __future__ import annotations

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import JdwpClosedError, open_jdwp_client
from protocol.constants import InvokeOptions, Tag
from tests.conformance import harness
from tests.conformance.differences import CRASH, DIFFERENCES, EITHER, GARBAGE, context

pytestmark = pytest.mark.jvm


async def _session(kind, classes, markers, tmp_path, body):
    jvm_args = (f"-XX:ErrorFile={tmp_path}/hs_err_%p.log",)
    with trio.fail_after(harness.RUN_TIMEOUT):
        async with jvm.open_jvm(kind, classes, "Sample", jvm_args=jvm_args) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=harness.TIMEOUT) as client:
                t = harness.Transcript(client, kind, classes, markers)
                return await body(t, debuggee)


@pytest.mark.parametrize("diff", DIFFERENCES, ids=[f"{d.item}: {d.case}" for d in DIFFERENCES])
async def test_the_reference_has_no_answer(diff, sample_classes, sample_markers, tmp_path):
    async def body(t, debuggee):
        fields = diff.fields(await context(t))
        try:
            code, _ = await t.client.command_raw(diff.set_name, diff.cmd_name, fields, timeout=10)
        except (JdwpClosedError, trio.TooSlowError):
            await debuggee.wait_exit(10)
            return "crash"
        return "garbage" if code == 0 else f"error {code}"

    outcome = await _session("reference", sample_classes, sample_markers, tmp_path, body)
    assert outcome in ((CRASH, GARBAGE) if diff.reference == EITHER else (diff.reference,))


async def test_jdwpd_answers_each_with_an_error(sample_classes, sample_markers, tmp_path):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)

    async def body(t, debuggee):
        ctx = await context(t)
        codes = {}
        for diff in DIFFERENCES:
            code, _ = await t.client.command_raw(diff.set_name, diff.cmd_name, diff.fields(ctx))
            codes[f"{diff.item}: {diff.case}"] = code
        r = await t.client.command("ObjectReference", "InvokeMethod", object=ctx["object"], clazz=ctx["sample"],
                                   method_id=ctx["methods"]["compute"], arguments=[(Tag.INT, 1)],
                                   thread=ctx["thread"], options=InvokeOptions.INVOKE_SINGLE_THREADED)
        return codes, r.return_value.value

    codes, computed = await _session("jdwpd", sample_classes, sample_markers, tmp_path, body)
    assert codes == {f"{d.item}: {d.case}": int(d.jdwpd_code) for d in DIFFERENCES}
    assert computed == 2 + 123456
