"""The agent's C files have a shape (docs/architecture.md, "The agent"): a leaf base, a header per
module, and module dependencies that point one way.

A module is `x.c` with its header `x.h`; module A depends on B when A includes B's header (a header
including another module's header makes its includers depend on that module too).  No JVM, no
compiler: the include lines are the graph.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "agent"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

#: .c files without a header of their own: nothing in the agent calls them.
NO_HEADER = {
    "agent": "Agent_OnLoad/Agent_OnAttach, called by the JVM; the top of the agent",
    "spin": "jdwpd_spin_poll, called by the daemon through ctypes (jdwpd/spin.py)",
}
#: Headers that belong to no module: generated numbers, a generated class.
SHARED = {"link_protocol.h", "top_frames_class.h"}
#: The base: every module may use it, and it uses no module.
BASE = "base"
#: Cycles not yet broken, as (module, module) edges.  It may only shrink: each edge listed must
#: still exist (remove it when it goes), and no other edge may close a cycle.
#:  - filters <-> ext: the extension's per-request state judges inside filter_matches, and appends
#:    its hits and expires filters through filters' own list (ext.c reads struct filter).
KNOWN_CYCLE_EDGES = {
    ("ext", "filters"),
}


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


def test_no_new_cycle_and_the_known_ones_only_shrink():
    edges = cycle_edges(graph())
    undirected = {tuple(sorted(e)) for e in edges}
    known = {tuple(sorted(e)) for e in KNOWN_CYCLE_EDGES}
    assert undirected <= known, f"new include cycle through {sorted(undirected - known)}"
    gone = known - undirected
    assert not gone, f"cycle broken: remove {sorted(gone)} from KNOWN_CYCLE_EDGES"


def test_the_cycle_finder_finds_a_new_cycle():
    g = graph()
    g["base"] = g["base"] | {"link"}  # as if base.h included link.h
    assert ("base", "link") in cycle_edges(g)
    g = {"a": {"b"}, "b": {"c"}, "c": set()}
    assert cycle_edges(g) == set()
    g["c"] = {"a"}
    assert cycle_edges(g) == {("a", "b"), ("b", "c"), ("c", "a")}
