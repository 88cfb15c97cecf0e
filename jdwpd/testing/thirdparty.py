"""Third-party debuggees: a real library from Debian's source packages, compiled with ``-g`` in the test cache.

Milestone 3 tries every feature on other people's code. This kit brings one library, jsoup (Debian's
``jsoup`` source package, bookworm), into the tests' cache and compiles it there:

- the source comes from Debian's archive through apt itself (``apt-get source --download-only``), which checks
  every file against the signed Sources index, but with a *private* apt configuration in the cache (its own
  sources list of ``deb-src`` lines built from the machine's own ``deb`` entries, its own lists and state), so
  the machine's apt configuration is never touched and no ``.ci`` step is needed;
- the unpacked tree lives in ``<cache>/thirdparty/<package>_<version>/`` and is reused by every later session
  without the network (``JDWPD_THIRDPARTY_REFRESH=1`` asks the archive again for a newer version);
- ``library_classes`` is the library's main sources compiled with ``javac -g --release R`` (R: the JDK under
  test, as for our own debuggees), ``test_classes`` its own JUnit 5 tests compiled against Debian's JUnit console
  launcher (/usr/share/java/junit-platform-console-standalone.jar, the ``junit5`` package), less the test files
  that need what the machine has not (a servlet container, gson): they are dropped and listed.

Anything that cannot be had (no network on a first run, no apt, no keyring, no JUnit) raises
:class:`ThirdPartyUnavailable` with a sentence saying what and why; the tests turn it into a skip.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs

from . import debuggees

__all__ = [
    "ThirdPartyUnavailable",
    "SourceTree",
    "Library",
    "TestSuite",
    "JUNIT_CONSOLE",
    "PACKAGE",
    "thirdparty_root",
    "fetch_source",
    "build_library",
    "build_tests",
    "junit_command",
    "parse_junit_summary",
    "source_line",
]

#: Debian's source package of the library, and its upstream's main package.
PACKAGE = "jsoup"
JUNIT_CONSOLE = Path("/usr/share/java/junit-platform-console-standalone.jar")
#: Stand-ins for the JSR-305 annotations jsoup's sources import (javax.annotation.Nonnull, ...): compile-time only
#: (Debian's libjsr305-java is not on every machine); written into the cache and compiled there.
_STUBS = {
    "javax/annotation/Nonnull.java": "package javax.annotation;\n"
    "@java.lang.annotation.Documented @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)\n"
    "public @interface Nonnull {}\n",
    "javax/annotation/Nullable.java": "package javax.annotation;\n"
    "@java.lang.annotation.Documented @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)\n"
    "public @interface Nullable {}\n",
    "javax/annotation/CheckReturnValue.java": "package javax.annotation;\n"
    "@java.lang.annotation.Documented @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)\n"
    "public @interface CheckReturnValue {}\n",
    "javax/annotation/WillClose.java": "package javax.annotation;\n"
    "@java.lang.annotation.Documented @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)\n"
    "public @interface WillClose {}\n",
    "javax/annotation/ParametersAreNonnullByDefault.java": "package javax.annotation;\n"
    "@java.lang.annotation.Documented @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)\n"
    "public @interface ParametersAreNonnullByDefault {}\n",
    "javax/annotation/meta/TypeQualifierDefault.java": "package javax.annotation.meta;\n"
    "@java.lang.annotation.Documented @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)\n"
    "@java.lang.annotation.Target(java.lang.annotation.ElementType.ANNOTATION_TYPE)\n"
    "public @interface TypeQualifierDefault { java.lang.annotation.ElementType[] value() default {}; }\n",
}

_SUITE = "bookworm"
_KIT_VERSION = "3"  # part of the test classes' cache key: bump when the way they are built changes
_APT_TIMEOUT = 240.0


class ThirdPartyUnavailable(Exception):
    """The third-party library cannot be had here; ``str()`` says what and why (a test's skip reason)."""


def thirdparty_root() -> Path:
    """``<test cache>/thirdparty``: sources, private apt state and class trees of the third-party debuggees."""
    return debuggees.cache_root() / "thirdparty"


@attrs.frozen
class SourceTree:
    package: str
    version: str  # Debian's version, e.g. 1.15.3-1
    root: Path  # the unpacked upstream tree (pom.xml, src/main/java, src/test/java, ...)

    @property
    def main_java(self) -> Path:
        return self.root / "src" / "main" / "java"

    @property
    def test_java(self) -> Path:
        return self.root / "src" / "test" / "java"

    @property
    def test_resources(self) -> Path:
        return self.root / "src" / "test" / "resources"


@attrs.frozen
class Library:
    source: SourceTree
    classes: Path  # the library's main classes, javac -g
    release: str
    annotations: Path  # the JSR-305 stand-ins its classes name (runtime-visible: one of its tests reflects on them)

    @property
    def classpath(self) -> list[Path]:
        """What a program using the library puts on its class path (classes, the sources' resources, the
        annotations)."""
        return [self.classes, self.source.main_java, self.annotations]

    def source_file(self, class_name: str) -> Path:
        """``org.jsoup.parser.Tokeniser`` -> its .java file (nested classes: the outer one's)."""
        top = class_name.split("$")[0]
        return self.source.main_java / (top.replace(".", "/") + ".java")

    def line(self, class_name: str, needle: str | re.Pattern, nth: int = 1) -> int:
        """The line of the ``nth`` line of ``class_name``'s source holding ``needle`` (a substring or a regex)."""
        return source_line(self.source_file(class_name), needle, nth)


@attrs.frozen
class TestSuite:
    library: Library
    classes: Path  # the compiled test classes
    compiled: tuple[str, ...]  # the test sources compiled, relative to src/test/java
    dropped: tuple[str, ...]  # those left out: they need what this machine has not
    disabled: tuple[str, ...]  # "Class.method" marked @Disabled: they read a file Debian's tarball excludes
    junit_jar: Path

    @property
    def classpath(self) -> list[Path]:
        return [self.classes, self.library.source.test_resources, *self.library.classpath]


def source_line(path: str | os.PathLike, needle: str | re.Pattern, nth: int = 1) -> int:
    """The 1-based line number of the ``nth`` line of ``path`` that holds ``needle``."""
    seen = 0
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            hit = needle.search(line) if isinstance(needle, re.Pattern) else needle in line
            if hit:
                seen += 1
                if seen == nth:
                    return lineno
    raise KeyError(f"{path}: no line #{nth} holding {needle!r}")


# ---------------------------------------------------------------------------------------------- the source


def _machine_deb_entries() -> list[tuple[str, str]]:
    """``(uri, signed_by)`` of the machine's apt ``deb`` entries for Debian's main archive (not -security)."""
    found: list[tuple[str, str]] = []
    for p in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for stanza in re.split(r"\n\s*\n", text):
            fields: dict[str, str] = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.strip()
            suites = fields.get("suites", "").split()
            if "deb" in fields.get("types", "").split() and _SUITE in suites:
                for uri in fields.get("uris", "").split():
                    found.append((uri, fields.get("signed-by", "")))
    listfile = Path("/etc/apt/sources.list")
    if listfile.is_file():
        for line in listfile.read_text(encoding="utf-8", errors="replace").splitlines():
            m = re.match(r"\s*deb\s+(\[[^]]*\]\s+)?(\S+)\s+(\S+)\s", line)
            if m and m.group(3) == _SUITE:
                opts = m.group(1) or ""
                sb = re.search(r"signed-by=(\S+?)[\] ]", opts)
                found.append((m.group(2), sb.group(1) if sb else ""))
    return found


def _apt_options(apt_dir: Path) -> list[str]:
    opts = [
        f"-oDir::State={apt_dir / 'state'}",
        f"-oDir::Cache={apt_dir / 'cache'}",
        f"-oDir::Etc::SourceList={apt_dir / 'sources.list'}",
        f"-oDir::Etc::SourceParts={apt_dir / 'sources.list.d'}",
        "-oAcquire::Retries=1",
        "-oAcquire::http::Timeout=30",
        "-oAcquire::https::Timeout=30",
        "-oAPT::Get::Download-Only=true",
        "-qq",
    ]
    if os.geteuid() == 0:
        opts.append("-oAPT::Sandbox::User=root")  # the private dirs are root's; no _apt user needed
    return opts


def _run_apt(args: Sequence[str], apt_dir: Path, cwd: Path, what: str) -> str:
    try:
        proc = subprocess.run(
            ["apt-get", *_apt_options(apt_dir), *args],
            cwd=cwd, capture_output=True, text=True, timeout=_APT_TIMEOUT, stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise ThirdPartyUnavailable("no apt-get on this machine: cannot fetch Debian's source packages") from None
    except subprocess.TimeoutExpired:
        raise ThirdPartyUnavailable(f"{what}: apt-get took more than {_APT_TIMEOUT:.0f} s (no network?)") from None
    out = proc.stdout + proc.stderr
    # apt-get update exits 0 when it could not download an index: its warnings say so
    if proc.returncode != 0 or re.search(r"^(E|Err):|^W: (Failed to fetch|Some index files failed)", out, re.M):
        tail = " | ".join(line.strip() for line in out.strip().splitlines()[-3:])
        raise ThirdPartyUnavailable(f"{what} failed (apt-get exit {proc.returncode}; no network?): {tail}")
    return out


def _private_apt(apt_dir: Path) -> None:
    """A private apt configuration whose sources are ``deb-src`` twins of the machine's bookworm ``deb`` lines."""
    entries = _machine_deb_entries()
    if not entries:
        raise ThirdPartyUnavailable(
            f"no Debian {_SUITE} 'deb' entry in /etc/apt/sources.list(.d): cannot tell where Debian's sources are")
    lines = []
    for uri, signed_by in entries:
        opt = f"[signed-by={signed_by}] " if signed_by else ""
        lines.append(f"deb-src {opt}{uri} {_SUITE} main\n")
    for d in ("state/lists/partial", "cache/archives/partial", "sources.list.d"):
        (apt_dir / d).mkdir(parents=True, exist_ok=True)
    (apt_dir / "sources.list").write_text("".join(lines))


def _cached_trees(package: str) -> list[SourceTree]:
    root = thirdparty_root()
    trees = []
    for p in root.glob(f"{package}_*/.complete") if root.is_dir() else ():
        version = p.parent.name[len(package) + 1:]
        upstream = (p.parent / "tree")
        if upstream.is_dir():
            trees.append(SourceTree(package, version, upstream))
    return sorted(trees, key=lambda t: t.version)


def _unpack(files: Path, dsc: Path, out: Path) -> None:
    """The upstream tarball (and the debian/ tarball beside it, for the record) into ``out``/tree."""
    names = re.findall(r"^ [0-9a-f]{64} \d+ (\S+)$", dsc.read_text(encoding="utf-8"), re.M)
    orig = [n for n in names if ".orig.tar." in n]
    deb = [n for n in names if ".debian.tar." in n]
    if len(orig) != 1:
        raise ThirdPartyUnavailable(f"{dsc.name}: expected one upstream tarball, found {orig}")
    tree = out / "tree"
    tmp = out / "unpack"
    tmp.mkdir()
    with tarfile.open(files / orig[0]) as tf:
        tf.extractall(tmp, filter="data")
    tops = [p for p in tmp.iterdir()]
    if len(tops) != 1 or not tops[0].is_dir():
        raise ThirdPartyUnavailable(f"{orig[0]}: expected one top folder, found {[p.name for p in tops]}")
    tops[0].rename(tree)
    tmp.rmdir()
    if deb:
        with tarfile.open(files / deb[0]) as tf:
            tf.extractall(out, filter="data")  # out/debian: the packaging (its patches, if any, are build-only)
        series = out / "debian" / "patches" / "series"
        if series.is_file() and series.read_text().strip() and shutil.which("patch"):
            for name in series.read_text().split():
                if name.startswith("#"):
                    continue
                subprocess.run(["patch", "-p1", "-s", "-i", str(out / "debian" / "patches" / name)],
                               cwd=tree, check=True, capture_output=True, timeout=60)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One process at a time (concurrent sessions, xdist workers) in the private apt configuration."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@functools.cache
def fetch_source(package: str = PACKAGE) -> SourceTree:
    """The unpacked source of Debian's ``package``: from the cache if any session fetched it, else from the
    archive (apt-get source, private configuration). Raises ThirdPartyUnavailable when it cannot be had."""
    cached = _cached_trees(package)
    if cached and not os.environ.get("JDWPD_THIRDPARTY_REFRESH"):
        return cached[-1]
    with _locked(thirdparty_root() / ".apt.lock"):
        cached = _cached_trees(package)  # another process may have fetched it while this one waited
        if cached and not os.environ.get("JDWPD_THIRDPARTY_REFRESH"):
            return cached[-1]
        return _fetch(package)


def _fetch(package: str) -> SourceTree:
    root = thirdparty_root()
    apt_dir = root / "apt"
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{package}-", dir=root))
    try:
        _private_apt(apt_dir)
        _run_apt(["update"], apt_dir, work, f"apt-get update of Debian's {_SUITE} source index")
        files = work / "files"
        files.mkdir()
        _run_apt(["source", "--download-only", package], apt_dir, files, f"apt-get source {package}")
        dscs = list(files.glob(f"{package}_*.dsc"))
        if len(dscs) != 1:
            raise ThirdPartyUnavailable(f"apt-get source {package} gave {[p.name for p in dscs]}, not one .dsc")
        version = dscs[0].name[len(package) + 1:-len(".dsc")]
        final = root / f"{package}_{version}"
        if (final / ".complete").is_file():
            return SourceTree(package, version, final / "tree")
        _unpack(files, dscs[0], work)
        shutil.rmtree(files)
        debuggees.publish(work, final, f"{package} {version}")
        return SourceTree(package, version, final / "tree")
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


# ------------------------------------------------------------------------------------------------- compiling


def _javac_or_unavailable() -> str:
    javac = debuggees.default_javac()
    if not shutil.which(javac) and not Path(javac).is_file():
        raise ThirdPartyUnavailable(f"no javac ({javac}): cannot compile the third-party library")
    return javac


def _stub_classes(javac: str, release: str) -> Path:
    h = hashlib.sha256(repr(sorted(_STUBS.items())).encode()).hexdigest()[:12]
    thirdparty_root().mkdir(parents=True, exist_ok=True)
    src = thirdparty_root() / f"jsr305-stubs-{h}"
    if not src.is_dir():
        tmp = Path(tempfile.mkdtemp(prefix=".stubs-", dir=thirdparty_root()))
        for rel, text in _STUBS.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)
        try:
            tmp.rename(src)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    return debuggees.compile_sources(src, javac=javac, release=release, cache=thirdparty_root() / "classes")


@functools.cache
def build_library(package: str = PACKAGE) -> Library:
    """The library's main sources compiled with ``-g`` (cached by source content, javac and release)."""
    javac = _javac_or_unavailable()
    source = fetch_source(package)
    release = debuggees.default_release()
    stubs = _stub_classes(javac, release)
    classes = debuggees.compile_sources(
        source.main_java, javac=javac, release=release, extra_args=("-nowarn", "-Xlint:none", "-cp", str(stubs)),
        cache=thirdparty_root() / "classes" / f"{package}_{source.version}", timeout=600,
    )
    return Library(source, classes, release, stubs)


def _excluded_files(source: SourceTree) -> list[str]:
    """``Files-Excluded`` of debian/copyright: upstream files Debian's repacked tarball leaves out."""
    copyright = source.root.parent / "debian" / "copyright"
    if not copyright.is_file():
        return []
    m = re.search(r"^Files-Excluded:(.*(?:\n[ \t].*)*)", copyright.read_text(encoding="utf-8", errors="replace"), re.M)
    return m.group(1).split() if m else []


_TEST_ANNOTATION = re.compile(r"@(?:org\.junit\.jupiter\.api\.)?(Test|ParameterizedTest)\b")
_METHOD_NAME = re.compile(r"\b(\w+)\s*\(")


def _disable_excluded(source: SourceTree, sources: list[Path], into: Path) -> tuple[dict[Path, Path], list[str]]:
    """Copies of the test sources whose tests read a file Debian excluded, those tests marked
    ``@Disabled`` on their ``@Test`` line (so every line keeps its number). Returns {original: copy} and
    the tests disabled ("Class.method")."""
    names = [Path(f).name for f in _excluded_files(source) if "/test/" in f]
    edited: dict[Path, Path] = {}
    disabled: list[str] = []
    if not names:
        return edited, disabled
    for p in sources:
        lines = p.read_text(encoding="utf-8").split("\n")
        hits = [i for i, line in enumerate(lines) if any(f'/{n}"' in line or f'"{n}"' in line for n in names)]
        changed = False
        for i in hits:
            j = i
            while j >= 0 and not _TEST_ANNOTATION.search(lines[j]):
                j -= 1
            if j < 0 or "@Disabled" in lines[j] or "Disabled(" in lines[j]:
                continue
            lines[j] = _TEST_ANNOTATION.sub(
                lambda m: '@org.junit.jupiter.api.Disabled("reads a file Debian\'s source package excludes") '
                + m.group(0), lines[j], count=1)
            changed = True
            for k in range(j, min(j + 4, len(lines))):
                mm = _METHOD_NAME.search(lines[k].split(")", 1)[-1] if k == j else lines[k])
                if mm and mm.group(1) not in ("Test", "ParameterizedTest", "Disabled"):
                    disabled.append(f"{p.stem}.{mm.group(1)}")
                    break
        if changed:
            copy = into / p.relative_to(source.test_java)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text("\n".join(lines), encoding="utf-8")
            edited[p] = copy
    return edited, disabled


#: Packages no machine of ours has (a servlet container, gson): a test source importing them is dropped at once
#: (the tests that need such a source fail to compile and are dropped in the loop).
_UNAVAILABLE_IMPORT = re.compile(r"^import\s+(?:static\s+)?(?:javax\.servlet|org\.eclipse\.jetty|com\.google\.gson)\.",
                                 re.M)
_ERROR_FILE = re.compile(r"^(/[^:\n]+\.java):\d+: error:", re.M)


def _compile_dropping(files: list[Path], classpath: str, out: Path, javac: str, release: str) -> list[Path]:
    """javac over ``files``; a file with errors is dropped (with the files that then fail) until the rest
    compiles. Returns the dropped files."""
    dropped = [p for p in files if _UNAVAILABLE_IMPORT.search(p.read_text(encoding="utf-8", errors="replace"))]
    remaining = [p for p in files if p not in dropped]
    for _ in range(12):
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        argfile = out.parent / (out.name + ".args")
        argfile.write_text("\n".join(f'"{p}"' for p in remaining) + "\n")
        proc = subprocess.run(
            [javac, "-g", "--release", release, "-encoding", "UTF-8", "-nowarn", "-Xlint:none", "-Xmaxerrs", "10000",
             "-cp", classpath, "-d", str(out), f"@{argfile}"],
            capture_output=True, text=True, timeout=600,
        )
        argfile.unlink()
        if proc.returncode == 0:
            return dropped
        bad = {Path(m) for m in _ERROR_FILE.findall(proc.stdout + proc.stderr)}
        bad &= set(remaining)
        if not bad:
            raise debuggees.CompileError(f"javac failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"[:4000])
        dropped += sorted(bad)
        remaining = [p for p in remaining if p not in bad]
        if not remaining:
            break
    raise debuggees.CompileError(f"no test source compiled; dropped: {[p.name for p in dropped]}")


@functools.cache
def build_tests(package: str = PACKAGE, junit_jar: str | os.PathLike = JUNIT_CONSOLE) -> TestSuite:
    """The library's own JUnit tests compiled against the console launcher; cached like the library."""
    junit = Path(junit_jar)
    if not junit.is_file():
        raise ThirdPartyUnavailable(f"no JUnit console launcher at {junit} (apt-get install junit5)")
    lib = build_library(package)
    javac = _javac_or_unavailable()
    sources = sorted(lib.source.test_java.rglob("*.java"))
    cp = os.pathsep.join(str(p) for p in [*lib.classpath, junit])
    h = hashlib.sha256()
    key_parts = (_KIT_VERSION, debuggees.javac_version(javac), lib.release, str(lib.classes), str(junit),
                 str(junit.stat().st_size))
    for part in key_parts:
        h.update(part.encode() + b"\0")
    for p in sources:
        h.update(str(p.relative_to(lib.source.test_java)).encode() + b"\0" + p.read_bytes() + b"\0")
    base = thirdparty_root() / "classes" / f"{package}_{lib.source.version}"
    out = base / f"tests-{h.hexdigest()[:20]}"
    if not (out / ".complete").is_file():
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tests-", dir=base))
        try:
            edited, disabled = _disable_excluded(lib.source, sources, tmp / "edited")
            dropped = _compile_dropping([edited.get(p, p) for p in sources], cp, tmp / "classes", javac, lib.release)
            back = {v: k for k, v in edited.items()}
            dropped = [back.get(p, p) for p in dropped]
            shutil.rmtree(tmp / "edited", ignore_errors=True)
            rel = lambda ps: "".join(f"{p.relative_to(lib.source.test_java)}\n" for p in ps)  # noqa: E731
            (tmp / "compiled.txt").write_text(rel([p for p in sources if p not in dropped]))
            (tmp / "dropped.txt").write_text(rel(dropped))
            (tmp / "disabled.txt").write_text("".join(f"{d}\n" for d in disabled))
            debuggees.publish(tmp, out, "tests")
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return TestSuite(
        library=lib,
        classes=out / "classes",
        compiled=tuple((out / "compiled.txt").read_text().split()),
        dropped=tuple((out / "dropped.txt").read_text().split()),
        disabled=tuple((out / "disabled.txt").read_text().split()),
        junit_jar=junit,
    )


# ------------------------------------------------------------------------------------------------- running


def junit_command(
    suite: TestSuite,
    reports_dir: str | os.PathLike,
    *,
    select: Sequence[str] = ("--select-package=org.jsoup",),
    java: str | None = None,
    jvm_args: Sequence[str] = (),
    extra_classpath: Sequence[str | os.PathLike] = (),
    details: str = "summary",
) -> list[str]:
    """The JUnit console launcher's command line for the library's suite (or the ``select``ed part of it:
    ``--select-class=org.jsoup.parser.TokeniserTest``, ``--select-method=...``, ``--include-classname=...``).

    The launcher's default class-name filter (``...Test`` / ``...Tests``) leaves out upstream's ``*IT``
    integration classes. ``extra_classpath`` goes first (planted test copies shadow the originals)."""
    from .jvm import java_executable

    cp = os.pathsep.join(str(p) for p in [*extra_classpath, *suite.classpath])
    return [
        java or java_executable(), *jvm_args, "-Duser.language=en", "-Duser.country=US",
        "-jar", str(suite.junit_jar),
        "--disable-banner", f"--details={details}", "--disable-ansi-colors",
        "--class-path", cp, *select, "--reports-dir", str(reports_dir),
    ]


_SUMMARY = re.compile(r"^\[\s*(\d+) (tests? \w+(?: \w+)?|containers? \w+(?: \w+)?)\s*\]", re.M)


def parse_junit_summary(output: str) -> dict[str, int]:
    """The console launcher's closing table, e.g. ``{"tests successful": 950, "tests failed": 0, ...}``."""
    return {m.group(2).strip(): int(m.group(1)) for m in _SUMMARY.finditer(output)}


def timed_run(command: Sequence[str], timeout: float,
              cwd: str | os.PathLike | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run a command to its end (bounded); returns (CompletedProcess, seconds)."""
    t0 = time.monotonic()
    proc = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          stdin=subprocess.DEVNULL)
    return proc, time.monotonic() - t0
