"""StringReference.Value: the text, and the very bytes on the wire, as the reference sends them."""

from __future__ import annotations

import pytest
from test_array_reference import statics
from types_support import differential

from protocol import messages, spec

pytestmark = pytest.mark.jvm


async def test_string_values(sample_classes, sample_markers):
    # (A null string id kills the reference's VM: not asked here.)
    names = ["sAscii", "sUnicode", "sSupplementary", "sEmpty", "sInts"]

    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        ids = await statics(t, names)
        for name in names:
            await t.cmd("StringReference", "Value", string_object=ids[name], note=name)
            # The bytes on the wire, too: modified vs standard UTF-8 must not differ either.
            cs = spec.by_name("StringReference", "Value")
            pid = await t.client.send_packet(cs.set_id, cs.cmd_id, messages.encode_command(
                cs, {"string_object": ids[name]}, t.client.sizes))
            reply = await t.client.reply(pid)
            t.note(f"raw {name}", (reply.error_code, reply.data.hex()))
        await t.cmd("StringReference", "Value", string_object=0x7EADBEEF, note="unknown")

    await differential(sample_classes, "Sample", scenario)
