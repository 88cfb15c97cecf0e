import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;

/** ThreadReference, StackFrame, ThreadGroupReference: frames, locals, monitors, pop, early return, interrupt, stop. */
class JdiThreadsScenario {
    final JdiConformance j;
    final VirtualMachine vm;

    JdiThreadsScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
    }

    static void out(String s) {
        JdiConformance.out(s);
    }

    ThreadReference thread(String field) {
        return (ThreadReference) j.conf.getValue(j.conf.fieldByName(field));
    }

    void run() throws Exception {
        j.startToPrepared();
        j.runTo(j.conf, "J_READY");
        for (String name : new String[] {"main", "holder", "blocked", "waiter"}) {
            describe(name.equals("main") ? j.main : thread(name));
        }
        locals();
        staleFrames();
        interruptAndStop();
        popAndReturn();
        popSynchronized();
        j.toTheEnd();
    }

    void describe(ThreadReference t) throws Exception {
        j.section("thread " + t.name());
        out("  " + j.show(t) + " status " + t.status() + " suspended=" + t.isSuspended() + " count="
                + t.suspendCount() + " atBreakpoint=" + t.isAtBreakpoint() + " group=" + t.threadGroup().name()
                + " type " + t.referenceType().name());
        out("  frameCount " + t.frameCount());
        int depth = 0;
        for (StackFrame f : t.frames()) {
            out("    frame " + depth++ + " " + JdiConformance.where(f.location()) + " this="
                    + (f.location().method().isStatic() || f.location().method().isNative() ? "static"
                            : j.show(f.thisObject())));
        }
        j.see("frames 0..1", () -> JdiConformance.names(locations(t.frames(0, 1))));
        j.see("frames 1..2", () -> JdiConformance.names(locations(t.frames(1, 2))));
        j.see("frames 0..100", () -> t.frames(0, 100).size());
        j.see("frames -1..1", () -> t.frames(-1, 1).size());
        j.see("frame 100", () -> t.frame(100));
        j.see("ownedMonitors", () -> shows(t.ownedMonitors()));
        j.see("ownedMonitorsAndFrames", () -> {
            List<String> found = new ArrayList<>();
            for (MonitorInfo m : t.ownedMonitorsAndFrames()) {
                found.add(j.show(m.monitor()) + " at depth " + m.stackDepth() + " of " + m.thread().name());
            }
            return found;
        });
        j.see("currentContendedMonitor", t::currentContendedMonitor);
        try {
            java.lang.reflect.Method isVirtual = ThreadReference.class.getMethod("isVirtual");
            out("  isVirtual " + isVirtual.invoke(t));
        } catch (NoSuchMethodException e) {
            out("  isVirtual: no such JDI method before JDK 21");
        }
    }

    static List<Location> locations(List<StackFrame> frames) {
        List<Location> out = new ArrayList<>();
        for (StackFrame f : frames) {
            out.add(f.location());
        }
        return out;
    }

    List<String> shows(List<? extends Value> values) {
        List<String> out = new ArrayList<>();
        for (Value v : values) {
            out.add(j.show(v));
        }
        return out;
    }

    void locals() throws Exception {
        j.section("locals");
        StackFrame ready = j.main.frame(0);
        out("  frame 0 " + JdiConformance.where(ready.location()) + " thread " + ready.thread().name());
        List<LocalVariable> vars = ready.visibleVariables();
        out("  visibleVariables " + JdiConformance.names(vars));
        Map<LocalVariable, Value> values = ready.getValues(vars);
        for (LocalVariable v : vars) {
            out("  " + v.name() + " = " + j.show(values.get(v)) + " visible=" + v.isVisible(ready));
        }
        LocalVariable a = ready.visibleVariableByName("a");
        LocalVariable b = ready.visibleVariableByName("b");
        j.see("setValue a 8", () -> {
            ready.setValue(a, vm.mirrorOf(8));
            return ready.getValue(a);
        });
        j.see("setValue a a long", () -> {
            ready.setValue(a, vm.mirrorOf(8L));
            return ready.getValue(a);
        });
        j.see("setValue a a string", () -> {
            ready.setValue(a, vm.mirrorOf("8"));
            return ready.getValue(a);
        });
        j.see("setValue b null", () -> {
            ready.setValue(b, null);
            return ready.getValue(b);
        });
        j.see("setValue b an array", () -> {
            ready.setValue(b, j.conf.getValue(j.conf.fieldByName("ints")));
            return ready.getValue(b);
        });
        j.see("setValue b \"four\"", () -> {
            ready.setValue(b, vm.mirrorOf("four"));
            return ready.getValue(b);
        });
        j.see("thisObject of a static frame", ready::thisObject);
        j.see("argumentValues", () -> shows(ready.getArgumentValues()));
        StackFrame caller = j.main.frame(1);
        out("  frame 1 " + JdiConformance.where(caller.location()));
        List<LocalVariable> callerVars = caller.visibleVariables();
        out("  caller's visibleVariables " + JdiConformance.names(callerVars));
        j.see("the caller's args", () -> j.show(caller.getValue(caller.visibleVariableByName("args"))));
        j.see("a variable of another frame", () -> caller.getValue(a));
        j.see("visibleVariableByName nothing", () -> caller.visibleVariableByName("nothing"));
        StackFrame holderTop = thread("holder").frame(0);
        j.see("visibleVariables of a native frame", holderTop::visibleVariables);
        j.see("thisObject of a native frame", () -> j.show(holderTop.thisObject()));
        j.see("argumentValues of a native frame", () -> shows(holderTop.getArgumentValues()));
        StackFrame holderWait = thread("holder").frame(1);
        j.see("argumentValues of Object.wait()", () -> shows(holderWait.getArgumentValues()));
        j.see("visibleVariables of Object.wait()", () -> JdiConformance.names(holderWait.visibleVariables()));
        StackFrame holderPark = thread("holder").frame(2);
        out("  holder frame " + JdiConformance.where(holderPark.location()));
        j.see("holder's locals", () -> {
            List<String> found = new ArrayList<>();
            for (LocalVariable v : holderPark.visibleVariables()) {
                found.add(v.name() + "=" + j.show(holderPark.getValue(v)));
            }
            return found;
        });
    }

    void staleFrames() throws Exception {
        j.section("stale frames");
        ThreadReference waiter = thread("waiter");
        StackFrame old = waiter.frame(0);
        waiter.resume();
        out("  waiter resumed: status " + waiter.status() + " count " + waiter.suspendCount());
        j.see("frames of a running thread", waiter::frames);
        j.see("frameCount of a running thread", waiter::frameCount);
        j.see("ownedMonitors of a running thread", () -> waiter.ownedMonitors().size());
        j.see("currentContendedMonitor of a running thread", waiter::currentContendedMonitor);
        j.see("a frame from before the resume", old::location);
        j.see("its variables", () -> old.visibleVariables().size());
        j.see("its thisObject", old::thisObject);
        waiter.suspend();
        j.see("the old frame after suspend again", old::thisObject);
        out("  waiter suspended again: count " + waiter.suspendCount());
    }

    void interruptAndStop() throws Exception {
        j.section("interrupt and stop");
        ThreadReference holder = thread("holder");
        ThreadReference waiter = thread("waiter");
        holder.interrupt();
        out("  holder interrupted: count " + holder.suspendCount());
        // Let it take the interrupt now, before the debuggee's notify (which would race it).
        holder.resume();
        long deadline = System.currentTimeMillis() + 30_000;
        while (holder.status() != ThreadReference.THREAD_STATUS_ZOMBIE && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        out("  holder resumed: it ended " + (holder.status() == ThreadReference.THREAD_STATUS_ZOMBIE));
        ClassType ise = (ClassType) j.type("java.lang.RuntimeException");
        ObjectReference error = ise.newInstance(j.main, ise.concreteMethodByName("<init>", "(Ljava/lang/String;)V"),
                List.of(vm.mirrorOf("stopped by the debugger")), ObjectReference.INVOKE_SINGLE_THREADED);
        j.see("stop waiter with an exception", () -> {
            waiter.stop(error);
            return "done";
        });
        ThreadGroupReference group = holder.threadGroup();
        List<String> inGroup = new ArrayList<>();
        for (ThreadReference member : group.threads()) {
            inGroup.add(member.name());
        }
        out("  group " + group.name() + " parent " + group.parent().name() + " threads "
                + JdiConformance.sorted(inGroup) + ", subgroups " + group.threadGroups().size());
    }

    void popAndReturn() throws Exception {
        j.section("pop frames and early return");
        BreakpointEvent b = j.runTo(j.conf, "J_LEAF");
        ThreadReference t = b.thread();
        // What an IDE's variables view reads at each stop: every frame's visible locals.  Values set in one
        // frame, a step, and popped frames must all show in what is read next (no stale answers).
        printLocals(t, "at J_LEAF");
        StackFrame mid = t.frame(1);
        mid.setValue(mid.visibleVariableByName("x"), vm.mirrorOf(9));
        printLocals(t, "mid's x set to 9");
        StepRequest over = vm.eventRequestManager().createStepRequest(t, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        over.addCountFilter(1);
        over.enable();
        vm.resume();
        out("  stepped to " + JdiConformance.where(j.await(StepEvent.class).location()));
        vm.eventRequestManager().deleteEventRequest(over);
        printLocals(t, "after a line step");
        j.see("popFrames of an ended thread", () -> {
            thread("blocked").popFrames(thread("blocked").frame(0));
            return "popped";
        });
        j.see("popFrames leaf", () -> {
            t.popFrames(t.frame(0));
            return "popped";
        });
        printLocals(t, "leaf popped");
        j.see("forceEarlyReturn a string", () -> {
            t.forceEarlyReturn(vm.mirrorOf("no"));
            return "done";
        });
        j.see("forceEarlyReturn a boolean", () -> {
            t.forceEarlyReturn(vm.mirrorOf(true));
            return "done";
        });
        j.see("forceEarlyReturn 100 from mid", () -> {
            t.forceEarlyReturn(vm.mirrorOf(100));
            return "done";
        });
        j.see("forceEarlyReturn again", () -> {
            t.forceEarlyReturn(vm.mirrorOf(101));
            return "done";
        });
        j.see("forceEarlyReturn on a thread not suspended by an event", () -> {
            thread("holder").forceEarlyReturn(vm.mirrorOf(1));
            return "done";
        });
        StepRequest step = vm.eventRequestManager().createStepRequest(t, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        step.addCountFilter(1);
        step.enable();
        vm.resume();
        StepEvent s = j.await(StepEvent.class);
        vm.eventRequestManager().deleteEventRequest(step);
        out("  stepped to " + JdiConformance.where(s.location()));
        j.see("popFrames of main's last frame", () -> {
            t.popFrames(t.frame(t.frameCount() - 1));
            return "popped";
        });
    }

    /** A racer stopped in the static synchronized race(): popping its frame gives the class's monitor back. */
    void popSynchronized() throws Exception {
        j.section("pop a synchronized frame");
        // Which racer comes first is the scheduler's choice: nothing here names it.
        BreakpointEvent b = j.runTo(j.conf, "J_RACE");
        ThreadReference racer = b.thread();
        out("  a racer at " + JdiConformance.where(b.location()) + " owns " + shows(racer.ownedMonitors())
                + " entryCount of JdiConf's class " + j.conf.classObject().entryCount());
        j.see("popFrames race", () -> {
            racer.popFrames(racer.frame(0));
            return "popped";
        });
        out("  then at " + JdiConformance.where(racer.frame(0).location()) + " owns " + shows(racer.ownedMonitors())
                + " JdiConf's class owned by the racer " + racer.equals(j.conf.classObject().owningThread()));
    }

    void printLocals(ThreadReference t, String when) throws Exception {
        out("  " + when + ":");
        int depth = 0;
        for (StackFrame f : t.frames()) {
            List<String> locals = new ArrayList<>();
            try {
                List<LocalVariable> vars = f.visibleVariables();
                Map<LocalVariable, Value> values = f.getValues(vars);
                for (LocalVariable v : vars) {
                    locals.add(v.name() + "=" + j.show(values.get(v)));
                }
            } catch (AbsentInformationException e) {
                locals.add("absent");
            }
            out("    frame " + depth++ + " " + JdiConformance.where(f.location()) + " " + JdiConformance.sorted(locals));
        }
    }

    void printFrames(ThreadReference t) throws Exception {
        int depth = 0;
        for (StackFrame f : t.frames()) {
            out("    frame " + depth++ + " " + JdiConformance.where(f.location()));
        }
    }
}
