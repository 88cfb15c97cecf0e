"""The agent's C files have a shape (docs/architecture.md, "The agent"): a leaf base, a header per
module, and module dependencies that point one way.

A module is `x.c` with its header `x.h`; module A depends on B when A includes B's header (a header
including another module's header makes its includers depend on that module too).  No JVM: the
include lines are the graph; one test compiles each file alone to check that a .c includes, itself,
the header of every module whose functions or globals it uses.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

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


def _compile_flags() -> list[str] | None:
    javac, gcc = shutil.which("javac"), shutil.which("gcc")
    if javac is None or gcc is None or shutil.which("nm") is None:
        return None
    home = Path(os.path.realpath(javac)).parent.parent
    flags = ["-std=c99", "-O2", "-fPIC", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-pthread",
             f"-I{home / 'include'}", f"-I{home / 'include' / 'linux'}", f"-I{AGENT}"]
    return flags


def _symbols(obj: Path, *args: str) -> set[str]:
    out = subprocess.run(["nm", *args, str(obj)], check=True, capture_output=True, text=True, timeout=60).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def test_a_module_includes_the_header_of_every_module_it_calls(tmp_path):
    flags = _compile_flags()
    if flags is None:
        pytest.skip("needs gcc, nm and a JDK")
    defined: dict[str, str] = {}
    used: dict[str, set[str]] = {}
    for c in sorted(AGENT.glob("*.c")):
        obj = tmp_path / f"{c.stem}.o"
        subprocess.run(["gcc", *flags, "-c", str(c), "-o", str(obj)], check=True, capture_output=True, timeout=120)
        for sym in _symbols(obj, "--defined-only", "-g"):
            defined[sym] = c.stem
        used[c.stem] = _symbols(obj, "-u")
    direct = {m: {Path(h).stem for h in includes(AGENT / f"{m}.c")} for m in used}
    missing = sorted((m, defined[sym], sym) for m, syms in used.items() for sym in syms
                     if sym in defined and defined[sym] != m and defined[sym] not in direct[m])
    assert missing == [], "(module, module it uses without including its header, symbol)"
