"""The scripting API and jdwpd's in-VM features across the remote link (issue 32): ``jdwpd.attach`` to
``jdwpd connect``'s JDWP port; a condition and a logpoint run in the far JVM (the extension crosses with
the agent link), a snapshot is captured there, and a write goes through."""

from __future__ import annotations

import pytest
import trio
from remote_kit import TARGET_SRC, open_far, open_near, write_secret

import jdwpd

pytestmark = pytest.mark.jvm


def _line(text: str) -> int:
    source = (TARGET_SRC / "RemoteTarget.java").read_text().splitlines()
    return next(n for n, line in enumerate(source, 1) if text in line)


async def test_the_api_and_in_vm_features_across_the_link(tmp_path):
    secret = write_secret(tmp_path / "secret")
    at = f"RemoteTarget.java:{_line('double d = a * ratio;')}"
    with trio.fail_after(180):
        async with open_far(secret, args=("400",)) as far, open_near(f"127.0.0.1:{far.port}", secret) as near:
            async with jdwpd.attach(f"127.0.0.1:{near.port}") as vm:
                assert await vm.has_extension()
                bp = await vm.breakpoint(at, condition="i == 150")
                log = await vm.logpoint(at, "i={i} a={a}", condition="i % 100 == 0")
                snaps = await vm.snapshots(at, condition="i == 120", watch=["this.count"], max_hits=1)
                await vm.resume()
                snap = await snaps.wait(timeout=60)
                assert snap.in_vm and snap.data["watches"][0]["value"] == 121
                hit = await bp.wait(timeout=60)
                assert bp._in_vm_requests and await hit.evaluate("i") == 150   # decided in the far VM
                this = await hit.frame.this()
                await this.set("ratio", 2.0)                                    # a write crosses too
                await bp.clear()
                await hit.resume()
                lines = await log.wait_lines(3, timeout=60)
                assert lines[:2] == ["i=0 a=0", "i=100 a=200"] and log._capture_parts
                assert lines[2] == "i=200 a=400"
                await log.clear()
