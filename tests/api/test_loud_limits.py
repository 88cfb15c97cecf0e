"""Limits a script did not see coming are said where it looks (issue 30 item 4b).

- A snapshot point's default cap (``max_hits=10``): a script that only passes ``on_hit`` is told
  by a ``jdwpd.RequestWarning`` naming the cap and the hits it saw when its handlers get no more;
  ``sp.disabled`` and ``sp.error`` say the same; its waits raise ``RequestDisabled``.  Both servers
  (captured in the VM on jdwpd, over JDWP on the reference).
- An in-VM logpoint whose lines the VM dropped (the daemon stopped while the program hit: the agent's
  32 MiB queue full): ``log.dropped`` counts them, a ``RequestWarning`` says so, and a wait for lines
  that can no longer come raises ``CapturesDropped`` with the count.  jdwpd only (elsewhere a logpoint
  holds its thread while the line is made: nothing is dropped).
"""

from __future__ import annotations

import os
import signal
import warnings
from pathlib import Path

import pytest
import trio
from api_support import java_argv, open_shop
from conftest_skip import skip_unless_jdwpd

import jdwpd
from jdwpd.testing import debuggees

pytestmark = pytest.mark.jvm

DROPS = Path(__file__).resolve().parent / "drops_java"


async def test_a_default_snapshot_cap_is_said_to_an_on_hit_script(server_kind, shop_classes, shop_lines):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", jdwpd.RequestWarning)
        async with open_shop(server_kind, shop_classes) as vm:
            sp = await vm.snapshots(f"Checkout.java:{shop_lines['shop_pay']}")
            got = []

            @sp.on_hit
            async def keep(snap: jdwpd.Snapshot) -> None:
                got.append(snap)

            await vm.resume()
            with trio.fail_after(60):
                while sp.error is None:
                    await trio.sleep(0.05)
            assert sp.disabled == "hit_cap"
            assert "max_hits=10" in sp.error and "default cap" in sp.error, sp.error
            with pytest.raises(jdwpd.RequestDisabled, match=r"after 10 hits"):
                await sp.wait(timeout=5)
            await trio.sleep(0.3)  # no snapshot after the cap
            assert len(got) == 10
    said = [w.message for w in caught if isinstance(w.message, jdwpd.RequestWarning)]
    assert len(said) == 1, said
    text = str(said[0])
    assert "snapshot point Checkout.java" in text and "max_hits=10" in text and "after 10 hits" in text, text
    assert "on_hit" in text, text


async def test_lines_an_in_vm_logpoint_dropped_are_counted_and_said():
    skip_unless_jdwpd()
    classes = debuggees.compile_sources(DROPS)
    line = debuggees.all_markers(DROPS)["drops_hit"]
    # 60,000 characters a line: the queue is full after ~550 of them
    hits, big = 1500, 60_000
    argv = [*java_argv(classes, "Drops"), str(hits), str(big), "1500", "4000"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", jdwpd.RequestWarning)
        async with jdwpd.launch(argv, suspend=True) as vm:
            log = await vm.logpoint(f"Drops.java:{line}", "{i} {big}")
            await vm.resume()
            with trio.fail_after(30):  # set as its class loaded; the program runs on, then sleeps
                while "ready" not in vm.process.output():
                    await trio.sleep(0.01)
            assert log.in_vm_requests == 1
            daemon = vm.process.pid
            os.kill(daemon, signal.SIGSTOP)  # the daemon reads nothing: the program's burst fills the queue
            try:
                with trio.fail_after(60):
                    while "burst done" not in vm.process.output():
                        await trio.sleep(0.05)
            finally:
                os.kill(daemon, signal.SIGCONT)
            with pytest.raises(jdwpd.CapturesDropped) as ended:
                await log.wait_lines(hits, timeout=120)  # the program ends with some never sent
            assert 0 < log.dropped < hits, log.dropped
            assert ended.value.dropped == log.dropped
            lines = await log.lines()
            assert len(lines) + log.dropped == hits, (len(lines), log.dropped)
            numbers = [int(ln.split(" ", 1)[0]) for ln in lines]
            assert numbers == sorted(set(numbers)) and all(len(ln.split(" ", 1)[1]) == big for ln in lines)
            assert f"dropped {log.dropped} of its lines" in str(ended.value), ended.value
            assert f"printed {len(lines)} of {hits} lines" in str(ended.value), ended.value
    said = [str(w.message) for w in caught if isinstance(w.message, jdwpd.RequestWarning)]
    assert len(said) == 1 and "the VM dropped" in said[0] and "logpoint Drops.java" in said[0], said
