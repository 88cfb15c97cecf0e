"""StringReference.Value and CreateString, byte for byte as the reference: NUL, supplementary characters
and lone surrogates cross from the JVM's modified UTF-8 to JDWP's standard UTF-8 and back."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.debuggees import javac_argv
from protocol import spec
from protocol.constants import EventKind

pytestmark = pytest.mark.jvm
SOURCE = Path(__file__).resolve().parent / "strings" / "Strings.java"
SENT = [b"a\x00b\xf0\x9f\x98\x80c", b"a\xc0\x80b\xed\xa0\xbd\xed\xb8\x80c", b"lone \xed\xa0\x80 end", b""]


async def transcript(host: str, port: int) -> list:
    value = spec.by_name("StringReference", "Value")
    create = spec.by_name("VirtualMachine", "CreateString")
    out = []
    async with open_jdwp_client(host, port, timeout=30) as c:
        # VMStart first: a Resume before it may find the reference's start suspension not yet made
        # (types_support.Transcript.vm_started).
        await c.wait_for_event(EventKind.VM_START, timeout=30)
        await c.command("VirtualMachine", "Resume")
        ref = (await c.command("VirtualMachine", "ClassesBySignature", signature="LStrings;")).classes
        while not ref:  # the class loads after the resume
            await trio.sleep(0.05)
            ref = (await c.command("VirtualMachine", "ClassesBySignature", signature="LStrings;")).classes
        fields = (await c.command("ReferenceType", "Fields", ref_type=ref[0].type_id)).declared
        got = await c.command("ReferenceType", "GetValues", ref_type=ref[0].type_id,
                              fields=[f.field_id for f in fields])
        ids = [v.value.value for v in got.values]
        for payload in SENT:
            reply = await c.reply(await c.send_packet(create.set_id, create.cmd_id,
                                                      struct.pack(">I", len(payload)) + payload))
            assert reply.error_code == 0
            ids.append(struct.unpack(">Q", reply.data)[0])
        for string_id in ids:
            reply = await c.reply(await c.send_packet(value.set_id, value.cmd_id, struct.pack(">Q", string_id)))
            out.append((reply.error_code, reply.data.hex()))
    return out


async def test_string_bytes_equal_the_reference(tmp_path):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    subprocess.run([*javac_argv(), "-d", str(tmp_path), str(SOURCE)], check=True, timeout=120)
    results = {}
    for kind in ("reference", "jdwpd"):
        debuggee = jvm.start_jvm(kind, tmp_path, "Strings", suspend=True)
        try:
            results[kind] = await transcript(debuggee.host, debuggee.port)
        finally:
            debuggee.kill()
    lone = "high \ud800 low \udc00 end".encode("utf-8", "surrogatepass")
    assert results["reference"][2] == (0, (struct.pack(">I", len(lone)) + lone).hex()), \
        "the reference keeps lone surrogates as 3-byte sequences"
    assert results["jdwpd"] == results["reference"]
