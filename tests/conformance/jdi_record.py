"""Which JDWP commands and event kinds each section of the JDI conformance suite sends and receives, recorded.

    python -m tests.conformance.jdi_record     # rerun every JDI scenario against the reference through
                                               # `jdwpd record`, rewrite tests/conformance/jdi_coverage.json
    JDWPD_TEST_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java python -m tests.conformance.jdi_record --merge
                                               # add what JDK 25's JDI sends besides (ThreadReference.IsVirtual)
    python -m tests.conformance.table --write  # then the table of docs/conformance.md

The mapping from JDI calls to JDWP commands is JDI's business (and changes with its caches), so it is
measured rather than written down: the client runs through the recording proxy (jdwpd/cli/record.py), and
the packets it sent are cut by the section marks the client leaves in the stream (a CreateString of
"jdi-section:<scenario>.<section>", see JdiConformance.section).  Commands before the first mark are
the attach sequence, under the section "(attach)".  Events are counted in the section they arrived in.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jdwpd.testing import debuggees, jvm
from protocol import messages, spec
from protocol.constants import EventKind
from protocol.packets import CommandPacket, PacketParser
from protocol.wire import IDSizes
from tests.conformance import jdi_harness

COVERAGE = Path(__file__).resolve().parent / "jdi_coverage.json"
ATTACH = "(attach)"
MARK = "jdi-section:"
EVENT_SET, COMPOSITE = 64, 100


def event_name(kind: int) -> str:
    name = EventKind(kind).name
    return "THREAD_DEATH" if name == "THREAD_END" else name


def sections_of(raw_jsonl: str, scenario: str) -> dict[str, dict[str, list[str]]]:
    """section -> {"commands": ["Set.Command"...], "events": ["KIND"...]} from `jdwpd record --out` lines."""
    sizes = IDSizes()
    pending: dict[int, spec.CommandSpec] = {}
    current = ATTACH
    found: dict[str, dict[str, set[str]]] = {ATTACH: {"commands": set(), "events": set()}}
    for line in raw_jsonl.splitlines():
        rec = json.loads(line)
        parser = PacketParser()
        parser.feed(bytes.fromhex(rec["hex"]))
        packet = parser.next_packet()
        if isinstance(packet, CommandPacket):
            cmd = spec.lookup(packet.command_set, packet.command)
            if cmd is None:
                raise ValueError(f"unknown command {packet.command_set}/{packet.command} in the recording")
            if rec["dir"] == "c2s":
                pending[packet.id] = cmd
                if cmd.label == "VirtualMachine.CreateString":
                    text = messages.decode_command(cmd, packet.data, sizes).utf
                    if text.startswith(MARK):
                        prefix = MARK + scenario + "."
                        assert text.startswith(prefix), text
                        current = text.removeprefix(prefix)
                        found.setdefault(current, {"commands": set(), "events": set()})
                        continue
                found[current]["commands"].add(cmd.label)
            elif (packet.command_set, packet.command) == (EVENT_SET, COMPOSITE):
                _, events = messages.decode_composite(packet.data, sizes)
                found[current]["commands"].add("Event.Composite")
                found[current]["events"].update(event_name(int(e.event_kind)) for e in events)
        else:
            cmd = pending.pop(packet.id, None)
            if cmd is not None and cmd.label == "VirtualMachine.IDSizes" and not packet.error_code:
                r = messages.decode_reply(cmd, packet.data, sizes)
                sizes = IDSizes(r.field_idsize, r.method_idsize, r.object_idsize, r.reference_type_idsize,
                                r.frame_idsize)
    return {name: {k: sorted(v) for k, v in s.items()} for name, s in found.items()}


def record_scenario(scenario: str, client_classes: Path, conf_classes: Path, markers: dict[str, int],
                    tmp: Path) -> dict:
    raw = tmp / f"{scenario}.jsonl"
    run = jdi_harness.run_jdi("reference", scenario, client_classes, conf_classes, markers, tmp / scenario,
                              through=lambda host, port: jdi_harness.recording_proxy(raw, host, port))
    if run.error:
        raise SystemExit(f"{scenario} failed on the reference:\n{run.describe()}")
    return {"transcript_sections": [s for s in jdi_harness.sections(run.transcript) if s],
            "recorded": sections_of(raw.read_text(), scenario)}


def sde_classes(conf_classes: Path, out: Path) -> Path:
    """What the suite's conf_sde_classes fixture makes: ConfStrata's class with its SourceDebugExtension."""
    from tests.conformance.classfile import add_source_debug_extension
    from tests.conformance.conftest import SMAP

    shutil.copytree(conf_classes, out, dirs_exist_ok=True)
    strata = out / "ConfStrata.class"
    strata.write_bytes(add_source_debug_extension(strata.read_bytes(), SMAP))
    return out


def load() -> dict:
    return json.loads(COVERAGE.read_text(encoding="utf-8")) if COVERAGE.exists() else {"scenarios": {}}


def merge(old: dict, new: dict) -> dict:
    """A scenario recorded on another JDK: the same sections, the union of what each sent and received."""
    if old["transcript_sections"] != new["transcript_sections"]:
        raise SystemExit("the sections differ from the recorded ones: record without --merge first")
    recorded = {name: dict(seen) for name, seen in old["recorded"].items()}
    for name, seen in new["recorded"].items():
        mine = recorded.setdefault(name, {"commands": [], "events": []})
        for key in ("commands", "events"):
            mine[key] = sorted(set(mine[key]) | set(seen[key]))
    return {"transcript_sections": old["transcript_sections"], "recorded": recorded}


def main() -> None:
    args = sys.argv[1:]
    merging = "--merge" in args
    only = [a for a in args if a != "--merge"] or list(jdi_harness.SCENARIOS)
    root = Path(__file__).resolve().parents[1]
    debuggees.compile_sources(root / "java")
    conf_classes = debuggees.compile_sources(root / "java" / "conformance")
    client_classes = debuggees.compile_sources(jdi_harness.CLIENT_SOURCES)
    markers = debuggees.all_markers(root / "java" / "conformance")
    data = load()
    version = subprocess.run([jvm.java_executable(), "-version"], capture_output=True, text=True, timeout=30)
    java = version.stderr.splitlines()[0]
    data["recorded_with"] = sorted({*data.get("recorded_with", []), java}) if merging else [java]
    with tempfile.TemporaryDirectory(prefix="jdi-record-") as tmp:
        conf_classes = sde_classes(conf_classes, Path(tmp) / "classes")
        for scenario in only:
            found = record_scenario(scenario, client_classes, conf_classes, markers, Path(tmp))
            if merging and scenario in data["scenarios"]:
                found = merge(data["scenarios"][scenario], found)
            data["scenarios"][scenario] = found
            print(f"{scenario}: {len(found['recorded'])} sections recorded", file=sys.stderr)
    data["scenarios"] = {k: data["scenarios"][k] for k in jdi_harness.SCENARIOS if k in data["scenarios"]}
    COVERAGE.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
