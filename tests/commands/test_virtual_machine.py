"""VirtualMachine: the same session under the reference agent and jdwpd."""

import struct

import pytest

from jdwpd.own_command import jdwpd_argv
from protocol.constants import ErrorCode, EventKind, SuspendPolicy, TypeTag
from tests.commands.types_support import TIMEOUT, differential

pytestmark = pytest.mark.jvm


async def test_vm_facts_at_start(sample_classes):
    async def scenario(t):
        policy, events = await t.client.next_event(TIMEOUT)
        t.note("start", (policy, events))
        assert events[0].event_kind == EventKind.VM_START and policy == SuspendPolicy.ALL
        await t.ok("VirtualMachine", "Version")
        await t.ok("VirtualMachine", "IDSizes")
        await t.ok("VirtualMachine", "Capabilities")
        await t.ok("VirtualMachine", "CapabilitiesNew")
        await t.ok("VirtualMachine", "ClassPaths")
        await t.ok("VirtualMachine", "AllThreads")
        await t.ok("VirtualMachine", "TopLevelThreadGroups")
        for sig in ("Ljava/lang/String;", "[I", "I", "Ljava/lang/Runnable;", "Lno/Such;", "[[Ljava/lang/Object;"):
            await t.ok("VirtualMachine", "ClassesBySignature", signature=sig)
        for cmd in ("AllClasses", "AllClassesWithGeneric"):
            classes = (await t.ok("VirtualMachine", cmd, record=False)).classes
            wanted = {"Ljava/lang/String;", "Ljava/util/List;", "[I", "Ljava/lang/Thread;"}
            t.note(cmd, sorted((c.signature, c.ref_type_tag, c.status, getattr(c, "generic_signature", None))
                               for c in classes if c.signature in wanted))
            assert not any(c.signature == "I" for c in classes)  # primitives only by signature
        modules = (await t.ok("VirtualMachine", "AllModules", record=False)).modules
        t.note("modules", len(modules) > 0)
        # suspend and resume, counted per thread
        main = (await t.ok("VirtualMachine", "AllThreads")).threads[0].thread
        await t.ok("ThreadReference", "SuspendCount", thread=main)
        await t.ok("VirtualMachine", "Suspend")
        await t.ok("ThreadReference", "SuspendCount", thread=main)
        await t.ok("VirtualMachine", "Resume")
        await t.ok("ThreadReference", "SuspendCount", thread=main)
        # strings
        s = (await t.ok("VirtualMachine", "CreateString", utf="h\u00e9llo \U0001d11e")).string_object
        await t.ok("StringReference", "Value", string_object=s)
        await t.ok("VirtualMachine", "DisposeObjects", requests=[(s, 1)])
        await t.ok("VirtualMachine", "HoldEvents")
        await t.ok("VirtualMachine", "ReleaseEvents")
        await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id="Java")
        await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id="")
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


async def test_instance_counts_and_redefinition(sample_classes, sample_markers):
    async def scenario(t):
        thread, sample = await t.run_to_line("Sample", sample_markers["COMPUTE_TOTAL"])
        circle = await t.class_id("LSample$Circle;")
        await t.ok("VirtualMachine", "InstanceCounts", ref_types_count=[sample, circle, 0x7FFFFFF0, thread])
        await t.ok("VirtualMachine", "InstanceCounts", ref_types_count=[])
        pid = await t.client.send_packet(1, 21, struct.pack(">i", -1))
        t.note("negative count", (await t.client.reply(pid, TIMEOUT)).error_code)
        # redefinition: nothing, an empty class file, the class's own bytes
        await t.ok("VirtualMachine", "RedefineClasses", classes=[])
        code, _ = await t.cmd("VirtualMachine", "RedefineClasses", classes=[(circle, b"")])
        assert code == ErrorCode.INVALID_CLASS_FORMAT
        code, _ = await t.cmd("VirtualMachine", "RedefineClasses", classes=[(circle, b"\xca\xfe\xba\xbe")])
        assert code != 0
        own = (sample_classes / "Sample$Circle.class").read_bytes()
        await t.ok("VirtualMachine", "RedefineClasses", classes=[(circle, own)])
        await t.cmd("VirtualMachine", "RedefineClasses", classes=[(0x7FFFFFF0, own)])
        await t.cmd("VirtualMachine", "RedefineClasses", classes=[(thread, own)])
        await t.ok("ReferenceType", "Signature", ref_type=circle)
        t.note("type tag", TypeTag.CLASS)
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


async def test_exit_answers_then_ends_the_vm_with_the_code(server_kind, sample_classes):
    import trio

    from jdwpd.testing import jvm
    from jdwpd.testing.client import open_jdwp_client

    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm(server_kind, sample_classes, "Sample") as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as c:
                await c.next_event(TIMEOUT)
                await c.command("VirtualMachine", "Exit", exit_code=7)
                await c.wait_closed(TIMEOUT)
            assert await debuggee.wait_exit(TIMEOUT) == 7


@pytest.mark.parametrize("profile", ["inspect", "nothrow"])
async def test_capabilities_say_what_the_profile_cannot_do(profile, sample_classes, sample_markers):

    import trio

    from jdwpd.testing import jvm
    from jdwpd.testing.client import open_jdwp_client
    from protocol.constants import ModKind

    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    cmd = [*jdwpd_argv(), "launch", "--profile", profile, "--jdwp", "127.0.0.1:0", "--suspend",
           "--", jvm.java_executable(), "-cp", str(sample_classes), "Sample"]
    with trio.fail_after(3 * TIMEOUT):
        async with jvm._open_trio("jdwpd", cmd, TIMEOUT, None) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as c:
                await c.next_event(TIMEOUT)
                caps = await c.command("VirtualMachine", "CapabilitiesNew")
                full_only = ("can_watch_field_modification", "can_watch_field_access", "can_pop_frames",
                             "can_force_early_return", "can_request_monitor_events", "can_get_monitor_frame_info")
                for name in full_only:
                    assert getattr(caps, name) is (profile != "inspect"), name
                for name in ("can_get_bytecodes", "can_redefine_classes", "can_get_instance_info",
                             "can_get_owned_monitor_info", "can_use_instance_filters"):
                    assert getattr(caps, name) is True, name
                thread = (await c.command("VirtualMachine", "AllThreads")).threads[0].thread
                code, _ = await c.command_raw("ThreadReference", "OwnedMonitorsStackDepthInfo", thread=thread)
                assert code == (ErrorCode.NOT_IMPLEMENTED if profile == "inspect" else 0)
                code, _ = await c.command_raw(
                    "EventRequest", "Set", event_kind=EventKind.EXCEPTION, suspend_policy=SuspendPolicy.NONE,
                    modifiers=[{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0, "caught": True,
                                "uncaught": True}])
                assert code == ErrorCode.NOT_IMPLEMENTED  # neither profile pays for exception events
                code, entry = await c.command_raw("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY,
                                                  suspend_policy=SuspendPolicy.NONE, modifiers=[])
                assert code == (ErrorCode.NOT_IMPLEMENTED if profile == "inspect" else 0)
                if entry is not None:
                    await c.command("EventRequest", "Clear", event_kind=EventKind.METHOD_ENTRY,
                                    request_id=entry.request_id)
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
            assert await debuggee.wait_exit(TIMEOUT) == 0
