"""A debugger walking the class list: reference agent vs jdwpd, the same methods, line and variable tables.

jdwpd reads a walked class list ahead (model/class_walk.py) and a class's line tables with its
methods, its variable tables together (model/classes.py): here a raw session walks the
AllClassesWithGeneric listing in its order, as an IDE indexing classes does, and every answer
must equal the reference's.  Method ids differ between runs: methods are named by name and
signature.  The class sets of two JVMs at VMStart differ by the odd class the reference loads,
so the comparison is over the classes both listed.
"""

from __future__ import annotations

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, TypeTag

pytestmark = pytest.mark.jvm

PREFIX = "Ljava/util/"
WALKED = 80


async def walk(kind: str, classes_dir) -> dict[str, list]:
    """signature -> every class fact asked, in the order asked, for the first WALKED listed classes."""
    facts: dict[str, list] = {}
    with trio.fail_after(120):
        async with jvm.open_jvm(kind, classes_dir, "Sample", suspend=True) as vm, \
                open_jdwp_client(vm.host, vm.port) as c:
            await c.wait_for_event(EventKind.VM_START, timeout=30)
            listing = (await c.command("VirtualMachine", "AllClassesWithGeneric")).classes
            walked = [k for k in listing if k.signature.startswith(PREFIX) and k.ref_type_tag != TypeTag.ARRAY]
            for k in walked[:WALKED]:
                got: list = []
                methods = await c.command("ReferenceType", "MethodsWithGeneric", ref_type=k.type_id)
                for m in methods.declared:
                    name = f"{m.name}{m.signature}"
                    got.append((name, m.generic_signature, m.mod_bits))
                    for command in ("LineTable", "VariableTableWithGeneric"):
                        code, reply = await c.command_raw("Method", command, ref_type=k.type_id,
                                                          method_id=m.method_id)
                        got.append((name, command, code, _plain(reply)))
                facts[k.signature] = got
            for k in walked[:10]:  # asked again (jdwpd: the reply bytes it kept)
                again = await c.command("ReferenceType", "MethodsWithGeneric", ref_type=k.type_id)
                for m in again.declared:
                    code, reply = await c.command_raw("Method", "LineTable", ref_type=k.type_id, method_id=m.method_id)
                    facts[k.signature].append((f"{m.name}{m.signature}", "again", m.mod_bits, code, _plain(reply)))
    return facts


def _plain(reply) -> object:
    if reply is None:
        return None
    if hasattr(reply, "lines"):
        return reply.start, reply.end, [(x.line_code_index, x.line_number) for x in reply.lines]
    return reply.arg_cnt, [(s.code_index, s.name, s.signature, s.generic_signature, s.length, s.slot)
                           for s in reply.slots]


def test_a_class_walk_answers_as_the_reference(sample_classes):
    jdwpd_facts = trio.run(walk, "jdwpd", sample_classes) if jvm.jdwpd_available() else pytest.skip("no jdwpd")
    reference_facts = trio.run(walk, "reference", sample_classes)
    both = sorted(set(jdwpd_facts) & set(reference_facts))
    assert len(both) >= WALKED // 2, (len(jdwpd_facts), len(reference_facts))
    asked = sum(len(reference_facts[s]) for s in both)
    assert asked > 500  # methods, each with its line and variable table
    for sig in both:
        assert jdwpd_facts[sig] == reference_facts[sig], sig
