import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;

/**
 * A breakpoint hit by a virtual thread (JDK 21+; on older JDKs the debuggee says there are none and
 * the VM ends): the event thread as JDI shows it, its frames, group and suspension.
 */
class JdiVirtualScenario {
    final JdiConformance j;
    final VirtualMachine vm;

    JdiVirtualScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
    }

    static void out(String s) {
        JdiConformance.out(s);
    }

    static Object isVirtual(ThreadReference t) {
        try {
            return ThreadReference.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            return "unknown before JDK 21";
        }
    }

    void run() throws Exception {
        j.startToPrepared();
        j.section("a breakpoint in a virtual thread");
        BreakpointRequest r = vm.eventRequestManager().createBreakpointRequest(j.at(j.conf, "J_VIRTUAL"));
        r.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        r.enable();
        vm.resume();
        EventSet set = j.nextSet();
        Event e = set.iterator().next();
        if (!(e instanceof BreakpointEvent)) {
            // The VM is ending: nothing more may be asked of it, not even a section mark.
            out("  no breakpoint: " + e.getClass().getSimpleName().replace("EventImpl", ""));
            set.resume();
            j.printedSection("end");
            while (!(j.nextSet().iterator().next() instanceof VMDisconnectEvent)) {
                out("  (another event before the disconnect)");
            }
            out("event VMDisconnect");
            return;
        }
        ThreadReference t = ((BreakpointEvent) e).thread();
        out("  at " + JdiConformance.where(((BreakpointEvent) e).location()) + " thread \"" + t.name() + "\" virtual="
                + isVirtual(t) + " status " + t.status() + " count " + t.suspendCount() + " group "
                + (t.threadGroup() == null ? "none" : t.threadGroup().name()));
        int depth = 0;
        for (StackFrame f : t.frames()) {
            out("    frame " + depth++ + " " + JdiConformance.where(f.location()));
        }
        List<String> all = new ArrayList<>();
        for (ThreadReference each : vm.allThreads()) {
            all.add(each.name() + (Boolean.TRUE.equals(isVirtual(each)) ? " (virtual)" : ""));
        }
        out("  allThreads lists it: " + all.contains("jvirtual (virtual)"));
        j.see("ownedMonitors", () -> t.ownedMonitors().size());
        j.see("popFrames", () -> {
            t.popFrames(t.frame(0));
            return "popped";
        });
        j.see("frames after", () -> JdiConformance.where(t.frame(0).location()));
        vm.eventRequestManager().deleteEventRequest(r);
        j.toTheEnd();
    }
}
