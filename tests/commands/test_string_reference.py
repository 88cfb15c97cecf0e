"""StringReference.Value: the text, and the very bytes on the wire, as the reference sends them."""

from __future__ import annotations

import pytest
from test_array_reference import statics
from types_support import differential

from protocol import messages, spec

pytestmark = pytest.mark.jvm

# (A null string id kills the reference's VM: not asked here.)
NAMES = ["sAscii", "sUnicode", "sSupplementary", "sEmpty", "sInts"]


async def test_string_values(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        ids = await statics(t, NAMES)
        for name in NAMES:
            await t.cmd("StringReference", "Value", string_object=ids[name], note=name)
        await t.cmd("StringReference", "Value", string_object=0x7EADBEEF, note="unknown")

    await differential(sample_classes, "Sample", scenario)


async def test_string_bytes_on_the_wire(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        ids = await statics(t, NAMES)
        cs = spec.by_name("StringReference", "Value")
        for name in NAMES:
            data = messages.encode_command(cs, {"string_object": ids[name]}, t.client.sizes)
            reply = await t.client.reply(await t.client.send_packet(cs.set_id, cs.cmd_id, data))
            t.note(f"raw {name}", (reply.error_code, reply.data.hex()))

    await differential(sample_classes, "Sample", scenario)
