import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;

/**
 * Attaching to a VM that runs (started without suspension, its main thread waiting for the field
 * JdiConf.go): what comes on attach, requests made while the VM runs, and the VM let go by a field write.
 */
class JdiAttachScenario {
    final JdiConformance j;
    final VirtualMachine vm;

    JdiAttachScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
    }

    static void out(String s) {
        JdiConformance.out(s);
    }

    void run() throws Exception {
        j.section("attached");
        EventSet first = vm.eventQueue().remove(1_000);
        if (first == null) {
            out("  no event within 1 s of the attach");
        } else {
            for (Event e : first) {
                out("  event " + e.getClass().getSimpleName().replace("EventImpl", "") + " "
                        + JdiConformance.policy(first.suspendPolicy())
                        + (e instanceof VMStartEvent ? " thread " + ((VMStartEvent) e).thread().name() : ""));
            }
            first.resume();
        }
        j.conf = j.type("JdiConf");
        out("  JdiConf prepared=" + j.conf.isPrepared() + " initialized=" + j.conf.isInitialized());
        for (ThreadReference t : vm.allThreads()) {
            if (t.name().equals("main")) {
                j.main = t;
            }
        }
        out("  main suspended=" + j.main.isSuspended() + " count=" + j.main.suspendCount());
        j.see("frames of the running main", j.main::frames);
        j.section("let go");
        BreakpointRequest ready = vm.eventRequestManager().createBreakpointRequest(j.at(j.conf, "J_READY"));
        ready.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        ready.enable();
        ((ClassType) j.conf).setValue(j.conf.fieldByName("go"), vm.mirrorOf(true));
        BreakpointEvent b = j.await(BreakpointEvent.class);
        vm.eventRequestManager().deleteEventRequest(ready);
        out("  breakpoint at " + JdiConformance.where(b.location()) + " thread " + b.thread().name());
        int depth = 0;
        for (StackFrame f : b.thread().frames()) {
            out("    frame " + depth++ + " " + JdiConformance.where(f.location()));
        }
        out("  main count=" + j.main.suspendCount() + " go=" + j.conf.getValue(j.conf.fieldByName("go")));
        j.toTheEnd();
    }
}
