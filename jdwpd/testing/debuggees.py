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

__all__ = ["CompileError", "compile_sources", "javac_version", "cache_root", "markers", "all_markers", "marker_line",
           "find_marker"]

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


def compile_sources(
    src_dir: str | os.PathLike,
    *,
    javac: str = "javac",
    release: str = "17",
    extra_args: tuple[str, ...] = (),
    cache: str | os.PathLike | None = None,
    timeout: float = 180,
) -> Path:
    """Compile every .java under ``src_dir`` with full debug info; return the class directory.

    A cache hit costs a hash of the sources.  The output directory appears
    atomically (compiled aside, then renamed), so concurrent sessions never see
    half a class tree.
    """
    src_dir = Path(src_dir).resolve()
    sources = _sources(src_dir)
    if not sources:
        raise CompileError(f"no .java files under {src_dir}")
    flags = ["-g", "--release", release, "-encoding", "UTF-8", *extra_args]
    key = _digest(sources, src_dir, [javac_version(javac), *flags])
    root = Path(cache) if cache is not None else cache_root()
    out = root / f"{src_dir.name}-{key}"
    if (out / ".complete").is_file():
        return out
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{src_dir.name}-", dir=root))
    try:
        proc = subprocess.run(
            [javac, *flags, "-d", str(tmp), *map(str, sources)], capture_output=True, text=True, timeout=timeout
        )
        if proc.returncode != 0:
            raise CompileError(f"javac failed ({proc.returncode}) for {src_dir}:\n{proc.stdout}{proc.stderr}")
        (tmp / ".complete").write_text(key + "\n")
        try:
            tmp.rename(out)
        except OSError:
            # Someone else finished first; theirs is as good as ours.
            if not (out / ".complete").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out


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
