"""Malformed command bodies: the same error codes as the reference (raw bytes, differential)."""

import struct

import pytest

from tests.commands.types_support import TIMEOUT, differential

pytestmark = pytest.mark.jvm

CASES = [
    ("unknown set", 77, 1, b""),
    ("unknown command", 1, 99, b""),
    ("Event.Composite sent to the VM", 64, 100, b""),
    ("short thread id", 11, 1, b"\0\0"),
    ("no thread id", 11, 4, b""),
    ("string length past the end", 1, 11, struct.pack(">i", 50) + b"abc"),
    ("negative string length", 1, 2, struct.pack(">i", -1)),
    ("negative InstanceCounts", 1, 21, struct.pack(">i", -1)),
    ("InstanceCounts short", 1, 21, struct.pack(">i", 2) + bytes(8)),
    ("Set: bad kind, junk after", 15, 1, b"\x05\x00" + struct.pack(">i", 3) + b"\xff"),
    ("Set: modifiers cut", 15, 1, b"\x08\x00" + struct.pack(">i", 2) + b"\x05" + struct.pack(">i", 1) + b"x"),
    ("Set: unknown modifier", 15, 1, b"\x08\x00" + struct.pack(">i", 1) + b"\x63"),
    ("Clear: short", 15, 2, b"\x08"),
    ("GetValues: slots cut", 16, 1, bytes(16) + struct.pack(">i", 3)),
    ("Frames: no length", 11, 6, bytes(8) + struct.pack(">i", 0)),
    ("DisposeObjects short", 1, 14, struct.pack(">i", 1) + bytes(4)),
    ("IDSizes with junk", 1, 7, b"junk"),
    ("SetValues: bad value tag", 16, 2, bytes(16) + struct.pack(">ii", 1, 0) + b"\x01" + bytes(4)),
    ("ForceEarlyReturn: bad value tag", 11, 14, bytes(8) + b"\x01"),
    ("GetValues: unknown sigbyte", 16, 1, bytes(16) + struct.pack(">ii", 1, 0) + b"Q"),
    ("Suspend: unknown id", 11, 2, struct.pack(">Q", 0x7FFFFFF0)),
]


async def object_class(t) -> int:
    return next(k.type_id for k in (await t.ok("VirtualMachine", "AllClasses", record=False)).classes
                if k.signature == "Ljava/lang/Object;")


async def malformed_cases(t, before_each=None) -> None:
    """Every case of CASES in turn, its error code noted; ``before_each()`` runs ahead of each."""
    await t.client.next_event(TIMEOUT)
    main = (await t.ok("VirtualMachine", "AllThreads", record=False)).threads[0].thread
    for note, set_id, cmd_id, data in CASES:
        if before_each is not None:
            await before_each()
        if data.startswith(bytes(8)) and set_id in (11, 16):
            data = struct.pack(">Q", main) + data[8:]
        pid = await t.client.send_packet(set_id, cmd_id, data)
        reply = await t.client.reply(pid, TIMEOUT)
        t.note(note, reply.error_code)
    await t.ok("VirtualMachine", "Resume")


async def test_malformed_bodies(sample_classes):
    await differential(sample_classes, "Sample", malformed_cases)


async def test_malformed_bodies_while_the_fast_lane_reads(sample_classes):
    """Each malformed packet arrives right after memo answers (jdwpd's fast lane then reads the socket:
    jdwpd/daemon/fast/lane.py): it hands the packet on, and the answer is the reference's, as above."""
    async def scenario(t):
        obj = None

        async def memo_answers() -> None:
            nonlocal obj
            obj = obj or await object_class(t)
            for _ in range(3):
                await t.ok("ReferenceType", "Signature", ref_type=obj, record=False)

        await malformed_cases(t, memo_answers)

    await differential(sample_classes, "Sample", scenario)


async def test_a_bad_header_while_the_fast_lane_reads_ends_the_connection(sample_classes):
    """A length below the header's own: the reference drops the debugger; so does jdwpd when the packet
    reaches its fast lane (which leaves framing errors to the session's parser)."""
    async def scenario(t):
        await t.client.next_event(TIMEOUT)
        obj = await object_class(t)
        for _ in range(3):
            await t.ok("ReferenceType", "Signature", ref_type=obj)
        await t.client.send_raw(struct.pack(">IIBBB", 5, 999, 0, 1, 1))
        await t.client.wait_closed(TIMEOUT)
        t.note("closed", True)

    await differential(sample_classes, "Sample", scenario)

