"""Probes installed in one VM through the scripting API: each hit becomes evidence.

Every handler catches what goes wrong in it and records it as an event: a probe that fails must
never fail the build it watches, nor leave a thread of it held (the API resumes a hit's thread when
its handler returns, whatever happened).
"""

from __future__ import annotations

import fnmatch
from typing import Any

import attrs
import trio

from .. import api
from .evidence import Evidence
from .options import Probe, Settings

# Frames of test frameworks and assertion libraries: the test is the first frame below them.
FRAMEWORK_PREFIXES = ("org.junit.", "junit.", "org.opentest4j.", "org.testng.", "org.assertj.", "org.hamcrest.",
                      "java.", "jdk.", "sun.", "com.google.common.truth.", "kotlin.test.")
TEST_FAILURE_CLASS = "java.lang.AssertionError"  # JUnit 4 and 5 (opentest4j) and TestNG failures extend it


@attrs.define(eq=False)
class Tally:
    """What the run saw, for the progress line, the summary and the exit status."""

    vms: int = 0
    live: int = 0
    hits: int = 0
    snapshots: int = 0
    log_lines: int = 0
    assertion_failures: int = 0
    exceptions: int = 0
    test_failures: int = 0
    problems: int = 0
    changed: trio.Event = attrs.field(factory=trio.Event)
    #: location probes set in some class of some VM, and the last reason one was not (per probe)
    resolved: set = attrs.field(factory=set)
    unresolved_why: dict = attrs.field(factory=dict)

    def bump(self, **counts: int) -> None:
        for k, v in counts.items():
            setattr(self, k, getattr(self, k) + v)
        self.changed.set()
        self.changed = trio.Event()


def selected(settings: Settings, labels: dict) -> bool:
    """Whether the VM's labels match every selector (``test`` is a hit's label, checked per hit)."""
    for label, pattern in settings.select:
        if label == "test":
            continue
        value = labels.get(label)
        text = " ".join(value) if isinstance(value, list) else str(value)
        if not fnmatch.fnmatchcase(text, pattern) and not (label == "argv" and pattern in text):
            return False
    return True


def limits_of(settings: Settings) -> api.Limits:
    return api.Limits(frames=settings.frames, locals_frames=settings.locals_frames, depth=settings.depth,
                      string=settings.string, items=settings.items, bytes=settings.bytes)


def test_of(snapshot: dict) -> str | None:
    """``pkg.TestClass.method`` of the frame that called into the framework, if the stack has one."""
    frames = snapshot.get("frames", [])
    for i, frame in enumerate(frames):
        cls = frame["location"].get("class", "")
        if cls.startswith(FRAMEWORK_PREFIXES):
            continue
        below = [f["location"].get("class", "") for f in frames[i + 1:]]
        if any(c.startswith(("org.junit.", "org.testng.", "junit.")) for c in below):
            return f"{cls}.{frame['location'].get('method', '?')}"
        return None
    return None


async def _exception_facts(hit: Any) -> dict:
    facts: dict[str, Any] = {}
    thrown = getattr(hit, "thrown", None)
    if thrown is not None:
        facts["class"] = thrown.type_name
        try:
            facts["message"] = await thrown.get("detailMessage")
        except Exception:  # an exception type without the field: the class is enough
            pass
    catch = getattr(hit, "catch_location", None)
    facts["caught"] = catch is not None
    if catch is not None:
        facts["catch_location"] = catch.to_python()
    return facts


@attrs.define(eq=False)
class VmProbes:
    vm: Any
    labels: dict
    settings: Settings
    evidence: Evidence
    tally: Tally
    sources: list = attrs.field(factory=list)
    probe_of: list = attrs.field(factory=list)  # the probe of each source, in the same order
    counts: dict = attrs.field(factory=dict)
    seen_exceptions: set = attrs.field(factory=set)

    @property
    def short(self) -> dict:
        return {k: self.labels.get(k) for k in ("vm", "pid", "main")}

    async def install(self, probes: tuple[Probe, ...]) -> None:
        for probe in probes:
            try:
                await self._install(probe)
            except Exception as e:  # a location in no class of this VM yet is not an error: it is deferred
                self.tally.bump(problems=1)
                self.evidence.event("probe-error", vm=self.short, probe=probe.describe(), error=str(e))

    async def _install(self, probe: Probe) -> None:
        vm = self.vm
        if probe.kind == "snapshot":
            # Captured in the VM where it runs jdwpd's agent (the thread never waits for the
            # daemon), read over JDWP elsewhere: the same data either way.
            source = await vm.snapshots(probe.location, condition=probe.expression, limits=limits_of(self.settings),
                                        in_vm=True)
            source.on_hit(lambda snap, p=probe, s=source: self._snapshot(snap, p, s))
        elif probe.kind == "assert":
            source = await vm.breakpoint(probe.location)
            source.on_hit(lambda hit, p=probe, s=source: self._assert(hit, p, s))
        elif probe.kind == "logpoint":
            source = await vm.logpoint(probe.location, probe.expression,
                                       echo=lambda line, p=probe: self._log_line(line, p))
        elif probe.kind == "uncaught":
            source = await vm.catch(None, caught=False, uncaught=True)
            source.on_hit(lambda hit, p=probe, s=source: self._exception(hit, p, s, "uncaught-exception"))
        elif probe.kind == "throw":
            source = await vm.catch(probe.exception, caught=True, uncaught=True)
            source.on_hit(lambda hit, p=probe, s=source: self._exception(hit, p, s, "exception"))
        elif probe.kind == "test-failure":
            source = await vm.catch(TEST_FAILURE_CLASS, caught=True, uncaught=True)
            source.on_hit(lambda hit, p=probe, s=source: self._exception(hit, p, s, "test-failure"))
        else:
            raise ValueError(probe.kind)
        self.sources.append(source)
        self.probe_of.append(probe)

    def _count(self, probe: Probe, source: Any, cap: int) -> bool:
        """One more hit of ``probe``; False once past its cap (the request is then cleared)."""
        n = self.counts.get(probe, 0) + 1
        self.counts[probe] = n
        self.tally.bump(hits=1)
        if n == cap:
            self.evidence.event("probe-spent", vm=self.short, probe=probe.describe(), hits=n)
            self.vm._nursery.start_soon(source.clear)
        return n <= cap

    @property
    def test_patterns(self) -> list[str]:
        return [pattern for label, pattern in self.settings.select if label == "test"]

    def test_wanted(self, test: str | None) -> bool:
        """``--select test=PATTERN``: only hits whose stack runs a matching test (none: no test runs)."""
        return all(test is not None and fnmatch.fnmatchcase(test, p) for p in self.test_patterns)

    async def hit_wanted(self, hit: Any) -> bool:
        if not self.test_patterns:
            return True
        try:
            frames = await hit.frames()
        except Exception:  # a thread that cannot say where it is runs no test we can name
            return False
        return self.test_wanted(test_of({"frames": [{"location": f.location.to_python()} for f in frames]}))

    async def _capture(self, hit: Any, kind: str, probe: Probe, **extra: Any) -> str | None:
        limits = limits_of(self.settings)
        if kind == "test-failure":
            # the test's own frame lies below the assertion library's: its locals are the point
            limits = attrs.evolve(limits, locals_frames=limits.frames)
        try:
            snap = await hit.snapshot(limits)
        except Exception as e:  # the thread may have gone, the VM may be dying: say so, go on
            self.evidence.event("capture-error", vm=self.short, probe=probe.describe(), error=str(e))
            self.tally.bump(problems=1)
            return None
        return self._record(snap, kind, probe, **extra)

    def _record(self, snap: Any, kind: str, probe: Probe, **extra: Any) -> str:
        test = test_of(snap.data)
        if test:
            extra["test"] = test
        name = self.evidence.snapshot(kind, self.short, probe.describe(), snap.data, **extra)
        self.tally.bump(snapshots=1)
        return name

    async def _snapshot(self, snap: Any, probe: Probe, source: Any) -> None:
        if self.test_patterns and not self.test_wanted(test_of(snap.data)):
            return
        if self._count(probe, source, self.settings.max_hits):
            # taken where the condition threw (as a debugger stops there): the event says so
            extra = {"condition_error": snap.condition_error} if snap.condition_error else {}
            self._record(snap, "snapshot", probe, **extra)

    async def _assert(self, hit: Any, probe: Probe, source: Any) -> None:
        if not await self.hit_wanted(hit):
            return
        try:
            value = await hit.evaluate(probe.expression, allow_invoke=False)
            holds, error = value is True, None if isinstance(value, bool) else f"not a boolean: {value!r}"
        except Exception as e:
            holds, error = False, str(e)
        if holds:
            self.tally.bump(hits=1)
            return
        self.tally.bump(assertion_failures=1)
        if self._count(probe, source, self.settings.max_hits):
            message = f"assertion failed: {probe.expression}" + (f" ({error})" if error else "")
            name = await self._capture(hit, "assertion-failed", probe, message=message)
            self.evidence.event("assertion-failed", vm=self.short, probe=probe.describe(), message=message,
                                location=hit.location.to_python(), file=name)

    def _log_line(self, line: str, probe: Probe) -> None:
        self.tally.bump(log_lines=1, hits=1)
        self.evidence.event("log", vm=self.short, probe=probe.describe(), line=line)

    async def _exception(self, hit: Any, probe: Probe, source: Any, kind: str) -> None:
        thrown = getattr(hit, "thrown", None)
        key = getattr(thrown, "id", None)
        if key is not None and key in self.seen_exceptions:  # a rethrow of one we have
            return
        if not await self.hit_wanted(hit):
            return
        if key is not None:
            self.seen_exceptions.add(key)
        if not self._count(probe, source, self.settings.max_hits):
            return
        facts = await _exception_facts(hit)
        self.tally.bump(**({"test_failures": 1} if kind == "test-failure" else {"exceptions": 1}))
        message = f"{facts.get('class', 'exception')}: {facts.get('message')}" if facts.get("message") else \
            facts.get("class", "exception")
        name = await self._capture(hit, kind, probe, exception=facts, message=message)
        location = hit.location.to_python()
        test = self.evidence.snapshots[-1]["data"].get("test") if name else None
        if test:  # a failing test is shown where the test is, not inside the assertion library
            frame = next((f for f in self.evidence.snapshots[-1]["data"]["frames"]
                          if f"{f['location'].get('class')}.{f['location'].get('method')}" == test), None)
            location = frame["location"] if frame else location
        self.evidence.event(kind, vm=self.short, probe=probe.describe(), exception=facts, message=message,
                            location=location, throw_location=hit.location.to_python(), file=name, test=test)

    def note_resolution(self) -> None:
        """Which location probes found their code in this VM (called as the VM ends)."""
        for probe, source in zip(self.probe_of, self.sources, strict=False):
            if probe.location is None:
                continue
            if getattr(source, "resolved", False):
                self.tally.resolved.add(probe)
            elif getattr(source, "problem", None):
                self.tally.unresolved_why[probe] = source.problem

    async def expire_after(self, seconds: float) -> None:
        await trio.sleep(seconds)
        for source in self.sources:
            await source.clear()
        self.evidence.event("probes-expired", vm=self.short, after_seconds=seconds)
