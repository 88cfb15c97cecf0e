"""The agent's C files have a shape (docs/architecture.md, "The agent"): a leaf base, a header per
module, and module dependencies that point one way.

A module is `x.c` with its header `x.h`; module A depends on B when A includes B's header (a header
including another module's header makes its includers depend on that module too).  No JVM: the
include lines are the graph; the tests that compile each file alone check that a .c includes, itself,
the header of every module whose functions or globals it uses, that every name it exports starts with
its file's (so that a name says where it lives), and that every link request has its handler where
protocol/link.py says, in dispatch.c's one table.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from protocol import link

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "agent"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

#: .c files without a header of their own: nothing in the agent calls them.
NO_HEADER = {
    "agent": "Agent_OnLoad/Agent_OnAttach, called by the JVM; the top of the agent",
    "spin": "spin_until_readable, called by the daemon through ctypes (jdwpd/daemon/fast/spin.py)",
}
#: Headers that belong to no module: generated numbers (protocol/gen_c_header.py), a generated class
#: (agent/java/class_header.py).
SHARED = {"link_protocol.h", "top_frames_class.h"}
#: The base: every module may use it, and it uses no module.
BASE = "base"


def includes(path: Path) -> set[str]:
    return set(INCLUDE.findall(path.read_text()))


def modules() -> set[str]:
    return {p.stem for p in AGENT.glob("*.c")}


def graph() -> dict[str, set[str]]:
    """Module -> modules whose headers its .c (and its own .h) include, transitively through headers."""
    mods = modules()

    def header_deps(name: str, seen: set[str]) -> set[str]:
        out: set[str] = set()
        for inc in includes(AGENT / name):
            if inc in SHARED or inc in seen or not (AGENT / inc).exists():
                continue
            seen.add(inc)
            out.add(Path(inc).stem)
            out |= header_deps(inc, seen)
        return out

    g: dict[str, set[str]] = {}
    for m in sorted(mods):
        deps = header_deps(f"{m}.c", {f"{m}.h"})
        if (AGENT / f"{m}.h").exists():
            deps |= header_deps(f"{m}.h", {f"{m}.h"})
        g[m] = {d for d in deps if d != m and d in mods}
    return g


def cycle_edges(g: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Edges that lie on some cycle (both ends in one strongly connected component)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comp: dict[str, int] = {}
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            while True:
                w = stack.pop()
                on.discard(w)
                comp[w] = index[v]
                if w == v:
                    break

    for v in g:
        if v not in index:
            visit(v)
    return {(a, b) for a, bs in g.items() for b in bs if comp[a] == comp[b]}


def test_every_module_has_its_header():
    missing = sorted(m for m in modules() if m not in NO_HEADER and not (AGENT / f"{m}.h").exists())
    assert missing == []
    orphans = sorted(p.name for p in AGENT.glob("*.h") if p.name not in SHARED and p.stem not in modules())
    assert orphans == [], "a header whose module is gone"


def test_the_old_everything_header_is_gone():
    assert not (AGENT / "agent.h").exists()


def test_each_module_includes_its_own_header():
    for m in modules() - set(NO_HEADER):
        assert f"{m}.h" in includes(AGENT / f"{m}.c"), m


def test_base_is_a_leaf_everyone_stands_on():
    g = graph()
    assert g[BASE] == set(), "base.c/base.h include nothing of the agent but link_protocol.h"
    assert includes(AGENT / "base.h") <= SHARED
    for m in modules() - {BASE, "buf", "sha256", "spin"}:
        assert BASE in g[m], f"{m} does not include base.h (or a header that does)"


def test_no_cycle():
    assert sorted(cycle_edges(graph())) == []


def test_the_cycle_finder_finds_a_new_cycle():
    g = graph()
    g["filters"] = g["filters"] | {"step"}  # as if filters.c called the step machine again
    assert ("filters", "step") in cycle_edges(g)
    g = graph()
    g["base"] = g["base"] | {"link"}  # as if base.h included link.h
    assert ("base", "link") in cycle_edges(g)
    g = {"a": {"b"}, "b": {"c"}, "c": set()}
    assert cycle_edges(g) == set()
    g["c"] = {"a"}
    assert cycle_edges(g) == {("a", "b"), ("b", "c"), ("c", "a")}


def _symbols(obj: Path, *args: str) -> set[str]:
    out = subprocess.run(["nm", *args, str(obj)], check=True, capture_output=True, text=True, timeout=60).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


@pytest.fixture(scope="module")
def compiled(agent_objects) -> dict[str, tuple[set[str], set[str]]]:
    """Module -> (the symbols its object file exports, the symbols it uses from elsewhere); the objects
    are the session's (conftest.agent_objects: each file compiled alone with setup.py's flags)."""
    if shutil.which("nm") is None:
        pytest.skip("needs nm")
    return {m: (_symbols(obj, "--defined-only", "-g"), _symbols(obj, "-u")) for m, obj in agent_objects.items()}


def test_a_module_includes_the_header_of_every_module_it_calls(compiled):
    defined = {sym: m for m, (syms, _) in compiled.items() for sym in syms}
    used = {m: uses for m, (_, uses) in compiled.items()}
    direct = {m: {Path(h).stem for h in includes(AGENT / f"{m}.c")} for m in used}
    missing = sorted((m, defined[sym], sym) for m, syms in used.items() for sym in syms
                     if sym in defined and defined[sym] != m and defined[sym] not in direct[m])
    assert missing == [], "(module, module it uses without including its header, symbol)"


#: What the JVM looks up by name in an agent library: agent.c's entry points keep the names it wants.
JVM_ENTRY_POINTS = {"Agent_OnLoad", "Agent_OnAttach", "Agent_OnUnload", "JNI_OnLoad"}


def misnamed(exports: dict[str, set[str]], mods: set[str]) -> list[tuple[str, str]]:
    """(module, symbol) for each export whose name does not say its file: x.c exports only x_*, and no
    longer module name prefixes it (unload_report_* belongs in unload_report.c, not unload.c)."""
    bad = []
    for m, syms in exports.items():
        for sym in syms:
            if m == "agent" and sym in JVM_ENTRY_POINTS:
                continue
            owner = max((n for n in mods if sym.startswith(f"{n}_")), key=len, default=None)
            if owner != m:
                bad.append((m, sym))
    return sorted(bad)


def test_every_export_carries_its_files_name(compiled):
    """Functions and globals alike (the .so exports them all): a name found anywhere says its file."""
    exports = {m: syms for m, (syms, _) in compiled.items()}
    assert sum(len(s) for s in exports.values()) > 200
    assert misnamed(exports, set(compiled)) == [], "(file, exported name without the file's name first)"


def test_the_name_check_finds_a_stray_name():
    mods = {"base", "cond", "cond_parse", "unload", "unload_report", "agent"}
    assert misnamed({"cond": {"cond_eval", "ext_run"}, "agent": {"Agent_OnLoad", "reset_after_link_loss"}},
                    mods) == [("agent", "reset_after_link_loss"), ("cond", "ext_run")]
    assert misnamed({"cond": {"cond_parse_free"}, "unload": {"unload_report_send"}}, mods) == [
        ("cond", "cond_parse_free"), ("unload", "unload_report_send")]
    assert misnamed({"base": {"G", "base_g"}, "agent": {"agent_log", "JNI_OnLoad"}}, mods) == [("base", "G")]


REQUESTS = sorted((spec for spec in link.MESSAGES.values() if spec.is_request), key=lambda spec: spec.kind)
HANDLER_ENTRY = re.compile(r"(FILLS|REPLIES)\(LK_(\w+), (\w+)\)")


def handler_table(macro: str = "LINK_HANDLERS") -> dict[str, tuple[str, str]]:
    """The generated table in agent/link_protocol.h: kind name -> (FILLS or REPLIES, function)."""
    text = (AGENT / "link_protocol.h").read_text()
    body = re.search(rf"^#define {macro}\(FILLS, REPLIES\) \\\n((?:.*\\\n)*.*)$", text, re.M)
    assert body is not None, f"{macro} is not in agent/link_protocol.h"
    return {kind: (how, fn) for how, kind, fn in HANDLER_ENTRY.findall(body.group(1))}


def test_every_link_request_names_its_handler():
    """protocol/link.py: each request's agent file, its function that file's name and the kind's; the
    generated table in link_protocol.h (kept current by tests/test_build.py) holds them all."""
    assert len(REQUESTS) > 70
    for spec in REQUESTS:
        assert (AGENT / f"{spec.handled_in}.c").exists(), (spec.name, spec.handled_in)
        assert spec.handler == f"{spec.handled_in}_{spec.name.lower()}"
    table = handler_table()
    assert table == {spec.name: ("REPLIES" if spec.replies_itself else "FILLS", spec.handler) for spec in REQUESTS}
    for file in {spec.handled_in for spec in REQUESTS}:
        assert handler_table(f"LINK_HANDLERS_{file.upper()}") == {
            spec.name: table[spec.name] for spec in REQUESTS if spec.handled_in == file}
        assert f"LINK_HANDLERS_{file.upper()}(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)" in (
            AGENT / f"{file}.h").read_text(), f"{file}.h does not declare its handlers"
    assert "LINK_HANDLERS(FILLS, REPLIES)" in (AGENT / "dispatch.c").read_text()


def test_every_link_request_has_its_handler_in_dispatchs_table(compiled):
    """Each handler is defined where protocol/link.py says, and dispatch.c's table (its object file)
    refers to every one: a request without its function fails here, not at the JVM's dlopen."""
    for spec in REQUESTS:
        assert spec.handler in compiled[spec.handled_in][0], f"LK_{spec.name}: no {spec.handler} in {spec.handled_in}.c"
    dispatch_defines, dispatch_uses = compiled["dispatch"]
    assert {spec.handler for spec in REQUESTS} <= dispatch_defines | dispatch_uses
    assert not any(sym.endswith("_lookup") for syms, _ in compiled.values() for sym in syms), "a second lookup"
