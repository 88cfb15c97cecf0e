"""The fast lane under a pipelined mix: memo answers, VM commands and garbage, split anywhere.

3,000 commands go out without waiting, in pieces of random size so that packets straddle reads:
60% ReferenceType.Signature (memo answers: the lane takes the socket), 20% ThreadReference
queries that need the VM, 20% any command with a random body (most fail).  Every reply must come,
once, and every Signature be right; the session must work on afterwards.  jdwpd only: random
bodies crash the reference agent (docs/conformance.md, Deliberate differences).
"""

from __future__ import annotations

import random
import struct

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol import spec
from tests.commands.types_support import Transcript

pytestmark = pytest.mark.jvm

COMMANDS = 3000
# What would end the session, run the program or change it: not in the mix.
LEFT_OUT = {(1, 3), (1, 6), (1, 8), (1, 9), (1, 10), (1, 18), (3, 3), (3, 4), (5, 1), (9, 6), (11, 2), (11, 3),
            (11, 10), (11, 11), (11, 14), (15, 3), (16, 4), (64, 100)}


@pytest.mark.parametrize("seed", [1, 2])
async def test_a_pipelined_mix_through_the_fast_lane(sample_classes, sample_markers, seed):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    rnd = random.Random(seed)
    with trio.fail_after(90):
        async with jvm.open_jvm("jdwpd", sample_classes, "Sample", suspend=True) as vm, \
                open_jdwp_client(vm.host, vm.port) as c:
            t = Transcript(c, "jdwpd")
            thread, ref = await t.run_to_line("Sample", sample_markers["COMPUTE_TOTAL"])
            want = (await c.command("ReferenceType", "Signature", ref_type=ref)).signature
            keys = [(cs.set_id, cs.cmd_id) for cs in spec.COMMANDS.values() if (cs.set_id, cs.cmd_id) not in LEFT_OUT]
            ref_bytes, thread_bytes = struct.pack(">Q", ref), struct.pack(">Q", thread)
            kinds, packets = {}, []
            first = c.next_packet_id()
            for i in range(COMMANDS):
                pid = first + 1 + i
                c.next_packet_id()
                r = rnd.random()
                if r < 0.6:
                    kinds[pid], set_id, cmd_id, data = "sig", 2, 1, ref_bytes
                elif r < 0.8:
                    kinds[pid], set_id, cmd_id, data = "vm", 11, rnd.choice([1, 4, 7, 12]), thread_bytes
                else:
                    set_id, cmd_id = rnd.choice(keys)
                    kinds[pid] = "any"
                    data = rnd.choice([b"", ref_bytes, thread_bytes, rnd.randbytes(rnd.randrange(1, 40))])
                packets.append(struct.pack(">IIBBB", 11 + len(data), pid, 0, set_id, cmd_id) + data)
            blob = b"".join(packets)
            pos = 0
            while pos < len(blob):
                n = rnd.randrange(1, 3000)
                await c.send_raw(blob[pos:pos + n])
                pos += n
                if rnd.random() < 0.1:
                    await trio.sleep(0.001)
            sig_body = struct.pack(">I", len(want)) + want.encode()
            for pid, kind in kinds.items():
                reply = await c.reply(pid, 30)
                if kind == "sig":
                    assert (reply.error_code, reply.data) == (0, sig_body), pid
                elif kind == "vm":
                    assert reply.error_code == 0, (pid, reply.error_code)
            assert (await c.command("ReferenceType", "Signature", ref_type=ref)).signature == want
            assert (await c.command("ThreadReference", "SuspendCount", thread=thread)).suspend_count >= 1
            await c.command("VirtualMachine", "Resume")
