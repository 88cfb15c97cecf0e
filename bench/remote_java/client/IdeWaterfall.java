import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.util.*;

/**
 * What an IDE does after each stop, with JDI (the client IDEs use): the threads with their names and
 * states, the stopped thread's frames (each one's location, method and class), the top frames'
 * visible variables and values, `this` and its fields, every String's text and arrays' lengths.
 *
 * Usage: IdeWaterfall HOST PORT STEPS [TOP_FRAMES]
 * Stops at RemoteTarget.work's first line (SUSPEND_ALL, as IDEs stop), does the waterfall, then STEPS
 * times: a line step over and the waterfall again.  Prints "step_ms=" per step and, at the end,
 * "steps=N", "total_ms=T", "per_step_ms=P" and "seen=..." (a digest of what it read, so that runs
 * against different servers can be compared), then disposes of the connection (the VM runs on).
 */
public class IdeWaterfall {
    static StringBuilder seen = new StringBuilder();

    public static void main(String[] args) throws Exception {
        String host = args[0];
        String port = args[1];
        int steps = Integer.parseInt(args[2]);
        int top = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        AttachingConnector connector = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.name().equals("com.sun.jdi.SocketAttach")) connector = c;
        }
        Map<String, Connector.Argument> a = connector.defaultArguments();
        a.get("hostname").setValue(host);
        a.get("port").setValue(port);
        a.get("timeout").setValue("30000");
        VirtualMachine vm = connector.attach(a);
        EventRequestManager erm = vm.eventRequestManager();
        // The VM is held at its start (suspend=y): its VMStart set is resumed once, here, and never with
        // an extra vm.resume() (two resumes of one stop race with the next stop on a slow link).
        EventSet start = vm.eventQueue().remove(60000);
        if (start == null) throw new IllegalStateException("no VMStart within 60 s");
        List<ReferenceType> types = vm.classesByName("RemoteTarget");
        if (types.isEmpty()) {
            ClassPrepareRequest cpr = erm.createClassPrepareRequest();
            cpr.addClassFilter("RemoteTarget");
            cpr.setSuspendPolicy(EventRequest.SUSPEND_ALL);
            cpr.enable();
            start.resume();
            types = List.of(((ClassPrepareEvent) waitFor(vm, ClassPrepareEvent.class)).referenceType());
            cpr.disable();
            start = last;
        }
        Method work = types.get(0).methodsByName("work").get(0);
        BreakpointRequest bp = erm.createBreakpointRequest(work.location());
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        bp.enable();
        start.resume();
        ThreadReference thread = ((LocatableEvent) waitFor(vm, BreakpointEvent.class)).thread();
        bp.disable();
        waterfall(vm, thread, top);
        long total = 0;
        for (int i = 0; i < steps; i++) {
            long t0 = System.nanoTime();
            StepRequest step = erm.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
            step.addCountFilter(1);
            step.setSuspendPolicy(EventRequest.SUSPEND_ALL);
            step.enable();
            last.resume();
            waitFor(vm, StepEvent.class);
            erm.deleteEventRequest(step);
            waterfall(vm, thread, top);
            long dt = System.nanoTime() - t0;
            total += dt;
            System.out.println("step_ms=" + dt / 1e6);
        }
        System.out.println("steps=" + steps);
        System.out.println("total_ms=" + total / 1e6);
        System.out.println("per_step_ms=" + (steps > 0 ? total / 1e6 / steps : 0));
        System.out.println("seen=" + Integer.toHexString(seen.toString().hashCode()) + " " + seen.length());
        erm.deleteEventRequest(bp);
        vm.dispose();
    }

    static EventSet last;

    static Event waitFor(VirtualMachine vm, Class<?> kind) throws InterruptedException {
        while (true) {
            EventSet set = vm.eventQueue().remove(60000);
            if (set == null) throw new IllegalStateException("no " + kind.getSimpleName() + " within 60 s");
            last = set;
            for (Event e : set) {
                if (kind.isInstance(e)) return e;
                if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    throw new IllegalStateException("VM gone while waiting for " + kind.getSimpleName());
                }
            }
            set.resume();
        }
    }

    static void waterfall(VirtualMachine vm, ThreadReference stopped, int top) throws Exception {
        for (ThreadReference t : vm.allThreads()) {
            note(t.name() + " " + t.status() + " " + t.isSuspended());
        }
        List<StackFrame> frames = stopped.frames();
        for (StackFrame f : frames) {
            Location loc = f.location();
            note(loc.declaringType().name() + "." + loc.method().name() + ":" + loc.lineNumber());
        }
        for (int i = 0; i < Math.min(top, frames.size()); i++) {
            StackFrame f = stopped.frame(i);
            try {
                List<LocalVariable> vars = f.visibleVariables();
                Map<LocalVariable, Value> values = f.getValues(vars);
                for (LocalVariable v : vars) note(v.name() + "=" + text(values.get(v)));
            } catch (AbsentInformationException e) {
                note("no variables");
            }
            ObjectReference self = f.thisObject();
            if (self != null) {
                List<Field> fields = self.referenceType().allFields();
                Map<Field, Value> values = self.getValues(fields);
                for (Field fd : fields) note(fd.name() + "=" + text(values.get(fd)));
            }
        }
    }

    static String text(Value v) {
        if (v == null) return "null";
        if (v instanceof StringReference) return "\"" + ((StringReference) v).value() + "\"";
        if (v instanceof ArrayReference) return v.type().name() + "[" + ((ArrayReference) v).length() + "]";
        if (v instanceof ObjectReference) return v.type().name();
        return v.toString();
    }

    static void note(String s) {
        seen.append(s).append('\n');
        if (System.getenv("IDE_WATERFALL_ECHO") != null) System.out.println("  " + s);
    }
}
