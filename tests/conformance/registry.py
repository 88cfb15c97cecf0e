"""What the conformance suite compares: every scenario registers the commands and event kinds it proves.

The registry is read twice: by the suite (one test per registered item, comparing the two servers'
transcripts for that item) and by ``python -m tests.conformance.table`` (the coverage table in
docs/conformance.md).  A registration is checked at run time too: the reference's transcript must
hold at least one entry of every item a scenario claims, so the table cannot claim more than the
suite compares.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import attrs

from protocol import spec

__all__ = ["COMMANDS", "EVENT_KINDS", "SCENARIOS", "Scenario", "scenario", "DIFFERENCES", "KNOWN_BUGS",
           "event_key", "SCENARIO_MODULES"]

# Every command of the spec, the event composite included (95), in the spec's order; jdwpd's
# extension (docs/extensions.md: a set the reference does not have, and its probe) is not compared.
COMMANDS: tuple[str, ...] = tuple(
    c.label for c in sorted(spec.COMMANDS.values(), key=lambda c: (c.set_id, c.cmd_id))
    if c.set_id < 128 and not c.name.startswith("Jdwpd"))

# Every event kind with a wire form (18): FRAME_POP, EXCEPTION_CATCH, CLASS_LOAD and USER_DEFINED
# are JVMDI leftovers no JDWP server sends.
EVENT_KINDS: tuple[str, ...] = (
    "SINGLE_STEP", "BREAKPOINT", "EXCEPTION", "THREAD_START", "THREAD_DEATH", "CLASS_PREPARE", "CLASS_UNLOAD",
    "FIELD_ACCESS", "FIELD_MODIFICATION", "METHOD_ENTRY", "METHOD_EXIT", "METHOD_EXIT_WITH_RETURN_VALUE",
    "MONITOR_CONTENDED_ENTER", "MONITOR_CONTENDED_ENTERED", "MONITOR_WAIT", "MONITOR_WAITED", "VM_START",
    "VM_DEATH",
)

# Modules that define scenarios (imported by the suite and by the table generator).
SCENARIO_MODULES = (
    "tests.conformance.scenarios_vm",
    "tests.conformance.scenarios_types",
    "tests.conformance.scenarios_objects",
    "tests.conformance.scenarios_threads",
    "tests.conformance.scenarios_events",
    "tests.conformance.scenarios_ended",
)


def event_key(kind: str) -> str:
    return f"Event.{kind}"


@attrs.frozen
class Scenario:
    name: str
    run: Callable[..., Awaitable[None]]
    debuggee: str  # "sample" (tests/java/Sample.java) or "conf" (tests/java/conformance)
    main: str
    args: tuple[str, ...]
    items: tuple[str, ...]  # command labels and event keys it compares
    doc: str
    module: str


SCENARIOS: dict[str, Scenario] = {}


def scenario(*, commands: tuple[str, ...] | list[str] = (), events: tuple[str, ...] | list[str] = (),
             debuggee: str = "sample", main: str = "Sample", args: tuple[str, ...] = ()):
    """Register ``async def name(t)`` as a scenario comparing ``commands`` and ``events``."""

    def register(func):
        unknown = [c for c in commands if c not in COMMANDS] + [e for e in events if e not in EVENT_KINDS]
        if unknown:
            raise ValueError(f"{func.__name__}: unknown items {unknown}")
        if func.__name__ in SCENARIOS:
            raise ValueError(f"scenario {func.__name__} registered twice")
        items = tuple(commands) + tuple(event_key(e) for e in events)
        if events:
            items += ("Event.Composite",)
        doc = (func.__doc__ or "").strip().splitlines()[0] if func.__doc__ else ""
        SCENARIOS[func.__name__] = Scenario(func.__name__, func, debuggee, main, tuple(args), items, doc,
                                            func.__module__)
        return func

    return register


# Deliberate differences: requests the reference answers in a way we do not copy.  Item -> reason.
# Each is proven on jdwpd alone by tests/conformance/test_conformance_differences.py.
DIFFERENCES: dict[str, str] = {}

# Known jdwpd bugs, entry by entry: (scenario, item, entry label) -> what differs.  Those entries are left
# out of the item's comparison and compared by a strict xfail of their own, so a fix shows up as a
# failure until its line here goes.
KNOWN_BUGS: dict[tuple[str, str, str], str] = {}
# The Java feature release a known difference is limited to (absent: every release).
KNOWN_BUG_JDK: dict[tuple[str, str, str], int] = {}


def known_bug(scenario_name: str, item: str, labels: tuple[str, ...] | list[str], reason: str,
              jdk: int | None = None) -> None:
    for label in labels:
        KNOWN_BUGS[(scenario_name, item, label)] = reason + (f" (JDK {jdk})" if jdk else "")
        if jdk:
            KNOWN_BUG_JDK[(scenario_name, item, label)] = jdk


def known_bugs_for(jdk: int) -> dict[tuple[str, str, str], str]:
    return {k: r for k, r in KNOWN_BUGS.items() if KNOWN_BUG_JDK.get(k, jdk) == jdk}


for _item in ("Event.VM_DEATH", "Event.Composite"):
    known_bug("vm_dispose_then_another_debugger", _item, ["Event.Composite [to the end]"],
              "deliberate: after a debugger disposed and another attached, the reference's VMDeath composite holds "
              "two automatic VMDeath events (request 0), the first session's left behind; jdwpd sends one")


known_bug("vm_instance_counts_redefinition_and_exit", "VirtualMachine.InstanceCounts",
          ["VirtualMachine.InstanceCounts [asked twice]"],
          "deliberate: the reference counts a class asked twice at its last mention only (its tag for the walk "
          "is overwritten) and answers 0 at the first; jdwpd answers the count at both")


def load_scenarios() -> dict[str, Scenario]:
    import importlib

    for name in SCENARIO_MODULES:
        importlib.import_module(name)
    return SCENARIOS
