"""Strings: JDWP carries standard UTF-8 (as the reference writes it), and so does the agent link
(the agent converts the JVM's modified UTF-8 both ways); decoders accept both forms.  The bytes
below were observed from the reference agent on OpenJDK 17 for the Java string
"a\\0b\\uD83D\\uDE00c\\uD800d"."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol import link, messages, spec
from protocol.wire import IDSizes, decode_mutf8, encode_jdwp_string, encode_mutf8

JAVA_STRING = "a\0b\U0001F600c\ud800d"
REFERENCE_WIRE = bytes.fromhex("610062f09f988063eda08064")
JVM_MODIFIED = bytes.fromhex("61c08062eda0bdedb88063eda08064")


def test_jdwp_strings_are_standard_utf8_as_the_reference_writes_them():
    assert encode_jdwp_string(JAVA_STRING) == REFERENCE_WIRE
    cs = spec.by_name("StringReference", "Value")
    body = messages.encode_reply(cs, {"string_value": JAVA_STRING}, IDSizes())
    assert body == len(REFERENCE_WIRE).to_bytes(4, "big") + REFERENCE_WIRE


def test_jdwp_decoding_accepts_both_forms_a_debugger_may_send():
    cs = spec.by_name("VirtualMachine", "CreateString")
    for raw in (REFERENCE_WIRE, JVM_MODIFIED):
        cmd = messages.decode_command(cs, len(raw).to_bytes(4, "big") + raw, IDSizes())
        assert cmd.utf == JAVA_STRING


def test_link_strings_are_standard_utf8_and_decoders_take_the_jvms_form_too():
    assert encode_mutf8(JAVA_STRING) == JVM_MODIFIED
    spec_ = link.BY_NAME["CREATE_STRING"]
    body = link.encode_body(spec_.request, {"utf": JAVA_STRING})
    assert body[4:] == REFERENCE_WIRE
    assert link.decode_body(spec_.request, body, "CREATE_STRING") == {"utf": JAVA_STRING}
    modified = len(JVM_MODIFIED).to_bytes(4, "big") + JVM_MODIFIED
    assert link.decode_body(link.BY_NAME["STRING_VALUE"].reply, modified, "STRING_VALUE") == {"utf": JAVA_STRING}


@given(st.text())
def test_strings_survive_the_trip_from_the_agent_to_the_debugger(s):
    # agent bytes -> daemon str -> debugger bytes -> debugger str
    assert decode_mutf8(encode_jdwp_string(decode_mutf8(encode_mutf8(s)))) == s
