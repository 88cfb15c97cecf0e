"""An IDE-like session: the command side of a real jdb recording, replayed against a live server.

tests/fixtures/recordings/jdb_breakpoint_where_locals.jsonl holds jdb's traffic with the
reference agent: attach, event requests, AllClasses, the run to a breakpoint, where, locals,
print, threads, two steps, the run to the end.  The replay sends jdb's commands in order,
one in flight at a time as jdb does, with the IDs remapped: every recorded reply and event is
zipped with the live one, which teaches recorded ID -> live ID (classes by signature, the rest
by position).  Where jdb waited for a suspending event, the replay waits for the live one.
The value is the wall time of the whole session; "diverged" counts commands whose error code
differs from the recording (0 when the replay is faithful).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import attrs
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import JdwpClient, JdwpClosedError, open_jdwp_client
from jdwpd.testing.normalize import _id_fields
from protocol import messages, spec, wire
from protocol.wire import IDSizes

from .common import REPO, Config, Measurement, Target
from .dbg import now

RECORDING = REPO / "tests" / "fixtures" / "recordings" / "jdb_breakpoint_where_locals.jsonl"
SAMPLE_SRC = REPO / "jdwpd" / "samples"
SIZES = IDSizes(8, 8, 8, 8, 8)
OBJECT_TAGS = frozenset(b"[Lstgcl")
COMPOSITE = (64, 100)
BY_CODE = {(c.set_id, c.cmd_id): c for c in spec.COMMANDS.values()}


@attrs.define
class Packet:
    direction: str
    raw: bytes

    @property
    def id(self) -> int:
        return int.from_bytes(self.raw[4:8], "big")

    @property
    def is_reply(self) -> bool:
        return bool(self.raw[8] & 0x80)

    @property
    def code(self) -> tuple[int, int]:
        return self.raw[9], self.raw[10]

    @property
    def error(self) -> int:
        return int.from_bytes(self.raw[9:11], "big")

    @property
    def body(self) -> bytes:
        return self.raw[11:]


def load(path: Path = RECORDING) -> list[Packet]:
    return [Packet(r["dir"], bytes.fromhex(r["hex"])) for r in map(json.loads, path.read_text().splitlines())]


class IdMap:
    """Recorded ID -> live ID, per name space, learned by zipping recorded and live messages."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, int], int] = {}

    def learn(self, recorded: Any, live: Any, field: str | None = None) -> None:
        if isinstance(recorded, bool) or recorded is None or isinstance(recorded, (str, float, bytes)):
            return
        if isinstance(recorded, int):
            space = _id_fields().get(field) if field else None
            if space and recorded and isinstance(live, int):
                self.ids[(space, recorded)] = live
            return
        if isinstance(recorded, (wire.Value, wire.TaggedObjectID)):
            rec_id = recorded.value if isinstance(recorded, wire.Value) else recorded.object_id
            live_id = getattr(live, "value", None) if isinstance(live, wire.Value) else getattr(live, "object_id", None)
            if recorded.tag in OBJECT_TAGS and isinstance(rec_id, int) and isinstance(live_id, int) and rec_id:
                self.ids[("obj", rec_id)] = live_id
            return
        if isinstance(recorded, wire.Location):
            if isinstance(live, wire.Location):
                self.ids[("obj", recorded.class_id)] = live.class_id
                self.ids[("method", recorded.method_id)] = live.method_id
            return
        if attrs.has(type(recorded)):
            if type(recorded) is not type(live):
                return
            for a in attrs.fields(type(recorded)):
                self.learn(getattr(recorded, a.name), getattr(live, a.name), a.name)
            return
        if isinstance(recorded, (list, tuple)) and isinstance(live, (list, tuple)):
            if recorded and all(hasattr(x, "signature") and hasattr(x, "type_id") for x in recorded):
                # Class lists come in each server's own order: pair them by signature.
                live_by_sig = {x.signature: x for x in live}
                for x in recorded:
                    if x.signature in live_by_sig:
                        self.learn(x, live_by_sig[x.signature])
                return
            for r, v in zip(recorded, live, strict=False):
                self.learn(r, v, field)

    def remap(self, obj: Any, field: str | None = None) -> Any:
        if isinstance(obj, bool) or obj is None or isinstance(obj, (str, float, bytes)):
            return obj
        if isinstance(obj, int):
            space = _id_fields().get(field) if field else None
            return self.ids.get((space, obj), obj) if space else obj
        if isinstance(obj, wire.Value):
            if obj.tag in OBJECT_TAGS and isinstance(obj.value, int):
                return attrs.evolve(obj, value=self.ids.get(("obj", obj.value), obj.value))
            return obj
        if isinstance(obj, wire.Location):
            return attrs.evolve(obj, class_id=self.ids.get(("obj", obj.class_id), obj.class_id),
                                method_id=self.ids.get(("method", obj.method_id), obj.method_id))
        if attrs.has(type(obj)):
            return attrs.evolve(obj, **{a.name: self.remap(getattr(obj, a.name), a.name)
                                        for a in attrs.fields(type(obj)) if a.init})
        if isinstance(obj, tuple):
            return tuple(self.remap(x, field) for x in obj)
        if isinstance(obj, list):
            return [self.remap(x, field) for x in obj]
        return obj


def _kinds(events) -> list[int]:
    return [int(e.event_kind) for e in events]


async def replay(c: JdwpClient, packets: list[Packet]) -> int:
    """Send the recording's commands with live IDs; return how many replies diverged (error code)."""
    ids = IdMap()
    recorded_replies = {p.id: p for p in packets if p.direction == "s2c" and p.is_reply}
    diverged = 0
    i = 0
    while i < len(packets):
        p = packets[i]
        i += 1
        if p.is_reply:
            continue
        if p.direction == "s2c":
            if p.code != COMPOSITE:
                continue
            rec_policy, rec_events = messages.decode_composite(p.body, SIZES)
            if rec_policy == 0:
                continue  # jdb did not have to wait for it; the live one may come any time
            want = _kinds(rec_events)
            while True:
                try:
                    policy, events = await c.next_event(timeout=30)
                except JdwpClosedError:
                    return diverged
                if policy == 0:
                    continue
                if _kinds(events) == want:
                    break
                # The live VM stopped elsewhere (a thread the recording never saw start, ...):
                # jump ahead in the recording if it stops there too, else let it go.
                ahead = _find_event(packets, i, _kinds(events))
                if ahead is not None:
                    diverged += 1
                    i = ahead
                    p = packets[i - 1]
                    rec_policy, rec_events = messages.decode_composite(p.body, SIZES)
                    break
                diverged += 1
                await c.command("VirtualMachine", "Resume")
            ids.learn(tuple(rec_events), tuple(events))
            continue
        cs = BY_CODE[p.code]
        recorded = messages.decode_command(cs, p.body, SIZES)
        live_cmd = ids.remap(recorded)
        data = messages.encode_command(cs, live_cmd, SIZES)
        try:
            pid = await c.send_packet(cs.set_id, cs.cmd_id, data)
            reply = await c.reply(pid, timeout=30)
        except JdwpClosedError:
            return diverged  # jdb's last commands race the VM's death; so do ours
        rec_reply = recorded_replies.get(p.id)
        if rec_reply is None:
            continue
        if rec_reply.error != reply.error_code:
            diverged += 1
            print(f"  ide replay: {cs.label} answered {reply.error_code}, the recording has {rec_reply.error}",
                  file=sys.stderr)
            continue
        if reply.error_code == 0 and rec_reply.body:
            ids.learn(messages.decode_reply(cs, rec_reply.body, SIZES), messages.decode_reply(cs, reply.data, SIZES))
    return diverged


def _find_event(packets: list[Packet], start: int, kinds: list[int]) -> int | None:
    """Index after the next recorded suspending composite of ``kinds``, if only Resumes stand between."""
    for j in range(start, len(packets)):
        q = packets[j]
        if q.is_reply:
            continue
        if q.direction == "c2s":
            if q.code != (1, 9):  # VirtualMachine.Resume
                return None
            continue
        if q.code == COMPOSITE:
            policy, events = messages.decode_composite(q.body, SIZES)
            if policy != 0 and _kinds(events) == kinds:
                return j + 1
    return None


async def _session(kind: str, timeout: float) -> dict[str, float]:
    classes = debuggees.compile_sources(SAMPLE_SRC)
    packets = load()
    opener = jvm.open_reference_jvm if kind == "reference" else jvm.open_jdwpd_jvm
    with trio.fail_after(timeout):
        async with opener(str(classes), "Sample", suspend=True) as vm:
            async with open_jdwp_client(vm.host, vm.port, query_id_sizes=False) as c:
                t0 = now()
                diverged = await replay(c, packets)
                elapsed = now() - t0
    return {"jdb_session": elapsed * 1e3, "diverged": float(diverged)}


def run_ide(variant: str, cfg: Config) -> dict[str, float]:
    return trio.run(_session, variant, 120.0)


IDE = Measurement(
    name="ide",
    doc="A recorded jdb session replayed (attach .. breakpoint, where, locals, steps, run to end) (ms)",
    variants=("reference", "jdwpd"),
    run=run_ide,
    units={"jdb_session": "ms", "diverged": "replies"},
    targets=(Target("jdb_session", "jdwpd", "reference", 1.0),),
    needs_debugger=True,
)
