import com.sun.jdi.*;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;

/**
 * The JDI side of the bench (bench/api.py, bench/jdi_roundtrips.py): the client IDEs use, attached
 * to a server (the reference agent or jdwpd), timing with System.nanoTime and printing
 * `metric=value` lines.  Any surprise throws and exits non-zero.
 *
 *   java BenchJdi api HOST PORT HIT_LINE SNAP_LINE NHITS NSNAPS
 *       Probe (mode api), held at its start: a breakpoint hit -> resume loop (SUSPEND_EVENT_THREAD),
 *       then snapshots at PROBE_SNAP as bench/api.py's API takes them (5 frames with locals,
 *       `this`, objects to depth 2, strings cut at 256, 100 items, 50 fields).
 *   java BenchJdi roundtrips HOST PORT N CONNECTIONS
 *       Probe (mode idle), running: CONNECTIONS fresh connections, each timing vm.allClasses()
 *       (AllClassesWithGeneric); on the first, ThreadReference.name()/status() of the sleeping main
 *       thread and vm.allThreads(), N times each.  The VM runs, so JDI caches none of them.
 *   java BenchJdi cond HOST PORT LINE VAR [log]
 *       CondLoop, held at its start: a SUSPEND_EVENT_THREAD breakpoint at LINE whose condition
 *       `VAR < 0` the client evaluates at every hit, as IDEs do (read the local, compare, resume);
 *       with `log`, a logpoint's way: read it, format a line, resume.  Hits and seconds until VMDeath.
 *   java BenchJdi frames HOST PORT LINE N
 *       Target (mode deep), held at its start: at a SUSPEND_ALL breakpoint ~50 frames deep, frames()
 *       and getValues of every visible local of every frame; the first stop, then N more.
 */
public class BenchJdi {
    static final long TIMEOUT_MS = 60_000;

    static void out(String key, double value) {
        System.out.println(key + "=" + value);
    }

    static VirtualMachine attach(String host, String port) throws Exception {
        AttachingConnector socket = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.transport().name().equals("dt_socket")) {
                socket = c;
            }
        }
        Map<String, Connector.Argument> cargs = socket.defaultArguments();
        cargs.get("hostname").setValue(host);
        cargs.get("port").setValue(port);
        cargs.get("timeout").setValue("30000");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try {
                return socket.attach(cargs);
            } catch (java.net.ConnectException e) {
                // After a Dispose the reference agent listens again, a moment later.
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }

    static EventSet next(VirtualMachine vm) throws InterruptedException {
        EventSet set = vm.eventQueue().remove(TIMEOUT_MS);
        if (set == null) {
            throw new IllegalStateException("no event in " + TIMEOUT_MS + " ms");
        }
        return set;
    }

    static <T extends Event> T waitFor(VirtualMachine vm, Class<T> kind) throws InterruptedException {
        while (true) {
            EventSet set = next(vm);
            for (Event e : set) {
                if (kind.isInstance(e)) {
                    return kind.cast(e);
                }
                if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    throw new IllegalStateException("the VM went away waiting for " + kind.getSimpleName());
                }
            }
            set.resume();
        }
    }

    /** From VMStart (the VM held at its start) to class `name` prepared, every thread suspended. */
    static ReferenceType prepared(VirtualMachine vm, String name) throws InterruptedException {
        EventRequestManager erm = vm.eventRequestManager();
        ClassPrepareRequest cp = erm.createClassPrepareRequest();
        cp.addClassFilter(name);
        cp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        cp.enable();
        waitFor(vm, VMStartEvent.class);
        vm.resume();
        ReferenceType type = waitFor(vm, ClassPrepareEvent.class).referenceType();
        erm.deleteEventRequest(cp);
        return type;
    }

    static BreakpointRequest breakpoint(VirtualMachine vm, ReferenceType type, int line, int policy)
            throws AbsentInformationException {
        List<Location> where = type.locationsOfLine(line);
        if (where.isEmpty()) {
            throw new IllegalStateException("no code at " + type.name() + ":" + line);
        }
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(where.get(0));
        bp.setSuspendPolicy(policy);
        bp.enable();
        return bp;
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    public static void main(String[] args) throws Exception {
        VirtualMachine vm = attach(args[1], args[2]);
        switch (args[0]) {
            case "api": api(vm, args); break;
            case "frames": frames(vm, args); break;
            case "cond": cond(vm, args); break;
            case "roundtrips": roundtrips(vm, args); break;
            default: throw new IllegalArgumentException(args[0]);
        }
        System.out.flush();
        System.exit(0);
    }

    // ---------------------------------------------------------------- a condition or logpoint, client-side

    static void cond(VirtualMachine vm, String[] args) throws Exception {
        int line = Integer.parseInt(args[3]);
        String var = args[4];
        boolean log = args.length > 5 && args[5].equals("log");
        breakpoint(vm, prepared(vm, "CondLoop"), line, EventRequest.SUSPEND_EVENT_THREAD);
        long hits = 0;
        long trues = 0;
        long chars = 0;
        StringBuilder line_ = new StringBuilder();
        long t0 = System.nanoTime();
        vm.resume();
        while (true) {
            EventSet set = next(vm);
            boolean over = false;
            for (Event e : set) {
                if (e instanceof BreakpointEvent) {
                    StackFrame frame = ((BreakpointEvent) e).thread().frame(0);
                    int value = ((IntegerValue) frame.getValue(frame.visibleVariableByName(var))).value();
                    hits++;
                    if (log) {
                        line_.setLength(0);
                        line_.append(var).append('=').append(value);
                        chars += line_.length();
                        trues++;
                    } else if (value < 0) {
                        trues++;
                    }
                } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    over = true;
                }
            }
            if (over) {
                break;
            }
            set.resume();
        }
        out("hits", hits);
        out("trues", trues);
        out("chars", chars);
        out("seconds", (System.nanoTime() - t0) / 1e9);
    }

    // ---------------------------------------------------------------- the API's two operations

    static void api(VirtualMachine vm, String[] args) throws Exception {
        int hitLine = Integer.parseInt(args[3]);
        int snapLine = Integer.parseInt(args[4]);
        int nHits = Integer.parseInt(args[5]);
        int nSnaps = Integer.parseInt(args[6]);
        ReferenceType probe = prepared(vm, "Probe");
        BreakpointRequest bp = breakpoint(vm, probe, hitLine, EventRequest.SUSPEND_EVENT_THREAD);
        vm.resume();
        EventSet set = hitSet(vm);  // the first hit is not timed
        long t0 = System.nanoTime();
        for (int i = 0; i < nHits; i++) {
            set.resume();
            set = hitSet(vm);
        }
        out("hit_resume_us", (System.nanoTime() - t0) / 1e3 / nHits);
        bp.disable();
        vm.eventRequestManager().deleteEventRequest(bp);
        set.resume();

        BreakpointRequest snapAt = breakpoint(vm, probe, snapLine, EventRequest.SUSPEND_EVENT_THREAD);
        List<Double> times = new ArrayList<>();
        int size = 0;
        for (int i = 0; i <= nSnaps; i++) {
            set = hitSet(vm);
            ThreadReference thread = ((BreakpointEvent) set.iterator().next()).thread();
            long s0 = System.nanoTime();
            String snap = snapshot(thread, 5, 5, 2);
            double ms = (System.nanoTime() - s0) / 1e6;
            if (i == 0) {
                out("snapshot_first_ms", ms);  // the variable tables and field lists too
            } else {
                times.add(ms);
            }
            size = snap.length();
            set.resume();
        }
        out("snapshot_ms", median(times));
        out("snapshot_chars", size);
        snapAt.disable();
        vm.dispose();
    }

    static EventSet hitSet(VirtualMachine vm) throws InterruptedException {
        while (true) {
            EventSet set = next(vm);
            for (Event e : set) {
                if (e instanceof BreakpointEvent) {
                    return set;
                }
                if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    throw new IllegalStateException("the VM went away");
                }
            }
            set.resume();
        }
    }

    /** The capture jdwpd's API makes (jdwpd/api/snapshot.py), as JSON text. */
    static String snapshot(ThreadReference thread, int maxFrames, int localsFrames, int depth) throws Exception {
        StringBuilder sb = new StringBuilder();
        int total = thread.frameCount();
        List<StackFrame> frames = thread.frames(0, Math.min(total, maxFrames));
        sb.append("{\"thread\":{\"id\":").append(thread.uniqueID()).append(",\"name\":");
        str(sb, thread.name());
        sb.append("},\"frames\":[");
        for (int i = 0; i < frames.size(); i++) {
            StackFrame f = frames.get(i);
            Location loc = f.location();
            sb.append(i == 0 ? "" : ",").append("{\"location\":{\"class\":");
            str(sb, loc.declaringType().name());
            sb.append(",\"method\":");
            str(sb, loc.method().name());
            sb.append(",\"signature\":");
            str(sb, loc.method().signature());
            sb.append(",\"file\":");
            try {
                str(sb, loc.sourceName());
            } catch (AbsentInformationException e) {
                sb.append("null");
            }
            sb.append(",\"line\":").append(loc.lineNumber()).append(",\"index\":").append(loc.codeIndex()).append('}');
            if (i < localsFrames) {
                sb.append(",\"locals\":{");
                List<LocalVariable> vars;
                try {
                    vars = f.visibleVariables();
                } catch (AbsentInformationException e) {
                    vars = List.of();
                }
                Map<LocalVariable, Value> values = f.getValues(vars);
                boolean first = true;
                for (LocalVariable v : vars) {
                    sb.append(first ? "" : ",");
                    first = false;
                    str(sb, v.name());
                    sb.append(':');
                    value(sb, values.get(v), 0, depth);
                }
                sb.append('}');
                ObjectReference self = f.thisObject();
                if (self != null) {
                    sb.append(",\"this\":");
                    value(sb, self, 0, depth);
                }
            }
            sb.append('}');
        }
        sb.append("],\"truncated\":[").append(total > frames.size() ? "\"frames\"" : "").append("]}");
        return sb.toString();
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\');
            sb.append(c);
        }
        sb.append('"');
    }

    static void value(StringBuilder sb, Value v, int level, int depth) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof PrimitiveValue) {
            sb.append(v.toString());
        } else if (v instanceof StringReference) {
            String s = ((StringReference) v).value();
            str(sb, s.length() > 256 ? s.substring(0, 256) : s);
        } else {
            ObjectReference o = (ObjectReference) v;
            sb.append("{\"@type\":");
            str(sb, o.referenceType().name());
            sb.append(",\"@id\":").append(o.uniqueID());
            if (level >= depth) {
                sb.append(",\"@truncated\":\"depth\"}");
                return;
            }
            if (o instanceof ArrayReference) {
                ArrayReference a = (ArrayReference) o;
                int length = a.length();
                sb.append(",\"@length\":").append(length).append(",\"@items\":[");
                List<Value> items = length == 0 ? List.of() : a.getValues(0, Math.min(length, 100));
                for (int i = 0; i < items.size(); i++) {
                    sb.append(i == 0 ? "" : ",");
                    value(sb, items.get(i), level + 1, depth);
                }
                sb.append(']');
            } else {
                List<Field> fields = new ArrayList<>();
                for (Field f : o.referenceType().allFields()) {
                    if (!f.isStatic() && !f.isSynthetic() && fields.size() < 50) {
                        fields.add(f);
                    }
                }
                Map<Field, Value> values = o.getValues(fields);
                for (Field f : fields) {
                    sb.append(',');
                    str(sb, f.name());
                    sb.append(':');
                    value(sb, values.get(f), level + 1, depth);
                }
            }
            sb.append('}');
        }
    }

    // ---------------------------------------------------------------- round trips on a running VM

    static void roundtrips(VirtualMachine vm, String[] args) throws Exception {
        String host = args[1];
        String port = args[2];
        int n = Integer.parseInt(args[3]);
        int connections = Integer.parseInt(args[4]);
        List<Double> later = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            if (c > 0) {
                vm = attach(host, port);
            }
            long t0 = System.nanoTime();
            int classes = vm.allClasses().size();
            double ms = (System.nanoTime() - t0) / 1e6;
            if (c == 0) {
                out("all_classes_first_ms", ms);
                out("classes", classes);
                threadCalls(vm, n);
            } else {
                later.add(ms);
            }
            vm.dispose();
        }
        if (!later.isEmpty()) {
            out("all_classes_ms", median(later));
        }
    }

    static void threadCalls(VirtualMachine vm, int n) {
        ThreadReference main = null;
        for (ThreadReference t : vm.allThreads()) {
            if (t.name().equals("main")) {
                main = t;
            }
        }
        if (main == null) {
            throw new IllegalStateException("no thread main");
        }
        if (main.isSuspended()) {
            throw new IllegalStateException("main is suspended: JDI would cache");
        }
        main.name();
        main.status();
        vm.allThreads();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) main.name();
        long t1 = System.nanoTime();
        for (int i = 0; i < n; i++) main.status();
        long t2 = System.nanoTime();
        int threads = 0;
        for (int i = 0; i < n; i++) threads = vm.allThreads().size();
        long t3 = System.nanoTime();
        out("thread_name_us", (t1 - t0) / 1e3 / n);
        out("thread_status_us", (t2 - t1) / 1e3 / n);
        out("all_threads_us", (t3 - t2) / 1e3 / n);
        out("threads", threads);
    }

    // ---------------------------------------------------------------- frames and locals of a deep stack

    static void frames(VirtualMachine vm, String[] args) throws Exception {
        int line = Integer.parseInt(args[3]);
        int n = Integer.parseInt(args[4]);
        ReferenceType target = prepared(vm, "Target");
        breakpoint(vm, target, line, EventRequest.SUSPEND_ALL);
        vm.resume();
        List<Double> later = new ArrayList<>();
        for (int i = 0; i <= n; i++) {
            EventSet set = hitSet(vm);
            ThreadReference thread = ((BreakpointEvent) set.iterator().next()).thread();
            long t0 = System.nanoTime();
            int[] counts = allLocals(thread);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (i == 0) {
                out("frames_first_ms", ms);
                out("frames", counts[0]);
                out("locals", counts[1]);
            } else {
                later.add(ms);
            }
            set.resume();
        }
        out("frames_next_ms", median(later));
        vm.dispose();
    }

    static int[] allLocals(ThreadReference thread) throws Exception {
        List<StackFrame> frames = thread.frames();
        int locals = 0;
        for (StackFrame f : frames) {
            List<LocalVariable> vars;
            try {
                vars = f.visibleVariables();
            } catch (AbsentInformationException e) {
                continue;
            }
            if (!vars.isEmpty()) {
                locals += f.getValues(vars).size();
            }
        }
        return new int[] {frames.size(), locals};
    }
}
