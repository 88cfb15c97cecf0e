"""CLASS_METHODS_LINES against a real JVM: the same facts as CLASS_METHODS and one METHOD_LINE_TABLE per method."""

from __future__ import annotations

import pytest
from agent_support import run_jvm

from jdwpd.errors import AgentError
from jdwpd.daemon.model.classes import JVMTI_NATIVE_METHOD
from protocol.constants import ErrorCode

pytestmark = pytest.mark.jvm
LINE_FIELDS = ("lines_status", "start", "end", "lines")


async def _one_by_one(jvm, ref: int) -> list[dict]:
    """What the combined request replaces: the methods, then each method's line table alone."""
    rows = []
    for m in (await jvm.request("CLASS_METHODS", ref=ref))["methods"]:
        try:
            table = await jvm.request("METHOD_LINE_TABLE", method=m["method"])
            rows.append({**m, "lines_status": 0, **table})
        except AgentError as e:
            rows.append({**m, "lines_status": e.status})
    return rows


async def test_methods_with_lines_equal_the_requests_they_replace(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        by_sig = {c["signature"]: c["ref"] for c in (await jvm.request("ALL_CLASSES"))["classes"]}
        statuses = set()
        # Target: lines; Object: native methods; Runnable: an abstract method.
        for sig in ("LTarget;", "Ljava/lang/Object;", "Ljava/lang/Runnable;"):
            combined = (await jvm.request("CLASS_METHODS_LINES", ref=by_sig[sig]))["methods"]
            alone = await _one_by_one(jvm, by_sig[sig])
            assert [m["method"] for m in combined] == [m["method"] for m in alone]
            for c, a in zip(combined, alone, strict=True):
                statuses.add(c["lines_status"])
                assert {k: v for k, v in c.items() if k not in LINE_FIELDS} == \
                       {k: v for k, v in a.items() if k not in LINE_FIELDS}
                assert c["lines_status"] == a["lines_status"], (sig, c["name"])
                if c["lines_status"] == 0:
                    assert (c["start"], c["end"], c["lines"]) == (a["start"], a["end"], a["lines"])
                elif c["lines_status"] == ErrorCode.ABSENT_INFORMATION:
                    code = (await jvm.request("METHOD_BYTECODES", method=c["method"]))["bytecodes"]
                    assert (c["start"], c["end"]) == ((0, len(code) - 1) if code else (-1, -1))
                    assert c["lines"] == []
        assert {0, JVMTI_NATIVE_METHOD} <= statuses
        with pytest.raises(AgentError):
            await jvm.request("CLASS_METHODS_LINES", ref=0xDEAD)
        await jvm.send("exit")
        await jvm.expect("bye")
