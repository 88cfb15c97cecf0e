"""RELEASE_IDS: what the daemon asks for once no debugger holds an ID (DisposeObjects, a debugger's end)."""

from __future__ import annotations

import pytest
from agent_support import run_jvm

from jdwpd.errors import AgentError
from protocol import link as L

pytestmark = pytest.mark.jvm


async def _pins(jvm) -> int:
    return {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}["pins"]


async def test_released_ids_are_forgotten_except_the_kept_kinds(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        main = await jvm.thread_named("main")
        group = (await jvm.request("THREAD_INFO", thread=main))["group"]
        s = (await jvm.request("CREATE_STRING", utf="released"))["string"]
        for oid in (s, main, group):
            await jvm.request("OBJECT_PIN", object=oid)
        assert await _pins(jvm) == 3
        await jvm.request("RELEASE_IDS", ids=[{"id": s}, {"id": main}, {"id": group}])
        # Pins go with the release, for every kind.
        assert await _pins(jvm) == 0
        # A plain object is forgotten.
        with pytest.raises(AgentError) as e:
            await jvm.request("STRING_VALUE", string=s)
        assert e.value.status == L.LinkStatus.INVALID_ID
        # A thread and its group keep their ids (the daemon keys threads by them; events carry them).
        assert (await jvm.request("THREAD_INFO", thread=main))["group"] == group
        assert (await jvm.request("OBJECT_TYPE", object=group))["kind"] == L.ObjectKind.THREAD_GROUP
        assert await jvm.thread_named("main") == main
        # A class, its class loader: kept too.
        target = await jvm.class_id("LTarget;")
        loader = (await jvm.request("CLASS_LOADER", ref=target))["loader"]
        await jvm.request("RELEASE_IDS", ids=[{"id": target}, {"id": loader}])
        assert (await jvm.request("CLASS_SIGNATURE", ref=target))["signature"] == "LTarget;"
        assert (await jvm.request("CLASS_LOADER", ref=target))["loader"] == loader
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.send("exit")
        await jvm.expect("bye")
