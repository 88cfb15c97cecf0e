"""The harness itself: CI runs the README's command, the compile cache hits, JVMs die, the normalizer normalizes."""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.normalize import Normalizer, normalize_text
from protocol import messages, spec
from protocol.wire import Location, TaggedObjectID, Value

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- README and CI


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"```\n(.*?)```", text, re.S)
    assert m, "README.md has no code block"
    return m.group(1).strip().splitlines()


def test_readme_opens_with_two_commands():
    first_block = readme_commands()
    assert first_block == ["pip install . && jdwpd demo", "pip install -e '.[test]' && python -m pytest -q"]
    # "opens with": the title, then the commands, before any prose.
    body = (ROOT / "README.md").read_text().split("\n", 1)[1].lstrip()
    assert body.startswith("```\n")


def test_ci_runs_the_readme_commands_as_written():
    """.ci/run runs .ci/readme_commands, which reads the README's commands from README.md (a copy could
    drift from what users read) and runs them from a fresh clone's root."""
    ci = ROOT / ".ci" / "run"
    assert ci.stat().st_mode & stat.S_IXUSR, ".ci/run must be executable"
    lines = ci.read_text().splitlines()
    assert lines[0].startswith("#!") and "bash" in lines[0]
    assert "set -euo pipefail" in lines
    assert ".ci/readme_commands" in lines, "CI must run the README's commands"
    assert any("openjdk-17-jdk-headless" in line for line in lines)
    check = ROOT / ".ci" / "readme_commands"
    assert check.stat().st_mode & stat.S_IXUSR
    text = check.read_text()
    assert "README.md" in text and "git clone" in text
    for command in readme_commands():
        assert command not in text, f"{command!r} is copied into .ci/readme_commands: read it from README.md"


# ---------------------------------------------------------------- compile cache and markers


@pytest.fixture
def tiny_sources(tmp_path: Path) -> Path:
    src = tmp_path / "tiny"
    src.mkdir()
    (src / "Tiny.java").write_text(
        "public class Tiny {\n"
        "    public static void main(String[] a) {\n"
        "        System.out.println(\"tiny\"); // @marker TINY_PRINT\n"
        "    }\n"
        "}\n"
    )
    return src


@pytest.mark.jvm
def test_compile_cache_hits_and_misses(tiny_sources: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    first = debuggees.compile_sources(tiny_sources, cache=cache)
    assert (first / "Tiny.class").is_file()
    stamp = (first / "Tiny.class").stat().st_mtime_ns
    t0 = time.monotonic()
    again = debuggees.compile_sources(tiny_sources, cache=cache)
    assert again == first
    assert (again / "Tiny.class").stat().st_mtime_ns == stamp, "a cache hit must not recompile"
    assert time.monotonic() - t0 < 0.5, "a cache hit costs a hash, not a javac run"
    # A changed source is a different key, compiled aside; the old tree stays valid.
    (tiny_sources / "Tiny.java").write_text((tiny_sources / "Tiny.java").read_text().replace("tiny", "tiny2"))
    changed = debuggees.compile_sources(tiny_sources, cache=cache)
    assert changed != first and (changed / "Tiny.class").is_file() and (first / "Tiny.class").is_file()
    assert sorted(p.name for p in cache.iterdir() if not p.name.startswith(".")) == sorted([first.name, changed.name])


@pytest.mark.jvm
def test_compile_error_is_reported(tmp_path: Path):
    src = tmp_path / "broken"
    src.mkdir()
    (src / "Broken.java").write_text("public class Broken { int x = ; }\n")
    with pytest.raises(debuggees.CompileError, match="Broken.java"):
        debuggees.compile_sources(src, cache=tmp_path / "cache")
    assert not [p for p in (tmp_path / "cache").iterdir() if not p.name.startswith(".")]


def test_markers(tiny_sources: Path):
    assert debuggees.markers(tiny_sources / "Tiny.java") == {"TINY_PRINT": 3}
    assert debuggees.marker_line(tiny_sources / "Tiny.java", "TINY_PRINT") == 3
    with pytest.raises(KeyError, match="NOPE"):
        debuggees.marker_line(tiny_sources / "Tiny.java", "NOPE")
    (tiny_sources / "Other.java").write_text("class Other {} // @marker TINY_PRINT\n")
    with pytest.raises(ValueError, match="TINY_PRINT"):
        debuggees.all_markers(tiny_sources)


def test_sample_markers_are_unique_and_present(sample_markers):
    for name in ("MAIN_LOCALS", "COMPUTE_START", "THROW", "CATCH_CLAUSE", "WORKERS_JOINED", "LATE_CTOR"):
        assert name in sample_markers


# ---------------------------------------------------------------- JVMs are always killed


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of a process group, read from /proc."""
    members = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat_file.parent.name))
    return members


@pytest.mark.jvm
@pytest.mark.parametrize("kind", ["reference", "jdwpd"])
def test_whole_process_group_is_killed(kind, sample_classes):
    """jdwpd launch runs the JVM as its child: killing must take both (the group), not just the launcher."""
    if kind == "jdwpd" and not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    with jvm.debuggee_jvm(kind, sample_classes, "Sample") as vm:
        members = group_members(vm.pid)
        assert vm.pid in members
        if kind == "jdwpd":
            assert len(members) >= 2, "the launcher and its JVM"
    deadline = time.monotonic() + 10
    while group_members(vm.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert group_members(vm.pid) == []


@pytest.mark.jvm
def test_jvm_killed_when_not_ready_in_time(sample_classes):
    t0 = time.monotonic()
    with pytest.raises(jvm.JvmStartError, match="not ready after 2") as info:
        jvm.start_reference_jvm(sample_classes, "Sample", timeout=2, ready=re.compile("never printed"))
    assert time.monotonic() - t0 < 15
    assert gone(info.value.pid)
    assert "Listening for transport" in str(info.value), "the JVM's output goes into the error"


@pytest.mark.jvm
def test_jvm_that_exits_early_is_reported(sample_classes):
    with pytest.raises(jvm.JvmStartError, match="exited with 1") as info:
        jvm.start_reference_jvm(sample_classes, "NoSuchMainClass", suspend=False, timeout=30,
                                ready=re.compile("never printed"))
    assert gone(info.value.pid)
    assert "NoSuchMainClass" in str(info.value)


@pytest.mark.jvm
def test_sync_jvm_killed_on_exception(sample_classes):
    with pytest.raises(RuntimeError, match="test body failed"):
        with jvm.reference_jvm(sample_classes, "Sample") as vm:
            pid = vm.pid
            assert vm.port > 0 and not gone(pid)
            raise RuntimeError("test body failed")
    assert gone(pid)


@pytest.mark.jvm
async def test_trio_jvm_killed_on_cancel_and_timeout(sample_classes):
    with trio.move_on_after(30) as scope:
        async with jvm.open_reference_jvm(sample_classes, "Sample") as vm:
            pid = vm.pid
            assert not gone(pid)
            scope.deadline = trio.current_time() + 0.3  # a timeout that strikes while the JVM runs
            await trio.sleep_forever()
    assert scope.cancelled_caught
    assert gone(pid)
    # newer trio wraps what escapes a nursery in an ExceptionGroup (strict_exception_groups)
    with pytest.raises((jvm.JvmStartError, BaseExceptionGroup)) as info:
        async with jvm.open_reference_jvm(sample_classes, "Sample", timeout=1.5, ready=re.compile("never")):
            pytest.fail("not ready, so never entered")
    error = info.value
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    assert isinstance(error, jvm.JvmStartError), info.value
    assert gone(error.pid)


@pytest.mark.jvm
async def test_trio_jvm_runs_to_exit(sample_classes):
    async with jvm.open_reference_jvm(sample_classes, "Sample", suspend=False) as vm:
        assert await vm.wait_exit(60) == 0
        assert "done" in vm.output.lines("stdout")


# ---------------------------------------------------------------- normalizer


def test_normalizer_names_ids_by_first_appearance():
    cs = spec.by_name("VirtualMachine", "AllThreads")

    def transcript(ids):
        reply = messages.decode_reply(cs, messages.encode_reply(cs, {"threads": ids}))
        return Normalizer()(reply)

    assert transcript([501, 77, 501]) == transcript([9, 1000, 9]) == {"threads": [
        {"thread": "obj#1"}, {"thread": "obj#2"}, {"thread": "obj#1"}]}
    assert transcript([501, 77, 77]) != transcript([9, 1000, 9])


def test_normalizer_spaces_values_and_nulls():
    n = Normalizer()
    cs = spec.by_name("StackFrame", "GetValues")
    reply = messages.decode_reply(cs, messages.encode_reply(cs, {"values": [
        Value(ord("L"), 0x1234), Value(ord("I"), 0x1234), Value(ord("s"), 0), Value(ord("V"), None)]}))
    assert n(reply) == {"values": [{"slot_value": "L:obj#1"}, {"slot_value": "I:4660"}, {"slot_value": "s:0"},
                                   {"slot_value": "V"}]}
    # Methods have their own space; a class ID is an object ID (ReferenceType.ClassObject answers it).
    assert n.location(Location(1, 0x1234, 0x1234, 7)) == "loc(1,obj#1,method#1,7)"
    assert n(TaggedObjectID(ord("t"), 99)) == "t:obj#2"
    assert n({"request_id": 5, "thread": 99, "frame_id": 99}) == {"request_id": "req#1", "thread": "obj#2",
                                                                  "frame_id": "frame#1"}


def test_normalizer_keeps_event_kind():
    cs_events = messages.decode_composite(messages.encode_composite(2, [
        messages.Events.VMStart(request_id=0, thread=42)]))
    assert Normalizer()(cs_events) == [2, [{"event_kind": "VM_START", "request_id": 0, "thread": "obj#1"}]]


def test_normalize_text_for_jdb():
    a = normalize_text(
        "  (java.lang.Thread)365   Signal Dispatcher running\n"
        "  (java.lang.Thread)1     main              running\n"
        " sample = instance of Sample(id=440)\n this = \"Sample@74a14482\"\n"
        "  [2] Sample$$Lambda$2/0x00007fce2c009228.run (null)\n"
        "  [1] Sample.compute (Sample.java:109)\n")
    b = normalize_text(
        "  (java.lang.Thread)0x9    Signal Dispatcher running\n"
        "  (java.lang.Thread)0x21   main running\n"
        " sample = instance of Sample(id=12)\n this = \"Sample@1f\"\n"
        "  [2] Sample$$Lambda$2/0x0000000800c03000.run (null)\n"
        "  [1] Sample.compute (Sample.java:109)\n")
    assert a == b
    assert "(java.lang.Thread)obj#1 Signal Dispatcher running" in a
    assert "(id=obj#3)" in a and "Sample@HASH" in a and "(Sample.java:109)" in a


# ---------------------------------------------------------------- raw client


@pytest.mark.jvm
async def test_client_many_commands_in_flight(sample_classes):
    """Replies are matched to commands by id, whatever order they are awaited in."""
    from jdwpd.testing.client import JdwpClosedError, JdwpReplyError, open_jdwp_client
    from protocol import spec as jspec

    async with jvm.open_reference_jvm(sample_classes, "Sample") as vm:
        async with open_jdwp_client(vm.host, vm.port) as c:
            policy, events = await c.next_event(timeout=30)
            assert events[0].event_kind == 90  # VM_START
            sigs = ["Ljava/lang/String;", "Ljava/lang/Object;", "Ljava/lang/Thread;", "[I", "LNoSuch;"] * 4
            cs = jspec.by_name("VirtualMachine", "ClassesBySignature")
            ids = [await c.send_packet(cs.set_id, cs.cmd_id, messages.encode_command(cs, {"signature": s}, c.sizes))
                   for s in sigs]
            replies = {}
            for pid in reversed(ids):  # awaited in the opposite order
                packet = await c.reply(pid, timeout=30)
                replies[pid] = messages.decode_reply(cs, packet.data, c.sizes)
            for pid, sig in zip(ids, sigs, strict=True):
                expected = await c.command("VirtualMachine", "ClassesBySignature", signature=sig)
                assert replies[pid] == expected
            assert len(replies[ids[-1]].classes) == 0 and len(replies[ids[0]].classes) == 1

            async with trio.open_nursery() as nursery:
                results = {}

                async def ask(i):
                    results[i] = await c.command("ReferenceType", "Signature",
                                                 ref_type=replies[ids[i]].classes[0].type_id)

                for i in range(4):
                    nursery.start_soon(ask, i)
            assert [results[i].signature for i in range(4)] == sigs[:4]

            with pytest.raises(JdwpReplyError) as info:
                await c.command("ReferenceType", "Signature", ref_type=0x7FFF_0000_0000_0001)
            assert info.value.code == 20  # INVALID_OBJECT

            # Garbage ends the connection: the reference drops a packet with bad flags.
            await c.send_raw(b"\x00\x00\x00\x0b\x00\x00\x00\x63\x42\x01\x01")
            with pytest.raises((JdwpClosedError, trio.TooSlowError)):
                await c.command("VirtualMachine", "Version", timeout=10)


@given(ids=st.lists(st.integers(1, 2**64 - 1), min_size=1, max_size=12), data=st.data())
def test_normalizer_is_invariant_under_renaming(ids, data):
    """Transcripts equal up to a one-to-one renaming of IDs normalize equal; merging two IDs shows."""
    distinct = sorted(set(ids))
    targets = data.draw(st.lists(st.integers(1, 2**64 - 1), min_size=len(distinct), max_size=len(distinct),
                                 unique=True))
    rename = dict(zip(distinct, targets, strict=True))

    def transcript(f):
        return [{"thread": f(i), "location": Location(1, f(i), i % 7 + 1, 3), "value": Value(ord("L"), f(i))}
                for i in ids]

    assert Normalizer()(transcript(lambda i: i)) == Normalizer()(transcript(rename.get))
    if len(distinct) > 1:
        merged = {**rename, distinct[1]: rename[distinct[0]]}
        assert Normalizer()(transcript(lambda i: i)) != Normalizer()(transcript(merged.get))


def test_normalizer_scopes_frames_by_thread():
    """The reference reuses frame numbers across threads; jdwpd need not: per thread, both read the same."""
    def frames(ids):
        return {"frames": [{"frame_id": f, "location": Location(1, 7, 8, 0)} for f in ids]}

    reference, ours = Normalizer(), Normalizer()
    assert reference(frames([1, 2]), thread=10) == ours(frames([0, 5]), thread=20)
    assert reference(frames([1]), thread=11) == ours(frames([9]), thread=21)
    assert reference(frames([1]), thread=10) == ours(frames([0]), thread=20), "same frame, same name"
    assert reference(frames([1]), thread=10) != ours(frames([5]), thread=20), "a different frame shows"


CTRL_C_SCRIPT = {
    "sync": """
import sys, time
from jdwpd.testing import jvm
with jvm.reference_jvm(sys.argv[1], "Sample") as vm:
    print(vm.pid, flush=True)
    time.sleep(120)
""",
    "trio": """
import sys, trio
from jdwpd.testing import jvm
async def main():
    async with jvm.open_reference_jvm(sys.argv[1], "Sample") as vm:
        print(vm.pid, flush=True)
        await trio.sleep(120)
trio.run(main)
""",
}


@pytest.mark.jvm
@pytest.mark.parametrize("flavour", ["sync", "trio"])
def test_ctrl_c_kills_the_jvm(flavour, sample_classes):
    import signal
    import subprocess
    import sys

    # A shell's background job (`cmd &` without job control) ignores SIGINT, and Python then never
    # installs its KeyboardInterrupt handler: the child gets SIGINT's default back, as at a terminal.
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C_SCRIPT[flavour], str(sample_classes)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    pid = None
    try:
        line = proc.stdout.readline()
        assert line.strip().isdigit(), proc.stderr.read() if proc.poll() is not None else line
        pid = int(line)
        assert not gone(pid)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        assert "KeyboardInterrupt" in proc.stderr.read()
        deadline = time.monotonic() + 10
        while not gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if pid is not None and not gone(pid):
            os.kill(pid, signal.SIGKILL)  # the JVM the failed script left: no test leaves one running


def test_bytecode_is_written_once_for_the_children(tmp_path: Path):
    """jdwpd.testing.bytecode: the modules' bytecode exists after the session's compile, and a child
    that does not write bytecode (PYTHONDONTWRITEBYTECODE=1) loads it instead of compiling the source."""
    import importlib.util
    import subprocess
    import sys

    from jdwpd.testing import bytecode

    package = tmp_path / "pkg_for_bytecode"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("VALUE = 41 + 1\n")
    cached = Path(importlib.util.cache_from_source(str(package / "mod.py")))
    assert not cached.exists()
    assert bytecode.compile_packages(force=True, folders=[package])
    assert cached.is_file()
    # the child's import takes the bytecode (-v names where each module's code came from)
    child = subprocess.run(
        [sys.executable, "-v", "-c", "import pkg_for_bytecode.mod as m; print(m.VALUE)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert child.returncode == 0, child.stderr
    assert child.stdout == "42\n"
    assert f"code object from '{cached}'" in child.stderr
