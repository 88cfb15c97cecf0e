"""The agent's condition programs, straight over the link: valid ones filter, malformed ones are
refused at SET_REQUEST or are false with a reason when run; the JVM never suffers.

The daemon only sends what its compiler made; this is what the agent itself guarantees against
anything else (docs/extensions.md: "the program never reads memory it has not checked")."""

from __future__ import annotations

import os
import random
import struct

import pytest
import trio
from agent_support import run_jvm

from jdwpd.errors import AgentError
from protocol import link as L
from protocol.agent_code import ArithOp, Cond, ObjKind, Op, encode_budget, encode_catch_filter

pytestmark = pytest.mark.jvm
BREAKPOINT, NONE = 2, 0


def program(method: int, code: bytes, classes: tuple[int, ...] = (), strings: tuple[str, ...] = (),
            result: str = "I") -> bytes:
    out = [bytes([ObjKind.CONDITION, ord(result)]), struct.pack(">QHH", method, 8, len(classes))]
    out += [struct.pack(">Q", c) for c in classes]
    out.append(struct.pack(">H", len(strings)))
    for s in strings:
        u = s.encode("utf-16-be")
        out.append(struct.pack(">H", len(u) // 2) + u)
    out.append(struct.pack(">I", len(code)) + code)
    return b"".join(out)


def op(o: Op, *operands: bytes) -> bytes:
    return bytes([o]) + b"".join(operands)


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


async def hits_of(jvm, request_id: int, runs: int) -> int:
    await jvm.send(f"run {runs}")
    await jvm.expect("ok run")
    # The link is one ordered stream (agent/link.c: replies and events share one queue) and a hit of
    # policy NONE is sent before its thread goes on: a reply asked for once the program said "ok run"
    # comes behind every hit of those runs. No fixed wait for hits that may still come.
    await jvm.request("AGENT_STATS")
    n = 0
    while True:
        try:
            msg = jvm.link.events.receive_nowait()
        except trio.WouldBlock:
            return n
        n += sum(1 for h in msg.get("hits", ()) if h["request_id"] == request_id and h["event_kind"] == BREAKPOINT)


async def test_programs_filter_and_malformed_ones_harm_nothing(agent_so, classes, lines):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        target = await jvm.class_id("LTarget;")
        loc = await jvm.location_of_line(target, "run", lines["RUN_2"])
        fields = {f["name"]: f["field"] for f in (await jvm.request("CLASS_FIELDS", ref=target))["fields"]}
        where = {"mod_kind": 7, "args": {"location": loc}}

        async def set_with(rid: int, prog: bytes) -> int:
            try:
                await jvm.request("SET_REQUEST", request_id=rid, event_kind=BREAKPOINT, suspend_policy=NONE,
                                  modifiers=[where, {"mod_kind": 2, "args": {"expr_id": rid, "program": prog}},
                                             {"mod_kind": 2, "args": {"expr_id": 0,
                                                                      "program": encode_budget(cpu_ppm=0)}}])
                return 0
            except AgentError as e:
                return e.status

        # i % 2 == 0 over 6 runs: 3 hits.  Locals: this 0, i 1.
        even = op(Op.LOCAL, b"I", struct.pack(">H", 1)) + op(Op.CONST_I, i32(2)) + \
            op(Op.ARITH, b"I", bytes([ArithOp.REM])) + op(Op.CONST_I, i32(0)) + op(Op.CMP, b"I", bytes([Cond.EQ])) + \
            op(Op.END)
        valid = [
            program(loc.method, even),
            # this.value == 42 (an instance field read through THIS)
            program(loc.method, op(Op.THIS) + op(Op.FIELD, b"I", struct.pack(">HQ", 0, fields["value"])) +
                    op(Op.CONST_I, i32(42)) + op(Op.CMP, b"I", bytes([Cond.EQ])) + op(Op.END), classes=(target,)),
            # Target.name.equals("target") (a static? no: an instance String field) and a string constant
            program(loc.method, op(Op.THIS) + op(Op.FIELD, b"L", struct.pack(">HQ", 0, fields["name"])) +
                    op(Op.CONST_S, struct.pack(">H", 0)) + op(Op.SEQ) + op(Op.END), classes=(target,),
                    strings=("target",)),
            # a catch filter (ObjKind.CATCH): it judges exception events only, a breakpoint passes
            encode_catch_filter(["org.junit.*", "*Runner"], ["org.junit.Assert*"]),
        ]
        assert await set_with(1, valid[0]) == 0
        assert await hits_of(jvm, 1, 6) == 3
        await jvm.request("CLEAR_REQUEST", request_id=1)
        for k, prog in enumerate(valid[1:], 2):
            assert await set_with(k, prog) == 0, k
            assert await hits_of(jvm, k, 2) == 2, k
            await jvm.request("CLEAR_REQUEST", request_id=k)

        # Malformed: every byte flipped, truncated, extended, random; and type confusions that verify.
        rng = random.Random(int(os.environ.get("JDWPD_FUZZ_SEED", "20")))
        confusions = [
            program(loc.method, op(Op.LOCAL, b"L", struct.pack(">H", 1)) + op(Op.ALEN) + op(Op.END)),  # int as object
            program(loc.method, op(Op.LOCAL, b"I", struct.pack(">H", 9)) + op(Op.END)),  # no such slot
            program(loc.method, op(Op.THIS) + op(Op.AGET, b"I") + op(Op.END)),  # stack underflow
            program(loc.method, op(Op.THIS) + op(Op.CONST_I, i32(0)) + op(Op.AGET, b"I") + op(Op.END)),  # not an array
            program(loc.method, op(Op.THIS) + op(Op.CONST_I, i32(1)) + op(Op.ARITH, b"I", bytes([ArithOp.ADD])) +
                    op(Op.END)),  # object + int
            program(loc.method, op(Op.CONST_I, i32(1)) + op(Op.CONST_I, i32(0)) +
                    op(Op.ARITH, b"I", bytes([ArithOp.DIV])) + op(Op.END)),  # / 0
            program(loc.method, op(Op.CONST_NULL) + op(Op.SLEN) + op(Op.END)),  # null
            program(loc.method, op(Op.CONST_J, struct.pack(">q", -2**63)) + op(Op.CONST_J, struct.pack(">q", -1)) +
                    op(Op.ARITH, b"J", bytes([ArithOp.DIV])) + op(Op.CONV, b"J", b"I") + op(Op.END)),  # MIN / -1
            program(0, op(Op.CONST_I, i32(1)) * 40 + op(Op.END)),  # deeper than the stack
            program(loc.method + 8, even),  # another method's id
        ]
        statuses: dict[int, int] = {}
        cases = list(confusions)
        for _ in range(int(os.environ.get("JDWPD_FUZZ_PROGRAMS", "300"))):
            base = bytearray(rng.choice(valid + confusions))
            roll = rng.random()
            if roll < 0.5:
                for _ in range(rng.randint(1, 4)):
                    base[rng.randrange(len(base))] = rng.randrange(256)
            elif roll < 0.7:
                del base[rng.randrange(len(base)):]
            elif roll < 0.85:
                base += rng.randbytes(rng.randint(1, 16))
            else:
                base = bytearray(rng.randbytes(rng.randint(0, 60)))
            cases.append(bytes(base))
        rid = 100
        for prog in cases:
            rid += 1
            st = await set_with(rid, prog)
            statuses[st] = statuses.get(st, 0) + 1
            if st == 0:
                await hits_of(jvm, rid, 2)
                await jvm.request("CLEAR_REQUEST", request_id=rid)
        print(statuses)
        assert statuses.get(0, 0) >= len(confusions) - 2 and len(statuses) > 2, statuses
        assert all(s in (0, L.LinkStatus.BAD_MESSAGE, L.LinkStatus.INVALID_METHOD, L.LinkStatus.INVALID_FIELD,
                         L.LinkStatus.NOT_CAPABLE, L.LinkStatus.INVALID_ID, L.LinkStatus.COLLECTED, 21, 34, 99, 103)
                   for s in statuses), statuses
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["filters"] == 0 and stats["breakpoints"] == 0
        await jvm.send("run 3")
        await jvm.expect("ok run")  # the program still runs
