import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;

/**
 * Every event kind through EventRequestManager, with filters and suspend policies.  Events of
 * different threads interleave as the scheduler likes, so each is logged under its kind's section
 * and its thread, and printed at the end: per section, threads by name, each thread's events in
 * the order they came (an event set is one line: the events it groups and its policy).
 */
class JdiEventsScenario {
    static final String[] SECTIONS = {"class events", "thread events", "breakpoints", "steps", "exceptions",
        "method events", "instance filters", "class filters", "watchpoints", "monitor events"};
    static final Set<String> OUR_THREADS = Set.of("main", "holder", "blocked", "waiter", "jworker-0", "jworker-1",
            "jdoomed", "racer-0", "racer-1");

    final JdiConformance j;
    final VirtualMachine vm;
    final EventRequestManager erm;
    final Map<String, SortedMap<String, List<String>>> logs = new HashMap<>();
    final Deque<int[]> stepPlan = new ArrayDeque<>();
    ObjectReference derived;
    /* Deleted at J_READY: while it is enabled, the reference (JDK 17) keeps every class prepared, which
     * would keep the ConfUnloaded from unloading (jdwpd does not); it has seen the classes it is for by then. */
    ClassPrepareRequest bySource;
    ObjectReference other;

    JdiEventsScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
        this.erm = vm.eventRequestManager();
        for (String s : SECTIONS) {
            logs.put(s, new TreeMap<>());
        }
    }

    /** Events of the requests named "instance: ..." go to a section of their own (a known difference). */
    String override;

    void log(String section, ThreadReference t, String line) {
        logs.get(override != null ? override : section).computeIfAbsent(t == null ? "(no thread)" : t.name(), k -> new ArrayList<>()).add(line);
    }

    <R extends EventRequest> R named(R r, String name, int policy) {
        r.putProperty("name", name);
        r.setSuspendPolicy(policy);
        r.enable();
        return r;
    }

    static final int NONE = EventRequest.SUSPEND_NONE;
    static final int THREAD = EventRequest.SUSPEND_EVENT_THREAD;
    static final int ALL = EventRequest.SUSPEND_ALL;

    void run() throws Exception {
        j.section("run");
        VMStartEvent start = j.await(VMStartEvent.class);
        j.main = start.thread();
        JdiConformance.out("  VMStart thread " + start.thread().name());
        ClassPrepareRequest nested = erm.createClassPrepareRequest();
        nested.addClassFilter("JdiConf$*");
        nested.addClassExclusionFilter("*Lambda*");
        named(nested, "JdiConf$* but lambdas", NONE);
        ClassPrepareRequest bySource = erm.createClassPrepareRequest();
        bySource.addSourceNameFilter("JdiConf.j*");
        named(bySource, "source JdiConf.j*", THREAD);
        this.bySource = bySource;
        ClassPrepareRequest conf = erm.createClassPrepareRequest();
        conf.addClassFilter("JdiConf");
        named(conf, "JdiConf", ALL);
        ClassUnloadRequest unload = erm.createClassUnloadRequest();
        unload.addClassFilter("Conf*");
        named(unload, "unload Conf*", NONE);
        named(erm.createThreadStartRequest(), "start", ALL);
        named(erm.createThreadDeathRequest(), "death", THREAD);
        named(erm.createVMDeathRequest(), "vm death", ALL);
        vm.resume();
        loop();
        for (String s : SECTIONS) {
            j.printedSection(s);
            for (Map.Entry<String, List<String>> e : logs.get(s).entrySet()) {
                for (String line : e.getValue()) {
                    JdiConformance.out("  " + e.getKey() + ": " + line);
                }
            }
        }
        j.printedSection("end");
        JdiConformance.out("  " + ended);
    }

    String ended = "";

    void loop() throws Exception {
        while (true) {
            EventSet set = j.nextSet();
            // Outside the "instance filters" section a set is shown without the events of "instance: ..."
            // requests, so that their known difference stays in that section.
            List<String> kinds = new ArrayList<>();
            List<String> others = new ArrayList<>();
            for (Event e : set) {
                String kind = e.getClass().getSimpleName().replace("EventImpl", "");
                kinds.add(kind);
                if (!isInstanceFiltered(e)) {
                    others.add(kind);
                }
            }
            String policy = JdiConformance.policy(set.suspendPolicy());
            String fullNote = " [" + policy + (kinds.size() > 1 ? " " + kinds : "") + "]";
            String note = " [" + policy + (others.size() > 1 ? " " + others : "") + "]";
            boolean resume = true;
            for (Event e : set) {
                if (e instanceof VMDisconnectEvent) {
                    ended += "disconnected";
                    return;
                }
                resume &= handle(e, isInstanceFiltered(e) ? fullNote : note);
            }
            if (resume) {
                set.resume();
            }
        }
    }

    boolean isInstanceFiltered(Event e) {
        return e.request() != null && req(e).startsWith("instance: ");
    }

    String req(Event e) {
        return e.request() == null ? "automatic" : (String) e.request().getProperty("name");
    }

    /** Log ``e``; false when its set must stay suspended (a step was started, which resumes by itself). */
    boolean handle(Event e, String note) throws Exception {
        override = isInstanceFiltered(e) ? "instance filters"
                : e.request() != null && req(e).startsWith("class: ") ? "class filters" : null;
        if (e instanceof VMDeathEvent) {
            ended += "VMDeath " + req(e) + note + "; ";
        } else if (e instanceof ClassPrepareEvent) {
            ClassPrepareEvent cp = (ClassPrepareEvent) e;
            ReferenceType t = cp.referenceType();
            log("class events", cp.thread(), "prepare " + JdiConformance.hidden(t.name()) + " by " + req(e) + note);
            if (req(e).equals("JdiConf")) {
                prepared(t);
            }
        } else if (e instanceof ClassUnloadEvent) {
            ClassUnloadEvent cu = (ClassUnloadEvent) e;
            log("class events", null, "unload " + cu.className() + " " + cu.classSignature() + note);
        } else if (e instanceof ThreadStartEvent) {
            ThreadReference t = ((ThreadStartEvent) e).thread();
            if (OUR_THREADS.contains(t.name())) {
                log("thread events", t, "start" + note);
                started(t);
            }
        } else if (e instanceof ThreadDeathEvent) {
            ThreadReference t = ((ThreadDeathEvent) e).thread();
            if (OUR_THREADS.contains(t.name())) {
                log("thread events", t, "death" + note);
            }
        } else if (e instanceof BreakpointEvent) {
            return breakpoint((BreakpointEvent) e, note);
        } else if (e instanceof StepEvent) {
            StepEvent s = (StepEvent) e;
            log("steps", s.thread(), req(e) + " -> " + JdiConformance.where(s.location()) + note);
            erm.deleteEventRequest(e.request());
            return nextStep(s.thread());
        } else if (e instanceof ExceptionEvent) {
            ExceptionEvent x = (ExceptionEvent) e;
            log("exceptions", x.thread(), req(e) + " " + x.exception().referenceType().name() + " at "
                    + JdiConformance.where(x.location()) + " catch " + JdiConformance.where(x.catchLocation()) + note);
        } else if (e instanceof MethodEntryEvent) {
            MethodEntryEvent m = (MethodEntryEvent) e;
            log("method events", m.thread(), req(e) + " " + JdiConformance.sig(m.method()) + " at "
                    + JdiConformance.where(m.location()) + note);
        } else if (e instanceof MethodExitEvent) {
            MethodExitEvent m = (MethodExitEvent) e;
            log("method events", m.thread(), "exit " + JdiConformance.sig(m.method()) + " returns "
                    + showPlain(m.returnValue()) + " at " + JdiConformance.where(m.location()) + note);
        } else if (e instanceof ModificationWatchpointEvent) {
            ModificationWatchpointEvent w = (ModificationWatchpointEvent) e;
            log("watchpoints", w.thread(), req(e) + " " + w.field().name() + " of " + whose(w.object()) + " at "
                    + JdiConformance.where(w.location()) + " " + showPlain(w.valueCurrent()) + " -> "
                    + showPlain(w.valueToBe()) + note);
        } else if (e instanceof AccessWatchpointEvent) {
            AccessWatchpointEvent w = (AccessWatchpointEvent) e;
            log("watchpoints", w.thread(), req(e) + " " + w.field().name() + " of " + whose(w.object()) + " at "
                    + JdiConformance.where(w.location()) + " value " + showPlain(w.valueCurrent()) + note);
        } else if (e instanceof MonitorContendedEnterEvent) {
            MonitorContendedEnterEvent m = (MonitorContendedEnterEvent) e;
            log("monitor events", m.thread(), (override != null ? req(e) + " " : "") + "contended enter "
                    + lock(m.monitor()) + " at "
                    + JdiConformance.where(m.location()) + note);
        } else if (e instanceof MonitorContendedEnteredEvent) {
            MonitorContendedEnteredEvent m = (MonitorContendedEnteredEvent) e;
            log("monitor events", m.thread(), (override != null ? req(e) + " " : "") + "contended entered "
                    + lock(m.monitor()) + " at "
                    + JdiConformance.where(m.location()) + note);
        } else if (e instanceof MonitorWaitEvent) {
            MonitorWaitEvent m = (MonitorWaitEvent) e;
            log("monitor events", m.thread(), "wait " + lock(m.monitor()) + " timeout " + m.timeout() + " at "
                    + JdiConformance.where(m.location()) + note);
        } else if (e instanceof MonitorWaitedEvent) {
            MonitorWaitedEvent m = (MonitorWaitedEvent) e;
            log("monitor events", m.thread(), "waited " + lock(m.monitor()) + " timedOut " + m.timedout() + " at "
                    + JdiConformance.where(m.location()) + note);
        } else {
            log("thread events", null, "unexpected " + e.getClass().getSimpleName());
        }
        return true;
    }

    /** Values without ordinals: the logs are printed out of arrival order. */
    static String showPlain(Value v) {
        if (v == null || v instanceof PrimitiveValue || v instanceof VoidValue) {
            return String.valueOf(v);
        }
        if (v instanceof StringReference) {
            return "\"" + ((StringReference) v).value() + "\"";
        }
        return "instance of " + ((ObjectReference) v).referenceType().name();
    }

    String whose(ObjectReference o) {
        if (o == null) {
            return "static";
        }
        return o.equals(derived) ? "derived" : o.equals(other) ? "other" : "instance of " + o.referenceType().name();
    }

    String lock(ObjectReference o) {
        for (String name : new String[] {"mainLock", "lockA", "holderWait", "waitLock"}) {
            if (o.equals(j.conf.getValue(j.conf.fieldByName(name)))) {
                return name;
            }
        }
        return "instance of " + o.referenceType().name();
    }

    void prepared(ReferenceType t) throws Exception {
        j.conf = t;
        named(erm.createBreakpointRequest(j.at(t, "J_READY")), "ready", ALL);
        named(erm.createBreakpointRequest(j.at(t, "J_CALL_MID")), "call mid", THREAD);
        named(erm.createBreakpointRequest(j.at(t, "J_DIVIDE")), "divide", THREAD);
        named(erm.createBreakpointRequest(j.at(t, "J_RACE")), "race", ALL);

        BreakpointRequest second = erm.createBreakpointRequest(j.at(t, "J_WORK"));
        second.addCountFilter(2);
        named(second, "2nd J_WORK", THREAD);
        ExceptionRequest caught = erm.createExceptionRequest(j.type("java.lang.RuntimeException"), true, false);
        caught.addClassFilter("JdiConf*");
        named(caught, "caught RuntimeException in JdiConf*", THREAD);
        ExceptionRequest uncaught = erm.createExceptionRequest(null, false, true);
        named(uncaught, "uncaught", ALL);
        ExceptionRequest notJava = erm.createExceptionRequest(null, true, true);
        notJava.addClassExclusionFilter("java.*");
        notJava.addClassExclusionFilter("jdk.*");
        notJava.addClassExclusionFilter("sun.*");
        named(notJava, "any outside java.*, jdk.*, sun.*", NONE);
        ModificationWatchpointRequest flag = erm.createModificationWatchpointRequest(t.fieldByName("flag"));
        named(flag, "flag written", THREAD);
        AccessWatchpointRequest ints = erm.createAccessWatchpointRequest(t.fieldByName("ints"));
        ints.addClassFilter("JdiConf");
        named(ints, "ints read in JdiConf", NONE);
    }

    void started(ThreadReference t) throws Exception {
        switch (t.name()) {
            case "holder":
            case "waiter": {
                MonitorWaitRequest w = erm.createMonitorWaitRequest();
                w.addThreadFilter(t);
                named(w, "wait", NONE);
                MonitorWaitedRequest d = erm.createMonitorWaitedRequest();
                d.addThreadFilter(t);
                named(d, "waited", THREAD);
                break;
            }
            case "blocked": {
                MonitorContendedEnterRequest m = erm.createMonitorContendedEnterRequest();
                m.addThreadFilter(t);
                named(m, "contend", NONE);
                MonitorContendedEnteredRequest d = erm.createMonitorContendedEnteredRequest();
                d.addThreadFilter(t);
                named(d, "contended", THREAD);
                // blocked contends for lockA in derived.enterA(): which of the two is the event's instance?
                MonitorContendedEnterRequest ofDerived = erm.createMonitorContendedEnterRequest();
                ofDerived.addThreadFilter(t);
                ofDerived.addInstanceFilter((ObjectReference) j.conf.getValue(j.conf.fieldByName("derived")));
                named(ofDerived, "instance: contend, of derived", NONE);
                MonitorContendedEnteredRequest ofLockA = erm.createMonitorContendedEnteredRequest();
                ofLockA.addThreadFilter(t);
                ofLockA.addInstanceFilter((ObjectReference) j.conf.getValue(j.conf.fieldByName("lockA")));
                named(ofLockA, "instance: contended, of lockA", NONE);
                break;
            }
            case "racer-1": {
                // The racers run at once: a count is only deterministic per thread.
                BreakpointRequest b = erm.createBreakpointRequest(j.at(j.conf, "J_RACE"));
                b.addThreadFilter(t);
                b.addCountFilter(3);
                named(b, "3rd race of racer-1", THREAD);
                break;
            }
            case "jworker-1": {
                // An instance filter alone makes the reference fetch `this` at every method entry of every
                // thread (minutes of class initialization later on): the thread filter goes first.
                MethodEntryRequest onOther = erm.createMethodEntryRequest();
                onOther.addThreadFilter(t);
                onOther.addInstanceFilter(other);
                named(onOther, "instance: entry on other by jworker-1", ALL);
                BreakpointRequest b = erm.createBreakpointRequest(j.at(j.type("JdiConf$Derived"), "J_TOUCH"));
                b.addThreadFilter(t);
                b.addCountFilter(3);
                named(b, "3rd J_TOUCH of jworker-1", ALL);
                break;
            }
            default:
                break;
        }
    }

    boolean breakpoint(BreakpointEvent b, String note) throws Exception {
        String name = req(b);
        ThreadReference t = b.thread();
        log("breakpoints", t, name + " at " + JdiConformance.where(b.location()) + note);
        switch (name) {
            case "ready": {
                derived = (ObjectReference) j.conf.getValue(j.conf.fieldByName("derived"));
                other = (ObjectReference) j.conf.getValue(j.conf.fieldByName("other"));
                ReferenceType dt = derived.referenceType();
                BreakpointRequest touchOther = erm.createBreakpointRequest(j.at(dt, "J_TOUCH"));
                named(erm.createBreakpointRequest(j.at(dt, "J_FAIL")), "fail's first line", THREAD);
                ExceptionRequest anyInDerived = erm.createExceptionRequest(null, true, true);
                anyInDerived.addClassFilter(dt);
                named(anyInDerived, "any in Derived", NONE);
                touchOther.addInstanceFilter(other);
                named(touchOther, "J_TOUCH of other", THREAD);
                AccessWatchpointRequest read = erm.createAccessWatchpointRequest(dt.fieldByName("hits"));
                read.addInstanceFilter(derived);
                named(read, "derived.hits read", THREAD);
                ModificationWatchpointRequest write = erm.createModificationWatchpointRequest(dt.fieldByName("hits"));
                write.addInstanceFilter(other);
                named(write, "other.hits written", ALL);
                MethodEntryRequest entry = erm.createMethodEntryRequest();
                entry.addClassFilter("JdiConf$Derived");
                named(entry, "entry", NONE);
                MethodExitRequest exit = erm.createMethodExitRequest();
                exit.addClassFilter(dt);
                named(exit, "exit", THREAD);
                MethodEntryRequest leaf = erm.createMethodEntryRequest();
                leaf.addClassFilter("JdiConf");
                leaf.addThreadFilter(t);
                leaf.addCountFilter(4);
                named(leaf, "4th entry in JdiConf by main", NONE);
                erm.deleteEventRequest(b.request());
                erm.deleteEventRequest(bySource);
                // The debugger's own reads and writes are no field access or modification of the program's:
                // no watchpoint event may come of them (both servers read and write through JNI).
                BreakpointRequest staticOfDerived = erm.createBreakpointRequest(j.at(j.conf, "J_DIVIDE"));
                staticOfDerived.addInstanceFilter(derived);
                named(staticOfDerived, "instance: divide (static) of derived", THREAD);
                ModificationWatchpointRequest flagOfDerived = erm.createModificationWatchpointRequest(
                        j.conf.fieldByName("flag"));
                flagOfDerived.addInstanceFilter(derived);
                named(flagOfDerived, "instance: static flag of derived", THREAD);
                // ClassOnly takes the class and its subclasses (and implementors): the event's class is the
                // one of its method (or location).
                MethodEntryRequest inGreeters = erm.createMethodEntryRequest();
                inGreeters.addClassFilter(j.type("JdiConf$Greeter"));
                inGreeters.addThreadFilter(t);
                named(inGreeters, "class: entry in a Greeter by main", NONE);
                // Thrown in the JDK's own code in main from here on (class loading's ClassNotFoundException
                // among them), wherever they are caught.
                ExceptionRequest inJdk = erm.createExceptionRequest(null, true, true);
                inJdk.addThreadFilter(t);
                inJdk.addClassExclusionFilter("JdiConf*");
                named(inJdk, "thrown in the JDK by main", THREAD);
                ExceptionRequest inBases = erm.createExceptionRequest(null, true, true);
                inBases.addClassFilter(j.type("JdiConf$Base"));
                named(inBases, "class: exception in a Base", NONE);
                ModificationWatchpointRequest baseValue = erm.createModificationWatchpointRequest(
                        j.type("JdiConf$Base").fieldByName("baseValue"));
                // Not SUSPEND_NONE: JDI reads valueCurrent from the object when asked, after the event.
                named(baseValue, "class: Base.baseValue written", THREAD);
                AccessWatchpointRequest baseValueRead = erm.createAccessWatchpointRequest(
                        j.type("JdiConf$Base").fieldByName("baseValue"));
                baseValueRead.addClassFilter(j.type("JdiConf$Base"));
                named(baseValueRead, "class: Base.baseValue read in a Base", NONE);
                // Modifiers act in the order given (JDI keeps the order of the add*Filter calls): a count
                // before the thread filter counts every thread's hits, one after it only main's.
                BreakpointRequest countFirst = erm.createBreakpointRequest(j.at(dt, "J_TOUCH"));
                countFirst.addCountFilter(2);
                countFirst.addThreadFilter(t);
                named(countFirst, "2nd J_TOUCH, count before thread main", THREAD);
                BreakpointRequest threadFirst = erm.createBreakpointRequest(j.at(dt, "J_TOUCH"));
                threadFirst.addThreadFilter(t);
                threadFirst.addCountFilter(2);
                named(threadFirst, "2nd J_TOUCH, thread main before count", THREAD);
                Field hits = dt.fieldByName("hits");
                other.setValue(hits, other.getValue(hits));
                derived.setValue(hits, derived.getValue(hits));
                j.conf.getValues(j.conf.fields());
                break;
            }
            case "call mid":
                erm.deleteEventRequest(b.request());
                int[][] plan = {
                    {StepRequest.STEP_LINE, StepRequest.STEP_INTO}, {StepRequest.STEP_LINE, StepRequest.STEP_INTO},
                    {StepRequest.STEP_LINE, StepRequest.STEP_OVER}, {StepRequest.STEP_LINE, StepRequest.STEP_OUT},
                    {StepRequest.STEP_MIN, StepRequest.STEP_OVER}, {StepRequest.STEP_MIN, StepRequest.STEP_INTO},
                    {StepRequest.STEP_LINE, StepRequest.STEP_OVER}, {StepRequest.STEP_LINE, StepRequest.STEP_OVER},
                    {StepRequest.STEP_LINE, StepRequest.STEP_INTO}, {StepRequest.STEP_LINE, StepRequest.STEP_INTO},
                    {StepRequest.STEP_LINE, StepRequest.STEP_OVER}, {StepRequest.STEP_MIN, StepRequest.STEP_OUT},
                    // On to lambda.run() and into the lambda, through its hidden class (no line table).
                    {StepRequest.STEP_LINE, StepRequest.STEP_OVER}, {StepRequest.STEP_LINE, StepRequest.STEP_INTO},
                    {StepRequest.STEP_LINE, StepRequest.STEP_INTO}, {StepRequest.STEP_LINE, StepRequest.STEP_OUT}};
                stepPlan.addAll(Arrays.asList(plan));
                return nextStep(t);
            case "2nd J_WORK": {
                // Disabled and enabled again, a request counts from zero again (JDI clears and sets it anew).
                b.request().disable();
                b.request().enable();
                if (!t.name().equals("jworker-0")) {
                    break;
                }
                // Out of the worker's lambda into its hidden class's frame: a pattern has its '*' at one end
                // only, so "*$$Lambda*" excludes nothing (the step ends there, on both servers).
                StepRequest out = erm.createStepRequest(t, StepRequest.STEP_LINE, StepRequest.STEP_OUT);
                for (String pattern : new String[] {"java.*", "jdk.*", "sun.*", "*$$Lambda*"}) {
                    out.addClassExclusionFilter(pattern);
                }
                named(out, "line/out of the worker", THREAD);
                break;
            }
            default:
                break;
        }
        return true;
    }

    boolean nextStep(ThreadReference t) {
        if (stepPlan.isEmpty()) {
            return true;
        }
        int[] s = stepPlan.removeFirst();
        StepRequest r = erm.createStepRequest(t, s[0], s[1]);
        if (stepPlan.size() % 2 == 0) {
            r.addClassFilter("JdiConf*");
        } else {
            for (String pattern : new String[] {"java.*", "jdk.*", "sun.*"}) {
                r.addClassExclusionFilter(pattern);
            }
        }
        r.addCountFilter(1);
        named(r, (s[0] == StepRequest.STEP_LINE ? "line" : "min") + "/"
                + new String[] {"?", "into", "over", "out"}[s[1]], stepPlan.size() % 3 == 0 ? ALL : THREAD);
        return true;
    }
}
