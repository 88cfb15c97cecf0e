"""Import directions between the new front ends and the daemon (docs/architecture.md, "Front ends")."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DAEMON = ("jdwpd.daemon", "jdwpd.ci")


def imports(path: Path) -> set[str]:
    """Absolute module names a file imports (relative imports resolved against its package)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
    return out


def offending(folder: str, banned: tuple[str, ...]) -> list[str]:
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name in imports(path):
            if name.startswith(banned):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return bad


def test_the_expression_language_is_pure():
    assert offending("jdwpd/expr", ("trio", "socket", "subprocess", "jdwpd.api", *DAEMON)) == []


def test_the_api_is_a_client_and_never_reaches_into_the_daemon():
    assert offending("jdwpd/api", DAEMON) == []


def test_protocol_imports_nothing_of_jdwpd():
    assert offending("protocol", ("jdwpd", "trio")) == []


# ---------------------------------------------------------------- the daemon's layers (issue 18)

def runtime_graph() -> dict[str, set[str]]:
    """Module -> the jdwpd/protocol modules it imports at run time (lazy imports inside functions
    included, imports under ``if TYPE_CHECKING:`` not)."""
    mods = {}
    for pkg in ("jdwpd", "protocol"):
        for path in (ROOT / pkg).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = path
    edges: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        typing_only = {id(x) for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
                       for b in n.body for x in ast.walk(b)}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out = set()
        for node in ast.walk(tree):
            if id(node) in typing_only or not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
                mod = ".".join([*base, node.module] if node.module else base) if node.level else node.module
                targets = [mod, *(f"{mod}.{a.name}" for a in node.names)]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    out.add(t)
        edges[name] = out
    return edges


def cycles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.add(frozenset(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return found


# Debt, written down so that it can only shrink (docs/architecture.md, "Layers"): the generated
# fast link decoders are made from link.py's tables and link.py calls them lazily; the API's values
# and their readable views know each other.
KNOWN_CYCLES: set[frozenset[str]] = set()

# The fast path (jdwpd/daemon/fast/) is one layer, above the model and under the link: it builds on
# protocol and the model only, and the link, the façade and the sessions build on it.  The façade
# is vm.py, its operations (facade/) and its event fan-out (events.py).
LAYER = {"protocol": 0, "jdwpd.errors": 0, "jdwpd.usage": 0, "jdwpd.daemon.trio_private": 0, "jdwpd._agent": 0,
         "jdwpd.daemon.model": 1, "jdwpd.daemon.fast": 2, "jdwpd.daemon.link": 3,
         "jdwpd.daemon.vm": 4, "jdwpd.daemon.facade": 4, "jdwpd.daemon.events": 4}
# Imports from a lower layer into a higher one still to remove (none left: keep it so).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def layer_of(module: str) -> int | None:
    for prefix, level in sorted(LAYER.items(), key=lambda kv: -len(kv[0])):
        if module == prefix or module.startswith(prefix + "."):
            return level
    return None


def test_no_new_import_circles():
    assert cycles(runtime_graph()) - KNOWN_CYCLES == set()


def test_lower_layers_import_no_higher_one_beyond_the_known_debt():
    upward = set()
    for module, targets in runtime_graph().items():
        level = layer_of(module)
        if level is None:
            continue
        for t in targets:
            t_level = layer_of(t)
            if t.startswith("jdwpd") and (t_level is None or t_level > level):
                upward.add((module, t))
    assert upward - KNOWN_UPWARD == set()
    assert KNOWN_UPWARD <= upward, "debt paid: take it off KNOWN_UPWARD"


def test_no_submodule_shadows_an_api_name():
    """``jdwpd.launch`` once was both the API's entry point and the CLI's module: importing the module
    (any test or tool may) replaced the function on the package."""
    import jdwpd

    top_level = {p.stem for p in (ROOT / "jdwpd").glob("*.py")} | {p.name for p in (ROOT / "jdwpd").iterdir()
                                                                  if (p / "__init__.py").is_file()}
    assert top_level & set(jdwpd._API_NAMES) == set()


def test_front_ends_never_reach_the_link():
    """Every query and change of a JDWP handler goes through the VM façade (docs/architecture.md, "The VM
    façade"): no module in commands/ names the agent link, so a second front end finds the bookkeeping
    (frame generations, suspensions, invokes, pins, cached facts) behind the façade, not in a handler."""
    reaching = []
    for path in sorted((ROOT / "jdwpd" / "daemon" / "commands").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "link":
                reaching.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    assert reaching == []


# ---------------------------------------------------------------- the product's parts (issue 29.7)

#: What each part of jdwpd may import at run time besides itself: the layer rules as folder rules.
#: Shared leaves (errors, usage, own_command) sit at the top of jdwpd/ so that every part can use them.
LEAVES = {"protocol", "jdwpd.errors", "jdwpd.usage", "jdwpd.own_command", "jdwpd._agent"}
PARTS = {
    "jdwpd.expr": set(),
    "jdwpd.testing": {"jdwpd.api"},  # testing/client.py's raw client is the API's Connection
    "jdwpd.daemon": {"jdwpd.expr"},
    "jdwpd.api": {"jdwpd.expr"},
    "jdwpd.ci": {"jdwpd.api", "jdwpd.daemon", "jdwpd.expr", "jdwpd"},
    "jdwpd.remote": {"jdwpd.daemon"},
    "jdwpd.cli": {"jdwpd.daemon", "jdwpd.api", "jdwpd.ci", "jdwpd.remote", "jdwpd"},  # demo.py: the API's Connection
}


def part_of(module: str) -> str:
    for part in (*PARTS, *LEAVES):
        if module == part or module.startswith(part + "."):
            return part
    return module


def test_each_part_imports_only_what_lies_below_it():
    crossing = set()
    for module, targets in runtime_graph().items():
        here = part_of(module)
        if here not in PARTS:
            continue
        for t in targets:
            there = part_of(t)
            if there != here and there not in LEAVES and there not in PARTS[here]:
                crossing.add(f"{module} imports {t}")
    assert crossing == set()


def test_the_top_of_jdwpd_shows_the_parts():
    entries = {p.name for p in (ROOT / "jdwpd").iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", "__main__.py", "errors.py", "usage.py", "own_command.py", "sync.py", "_agent",
                       "api", "ci", "cli", "daemon", "expr", "remote", "samples", "testing"}


# ---------------------------------------------------------------- private names stay home (issue 29.1)

def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _ours(module: str) -> bool:
    return module.split(".")[0] in ("jdwpd", "protocol")


def _sources() -> list[Path]:
    return sorted(p for pkg in ("jdwpd", "protocol") for p in (ROOT / pkg).rglob("*.py"))


def test_no_module_imports_a_private_name_of_another():
    """What two modules share is public where it is defined: ``from M import _x`` and a private
    module (``commands/_values.py`` was one) imported from elsewhere hide a dependency that the
    name says nobody has.  A public name imported under a private alias is fine."""
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or _ours(node.module or "")):
                if any(_is_private(part) for part in (node.module or "").split(".")):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module} (a private module)")
                found += [f"{path.relative_to(ROOT)}:{node.lineno} from {'.' * node.level}{node.module or ''} "
                          f"import {a.name}" for a in node.names if _is_private(a.name)]
            elif isinstance(node, ast.Import):
                found += [f"{path.relative_to(ROOT)}:{node.lineno} import {a.name}" for a in node.names
                          if _ours(a.name) and any(_is_private(part) for part in a.name.split("."))]
    assert found == []


def _defined_here(tree: ast.AST) -> set[str]:
    """The names a module binds itself: functions, classes, assignments, attributes it stores,
    arguments, and identifiers written as strings (``__slots__``, ``object.__setattr__``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias):
            out.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            out.add(node.value)
    return out


#: The one module whose purpose is to reach into a library's privates (trio's, checked against the
#: installed trio by tests/test_trio_private.py).
REACHES_INTO_LIBRARIES = {"jdwpd/daemon/trio_private.py"}


def test_no_module_reaches_into_the_private_members_of_another():
    """``x._name`` where ``_name`` is none of this module's own (nor of ``self``, ``cls`` or
    ``super()``, a subclass's use of its base): a member another module keeps private.  The API's
    parts once used twelve of ``api.VM``'s (``vm._set_request``, ``vm._nursery`` ...); they call
    its event router's public methods now (``vm.router``, jdwpd/api/router.py)."""
    found = []
    for path in _sources():
        rel = str(path.relative_to(ROOT))
        if rel in REACHES_INTO_LIBRARIES:
            continue
        tree = ast.parse(path.read_text())
        own = _defined_here(tree)
        libraries = {(a.asname or a.name).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                     for a in node.names if not _ours(a.name)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not _is_private(node.attr) or node.attr in own:
                continue
            base = node.value
            if isinstance(base, ast.Name) and (base.id in ("self", "cls") or base.id in libraries):
                continue  # a module's own members, or a library's (os._exit)
            if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super":
                continue
            found.append(f"{rel}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def test_nothing_outside_the_api_vm_touches_its_private_members():
    """``vm._anything`` (``vm``, ``self.vm``, ``hit.vm`` ...) outside jdwpd/api/vm.py, whatever
    ``_anything`` is named: what the API's parts need of the VM is public, most of it on its router."""
    found = []
    for path in _sources():
        if path == ROOT / "jdwpd" / "api" / "vm.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                base = node.value
                name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
                if name in ("vm", "_vm"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def api_graph() -> dict[str, set[str]]:
    """jdwpd.api's modules -> those of the API each imports, imports for type checking included."""
    mods = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
            for p in (ROOT / "jdwpd" / "api").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        out = set()
        for target in imports(path):
            while target and target not in mods:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
        graph[name] = out
    return graph


def test_the_api_imports_one_way_types_included():
    """vm.py is the API's top: only the entry points import it, not even for a type (the others
    name the VM by ``debuggee.Debuggee``, requests by ``router.RoutedVM``), so that the requests,
    hits and router are no part of a circle."""
    graph = api_graph()
    assert {m for m, targets in graph.items() if "jdwpd.api.vm" in targets} <= {"jdwpd.api", "jdwpd.api.entry"}
    # The model's objects reach one another through the VM (a type's static value is a value, a
    # value's thread is a thread): their modules know one another's types, and nothing else does.
    model = {"jdwpd.api.types", "jdwpd.api.values", "jdwpd.api.views", "jdwpd.api.threads", "jdwpd.api.access",
             "jdwpd.api.debuggee"}
    assert cycles(graph) == {frozenset(model)}
