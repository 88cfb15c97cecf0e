import com.sun.jdi.*;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.LaunchingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;

/**
 * A scripted JDI session against tests/java/Sample, printing a deterministic transcript.
 *
 * Usage: java JdiClient HOST PORT NAME=LINE...   (the marker lines of the debuggee)
 *
 * No raw IDs are printed: objects are "#n" in order of first appearance.  Where JDWP
 * does not define an order (events of different threads, thread lists, class
 * prepares) the client collects and prints sorted.  Exit code 0 once the VM is
 * disconnected after VMDeath; any surprise throws and exits non-zero.
 */
public class JdiClient {
    final VirtualMachine vm;
    final Map<String, Integer> lines = new HashMap<>();
    final ValueText text = new ValueText(2);
    final SortedSet<String> prepared = new TreeSet<>();
    final SortedSet<String> started = new TreeSet<>();
    final SortedSet<String> died = new TreeSet<>();
    final List<String> entries = new ArrayList<>();
    int steps = 0;
    ThreadReference mainThread;

    JdiClient(VirtualMachine vm, String[] args) {
        this.vm = vm;
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            lines.put(kv[0], Integer.parseInt(kv[1]));
        }
    }

    static void out(String s) {
        System.out.println(s);
    }

    public static void main(String[] args) throws Exception {
        if (args[0].startsWith("launch=")) {
            launch(args[0].substring("launch=".length()), args);
            return;
        }
        AttachingConnector socket = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.transport().name().equals("dt_socket")) {
                socket = c;
            }
        }
        Map<String, Connector.Argument> cargs = socket.defaultArguments();
        cargs.get("hostname").setValue(args[0]);
        cargs.get("port").setValue(args[1]);
        cargs.get("timeout").setValue("30000");
        VirtualMachine vm = socket.attach(cargs);
        new JdiClient(vm, args).run();
    }

    /**
     * launch=HOME OPTIONS markers...: the debuggee started by JDI's launching connector from the JDK
     * at HOME (which listens; the debuggee's agent connects to it: -agentlib:jdwp with server=n), then
     * the same session as attached; the debuggee's exit status and output follow the transcript.
     */
    static void launch(String home, String[] args) throws Exception {
        LaunchingConnector launcher = null;
        for (LaunchingConnector c : Bootstrap.virtualMachineManager().launchingConnectors()) {
            if (c.name().equals("com.sun.jdi.CommandLineLaunch")) {
                launcher = c;
            }
        }
        Map<String, Connector.Argument> cargs = launcher.defaultArguments();
        cargs.get("home").setValue(home);
        cargs.get("options").setValue(args[1]);
        cargs.get("main").setValue("Sample");
        VirtualMachine vm = launcher.launch(cargs);
        Process process = vm.process();
        StringBuilder output = new StringBuilder();
        Thread stdout = new Thread(() -> copy(process.getInputStream(), output));
        StringBuilder errors = new StringBuilder();
        Thread stderr = new Thread(() -> copy(process.getErrorStream(), errors));
        stdout.start();
        stderr.start();
        new JdiClient(vm, args).run();
        if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the debuggee did not end");
        }
        stdout.join(30_000);
        stderr.join(30_000);
        System.err.print(errors);
        out("debuggee exit " + process.exitValue());
        out("debuggee stdout:");
        System.out.print(output);
    }

    static void copy(java.io.InputStream in, StringBuilder into) {
        try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(in))) {
            for (String l; (l = r.readLine()) != null; ) {
                into.append(l).append('\n');
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    int line(String marker) {
        Integer n = lines.get(marker);
        if (n == null) {
            throw new IllegalArgumentException("no marker " + marker);
        }
        return n;
    }

    // ------------------------------------------------------------------ printing

    String name(ObjectReference o) {
        return text.name(o);
    }

    static String hidden(String typeName) {
        return ValueText.hidden(typeName);
    }

    String show(Value v) {
        return text.show(v);
    }

    String show(Value v, int depth) {
        return text.show(v, depth);
    }

    String where(Location loc) {
        return hidden(loc.declaringType().name()) + "." + loc.method().name() + ":" + loc.lineNumber()
                + " @" + loc.codeIndex();
    }

    void printFrames(ThreadReference t) throws IncompatibleThreadStateException {
        int depth = 0;
        for (StackFrame f : t.frames()) {
            out("    frame " + depth++ + " " + where(f.location()));
        }
    }

    void printLocals(StackFrame f) throws AbsentInformationException {
        List<LocalVariable> vars = new ArrayList<>(f.visibleVariables());
        Map<LocalVariable, Value> values = f.getValues(vars);
        for (LocalVariable v : vars) {
            out("    local " + v.name() + " (" + v.typeName() + (v.isArgument() ? ", arg" : "") + ") = "
                    + show(values.get(v)));
        }
        ObjectReference self = f.thisObject();
        out("    this = " + show(self));
    }

    void printFields(ObjectReference o) {
        ReferenceType type = o.referenceType();
        for (Field field : type.allFields()) {
            out("    field " + field.declaringType().name() + "." + field.name() + " " + field.signature()
                    + (field.isStatic() ? " static" : "") + " = "
                    + show(field.isStatic() ? type.getValue(field) : o.getValue(field)));
        }
    }

    void printThreads(String when) {
        out("  threads (" + when + "):");
        List<ThreadReference> threads = new ArrayList<>(vm.allThreads());
        threads.sort(Comparator.comparing(ThreadReference::name));
        for (ThreadReference t : threads) {
            String group = t.threadGroup() == null ? "none" : t.threadGroup().name();
            if (!group.equals("main")) {
                // The JVM's own threads: whether Common-Cleaner is still starting (held by our
                // ThreadStart request) or already waiting depends on timing, not on the server.
                out("    " + t.name() + " group=" + group + " suspended=" + t.isSuspended());
                continue;
            }
            String frames = "";
            try {
                frames = t.isSuspended() ? " frames=" + t.frameCount() : "";
            } catch (IncompatibleThreadStateException e) {
                frames = " frames=?";
            }
            out("    " + t.name() + " group=" + group + " status=" + t.status()
                    + " suspended=" + t.isSuspended() + " count=" + t.suspendCount() + frames
                    + " atBreakpoint=" + t.isAtBreakpoint());
        }
    }

    static String policy(int p) {
        switch (p) {
            case EventRequest.SUSPEND_ALL: return "ALL";
            case EventRequest.SUSPEND_EVENT_THREAD: return "EVENT_THREAD";
            default: return "NONE";
        }
    }

    // ------------------------------------------------------------------ requests

    Location lineLocation(ReferenceType type, String marker) throws AbsentInformationException {
        List<Location> found = type.locationsOfLine(line(marker));
        if (found.isEmpty()) {
            throw new IllegalStateException("no code at " + marker + " in " + type.name());
        }
        return found.get(0);
    }

    BreakpointRequest breakAt(ReferenceType type, String marker, int policy) throws AbsentInformationException {
        BreakpointRequest r = vm.eventRequestManager().createBreakpointRequest(lineLocation(type, marker));
        r.setSuspendPolicy(policy);
        r.putProperty("name", marker);
        r.enable();
        return r;
    }

    ReferenceType type(String name) {
        List<ReferenceType> found = vm.classesByName(name);
        if (found.size() != 1) {
            throw new IllegalStateException(found.size() + " classes named " + name);
        }
        return found.get(0);
    }

    void step(ThreadReference t, int size, int depth) {
        EventRequestManager erm = vm.eventRequestManager();
        StepRequest r = erm.createStepRequest(t, size, depth);
        for (String pattern : new String[] {"java.*", "javax.*", "sun.*", "jdk.*"}) {
            r.addClassExclusionFilter(pattern);
        }
        r.addCountFilter(1);
        r.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        r.putProperty("name", (size == StepRequest.STEP_LINE ? "line" : "min") + "/"
                + new String[] {"?", "into", "over", "out"}[depth]);
        r.enable();
    }

    // ------------------------------------------------------------------ the session

    void run() throws Exception {
        out("vm " + vm.name() + " " + vm.version());
        out("caps watchFieldModification=" + vm.canWatchFieldModification() + " watchFieldAccess="
                + vm.canWatchFieldAccess() + " bytecodes=" + vm.canGetBytecodes() + " syntheticAttribute="
                + vm.canGetSyntheticAttribute() + " ownedMonitorInfo=" + vm.canGetOwnedMonitorInfo()
                + " currentContendedMonitor=" + vm.canGetCurrentContendedMonitor() + " monitorInfo="
                + vm.canGetMonitorInfo() + " redefine=" + vm.canRedefineClasses() + " popFrames="
                + vm.canPopFrames() + " instanceFilters=" + vm.canUseInstanceFilters() + " sourceDebugExtension="
                + vm.canGetSourceDebugExtension() + " vmDeath=" + vm.canRequestVMDeathEvent() + " instanceInfo="
                + vm.canGetInstanceInfo() + " monitorEvents=" + vm.canRequestMonitorEvents()
                + " monitorFrameInfo=" + vm.canGetMonitorFrameInfo() + " sourceNameFilters="
                + vm.canUseSourceNameFilters() + " constantPool=" + vm.canGetConstantPool()
                + " forceEarlyReturn=" + vm.canForceEarlyReturn() + " returnValues=" + vm.canGetMethodReturnValues());

        EventRequestManager erm = vm.eventRequestManager();
        ClassPrepareRequest prepare = erm.createClassPrepareRequest();
        prepare.addClassFilter("Sample*");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        prepare.enable();
        ClassPrepareRequest late = erm.createClassPrepareRequest();
        late.addClassFilter("LateLoaded");
        late.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        late.putProperty("name", "late");
        late.enable();
        ClassPrepareRequest bySource = erm.createClassPrepareRequest();
        bySource.addSourceNameFilter("Late*");
        bySource.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        bySource.putProperty("name", "by source name");
        bySource.enable();
        ThreadStartRequest ts = erm.createThreadStartRequest();
        ts.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        ts.enable();
        ThreadDeathRequest td = erm.createThreadDeathRequest();
        td.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);  // so that the name can still be read
        td.enable();
        ExceptionRequest caught = erm.createExceptionRequest(null, true, false);
        caught.addClassFilter("Sample");
        caught.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        caught.putProperty("name", "caught in Sample");
        caught.enable();
        ExceptionRequest uncaught = erm.createExceptionRequest(null, false, true);
        uncaught.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        uncaught.putProperty("name", "uncaught");
        uncaught.enable();
        MethodEntryRequest entry = erm.createMethodEntryRequest();
        entry.addClassFilter("Sample$Circle");
        entry.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        entry.enable();
        MethodExitRequest exit = erm.createMethodExitRequest();
        exit.addClassFilter("Sample$Square");
        exit.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        exit.enable();

        EventQueue queue = vm.eventQueue();
        boolean done = false;
        while (!done) {
            EventSet set = queue.remove(60_000);
            if (set == null) {
                throw new IllegalStateException("no event within 60 s");
            }
            boolean resume = true;
            for (Event e : set) {
                if (e instanceof VMDisconnectEvent) {
                    done = true;
                    resume = false;
                } else if (!handle(e, set.suspendPolicy())) {
                    resume = false;
                }
            }
            if (resume && !done) {
                set.resume();
            }
        }
        out("classes prepared: " + prepared);
        out("threads started: " + started);
        out("threads died: " + died);
        out("method entries/exits in order:");
        for (String s : entries) {
            out("  " + s);
        }
        out("end");
    }

    /** Returns false when the handler already resumed (or must not resume) the event set. */
    boolean handle(Event e, int suspendPolicy) throws Exception {
        String p = policy(suspendPolicy);
        if (e instanceof VMStartEvent) {
            mainThread = ((VMStartEvent) e).thread();
            out("event VMStart " + p + " thread=" + mainThread.name());
        } else if (e instanceof VMDeathEvent) {
            out("event VMDeath " + p);
        } else if (e instanceof ClassPrepareEvent) {
            ClassPrepareEvent cp = (ClassPrepareEvent) e;
            ReferenceType t = cp.referenceType();
            if ("by source name".equals(e.request().getProperty("name"))) {
                out("event ClassPrepare " + p + " (source name filter) " + t.name());
                return true;
            }
            if ("late".equals(e.request().getProperty("name"))) {
                out("event ClassPrepare " + p + " " + t.name() + " thread=" + cp.thread().name());
                printClass(t);
                breakAt(t, "LATE_CTOR", EventRequest.SUSPEND_ALL);
                ModificationWatchpointRequest w = vm.eventRequestManager().createModificationWatchpointRequest(
                        t.fieldByName("counter"));
                w.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                w.enable();
            } else {
                prepared.add(hidden(t.name()) + (cp.thread() == null ? "" : " by " + cp.thread().name()));
            }
            if (t.name().equals("Sample")) {
                out("event ClassPrepare " + p + " Sample thread=" + cp.thread().name());
                printClass(t);
                breakAt(t, "MAIN_LOCALS", EventRequest.SUSPEND_ALL);
                breakAt(t, "COMPUTE_START", EventRequest.SUSPEND_EVENT_THREAD);
                BreakpointRequest third = breakAt(t, "FACT_RECURSE", EventRequest.SUSPEND_EVENT_THREAD);
                third.disable();
                third.addCountFilter(3);
                third.enable();
                AccessWatchpointRequest w = vm.eventRequestManager().createAccessWatchpointRequest(
                        t.fieldByName("fInt"));
                w.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                w.enable();
            }
        } else if (e instanceof ThreadStartEvent) {
            ThreadReference t = ((ThreadStartEvent) e).thread();
            started.add(t.name());
            if (t.name().equals("worker-1")) {
                BreakpointRequest r = vm.eventRequestManager().createBreakpointRequest(
                        lineLocation(type("Sample"), "WORK_LOOP"));
                r.addThreadFilter(t);
                r.addCountFilter(5);
                r.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                r.putProperty("name", "WORK_LOOP worker-1 5th");
                r.enable();
            }
        } else if (e instanceof ThreadDeathEvent) {
            died.add(((ThreadDeathEvent) e).thread().name());
        } else if (e instanceof BreakpointEvent) {
            breakpoint((BreakpointEvent) e, p);
        } else if (e instanceof StepEvent) {
            StepEvent s = (StepEvent) e;
            out("event Step " + p + " " + s.request().getProperty("name") + " -> " + where(s.location()));
            vm.eventRequestManager().deleteEventRequest(s.request());
            return nextStep(s.thread());
        } else if (e instanceof ExceptionEvent) {
            ExceptionEvent x = (ExceptionEvent) e;
            out("event Exception " + p + " " + e.request().getProperty("name") + " " + show(x.exception())
                    + " thread=" + x.thread().name() + " at " + where(x.location()) + " catch="
                    + (x.catchLocation() == null ? "none" : where(x.catchLocation())));
            printFrames(x.thread());
            ObjectReference ex = x.exception();
            Field message = ex.referenceType().fieldByName("detailMessage");
            out("    message = " + show(ex.getValue(message)));
        } else if (e instanceof ModificationWatchpointEvent) {
            ModificationWatchpointEvent w = (ModificationWatchpointEvent) e;
            out("event ModificationWatchpoint " + p + " " + w.field().name() + " of " + show(w.object())
                    + " at " + where(w.location()) + " " + show(w.valueCurrent()) + " -> " + show(w.valueToBe()));
        } else if (e instanceof AccessWatchpointEvent) {
            AccessWatchpointEvent w = (AccessWatchpointEvent) e;
            out("event AccessWatchpoint " + p + " " + w.field().name() + " of " + show(w.object())
                    + " at " + where(w.location()) + " value " + show(w.valueCurrent()));
        } else if (e instanceof MethodEntryEvent) {
            MethodEntryEvent m = (MethodEntryEvent) e;
            entries.add("entry " + p + " " + m.method().declaringType().name() + "." + m.method().name()
                    + m.method().signature() + " thread=" + m.thread().name());
        } else if (e instanceof MethodExitEvent) {
            MethodExitEvent m = (MethodExitEvent) e;
            entries.add("exit " + p + " " + m.method().declaringType().name() + "." + m.method().name()
                    + " returns " + show(m.returnValue()) + " at " + where(m.location()));
        } else {
            out("event (unexpected) " + e);
        }
        return true;
    }

    void printClass(ReferenceType t) throws Exception {
        out("  class " + t.name() + " sig=" + t.signature() + " source=" + t.sourceName() + " modifiers="
                + t.modifiers() + " prepared=" + t.isPrepared() + " initialized=" + t.isInitialized());
        if (t instanceof ClassType) {
            ClassType c = (ClassType) t;
            out("    superclass " + c.superclass().name() + " interfaces " + c.interfaces());
        }
        for (Method m : t.methods()) {
            List<String> ls = new ArrayList<>();
            for (Location l : m.allLineLocations()) {
                ls.add(l.lineNumber() + "@" + l.codeIndex());
            }
            String args;
            try {
                args = m.arguments().toString();
            } catch (AbsentInformationException ae) {
                args = "absent";
            }
            out("    method " + m.name() + m.signature() + " mods=" + m.modifiers() + " lines=" + ls + " args=" + args);
        }
    }

    void breakpoint(BreakpointEvent b, String p) throws Exception {
        String name = (String) b.request().getProperty("name");
        ThreadReference t = b.thread();
        out("event Breakpoint " + p + " " + name + " thread=" + t.name() + " at " + where(b.location()));
        printFrames(t);
        StackFrame top = t.frame(0);
        printLocals(top);
        switch (name) {
            case "MAIN_LOCALS": {
                ObjectReference sample = (ObjectReference) top.getValue(top.visibleVariableByName("sample"));
                printFields(sample);
                printThreads("SUSPEND_ALL at MAIN_LOCALS");
                ObjectReference shape = (ObjectReference) sample.getValue(sample.referenceType().fieldByName("fShape"));
                BreakpointRequest onlyThis = vm.eventRequestManager().createBreakpointRequest(
                        lineLocation(shape.referenceType(), "CIRCLE_AREA"));
                onlyThis.addInstanceFilter(shape);
                onlyThis.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                onlyThis.putProperty("name", "CIRCLE_AREA of fShape only");
                onlyThis.enable();
                List<String> loaded = new ArrayList<>();
                for (ReferenceType rt : vm.allClasses()) {
                    if (rt.name().startsWith("Sample")) {
                        loaded.add(hidden(rt.name()) + " " + rt.signature().length());
                    }
                }
                Collections.sort(loaded);
                out("  allClasses Sample*: " + loaded);
                StringReference made = vm.mirrorOf("made by the debugger \u00e9\uD83D\uDE00");
                out("  mirrorOf string = " + show(made));
                vm.eventRequestManager().deleteEventRequest(b.request());
                break;
            }
            case "COMPUTE_START":
                vm.eventRequestManager().deleteEventRequest(b.request());
                stepPlan = new ArrayDeque<>(List.of(
                        new int[] {StepRequest.STEP_LINE, StepRequest.STEP_OVER},
                        new int[] {StepRequest.STEP_LINE, StepRequest.STEP_INTO},
                        new int[] {StepRequest.STEP_LINE, StepRequest.STEP_OUT},
                        new int[] {StepRequest.STEP_LINE, StepRequest.STEP_OVER},
                        new int[] {StepRequest.STEP_LINE, StepRequest.STEP_OVER},
                        new int[] {StepRequest.STEP_LINE, StepRequest.STEP_INTO},
                        new int[] {StepRequest.STEP_MIN, StepRequest.STEP_INTO},
                        new int[] {StepRequest.STEP_MIN, StepRequest.STEP_OVER}));
                nextStep(t);
                break;
            case "FACT_RECURSE":
                out("    n = " + show(top.getValue(top.visibleVariableByName("n"))) + " (count filter 3)");
                // Drop the frame: factorial(3) runs again from its call, with the same result.
                t.popFrames(top);
                out("    popped a frame:");
                printFrames(t);
                break;
            case "CIRCLE_AREA of fShape only":
                // The program prints the total area: the forced value shows in its output.
                t.forceEarlyReturn(vm.mirrorOf(100.0));
                out("    forced early return 100.0");
                break;
            case "WORK_LOOP worker-1 5th":
                // main is starting or joining workers: its status depends on timing, its suspension does not.
                out("    main suspended=" + mainThread.isSuspended() + " (EVENT_THREAD policy)");
                out("    worker-1 suspended=" + t.isSuspended());
                break;
            case "LATE_CTOR":
                printFields(top.thisObject());
                printThreads("SUSPEND_ALL at LATE_CTOR");
                vm.eventRequestManager().deleteEventRequest(b.request());
                break;
            default:
                break;
        }
    }

    Deque<int[]> stepPlan = new ArrayDeque<>();

    /** Start the next planned step, or return true when the plan is finished (resume normally). */
    boolean nextStep(ThreadReference t) throws Exception {
        if (stepPlan.isEmpty()) {
            return true;
        }
        int[] s = stepPlan.removeFirst();
        step(t, s[0], s[1]);
        return true;
    }
}
