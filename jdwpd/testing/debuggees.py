"""Compile Java debuggees once and find the lines tests talk about.

Compiled classes go to a cache directory keyed by a hash of the sources and of
the javac version, so a test session (and the next one, while nothing changed)
compiles each source set once.  Lines are named by ``// @marker NAME`` comments
so that no test hard-codes a line number.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["CompileError", "compile_sources", "default_javac", "default_release", "javac_argv", "javac_version",
           "cache_root",
           "markers", "all_markers", "marker_line", "find_marker"]

_MARKER = re.compile(r"//\s*@marker\s+([A-Za-z_][A-Za-z0-9_]*)")


class CompileError(Exception):
    pass


def cache_root() -> Path:
    """Where compiled debuggees live: $JDWPD_TEST_CACHE, else the user's cache directory."""
    explicit = os.environ.get("JDWPD_TEST_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jdwpd" / "debuggees"


@functools.cache
def javac_version(javac: str = "javac") -> str:
    out = subprocess.run([javac, "-version"], capture_output=True, text=True, timeout=60)
    return (out.stdout + out.stderr).strip()


def default_javac() -> str:
    """The javac for the JDK under test: $JDWPD_TEST_JAVAC (the tests' ``--jdk N``), else javac on PATH."""
    return os.environ.get("JDWPD_TEST_JAVAC") or "javac"


def default_release() -> str:
    """The ``--release`` for the JDK under test: $JDWPD_TEST_RELEASE (the tests' ``--jdk N``), else 17."""
    return os.environ.get("JDWPD_TEST_RELEASE") or "17"


def javac_argv() -> list[str]:
    """``javac --release N`` for the JDK under test (the tests' ``--jdk N``; else javac on PATH, --release 17):
    the start of every command line a test compiles its own debuggee with, so that the classes load there."""
    return [default_javac(), "--release", default_release()]


def _sources(src_dir: Path) -> list[Path]:
    return sorted(p for p in src_dir.rglob("*.java") if p.is_file())


def _digest(sources: list[Path], src_dir: Path, extra: list[str]) -> str:
    h = hashlib.sha256()
    for part in extra:
        h.update(part.encode() + b"\0")
    for p in sources:
        h.update(str(p.relative_to(src_dir)).encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def publish(tmp: Path, out: Path, mark: str) -> None:
    """Move a cache entry built in ``tmp`` to ``out``, marked complete (``mark`` says what it holds).
    Another process that finished first wins; theirs is as good as ours."""
    (tmp / ".complete").write_text(mark + "\n")
    try:
        tmp.rename(out)
    except OSError:
        if not (out / ".complete").is_file():
            raise


def compile_sources(
    src_dir: str | os.PathLike,
    *,
    javac: str | None = None,
    release: str | None = None,
    extra_args: tuple[str, ...] = (),
    cache: str | os.PathLike | None = None,
    timeout: float = 180,
) -> Path:
    """Compile every .java under ``src_dir`` with full debug info; return the class directory.

    A cache hit costs a hash of the sources.  The output directory appears
    atomically (compiled aside, then renamed), so concurrent sessions never see
    half a class tree.  ``javac`` and ``release`` default to the JDK under test: $JDWPD_TEST_JAVAC and
    $JDWPD_TEST_RELEASE (set by the tests' ``--jdk N``), else ``javac`` on PATH and ``--release 17``; the
    release is part of the cache key, so each release has its own class trees.
    """
    javac = javac or default_javac()
    release = str(release or default_release())
    src_dir = Path(src_dir).resolve()
    sources = _sources(src_dir)
    if not sources:
        raise CompileError(f"no .java files under {src_dir}")
    flags = ["-g", "--release", release, "-encoding", "UTF-8", *extra_args]
    swaps = _older_release_sources(sources, int(release))
    key = _digest([swaps.get(p, p) for p in sources], src_dir, [javac_version(javac), *flags])
    root = Path(cache) if cache is not None else cache_root()
    out = root / f"{src_dir.name}-{key}"
    if (out / ".complete").is_file():
        return out
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{src_dir.name}-", dir=root))
    try:
        files = [str(p) for p in sources if p not in swaps]
        renamed_dir = Path(tempfile.mkdtemp(prefix=".older-sources-")) if swaps else None
        for p, q in swaps.items():  # javac wants a public class in a file of its name: the older source, renamed
            assert renamed_dir is not None  # made when there are swaps
            renamed = renamed_dir / p.relative_to(src_dir)
            renamed.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(q, renamed)
            files.append(str(renamed))
        try:
            proc = subprocess.run(
                [javac, *flags, "-d", str(tmp), *files], capture_output=True, text=True, timeout=timeout
            )
        finally:
            if renamed_dir is not None:
                shutil.rmtree(renamed_dir, ignore_errors=True)
        if proc.returncode != 0:
            raise CompileError(f"javac failed ({proc.returncode}) for {src_dir}:\n{proc.stdout}{proc.stderr}")
        publish(tmp, out, key)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out


_OLDER = re.compile(r"^(.+\.java)-release(\d+)$")


def _older_release_sources(sources: list[Path], release: int) -> dict[Path, Path]:
    """``X.java`` -> ``X.java-releaseM``, the smallest M >= release, where one exists: the same program in the
    syntax of an older release (a record as a class), for --release below what ``X.java`` needs.  It must keep
    every ``// @marker`` on the same line, since markers are read from ``X.java``."""
    swaps: dict[Path, Path] = {}
    for p in sources:
        older = []
        for q in p.parent.glob(p.name + "-release*"):
            m = _OLDER.match(q.name)
            if m and m.group(1) == p.name and int(m.group(2)) >= release:
                older.append((int(m.group(2)), q))
        if older:
            q = min(older)[1]
            if markers(q) != markers(p):
                raise CompileError(f"{q}: its // @marker lines differ from {p.name}'s: {markers(q)} != {markers(p)}")
            swaps[p] = q
    return swaps


@functools.cache
def _markers_cached(path: str, mtime_ns: int) -> dict[str, int]:
    found: dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            for m in _MARKER.finditer(line):
                name = m.group(1)
                if name in found:
                    raise ValueError(f"{path}: marker {name} on lines {found[name]} and {lineno}")
                found[name] = lineno
    return found


def markers(source: str | os.PathLike) -> dict[str, int]:
    """``{marker name: 1-based line}`` of one source file."""
    p = Path(source)
    return dict(_markers_cached(str(p.resolve()), p.stat().st_mtime_ns))


def marker_line(source: str | os.PathLike, name: str) -> int:
    found = markers(source)
    if name not in found:
        raise KeyError(f"no '// @marker {name}' in {source}; markers: {sorted(found)}")
    return found[name]


def all_markers(src_dir: str | os.PathLike) -> dict[str, int]:
    """Markers of every source under ``src_dir``; a name may appear in one file only."""
    found: dict[str, int] = {}
    where: dict[str, Path] = {}
    for p in _sources(Path(src_dir)):
        for name, line in markers(p).items():
            if name in found:
                raise ValueError(f"marker {name} in both {where[name]} and {p}")
            found[name], where[name] = line, p
    return found


def find_marker(src_dir: str | os.PathLike, name: str) -> tuple[Path, int]:
    """The one source file under ``src_dir`` holding marker ``name``, and its line."""
    hits = [(p, markers(p)[name]) for p in _sources(Path(src_dir)) if name in markers(p)]
    if len(hits) != 1:
        raise KeyError(f"marker {name} found {len(hits)} times under {src_dir}: {hits}")
    return hits[0]
