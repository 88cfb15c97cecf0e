import com.sun.jdi.*;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;
import java.util.concurrent.Callable;

/**
 * The JDI side of the conformance suite (tests/conformance/test_jdi_conformance.py): one scenario
 * per run against tests/java/conformance/JdiConf, printing one ID-free line per observation.
 *
 * Usage: java JdiConformance HOST PORT SCENARIO CLASSDIR NAME=LINE...
 *
 * The transcript is cut into sections ("== name"); objects are "#n" in order of first appearance
 * within their section, so a difference in one section does not shift the names of the next.
 * Each section starts by creating the string "jdi-section:NAME" in the VM: a mark the recording
 * proxy (tests/conformance/jdi_record.py) sees in the packet stream, which is how the suite knows
 * which JDWP commands each section sent.  Exceptions a JDI call throws are printed by class name:
 * they are the error codes as JDI shows them.
 */
public class JdiConformance {
    static final String SECTION_MARK = "jdi-section:";

    final VirtualMachine vm;
    final String scenario;
    final String classDir;
    final Map<String, Integer> lines = new HashMap<>();
    final ValueText text = new ValueText(1);
    ThreadReference main;
    ReferenceType conf;

    JdiConformance(VirtualMachine vm, String[] args) {
        this.vm = vm;
        this.scenario = args[2];
        this.classDir = args[3];
        for (int i = 4; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            lines.put(kv[0], Integer.parseInt(kv[1]));
        }
    }

    public static void main(String[] args) throws Exception {
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
        new JdiConformance(vm, args).run();
    }

    void run() throws Exception {
        switch (scenario) {
            case "vm":
                new JdiVmScenario(this).run();
                break;
            case "types":
                new JdiTypesScenario(this).run();
                break;
            case "objects":
                new JdiObjectsScenario(this).run();
                break;
            case "threads":
                new JdiThreadsScenario(this).run();
                break;
            case "events":
                new JdiEventsScenario(this).run();
                break;
            case "nested":
                new JdiNestedScenario(this).run();
                break;
            case "attach":
                new JdiAttachScenario(this).run();
                break;
            case "virtual":
                new JdiVirtualScenario(this).run();
                break;
            default:
                throw new IllegalArgumentException("no scenario " + scenario);
        }
        out("end");
    }

    // ------------------------------------------------------------------ printing

    static void out(String s) {
        System.out.println(s);
    }

    void section(String name) {
        printedSection(name);
        vm.mirrorOf(SECTION_MARK + scenario + "." + name);
    }

    /** A section of what was observed before (after the VM is gone): no mark to send. */
    void printedSection(String name) {
        text.forget();
        out("== " + name);
    }

    int line(String marker) {
        Integer n = lines.get(marker);
        if (n == null) {
            throw new IllegalArgumentException("no marker " + marker);
        }
        return n;
    }

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

    static String where(Location loc) {
        if (loc == null) {
            return "none";
        }
        return hidden(loc.declaringType().name()) + "." + loc.method().name() + ":" + loc.lineNumber()
                + " @" + loc.codeIndex();
    }

    static String sig(Method m) {
        return m.declaringType().name() + "." + m.name() + m.signature();
    }

    static String names(Collection<? extends Mirror> mirrors) {
        List<String> out = new ArrayList<>();
        for (Mirror m : mirrors) {
            if (m instanceof TypeComponent) {
                TypeComponent c = (TypeComponent) m;
                out.add(c.name() + c.signature());
            } else if (m instanceof ReferenceType) {
                out.add(hidden(((ReferenceType) m).name()));
            } else if (m instanceof ThreadReference) {
                out.add(((ThreadReference) m).name());
            } else if (m instanceof ThreadGroupReference) {
                out.add(((ThreadGroupReference) m).name());
            } else if (m instanceof LocalVariable) {
                LocalVariable v = (LocalVariable) m;
                out.add(v.name() + ":" + v.signature() + (v.isArgument() ? " arg" : ""));
            } else if (m instanceof Location) {
                out.add(where((Location) m));
            } else {
                out.add(String.valueOf(m));
            }
        }
        return out.toString();
    }

    static List<String> sorted(List<String> in) {
        List<String> copy = new ArrayList<>(in);
        Collections.sort(copy);
        return copy;
    }

    /** One observation: "label = what the call answered", or "label !! ExceptionClass" when it threw. */
    void see(String label, Callable<Object> call) {
        String shown;
        try {
            Object r = call.call();
            shown = "= " + (r instanceof Value ? show((Value) r) : String.valueOf(r));
        } catch (InvocationException e) {
            shown = "!! InvocationException " + show(e.exception());
        } catch (VMDisconnectedException e) {
            throw e;
        } catch (Exception | LinkageError e) {
            shown = "!! " + e.getClass().getName();
        }
        out("  " + label + " " + shown);
    }

    static String hash(byte[] bytes) {
        return Integer.toHexString(Arrays.hashCode(bytes)) + "/" + bytes.length;
    }

    static String policy(int p) {
        switch (p) {
            case EventRequest.SUSPEND_ALL: return "ALL";
            case EventRequest.SUSPEND_EVENT_THREAD: return "EVENT_THREAD";
            default: return "NONE";
        }
    }

    // ------------------------------------------------------------------ getting there and away

    ReferenceType type(String name) {
        List<ReferenceType> found = vm.classesByName(name);
        if (found.size() != 1) {
            throw new IllegalStateException(found.size() + " classes named " + name);
        }
        return found.get(0);
    }

    Location at(ReferenceType type, String marker) throws AbsentInformationException {
        List<Location> found = type.locationsOfLine(line(marker));
        if (found.isEmpty()) {
            throw new IllegalStateException("no code at " + marker + " in " + type.name());
        }
        return found.get(0);
    }

    EventSet nextSet() throws InterruptedException {
        EventSet set = vm.eventQueue().remove(60_000);
        if (set == null) {
            throw new IllegalStateException("no event within 60 s");
        }
        return set;
    }

    /** The event of ``kind`` from the next set that holds one; sets before it are printed as unexpected
     * (which fails the comparison) and resumed. */
    <E extends Event> E await(Class<E> kind) throws InterruptedException {
        while (true) {
            EventSet set = nextSet();
            for (Event e : set) {
                if (kind.isInstance(e)) {
                    return kind.cast(e);
                }
            }
            out("  (unexpected event set " + set + ")");
            set.resume();
        }
    }

    /** From VMStart to JdiConf prepared (SUSPEND_ALL): sets conf and main. */
    void startToPrepared() throws Exception {
        VMStartEvent start = await(VMStartEvent.class);
        main = start.thread();
        ClassPrepareRequest r = vm.eventRequestManager().createClassPrepareRequest();
        r.addClassFilter("JdiConf");
        r.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        r.enable();
        vm.resume();
        ClassPrepareEvent prepared = await(ClassPrepareEvent.class);
        conf = prepared.referenceType();
        vm.eventRequestManager().deleteEventRequest(r);
    }

    /** Resume to a one-shot SUSPEND_ALL breakpoint at ``marker``: the event (its request deleted). */
    BreakpointEvent runTo(ReferenceType type, String marker) throws Exception {
        BreakpointRequest r = vm.eventRequestManager().createBreakpointRequest(at(type, marker));
        r.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        r.enable();
        vm.resume();
        BreakpointEvent b = await(BreakpointEvent.class);
        vm.eventRequestManager().deleteEventRequest(r);
        return b;
    }

    /** Delete every request, resume, and print the end: VMDeath, then the disconnect. */
    void toTheEnd() throws Exception {
        section("end");
        EventRequestManager erm = vm.eventRequestManager();
        erm.deleteAllBreakpoints();
        for (List<? extends EventRequest> rs : List.of(erm.stepRequests(), erm.classPrepareRequests(),
                erm.exceptionRequests(), erm.methodEntryRequests(), erm.methodExitRequests(),
                erm.accessWatchpointRequests(), erm.modificationWatchpointRequests(), erm.threadStartRequests(),
                erm.threadDeathRequests(), erm.monitorContendedEnterRequests(),
                erm.monitorContendedEnteredRequests(), erm.monitorWaitRequests(), erm.monitorWaitedRequests(),
                erm.classUnloadRequests())) {
            erm.deleteEventRequests(new ArrayList<>(rs));
        }
        vm.resume();
        while (true) {
            EventSet set = nextSet();
            for (Event e : set) {
                if (e instanceof VMDeathEvent) {
                    out("event VMDeath " + policy(set.suspendPolicy()));
                } else if (e instanceof VMDisconnectEvent) {
                    out("event VMDisconnect");
                    return;
                } else {
                    out("event (unexpected) " + e.getClass().getSimpleName());
                }
            }
            set.resume();
        }
    }
}
