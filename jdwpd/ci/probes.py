"""Probes installed in one VM through the scripting API: each hit becomes evidence.

Every handler catches what goes wrong in it and records it as an event: a probe that fails must
never fail the build it watches, nor leave a thread of it held (the API resumes a hit's thread when
its handler returns, whatever happened).
"""

from __future__ import annotations

import fnmatch
import re
import sys
from typing import Any

import attrs
import trio

from jdwpd import api

from .evidence import Evidence
from .options import DEFAULT_CAP, LOGPOINT_CAP, Probe, Settings
from .tests_seen import (
    JUNIT4_EXPECT,
    NOT_RECORDERS,
    RECORDERS,
    ended_test,
    failed_after_test_snapshot,
    junit4_expected,
    junit4_failed_after_test,
    test_failure_snapshot,
    test_of,
)

#: What a condition that threw in Java says: "ArithmeticException: / by zero (in the VM)", ...
JAVA_THROWABLE = re.compile(r"^[\w.$]*(Exception|Error)\b")


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
    probe_problems: int = 0
    #: (probe, reason) already said on stderr: eight forks with one bad probe make one line
    said: set = attrs.field(factory=set)
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


def _exception_message(facts: dict) -> str:
    """``Class: message`` of an exception's facts, or the class alone."""
    kind = facts.get("class", "exception")
    return f"{kind}: {facts['message']}" if facts.get("message") else kind


#: The JDK's exception whose message is not its detailMessage: a NullPointerException the VM
#: threw has none, and getMessage() computes the helpful one ('Cannot invoke "String.length()"
#: because "s" is null', JDK 14+) from the stack it was thrown with.
HELPFUL_NPE = "java.lang.NullPointerException"
#: How long that getMessage() may take on the held thread.
HELPFUL_TIMEOUT = 10.0


async def _helpful_message(hit: Any, thrown: Any) -> str | None:
    """The message of a NullPointerException, as its stack trace prints it: the JDK's own
    getMessage() run on the thread the throw holds (JDK code, the same the program runs when it
    prints the exception, never the program's; a subclass is not asked).  None where it cannot be
    had (JDK 11 has no such message; a server that cannot invoke there)."""
    try:
        message = await thrown.invoke("getMessage", thread=hit.thread, timeout=HELPFUL_TIMEOUT)
    except Exception:  # the thread may have gone on, the VM may be dying: the class is enough
        return None
    return message if isinstance(message, str) else None


async def _exception_facts(hit: Any) -> dict:
    facts: dict[str, Any] = {}
    thrown = getattr(hit, "thrown", None)
    if thrown is not None:
        facts["class"] = thrown.type_name
        try:
            facts["message"] = await thrown.get("detailMessage")
        except Exception:  # an exception type without the field: the class is enough
            pass
        if facts.get("message") is None and thrown.type_name == HELPFUL_NPE:
            facts["message"] = await _helpful_message(hit, thrown)
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
    failed: set = attrs.field(factory=set)  # sources whose problem was said
    noted: set = attrs.field(factory=set)  # logpoints whose path was said

    @property
    def short(self) -> dict:
        return {k: self.labels.get(k) for k in ("vm", "pid", "main")}

    async def install(self, probes: tuple[Probe, ...]) -> None:
        for probe in probes:
            try:
                await self._install(probe)
            except Exception as e:  # this probe only: the VM's other probes go on
                self.problem("probe-error", probe, f"cannot be set: {e}")

    def problem(self, event: str, probe: Probe, why: str) -> None:
        """A probe that can serve no more (or never could) in this VM: an event, a line on stderr
        (once per probe and reason in the run), a row of the summary; ``--fail-on probe`` fails
        the run for it."""
        self.tally.bump(problems=1, probe_problems=1)
        self.evidence.event(event, vm=self.short, probe=probe.describe(), error=why)
        said = (probe, why)
        if said not in self.tally.said:
            self.tally.said.add(said)
            print(f"jdwpd ci: {probe.describe()}: {why} (VM {self.short.get('main')}, pid {self.short.get('pid')})",
                  file=sys.stderr, flush=True)

    async def _install(self, probe: Probe) -> None:
        vm = self.vm
        quota = self.settings.cpu_quota
        if probe.kind == "snapshot":
            # Captured in the VM where it runs jdwpd's agent (the thread never waits for the
            # daemon), read over JDWP elsewhere: the same data either way.
            # the first N hits, counted in the VM (no capture past the cap is made or sent)
            source = await vm.snapshots(probe.location, condition=probe.expression, limits=self.settings.limits,
                                        in_vm=True, cpu_quota=quota, max_hits=self._cap(probe))
            source.on_hit(self._guard(probe, lambda snap, p=probe, s=source: self._snapshot(snap, p, s)))
        elif probe.kind == "assert":
            # A snapshot where the assertion does not hold: the VM evaluates it at each hit and
            # the thread goes on at once where it holds; one that throws is a failure too (the
            # snapshot says what it threw).  Method calls were refused at start (options.py).
            source = await vm.snapshots(probe.location, condition=f"!({probe.expression})",
                                        limits=self.settings.limits, in_vm=True, cpu_quota=quota,
                                        max_hits=self._cap(probe))
            source.on_hit(self._guard(probe, lambda snap, p=probe, s=source: self._assert(snap, p, s)))
        elif probe.kind == "logpoint":
            source = await vm.logpoint(probe.location, probe.expression, cpu_quota=quota,
                                       echo=lambda line, p=probe: self._log_line(line, p))
        elif probe.kind == "uncaught":
            source = await vm.catch(None, caught=False, uncaught=True)
            source.on_hit(self._guard(probe, lambda hit, p=probe, s=source:
                                      self._exception(hit, p, s, "uncaught-exception")))
        elif probe.kind == "throw":
            source = await vm.catch(probe.exception, caught=True, uncaught=True)
            source.on_hit(self._guard(probe, lambda hit, p=probe, s=source:
                                      self._exception(hit, p, s, "exception")))
        elif probe.kind == "test-failure":
            # any exception may end a test (JUnit's <error> as its <failure>): which one does is
            # told by where it is caught (tests_seen.py), first in the VM by the catching class
            source = await vm.catch(None, caught=True, uncaught=True, caught_in=RECORDERS,
                                    not_caught_in=NOT_RECORDERS)
            source.on_hit(self._guard(probe, lambda hit, p=probe, s=source: self._test_failure(hit, p, s)))
        else:
            raise ValueError(probe.kind)
        self.sources.append(source)
        self.probe_of.append(probe)
        self.vm.router.start_soon(self._watch, probe, source)

    def _guard(self, probe: Probe, handler: Any) -> Any:
        """A handler whose failure is this probe's problem, said as such: an exception out of a
        hit handler would end the script's whole VM context, every other probe with it."""
        async def guarded(hit: Any) -> None:
            try:
                await handler(hit)
            except Exception as e:
                if not self.vm.dead.is_set():
                    self.problem("probe-error", probe, f"failed at a hit: {type(e).__name__}: {e}")
        return guarded

    def _note_holding(self, probe: Probe) -> None:
        """A logpoint the VM cannot print by itself (a part is an object, not a primitive or a
        String) holds its thread at each hit while the line is made: said once, not silently."""
        why = "a part of its template is an object (the VM prints primitives and Strings itself)"
        note = f"each line holds its thread while it is made: {why}"
        self.evidence.event("probe-note", vm=self.short, probe=probe.describe(), message=note)
        if (probe, note) not in self.tally.said:
            self.tally.said.add((probe, note))
            print(f"jdwpd ci: {probe.describe()}: {note}", file=sys.stderr, flush=True)

    async def _watch(self, probe: Probe, source: Any) -> None:
        """Wait for the request to fail (a name its class lacks, a budget the user gave run out):
        its hits go to handlers, so its queue ends only then, or with the VM."""
        try:
            await source.wait()
        except api.RequestDisabled as e:
            if "max_hits" in e.reason or "hit_cap" in e.reason:
                return  # its cap, counted in the VM: probe-spent says so (_count)
            self.problem("probe-disabled", probe, f"disabled: {e.reason}")
        except api.RequestError as e:
            self.problem("probe-error", probe, e.reason)
        except Exception:  # the VM ended: nothing to say
            return

    def _cap(self, probe: Probe) -> int:
        """The hit cap of ``probe`` in a VM: its own, else --max-hits, else 50 (logpoints 1000)."""
        if probe.max_hits is not None:
            return probe.max_hits
        if self.settings.max_hits is not None:
            return self.settings.max_hits
        return LOGPOINT_CAP if probe.kind == "logpoint" else DEFAULT_CAP

    def _count(self, probe: Probe, source: Any, cap: int) -> bool:
        """One more hit of ``probe``; False once past its cap (the request is then cleared)."""
        n = self.counts.get(probe, 0) + 1
        self.counts[probe] = n
        self.tally.bump(hits=1)
        if n == cap:
            self.evidence.event("probe-spent", vm=self.short, probe=probe.describe(), hits=n,
                                message=f"{probe.describe()}: spent its {n} hits; no more in this VM")
            self.vm.router.start_soon(source.clear)
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
        try:
            snap = await hit.snapshot(self.settings.limits)
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

    def _unusable(self, snap: Any, probe: Probe, source: Any) -> bool:
        """A condition that cannot be evaluated at all (a name the class lacks) fails its probe,
        said once; one that threw what Java throws (null, an index, / by zero) is a finding."""
        error = snap.condition_error
        if not error or JAVA_THROWABLE.match(error):
            return False
        if source not in self.failed:
            self.failed.add(source)
            self.problem("probe-error", probe, f"its condition cannot be evaluated: {error}")
            self.vm.router.start_soon(source.clear)
        return True

    async def _snapshot(self, snap: Any, probe: Probe, source: Any) -> None:
        if self._unusable(snap, probe, source):
            return
        if self.test_patterns and not self.test_wanted(test_of(snap.data)):
            return
        if self._count(probe, source, self._cap(probe)):
            # taken where the condition threw (as a debugger stops there): the event says so
            extra = {"condition_error": snap.condition_error} if snap.condition_error else {}
            self._record(snap, "snapshot", probe, **extra)

    async def _assert(self, snap: Any, probe: Probe, source: Any) -> None:
        if self._unusable(snap, probe, source):
            return
        test = test_of(snap.data)
        if self.test_patterns and not self.test_wanted(test):
            return
        self.tally.bump(assertion_failures=1)
        if not self._count(probe, source, self._cap(probe)):
            return
        error = snap.condition_error
        message = f"assertion failed: {probe.expression}" + (f" (it threw {error})" if error else "")
        name = self._record(snap, "assertion-failed", probe, message=message)
        self.evidence.event("assertion-failed", vm=self.short, probe=probe.describe(), message=message,
                            location=snap.location, file=name, test=test)

    def _log_line(self, line: str, probe: Probe) -> None:
        source = self.sources[self.probe_of.index(probe)] if probe in self.probe_of else None
        if source is None or not self._count(probe, source, self._cap(probe)):
            return
        self.tally.bump(log_lines=1)
        if source not in self.noted and source.locations and not source.in_vm_requests:
            self.noted.add(source)
            self._note_holding(probe)
        self.evidence.event("log", vm=self.short, probe=probe.describe(), line=line)

    async def _test_failure(self, hit: Any, probe: Probe, source: Any) -> None:
        key = getattr(hit.thrown, "id", None)
        if key is not None and key in self.seen_exceptions:  # a rethrow of one we have
            return
        try:
            frames = await hit.thread.frames(0, -1)
        except Exception:  # the thread is gone: no test of it to name
            return
        t = await ended_test(hit, frames)
        if t is not None:
            test = f"{frames[t].location.type.name}.{frames[t].location.method.name}"
            await self._failed(hit, probe, source, frames, test, frames[t].location.to_python(), t=t)
            return
        after = await junit4_failed_after_test(hit, frames)
        if after is not None:  # JUnit 4 failed its test once the test's frame was gone
            await self._failed(hit, probe, source, frames, after.test, after.where or hit.location.to_python(),
                               note=after.note)

    async def _failed(self, hit: Any, probe: Probe, source: Any, frames: list[Any], test: str, where: dict, *,
                      t: int | None = None, note: str | None = None) -> None:
        """A test failure: an event and a snapshot, labelled with ``test`` and shown at ``where``.
        ``t``: the test frame's index in ``frames`` (its locals are read); None where JUnit 4 failed
        the test after its frame was gone (``note`` says so)."""
        if not self.test_wanted(test):
            return
        key = getattr(hit.thrown, "id", None)
        if key is not None:
            self.seen_exceptions.add(key)
        if not self._count(probe, source, self._cap(probe)):
            return
        facts = await _exception_facts(hit)
        self.tally.bump(test_failures=1)
        message = _exception_message(facts)
        catch = hit.catch_location
        if catch is not None and catch.type.name == JUNIT4_EXPECT:  # @Test(expected=X), and this is no X
            frame = next((f for f in frames if f.location.type.name == JUNIT4_EXPECT), None)
            expected = await junit4_expected(frame) if frame is not None else None
            if expected is not None:
                message = f"Unexpected exception, expected<{expected.name}> but was<{facts.get('class')}>: {message}"
        data: dict | None
        if t is None:
            data = failed_after_test_snapshot(hit, frames, note or "", self.settings.limits)
        else:
            try:
                data = await test_failure_snapshot(hit, frames, t, self.settings.limits)
            except Exception as e:  # the VM may be dying: say so, go on
                self.evidence.event("capture-error", vm=self.short, probe=probe.describe(), error=str(e))
                self.tally.bump(problems=1)
                data = None
        name = None
        if data is not None:
            name = self.evidence.snapshot("test-failure", self.short, probe.describe(), data, test=test,
                                          exception=facts, message=message)
            self.tally.bump(snapshots=1)
        # a failing test is shown where the test is, not inside the assertion library
        self.evidence.event("test-failure", vm=self.short, probe=probe.describe(), exception=facts,
                            message=message, location=where, throw_location=hit.location.to_python(), file=name,
                            test=test, **({"note": note} if note else {}))

    async def _exception(self, hit: Any, probe: Probe, source: Any, kind: str) -> None:
        thrown = getattr(hit, "thrown", None)
        key = getattr(thrown, "id", None)
        if key is not None and key in self.seen_exceptions:  # a rethrow of one we have
            return
        if not await self.hit_wanted(hit):
            return
        if key is not None:
            self.seen_exceptions.add(key)
        if not self._count(probe, source, self._cap(probe)):
            return
        facts = await _exception_facts(hit)
        self.tally.bump(**({"test_failures": 1} if kind == "test-failure" else {"exceptions": 1}))
        message = _exception_message(facts)
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
