"""VirtualMachine.DisposeObjects: an ID counts once per time it was sent (in a reply or an event); disposed
that many times it is forgotten.

Differential where the reference defines the answer (one debugger); jdwpd alone for two debuggers on one
VM (the reference takes one at a time) and for the IDs jdwpd keeps on purpose.
"""

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy
from tests.commands.types_support import TIMEOUT, Transcript, differential, field_ids

pytestmark = pytest.mark.jvm


async def _static(t: Transcript, sample: int, name: str, **kw) -> int:
    fields = field_ids(await t.client.command("ReferenceType", "Fields", ref_type=sample, timeout=TIMEOUT))
    r = await t.ok("ReferenceType", "GetValues", ref_type=sample, fields=[{"field_id": fields[name]}], **kw)
    return r.values[0].value.value


async def _dispose(t: Transcript, oid: int, times: int, note: str) -> None:
    await t.ok("VirtualMachine", "DisposeObjects", requests=[(oid, times)], note=note)


async def test_an_id_is_forgotten_when_disposed_as_often_as_sent(sample_classes, sample_markers):
    async def scenario(t: Transcript):
        _, sample = await t.run_to_line("Sample", sample_markers["CALL_CATCHER"])
        # Sent twice: one disposal leaves it, the second forgets it.
        objects = await _static(t, sample, "sObjects", note="first")
        assert await _static(t, sample, "sObjects", note="second") == objects
        await _dispose(t, objects, 1, "one of two")
        await t.ok("ArrayReference", "Length", array_object=objects, note="one of two disposed")
        region = (await t.ok("ArrayReference", "GetValues", array_object=objects, first_index=0, length=4)).values
        boxed, text, _, ints = (v.value for v in region.values)
        await _dispose(t, objects, 1, "two of two")
        code, _ = await t.cmd("ArrayReference", "Length", array_object=objects, note="disposed")
        assert code == ErrorCode.INVALID_OBJECT
        # Sent again: a new ID, for the same array.
        again = await _static(t, sample, "sObjects", note="after disposal")
        t.note("new id after disposal", again != objects)
        await t.ok("ArrayReference", "Length", array_object=again, note="its new id")
        # The elements GetValues sent once each: a string, and an object pinned by DisableCollection (the
        # disposal takes the pin along); the int[] disposed in one request with an unknown ID.
        await _dispose(t, text, 1, "the string")
        code, _ = await t.cmd("StringReference", "Value", string_object=text, note="disposed")
        assert code == ErrorCode.INVALID_OBJECT
        await t.ok("ObjectReference", "DisableCollection", object=boxed)
        await _dispose(t, boxed, 1, "a pinned object")
        await t.cmd("ObjectReference", "IsCollected", object=boxed, note="pinned, disposed")
        await t.cmd("ObjectReference", "EnableCollection", object=boxed, note="pinned, disposed")
        await t.ok("VirtualMachine", "DisposeObjects", requests=[(ints, 1), (0x7EADBEEF, 1)], note="with an unknown")
        await t.cmd("ArrayReference", "Length", array_object=ints, note="disposed with an unknown")
        # An event counts as a send: the exception of an EXCEPTION event, disposed once, is gone.
        await t.ok("EventRequest", "Set", event_kind=EventKind.EXCEPTION, suspend_policy=SuspendPolicy.ALL,
                   modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Sample"},
                              {"mod_kind": ModKind.COUNT, "count": 1}])
        await t.ok("VirtualMachine", "Resume")
        _, events = await t.client.wait_for_event(EventKind.EXCEPTION, timeout=TIMEOUT)
        thrown = events[0].exception.object_id
        await t.ok("ObjectReference", "ReferenceType", object=thrown, note="the thrown exception")
        await _dispose(t, thrown, 1, "the exception, sent by its event")
        code, _ = await t.cmd("ObjectReference", "ReferenceType", object=thrown, note="disposed")
        assert code == ErrorCode.INVALID_OBJECT
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


@pytest.fixture
def need_jdwpd():
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)


async def test_each_debugger_counts_its_own(need_jdwpd, sample_classes, sample_markers):
    """Two debuggers on one jdwpd VM (the reference takes one at a time): one debugger's disposals never
    take an ID from the other; the ID goes when neither holds it any more.  (While the other holds it,
    it also still answers to the one that disposed it: IDs are the VM's, not a debugger's.)"""
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(sample_classes, "Sample") as vm, open_jdwp_client(vm.host, vm.port) as cb:
            b = Transcript(cb, "jdwpd")
            _, sample = await b.run_to_line("Sample", sample_markers["CALL_CATCHER"])
            async with open_jdwp_client(vm.host, vm.port) as ca:
                a = Transcript(ca, "jdwpd")
                objects = await _static(a, sample, "sObjects")
                assert await _static(b, sample, "sObjects") == objects
                assert await _static(b, sample, "sObjects") == objects
                await _dispose(a, objects, 5, "A, all it holds and more")
                for t in (a, b):
                    assert (await t.ok("ArrayReference", "Length", array_object=objects)).array_length == 4
                await _dispose(b, objects, 1, "B, one of two")
                assert (await b.ok("ArrayReference", "Length", array_object=objects)).array_length == 4
                await _dispose(b, objects, 1, "B, two of two")
                for t in (a, b):
                    code, _ = await t.cmd("ArrayReference", "Length", array_object=objects)
                    assert code == ErrorCode.INVALID_OBJECT
                again = await _static(b, sample, "sObjects")
                assert again != objects
                assert await _static(a, sample, "sObjects") == again
                only_a = await _static(a, sample, "sStrings")
            # A left: what it alone held goes (as the reference forgets every ID at a debugger's end),
            # what B holds too stays.
            with trio.fail_after(TIMEOUT):
                while (await b.cmd("ArrayReference", "Length", array_object=only_a))[0] == 0:
                    await trio.sleep(0.05)
            code, _ = await b.cmd("ArrayReference", "Length", array_object=only_a)
            assert code == ErrorCode.INVALID_OBJECT
            assert (await b.ok("ArrayReference", "Length", array_object=again)).array_length == 4
            await b.ok("VirtualMachine", "Resume")


async def test_ids_the_daemon_keys_its_models_on_stay(need_jdwpd, sample_classes, sample_markers):
    """Deliberate difference: a thread's or a class's ID disposed as often as it was sent stays valid
    in jdwpd (the reference forgets it), because the daemon keys suspensions, frames and class facts by
    those IDs; the same holds for thread groups, class loaders and modules (agent/objects.c)."""
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(sample_classes, "Sample") as vm:
            async with open_jdwp_client(vm.host, vm.port) as client:
                t = Transcript(client, "jdwpd")
                thread, sample = await t.run_to_line("Sample", sample_markers["CALL_CATCHER"])
                group = (await t.ok("ThreadReference", "ThreadGroup", thread=thread)).group
                await t.ok("ObjectReference", "DisableCollection", object=group)
                for oid in (thread, sample, group):
                    await _dispose(t, oid, 100, "a kept id")
                # (its pin went with the disposal, as a disposed ID's does: tests/agent/test_objects.py)
                await t.ok("ObjectReference", "EnableCollection", object=group)
                assert (await t.ok("ThreadReference", "Name", thread=thread)).thread_name == "main"
                assert (await t.ok("ReferenceType", "Signature", ref_type=sample)).signature == "LSample;"
                await t.ok("ThreadGroupReference", "Name", group=group)
                assert (await t.ok("ThreadReference", "FrameCount", thread=thread)).frame_count >= 1
                await t.ok("VirtualMachine", "Resume")
