"""The façade over one debugged VM: the link, the model, the sessions, the event fan-out.

Front ends (the JDWP sessions' command handlers) talk to this object, never to the link: its
queries and changes are the mixins of jdwpd/daemon/facade/, so that the per-session bookkeeping
stays true (what a debugger suspended, pinned or asked for is undone when it leaves, and the VM
runs on) and frame ids, invoke records and cached facts are kept once.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any, cast

import trio

from jdwpd.errors import AgentError, AgentLinkClosed
from protocol.constants import EventKind, SuspendPolicy
from protocol.link import NOTICE_VM_DEATH, CapBit
from protocol.messages import Events
from protocol.wire import IDSizes

from .events import Composite, Routing, event_of_hit, route
from .facade.classes import ClassOperations
from .facade.frames import FrameOperations
from .facade.invoke import InvokeOperations
from .facade.objects import ObjectOperations
from .facade.requests import RequestOperations
from .facade.start_hold import StartHold
from .facade.threads import ThreadOperations
from .facade.values import ObjectKinds, ValueOperations
from .fast.locals_ahead import LocalsAhead
from .fast.memo import NO_THAW, ReplyMemo
from .fast.settings import FAST
from .fast.stop_read import Facts, StopReader, arm_reads, facts_only, quick_reads, read_stop
from .model.debugger import Debugger
from .model.ext_objects import ExtObjects
from .model.invokes import InvokeTable
from .model.objects import ObjectRefs
from .model.requests import RequestTable
from .model.threads import ThreadTable

log = logging.getLogger(__name__)
# JDWPD_STOP_AHEAD: "early" (default: every stop is delivered once the first batch of its reads is
# sent), "late" (a stop of every thread once its reads ahead are in), "off" (nothing read ahead).
# What is read hands out no object id (stop_read.read_stop's objects=False): an id made ahead of the
# debugger, held strongly at a stop of every thread, made the heap's answers differ from the
# reference's.
STOP_AHEAD = os.environ.get("JDWPD_STOP_AHEAD", "early")


class _StopChanged(Exception):
    """Something changed while a stop was read ahead: the rest is not read."""
# At VM death the debuggers get every event still on its way, VMDeath last, for as long as they
# keep taking them: delivery is given up only after this long without any progress (a debugger
# that stopped reading must not keep the daemon, and with it `jdwpd launch`, alive).
DRAIN_STALL = 5.0

if TYPE_CHECKING:  # pragma: no cover
    from .model.classes import ClassCache

def complete_properties(props: dict[str, str], hello: dict) -> dict[str, str]:
    """Fill in what JVMTI's GetSystemProperties lacks and the reference reads later through
    System.getProperty: java.version, user.dir and path.separator are set by the class
    library, after the VM's own property list is made."""
    props = dict(props)
    vm_version = props.get("java.vm.version", "")
    if "java.version" not in props and vm_version:
        # java.vm.version is $VERSION_NUMBER(-$PRE)?(+$BUILD)?(-$OPT)?; java.version is the part before "+".
        props["java.version"] = vm_version.split("+")[0]
    if "user.dir" not in props and hello.get("pid"):
        try:
            props["user.dir"] = os.readlink(f"/proc/{int(hello['pid'])}/cwd")
        except OSError:
            pass
    props.setdefault("path.separator", os.pathsep)
    return props


class VM(ThreadOperations, FrameOperations, ValueOperations, InvokeOperations, ClassOperations, ObjectOperations,
         RequestOperations):
    """The façade over one VM: its lifecycle, its sessions, the fan-out of its events, and (from the
    mixins of jdwpd/daemon/facade/) every query and change a front end makes."""

    def __init__(self, link: Any, *, read_only: bool = False, start_runs: bool = False,
                 start_goes_to_dialed: bool = False) -> None:
        self.link = link
        self.read_only = read_only
        self.threads = ThreadTable()
        self.requests = RequestTable()
        self.objects = ObjectRefs()
        self.invokes = InvokeTable()
        self.ext_objects = ExtObjects()  # jdwpd's extension objects, per session (commands/jdwpd_ext.py)
        self.locals_ahead = LocalsAhead()
        # A stop's reads ahead (jdwpd/daemon/fast/stop_read.py): sent with the stop's event, answered by the
        # link (AgentLink.ahead) until a change; off where the link's other end reads ahead itself
        # (the remote near side) or with JDWPD_STOP_AHEAD=off.
        self.reads_ahead = STOP_AHEAD != "off" and hasattr(link, "ahead_send") and getattr(link, "reads_ahead", True)
        self._stop_facts = Facts()
        self.object_kinds = ObjectKinds(link)
        # Replies the sessions may repeat (jdwpd/daemon/fast/memo.py); JDWPD_FAST=off turns it off (A/B).
        self.memo = ReplyMemo(enabled=FAST.memo)
        if hasattr(link, "on_message"):
            link.on_message = self._on_link_message
        self.id_sizes = IDSizes(8, 8, 8, 8, 8)
        self.sessions: list[Debugger] = []
        self.dead = False
        self.agent_messages = 0  # taken from the link: the VM-death drain's measure of progress
        self._dead_event = trio.Event()
        self.properties: dict[str, str] = {}
        hello = getattr(link, "hello", None) or {}
        self.hello_flags = int(hello.get("flags", 0))
        self.caps_mask = int(hello.get("caps", 0))
        self.profile = hello.get("profile", "")
        self._classes: ClassCache | None = None
        # Suspend-on-start: the start event (SUSPEND_ALL) goes to the first debugger, whose resume
        # then releases the start (facade/start_hold.py).
        self.start_hold = StartHold.from_hello(self.hello_flags, runs=start_runs,
                                               goes_to_dialed=start_goes_to_dialed)

    def _on_link_message(self, name: str) -> None:
        if name == "REDEFINE_CLASSES":
            self._stop_facts = Facts()  # a redefined method's variables are new
        self.memo.link_message(name)
        if name not in NO_THAW:
            self.threads.may_run()

    # ------------------------------------------------------------------ the model

    @property
    def classes(self) -> ClassCache:
        if self._classes is None:
            from .model.classes import ClassCache  # the types engineer's; imported late on purpose

            self._classes = ClassCache(self.link)
            self._classes.on_forget = self._facts_dropped
            self._classes.on_read_ahead = self._prefill_read_ahead
        return self._classes

    def _facts_dropped(self) -> None:
        """Class facts were dropped (a class unloaded or redefined: a method's variable table may
        be another now): nothing remembered from them answers any more."""
        self.memo.drop_facts()
        self._stop_facts = Facts()

    def _prefill_read_ahead(self, refs: list[int]) -> None:
        from .fast import prefill  # imported late, as the command table is

        prefill.read_ahead(self, refs)

    def has(self, bit: CapBit) -> bool:
        return bool(self.caps_mask >> int(bit) & 1)

    @property
    def capabilities(self) -> dict[str, bool]:
        """CapabilitiesNew, as the reference fills it from its JVMTI capabilities."""
        h = self.has
        return {
            "can_watch_field_modification": h(CapBit.WATCH_FIELD_MODIFICATION),
            "can_watch_field_access": h(CapBit.WATCH_FIELD_ACCESS),
            "can_get_bytecodes": h(CapBit.GET_BYTECODES),
            "can_get_synthetic_attribute": h(CapBit.GET_SYNTHETIC_ATTRIBUTE),
            "can_get_owned_monitor_info": h(CapBit.GET_OWNED_MONITOR_INFO),
            "can_get_current_contended_monitor": h(CapBit.GET_CURRENT_CONTENDED_MONITOR),
            "can_get_monitor_info": h(CapBit.GET_MONITOR_INFO),
            "can_redefine_classes": h(CapBit.REDEFINE_CLASSES),
            "can_add_method": False,
            "can_unrestrictedly_redefine_classes": False,
            "can_pop_frames": h(CapBit.POP_FRAME),
            "can_use_instance_filters": True,
            "can_get_source_debug_extension": h(CapBit.GET_SOURCE_DEBUG_EXTENSION),
            "can_request_vmdeath_event": True,
            "can_set_default_stratum": True,
            "can_get_instance_info": h(CapBit.TAG_OBJECTS),
            "can_request_monitor_events": h(CapBit.MONITOR_EVENTS),
            "can_get_monitor_frame_info": h(CapBit.GET_OWNED_MONITOR_STACK_DEPTH_INFO),
            # The reference answers false here although it filters by source name (OpenJDK 17).
            "can_use_source_name_filters": False,
            "can_get_constant_pool": h(CapBit.GET_CONSTANT_POOL),
            "can_force_early_return": h(CapBit.FORCE_EARLY_RETURN),
            **{f"reserved{n}": False for n in range(22, 33)},
        }

    def jvmti_version(self) -> tuple[int, int]:
        """JVMTI's version as the reference reports it: the Java feature release, minor 0."""
        spec = self.properties.get("java.vm.specification.version") or self.properties.get(
            "java.specification.version", "")
        parts = spec.split(".")
        try:
            if parts[0] == "1" and len(parts) > 1:  # 1.8 and older spoke JVMTI 1.x
                return 1, 2
            return int(parts[0]), 0
        except ValueError:
            return 0, 0

    # ------------------------------------------------------------------ lifecycle

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Learn the VM, then pump agent events until the link ends."""
        try:
            info = await self.link.request("VM_INFO")
        except AgentLinkClosed:
            self._mark_dead()
            task_status.started()
            return
        self.properties = complete_properties({p["key"]: p["value"] for p in info["properties"]},
                                              getattr(self.link, "hello", None) or {})
        self.caps_mask = int(info["caps"])
        self.hello_flags |= int(info["flags"])
        task_status.started()
        try:
            async for message in self.link.events:
                self.agent_messages += 1
                try:
                    await self._on_agent_message(message)
                except (AgentLinkClosed, trio.ClosedResourceError, trio.BrokenResourceError):
                    raise
                except Exception:  # one odd event must not stop the delivery of the others
                    log.exception("agent message %r could not be delivered", message)
        except (AgentLinkClosed, trio.ClosedResourceError, trio.BrokenResourceError):
            pass
        await self._vm_died()
        # run() ending is the daemon's cue to close the sockets: first let the debuggers
        # have what they are owed, VMDeath last.
        await self.wait_delivered()

    async def wait_dead(self) -> None:
        """The VM is dead and every debugger has been sent what it was owed (VMDeath last)."""
        await self._dead_event.wait()
        for session in list(self.sessions):
            drained = getattr(session, "drained", None)
            if drained is not None:
                await drained()

    async def wait_delivered(self, stall: float = DRAIN_STALL) -> None:
        """wait_dead(), for as long as events keep moving: from the agent to the daemon, or from
        the daemon to some debugger.  Given up after ``stall`` seconds in which none moved."""
        while True:
            before = self._delivery_progress()
            with trio.move_on_after(stall):
                await self.wait_dead()
                return
            if self._delivery_progress() == before:
                log.warning("VM death: events not delivered after %.1f s without progress", stall)
                return

    def _delivery_progress(self) -> tuple[int, int]:
        return self.agent_messages, sum(getattr(s, "events_sent", 0) for s in self.sessions)

    def _mark_dead(self) -> None:
        if not self.dead:
            self.dead = True
            self.memo.clear()
            self._dead_event.set()

    async def _vm_died(self) -> None:
        """VM death: every session that has not had its VMDeath gets the automatic one."""
        if self.dead:
            return
        for session in list(self.sessions):
            if not session.saw_vm_death:
                session.saw_vm_death = True
                await session.send_event(SuspendPolicy.NONE, (Events.VMDeath(request_id=0),))
            release = getattr(session, "release_events", None)
            if release is not None:
                release()  # held events have nothing left to wait for
        self._mark_dead()

    # ------------------------------------------------------------------ sessions

    async def attach(self, session: Debugger) -> None:
        self.sessions.append(session)
        if self.dead:
            # The VM ended before this debugger came: it learns so at once.
            session.saw_vm_death = True
            await session.send_event(SuspendPolicy.NONE, (Events.VMDeath(request_id=0),))
            return
        hold = self.start_hold
        if hold.take(session):
            self.threads.suspended_all(session)
            self.memo.held_more()
            await hold.wait_arrival()
            thread = hold.thread or await self._initial_thread()
            event = hold.event or Events.VMStart(request_id=0, thread=thread)
            if hold.runs:
                # The start goes first, and out only once the VM runs (the debugger's first
                # questions find it running, as with the reference): what the run sends meanwhile
                # (a short program's VMDeath) queues behind it.
                session.hold_events()
                await session.send_event(SuspendPolicy.NONE, (event,))
                try:
                    await self.resume_all(session)
                finally:
                    session.release_events()
            else:
                await session.send_event(SuspendPolicy.ALL, (event,))

    async def _initial_thread(self) -> int:
        try:
            threads = (await self.link.request("ALL_THREADS"))["threads"]
            for t in threads:
                if (await self.link.request("THREAD_INFO", thread=t["thread"]))["name"] == "main":
                    return t["thread"]
            return threads[0]["thread"] if threads else 0
        except (AgentError, AgentLinkClosed):
            return 0

    async def detach(self, session: Debugger) -> None:
        """Undo everything the session did to the VM; the VM runs on."""
        if session in self.sessions:
            self.sessions.remove(session)
        gone = self.requests.forget_owner(session)
        detaches = self.invokes.take(session, {t: self.threads.claims(session, t)
                                               for t in self.invokes.threads_of(session)})
        pins, orphans = self.objects.forget_session(session)
        if self.dead:
            self.threads.take_undo_plan(session)
            return
        # The undo plan is read only once the agent said how each invoke of the session stands: a
        # call that ended before its detach (its reply unread, or read by a task the leaving
        # cancelled) suspended every thread for this session, which the plan must give back.
        plan = None
        try:
            for req in gone:
                if req.in_agent:
                    await self.link.request("CLEAR_REQUEST", request_id=req.agent_id)
            running = await self._detach_invokes(session, detaches)
            plan = self.threads.take_undo_plan(session)
            resume_all, resume_threads = plan.resume_all, dict(plan.resume_threads)
            for d in running:
                # Still running, detached: its thread's count and (unless single-threaded) a VM-wide
                # level are lifted already, and its end gives none of them back.
                resume_threads.pop(d.thread, None)
                if d.drop_all and resume_all > 0:
                    resume_all -= 1
            for thread, times in resume_threads.items():
                for _ in range(times):
                    await self._quiet("THREAD_RESUME", thread=thread)
            for _ in range(resume_all):
                await self.link.request("RESUME_ALL")
            for object_id, times in pins.items():
                for _ in range(times):
                    await self._quiet("OBJECT_UNPIN", object=object_id)
            if orphans:
                for thread in self.threads.known():
                    self.locals_ahead.forget(thread)  # values read ahead may name a released id
                await self._quiet("RELEASE_IDS", ids=[{"id": i} for i in orphans])
            await self._release_start_if(session, plan.resume_all > 0)
            if not plan.empty:
                # Threads the undo set running: other debuggers' frame ids of them are stale.
                for thread in self.threads.with_frames_out():
                    if await self._suspend_count(thread) == 0:
                        self.threads.invalidate_frames(thread)
        except AgentLinkClosed:
            pass
        finally:
            if plan is None:  # the link went (or the undo was cancelled) first: the claims go all the same
                self.threads.take_undo_plan(session)

    async def _detach_invokes(self, session: Debugger, detaches: list) -> list:
        """Detach the invokes of a leaving session that had not answered (jdwpd/daemon/model/invokes.py);
        the ones still running, whose end gives back none of its suspensions."""
        running = []
        for d in detaches:
            try:
                state = (await self.link.request("INVOKE_DETACH", thread=d.thread, drop_count=d.drop_count,
                                                 drop_all=d.drop_all))["state"]
            except AgentError:
                continue  # the thread ended: nothing of it to give back
            if state == 1:
                running.append(d)
            elif state == 0 and d.drop_all:
                # The call ended before its detach, its reply unread: as every such end, it
                # suspended every thread, for this session (dispose005 under load: a Dispose while
                # the call waited, the call let go right after the Dispose's reply).
                self.threads.invoke_suspended_all(session)
        return running

    async def _quiet(self, name: str, **fields: Any) -> None:
        """A cleanup step whose failure (thread gone, object collected) changes nothing."""
        try:
            await self.link.request(name, **fields)
        except AgentError:
            pass

    async def _release_start_if(self, session: Debugger, resumed: bool) -> None:
        if resumed and self.start_hold.held_for(session):
            self.start_hold.released()
            await self._quiet("RELEASE_START")

    # ------------------------------------------------------------------ agent messages

    async def _on_agent_message(self, message: dict) -> None:
        if "notice" in message:
            if message["notice"] == NOTICE_VM_DEATH:
                await self._vm_died()
            return
        if "class_unloaded" in message:
            self._class_unloaded(message["class_unloaded"])
            return
        hits = message.get("hits", ())
        start = self.start_hold.start_hit(hits)
        if start is not None:
            self.start_hold.arrived(message["thread"], None if start["event_kind"] == EventKind.VM_START
                                    else event_of_hit(start["event_kind"], 0, message["thread"], start["data"]))
            hits = [h for h in hits if h is not start]
            if not hits:
                return
            message = {**message, "hits": hits}
        routing = route(message, self.requests)
        death = any(h["event_kind"] == EventKind.VM_DEATH for h in hits)
        if message["suspend_policy"] != SuspendPolicy.NONE:
            self.threads.parked_at_event(message["thread"])
        # A VMDeath that suspends holds the dying VM until resumed, as the reference's does.
        await self._apply_suspensions(routing)
        if (self.reads_ahead and routing.composites and message["thread"]
                and message["suspend_policy"] != SuspendPolicy.NONE
                and any("location" in (h["data"] or {}) for h in hits)):
            await self._read_ahead(message, routing.composites, death)
        else:
            for composite in routing.composites:
                await self._deliver(composite, death)
        self._learn_from(message["thread"], hits)

    async def _read_ahead(self, message: dict, composites: tuple[Composite, ...], death: bool) -> None:
        """Deliver a stop with its reads ahead: the first batch goes before the event (a debugger's
        first questions wait for its replies rather than ask again); a stop of every thread is
        delivered once everything is read (STOP_AHEAD "late"), else after the first batch."""
        link = self.link
        epoch = link.ahead_epoch
        whole_vm = message["suspend_policy"] == SuspendPolicy.ALL
        if not whole_vm:
            # A stop of one thread at a place stopped at before (a logpoint's or a breakpoint's every
            # hit): its reads in one write, encoded without planning, the event right behind them;
            # nobody here waits for their replies.
            reads = quick_reads(self._stop_facts, message)
            if reads is not None and message.get("read_at_stop"):
                # The agent read the stack, the locals and the suspend count in the event's callback
                # (agent/stop_reads.c): nothing is left to read ahead.
                for composite in composites:
                    if self._pushes_stops(composite.session):
                        composite = self._with_stop(composite, message["thread"])
                    await self._deliver(composite, death)
                return
            if reads is not None:
                arm = arm_reads(self._stop_facts, message)
                if arm is not None:  # its next stops come with their reads
                    await link.post("ARM_READS", **arm)
                pushed = False
                try:
                    await link.ahead_post(reads, epoch)
                    if any(self._pushes_stops(c.session) for c in composites):
                        # A session that asked for its stops pushed gets them once the reads are in:
                        # the wait is shorter than the round trips of its asking.
                        await link.ahead_settled(reads)
                        pushed = True
                finally:
                    for composite in composites:
                        if pushed and self._pushes_stops(composite.session):
                            composite = self._with_stop(composite, message["thread"])
                        await self._deliver(composite, death)
                return
        early = STOP_AHEAD == "early" or not whole_vm
        delivered = False

        async def deliver() -> None:
            nonlocal delivered
            if not delivered:
                delivered = True
                for composite in composites:
                    await self._deliver(composite, death)

        async def raw_ask(requests: list[tuple[str, dict]]) -> list:
            if facts_only(requests):  # facts hold whatever changed: learnt for the next stops
                got = await link.ahead_send(requests, None)
                return await link.ahead_wait(got, None) if got is not None else []
            sent = await link.ahead_send(requests, epoch)
            if early:
                await deliver()
            if sent is None:
                raise _StopChanged
            return await link.ahead_wait(sent, epoch)  # (facts among them hold even if the stop changed)

        try:
            await read_stop(StopReader(raw_ask, self._stop_facts), message, whole_vm=whole_vm, objects=False)
        except _StopChanged:
            pass
        except AgentLinkClosed:
            raise
        except Exception:  # noqa: BLE001 - reading ahead is a speed-up: the stop goes on without it
            log.exception("reading a stop ahead failed")
        finally:
            await deliver()

    def _class_unloaded(self, ref: int) -> None:
        self._stop_facts = Facts()
        """The agent says a class whose id it sent unloaded (whether or not a debugger asked for
        ClassUnload events): its id is dead, nothing cached under it may answer any more."""
        self.memo.drop_facts()  # the memo keys on IDs: any entry may hold this class's facts
        if self._classes is not None:
            unloaded = getattr(self._classes, "unloaded", None)
            if unloaded is not None:
                unloaded(ref)

    def _learn_from(self, thread: int, hits: list) -> None:
        """What events tell the model for free: threads that ended, classes prepared or unloaded."""
        for h in hits:
            kind = h["event_kind"]
            if kind == EventKind.THREAD_DEATH:
                self.threads.forget(thread)
            elif kind == EventKind.CLASS_PREPARE and self._classes is not None:
                d = h["data"]
                self._classes.learn(d["ref"], d["ref_kind"], d["signature"])
            elif kind == EventKind.CLASS_UNLOAD:
                self.memo.drop_facts()  # the memo keys on IDs, not names: any of them may be this class's
                if self._classes is None:
                    continue
                forget = getattr(self._classes, "forget_signature", None)
                if forget is not None:
                    forget(h["data"]["signature"])

    async def _apply_suspensions(self, routing: Routing) -> None:
        if routing.attributed is not None:
            self._record(routing.attributed.session, routing.attributed.policy, routing.attributed.thread)
        try:
            for extra in routing.extra:
                if extra.policy == SuspendPolicy.ALL:
                    await self.suspend_all(extra.session)
                else:
                    await self.suspend_thread(extra.session, extra.thread)
            orphan = routing.orphaned
            if orphan is not None:
                if orphan.policy == SuspendPolicy.ALL:
                    await self.link.request("RESUME_ALL")
                else:
                    await self.link.request("THREAD_RESUME", thread=orphan.thread)
        except AgentError:
            pass  # the thread ended meanwhile: nothing is suspended

    def _record(self, session: Any, policy: int, thread: int) -> None:
        self.memo.held_more()
        if policy == SuspendPolicy.ALL:
            self.threads.suspended_all(session)
        elif policy == SuspendPolicy.EVENT_THREAD:
            self.threads.suspended(session, thread)

    def _pushes_stops(self, session: Any) -> bool:
        objects = self.ext_objects.of(session)
        return objects is not None and objects.pushes_stops

    def _with_stop(self, composite: Composite, thread: int) -> Composite:
        """The composite with its thread's JdwpdStop last (jdwpd's extension: Jdwpd.PushStops), where
        it holds the thread: a session whose own request suspends nothing does not hold what it says."""
        if composite.suspend_policy == SuspendPolicy.NONE:
            return composite
        data = self.pushed_stop(composite.session, thread)
        if data is None:
            return composite
        stop = Events.JdwpdStop(request_id=0, thread=thread, data=data)
        return Composite(composite.session, composite.suspend_policy, (*composite.events, stop))

    async def _deliver(self, composite: Composite, death: bool) -> None:
        session = cast(Debugger, composite.session)  # a request's owner: the session that set it
        events = composite.events
        if death:
            if session.saw_vm_death:
                return
            session.saw_vm_death = True
            events = (*events, Events.VMDeath(request_id=0))
        await session.send_event(composite.suspend_policy, events)

