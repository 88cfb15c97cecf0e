import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;
import java.util.concurrent.*;

/**
 * Invokes that meet events: a breakpoint, a step, an exception and method entries inside an invoked
 * method, an invoke nested in an invoke, and a VM suspend while an invoke waits.  The invoke runs on a
 * client thread of its own; this thread takes the events meanwhile, as an IDE's event loop does.
 */
class JdiNestedScenario {
    final JdiConformance j;
    final VirtualMachine vm;
    final EventRequestManager erm;
    final ExecutorService invoker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "invoker");
        t.setDaemon(true);
        return t;
    });

    JdiNestedScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
        this.erm = vm.eventRequestManager();
    }

    static void out(String s) {
        JdiConformance.out(s);
    }

    void run() throws Exception {
        j.startToPrepared();
        j.runTo(j.conf, "J_READY");
        breakpointInside();
        exceptionInside();
        stepInside();
        suspendWhileInvoking();
        prepareInside();
        invoker.shutdownNow();
        j.toTheEnd();
    }

    Future<String> invoke(ClassType type, String method, String signature, Value... args) {
        Method m = type.concreteMethodByName(method, signature);
        return invoker.submit(() -> {
            try {
                return j.show(type.invokeMethod(j.main, m, List.of(args), ClassType.INVOKE_SINGLE_THREADED));
            } catch (InvocationException e) {
                return "InvocationException " + e.exception().referenceType().name();
            } catch (Exception e) {
                return e.getClass().getName();
            }
        });
    }

    /** Events of the next set, printed; the set (still suspended) is returned. */
    EventSet events(String what) throws Exception {
        EventSet set = j.nextSet();
        for (Event e : set) {
            out("  " + what + ": " + describe(e) + " [" + JdiConformance.policy(set.suspendPolicy()) + "]");
        }
        return set;
    }

    String describe(Event e) {
        if (e instanceof LocatableEvent) {
            String extra = "";
            if (e instanceof ExceptionEvent) {
                ExceptionEvent x = (ExceptionEvent) e;
                extra = " " + x.exception().referenceType().name() + " catch " + JdiConformance.where(x.catchLocation());
            } else if (e instanceof MethodExitEvent) {
                extra = " returns " + ((MethodExitEvent) e).returnValue();
            }
            return e.getClass().getSimpleName().replace("EventImpl", "") + " at "
                    + JdiConformance.where(((LocatableEvent) e).location()) + extra;
        }
        return e.getClass().getSimpleName().replace("EventImpl", "");
    }

    void frames() throws Exception {
        int depth = 0;
        for (StackFrame f : j.main.frames()) {
            out("    frame " + depth++ + " " + JdiConformance.where(f.location()));
        }
    }

    void breakpointInside() throws Exception {
        j.section("a breakpoint inside an invoke");
        BreakpointRequest leaf = erm.createBreakpointRequest(j.at(j.conf, "J_LEAF"));
        leaf.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        leaf.enable();
        MethodEntryRequest entries = erm.createMethodEntryRequest();
        entries.addClassFilter("JdiConf");
        entries.addThreadFilter(j.main);
        entries.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        entries.enable();
        Future<String> result = invoke((ClassType) j.conf, "mid", "(I)I", vm.mirrorOf(20));
        EventSet first = events("during mid(20)");
        first.resume();
        EventSet set = events("during mid(20)");
        out("  main suspended=" + j.main.isSuspended() + " count=" + j.main.suspendCount() + " frames:");
        frames();
        StackFrame top = j.main.frame(0);
        out("  x = " + j.show(top.getValue(top.visibleVariableByName("x"))));
        InterfaceType greeter = (InterfaceType) j.type("JdiConf$Greeter");
        j.see("a nested invoke from the breakpoint", () -> greeter.invokeMethod(j.main,
                greeter.methodsByName("shout").get(0), List.of(vm.mirrorOf("nested")), ClassType.INVOKE_SINGLE_THREADED));
        out("  after the nested invoke: frames");
        frames();
        erm.deleteEventRequest(entries);
        erm.deleteEventRequest(leaf);
        out("  result before the resume done=" + result.isDone());
        set.resume();
        out("  mid(20) = " + result.get(30, TimeUnit.SECONDS));
        out("  main suspended=" + j.main.isSuspended() + " count=" + j.main.suspendCount() + " at "
                + JdiConformance.where(j.main.frame(0).location()));
    }

    void exceptionInside() throws Exception {
        j.section("an exception inside an invoke");
        ExceptionRequest any = erm.createExceptionRequest(null, true, true);
        any.addClassFilter("JdiConf*");
        any.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        any.enable();
        MethodExitRequest exits = erm.createMethodExitRequest();
        exits.addClassFilter("JdiConf*");
        exits.addThreadFilter(j.main);
        exits.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        exits.enable();
        Future<String> caught = invoke((ClassType) j.conf, "guarded", "(I)I", vm.mirrorOf(7));
        while (true) {
            EventSet set = events("during guarded(7)");
            set.resume();
            if (set.stream().anyMatch(e -> e instanceof MethodExitEvent
                    && ((MethodExitEvent) e).method().name().equals("guarded"))) {
                break;
            }
        }
        out("  guarded(7) = " + caught.get(30, TimeUnit.SECONDS));
        ClassType derived = (ClassType) j.type("JdiConf$Derived");
        Future<String> thrown = invoke(derived, "fail", "(Ljava/lang/String;)I", vm.mirrorOf("invoked"));
        EventSet set = events("during fail(\"invoked\")");
        frames();
        set.resume();
        out("  fail(\"invoked\") = " + thrown.get(30, TimeUnit.SECONDS));
        erm.deleteEventRequest(any);
        erm.deleteEventRequest(exits);
    }

    void stepInside() throws Exception {
        j.section("a step inside an invoke");
        BreakpointRequest leaf = erm.createBreakpointRequest(j.at(j.conf, "J_LEAF"));
        leaf.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        leaf.enable();
        Future<String> result = invoke((ClassType) j.conf, "mid", "(I)I", vm.mirrorOf(1));
        EventSet set = events("during mid(1)");
        erm.deleteEventRequest(leaf);
        for (int depth : new int[] {StepRequest.STEP_OVER, StepRequest.STEP_OUT, StepRequest.STEP_OUT}) {
            StepRequest step = erm.createStepRequest(j.main, StepRequest.STEP_LINE, depth);
            step.addCountFilter(1);
            step.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            step.enable();
            set.resume();
            // The last step leaves the invoked method: the invoke ends there, with no step event.
            set = vm.eventQueue().remove(depth == StepRequest.STEP_OVER ? 60_000 : 3_000);
            erm.deleteEventRequest(step);
            if (set == null) {
                out("  no step event; the invoke returned " + result.get(30, TimeUnit.SECONDS));
                break;
            }
            for (Event e : set) {
                out("  step: " + describe(e) + " [" + JdiConformance.policy(set.suspendPolicy()) + "]");
            }
        }
        erm.deleteEventRequests(new ArrayList<>(erm.stepRequests()));
        out("  main count=" + j.main.suspendCount());
    }

    void prepareInside() throws Exception {
        j.section("a class prepared inside an invoke");
        ClassPrepareRequest prepare = erm.createClassPrepareRequest();
        prepare.addClassFilter("JdiConf$NeverLoaded");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        ClassType classClass = (ClassType) j.type("java.lang.Class");
        Future<String> result = invoke(classClass, "forName", "(Ljava/lang/String;)Ljava/lang/Class;",
                vm.mirrorOf("JdiConf$NeverLoaded"));
        EventSet set = events("during Class.forName");
        ClassPrepareEvent e = (ClassPrepareEvent) set.iterator().next();
        out("  prepared " + e.referenceType().name() + " by " + e.thread().name() + " status prepared="
                + e.referenceType().isPrepared() + " initialized=" + e.referenceType().isInitialized());
        frames();
        erm.deleteEventRequest(prepare);
        set.resume();
        out("  Class.forName = " + result.get(30, TimeUnit.SECONDS));
        out("  now initialized=" + j.type("JdiConf$NeverLoaded").isInitialized());
    }

    void suspendWhileInvoking() throws Exception {
        j.section("suspend while an invoke waits");
        BreakpointRequest leaf = erm.createBreakpointRequest(j.at(j.conf, "J_LEAF"));
        leaf.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        leaf.enable();
        Future<String> result = invoke((ClassType) j.conf, "mid", "(I)I", vm.mirrorOf(5));
        EventSet set = events("during mid(5)");
        erm.deleteEventRequest(leaf);
        vm.suspend();
        out("  suspended: main count=" + j.main.suspendCount());
        set.resume();
        out("  event set resumed: main count=" + j.main.suspendCount() + " done=" + result.isDone());
        vm.resume();
        out("  mid(5) = " + result.get(30, TimeUnit.SECONDS) + " main count=" + j.main.suspendCount());
    }
}
