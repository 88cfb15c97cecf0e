"""The JDI suite's plumbing without a JVM: sections, the first difference, and reading a recording."""

from __future__ import annotations

import json

import pytest

from protocol import messages, spec
from protocol.constants import EventKind, SuspendPolicy
from protocol.packets import CommandPacket, ReplyPacket, encode_packet
from protocol.wire import IDSizes
from tests.conformance import jdi_harness, jdi_record


def test_sections_cut_at_headers():
    text = "intro\n== one\n  a\n  b\n== two\nend\n"
    assert jdi_harness.sections(text) == {"": ["intro"], "one": ["  a", "  b"], "two": ["end"]}
    with pytest.raises(AssertionError):
        jdi_harness.sections("== one\n== one\n")


def test_first_difference_points_at_the_line_with_context():
    want = [f"line {i}" for i in range(20)]
    assert jdi_harness.first_difference(want, list(want)) is None
    got = list(want)
    got[10] = "line ten"
    shown = jdi_harness.first_difference(want, got, context=2)
    assert shown.startswith("first difference at line 10 (reference 20 lines, jdwpd 20)")
    assert ">   10 line 10" in shown and ">   10 line ten" in shown
    assert "     8 line 8" in shown and "    12 line 12" in shown and "line 13" not in shown


def test_first_difference_of_a_shorter_transcript():
    shown = jdi_harness.first_difference(["a", "b"], ["a"])
    assert shown.startswith("first difference at line 1 (reference 2 lines, jdwpd 1)")
    assert ">    1 (end of the transcript)" in shown


def _line(direction: str, packet) -> str:
    return json.dumps({"dir": direction, "hex": encode_packet(packet).hex()})


def test_a_recording_is_cut_by_the_section_marks():
    sizes = IDSizes()
    create = spec.by_name("VirtualMachine", "CreateString")
    version = spec.by_name("VirtualMachine", "Version")
    frames = spec.by_name("ThreadReference", "Frames")
    lines = [
        _line("c2s", CommandPacket(1, 0, version.set_id, version.cmd_id, b"")),
        _line("c2s", CommandPacket(2, 0, create.set_id, create.cmd_id,
                                   messages.encode_command(create, {"utf": "jdi-section:vm.facts"}, sizes))),
        _line("s2c", ReplyPacket(2, 0x80, 0, b"\0" * 8)),
        _line("c2s", CommandPacket(3, 0, frames.set_id, frames.cmd_id,
                                   messages.encode_command(frames, {"thread": 5, "start_frame": 0, "length": -1},
                                                           sizes))),
        _line("c2s", CommandPacket(4, 0, create.set_id, create.cmd_id,
                                   messages.encode_command(create, {"utf": "not a mark"}, sizes))),
        _line("s2c", CommandPacket(5, 0, 64, 100, messages.encode_composite(
            SuspendPolicy.NONE, [{"event_kind": EventKind.VM_DEATH, "request_id": 0}], sizes))),
    ]
    found = jdi_record.sections_of("\n".join(lines), "vm")
    assert found == {
        "(attach)": {"commands": ["VirtualMachine.Version"], "events": []},
        "facts": {"commands": ["Event.Composite", "ThreadReference.Frames", "VirtualMachine.CreateString"],
                  "events": ["VM_DEATH"]},
    }
