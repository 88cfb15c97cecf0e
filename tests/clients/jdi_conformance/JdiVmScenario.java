import com.sun.jdi.*;
import com.sun.jdi.event.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

/** VirtualMachine as an IDE sees it: facts, capabilities, classes, threads, suspension, mirrors, redefinition. */
class JdiVmScenario {
    final JdiConformance j;
    final VirtualMachine vm;

    JdiVmScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
    }

    static void out(String s) {
        JdiConformance.out(s);
    }

    void run() throws Exception {
        j.startToPrepared();
        j.section("facts");
        out("  name " + vm.name());
        out("  version " + vm.version());
        out("  description " + vm.description().replace("\n", " | "));
        capabilities();
        j.runTo(j.conf, "J_READY");
        classes();
        threads();
        suspension();
        mirrors();
        instanceCounts();
        redefinition();
        modules();
        paths();
        disposeObjects();
        exit();
    }

    /**
     * JDI disposes of the IDs of mirrors it dropped (VirtualMachine.DisposeObjects, in batches of 50 or
     * more) when its soft references to them are cleared: the client runs with
     * -XX:SoftRefLRUPolicyMSPerMB=0 (jdi_harness.CLIENT_JVM_ARGS), so a GC here clears them.
     */
    void disposeObjects() throws Exception {
        j.section("dispose objects");
        for (int i = 0; i < 60; i++) {
            vm.mirrorOf("dropped " + i);
        }
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        j.see("a string made after the drop", () -> vm.mirrorOf("after the drop"));
        j.see("the dropped strings made again", () -> {
            List<String> again = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                again.add(vm.mirrorOf("dropped " + i).value());
            }
            return again;
        });
    }

    void paths() {
        j.section("class paths");
        PathSearchingVirtualMachine paths = (PathSearchingVirtualMachine) vm;
        out("  classPath is the debuggee's " + paths.classPath().equals(List.of(j.classDir)) + " bootClassPath "
                + paths.bootClassPath() + " baseDirectory is absolute " + paths.baseDirectory().startsWith("/"));
    }

    /** VirtualMachine.Exit: the debuggee ends with code 7 (the test expects it), the client sees the end. */
    void exit() throws Exception {
        j.section("exit");
        vm.exit(7);
        while (true) {
            EventSet set = j.nextSet();
            for (Event e : set) {
                out("  event " + e.getClass().getSimpleName().replace("EventImpl", ""));
                if (e instanceof VMDisconnectEvent) {
                    return;
                }
            }
        }
    }

    void capabilities() {
        j.section("capabilities");
        out("  watchFieldModification=" + vm.canWatchFieldModification() + " watchFieldAccess="
                + vm.canWatchFieldAccess() + " bytecodes=" + vm.canGetBytecodes() + " syntheticAttribute="
                + vm.canGetSyntheticAttribute() + " ownedMonitorInfo=" + vm.canGetOwnedMonitorInfo()
                + " currentContendedMonitor=" + vm.canGetCurrentContendedMonitor() + " monitorInfo="
                + vm.canGetMonitorInfo());
        out("  redefine=" + vm.canRedefineClasses() + " addMethod=" + vm.canAddMethod() + " unrestricted="
                + vm.canUnrestrictedlyRedefineClasses() + " popFrames=" + vm.canPopFrames()
                + " beMod=" + vm.canBeModified() + " instanceFilters=" + vm.canUseInstanceFilters()
                + " sourceDebugExtension=" + vm.canGetSourceDebugExtension() + " vmDeath="
                + vm.canRequestVMDeathEvent() + " returnValues=" + vm.canGetMethodReturnValues());
        out("  instanceInfo=" + vm.canGetInstanceInfo() + " monitorEvents=" + vm.canRequestMonitorEvents()
                + " monitorFrameInfo=" + vm.canGetMonitorFrameInfo() + " sourceNameFilters="
                + vm.canUseSourceNameFilters() + " constantPool=" + vm.canGetConstantPool()
                + " forceEarlyReturn=" + vm.canForceEarlyReturn() + " classFileVersion="
                + vm.canGetClassFileVersion() + " modules=" + vm.canGetModuleInfo());
    }

    void classes() throws Exception {
        j.section("classes");
        List<String> app = new ArrayList<>();
        int all = 0;
        for (ReferenceType t : vm.allClasses()) {
            all++;
            if (t.name().startsWith("JdiConf")) {
                app.add(JdiConformance.hidden(t.name()) + " " + t.getClass().getSimpleName());
            }
        }
        out("  allClasses app " + JdiConformance.sorted(app) + " more than 300: " + (all > 300));
        for (String name : new String[] {"JdiConf", "JdiConf$Derived", "java.lang.String", "int[]",
                "JdiConf$Derived[]", "java.lang.Object[]", "no.such.Type", "JdiConf$Shape", "ConfUnloaded"}) {
            List<String> found = new ArrayList<>();
            for (ReferenceType t : vm.classesByName(name)) {
                found.add(t.name() + " loader=" + (t.classLoader() == null ? "boot" : t.classLoader().referenceType().name()));
            }
            out("  classesByName " + name + " " + found);
        }
        j.see("setDefaultStratum Java", () -> {
            vm.setDefaultStratum("Java");
            return vm.getDefaultStratum();
        });
        j.see("setDefaultStratum null", () -> {
            vm.setDefaultStratum(null);
            return vm.getDefaultStratum();
        });
    }

    void threads() {
        j.section("threads");
        List<String> names = new ArrayList<>();
        for (ThreadReference t : vm.allThreads()) {
            String group = t.threadGroup() == null ? "none" : t.threadGroup().name();
            if (group.equals("main")) {
                names.add(t.name() + " " + t.status() + " suspended=" + t.isSuspended());
            }
        }
        out("  allThreads of group main " + JdiConformance.sorted(names));
        List<String> all = new ArrayList<>();
        for (ThreadReference t : vm.allThreads()) {
            all.add(t.name());
        }
        out("  allThreads " + JdiConformance.sorted(all));
        for (ThreadGroupReference g : vm.topLevelThreadGroups()) {
            out("  top group " + g.name() + " parent=" + g.parent() + " subgroups "
                    + JdiConformance.names(g.threadGroups()));
            List<String> threads = new ArrayList<>();
            for (ThreadReference t : g.threads()) {
                threads.add(t.name());
            }
            out("    its threads " + JdiConformance.sorted(threads));
            for (ThreadGroupReference sub : g.threadGroups()) {
                out("    sub " + sub.name() + " parent=" + sub.parent().name() + " groups="
                        + sub.threadGroups().size() + " " + j.show(sub));
                if (sub.name().equals("main")) {
                    List<String> mine = new ArrayList<>();
                    for (ThreadReference t : sub.threads()) {
                        mine.add(t.name());
                    }
                    out("    main's threads " + JdiConformance.sorted(mine));
                    j.see("suspend group main", () -> {
                        sub.suspend();
                        return j.main.suspendCount();
                    });
                    j.see("resume group main", () -> {
                        sub.resume();
                        return j.main.suspendCount();
                    });
                }
            }
        }
    }

    void suspension() {
        j.section("suspension");
        ThreadReference holder = ((ThreadReference) j.conf.getValue(j.conf.fieldByName("holder")));
        out("  at the breakpoint main=" + j.main.suspendCount() + " holder=" + holder.suspendCount());
        vm.suspend();
        out("  vm.suspend main=" + j.main.suspendCount() + " holder=" + holder.suspendCount());
        holder.suspend();
        out("  holder.suspend holder=" + holder.suspendCount() + " isSuspended=" + holder.isSuspended());
        vm.resume();
        out("  vm.resume main=" + j.main.suspendCount() + " holder=" + holder.suspendCount());
        holder.resume();
        holder.resume();
        out("  holder.resume x2 holder=" + holder.suspendCount() + " status=" + holder.status());
        holder.suspend();
        out("  holder.suspend again holder=" + holder.suspendCount() + " atBreakpoint=" + holder.isAtBreakpoint()
                + " main atBreakpoint=" + j.main.isAtBreakpoint());
    }

    void mirrors() {
        j.section("mirrors");
        List<Value> values = List.of(vm.mirrorOf(true), vm.mirrorOf((byte) -3), vm.mirrorOf('\u00e9'),
                vm.mirrorOf((short) 300), vm.mirrorOf(-7), vm.mirrorOf(1L << 40), vm.mirrorOf(2.5f),
                vm.mirrorOf(-0.25), vm.mirrorOf("m\u00e9 \uD83D\uDE00 \u0000 end"), vm.mirrorOfVoid());
        for (Value v : values) {
            out("  mirrorOf " + j.show(v) + " type " + v.type().signature());
        }
        StringReference s = vm.mirrorOf("kept");
        out("  string " + j.show(s) + " collected=" + s.isCollected() + " type=" + s.referenceType().name());
        j.see("mirrorOf null", () -> vm.mirrorOf((String) null));
    }

    void instanceCounts() {
        j.section("instanceCounts");
        List<ReferenceType> types = new ArrayList<>();
        for (String name : new String[] {"JdiConf$Derived", "JdiConf$Base", "JdiConf$Color", "JdiConf$Shape",
                "JdiConf", "java.lang.Thread"}) {
            types.addAll(vm.classesByName(name));
        }
        long[] counts = vm.instanceCounts(types);
        for (int i = 0; i < counts.length; i++) {
            String c = types.get(i).name().equals("java.lang.Thread") ? (counts[i] > 0 ? ">0" : "0")
                    : String.valueOf(counts[i]);
            out("  " + types.get(i).name() + " " + c);
        }
        j.see("instanceCounts of nothing", () -> vm.instanceCounts(List.of()).length);
    }

    void redefinition() throws Exception {
        j.section("redefinition");
        ReferenceType redefined = j.type("JdiConf$Redefined");
        ClassType type = (ClassType) redefined;
        Method version = type.methodsByName("version").get(0);
        j.see("version before", () -> type.invokeMethod(j.main, version, List.of(), ClassType.INVOKE_SINGLE_THREADED));
        byte[] bytes = Files.readAllBytes(Paths.get(j.classDir, "JdiConf$Redefined.class"));
        byte[] changed = replace(bytes, "JDI-ONE", "JDI-TWO");
        out("  class file " + JdiConformance.hash(bytes) + " changed " + JdiConformance.hash(changed));
        j.see("redefineClasses", () -> {
            vm.redefineClasses(Map.of(redefined, changed));
            return "done";
        });
        Method after = type.methodsByName("version").get(0);
        out("  old method obsolete=" + version.isObsolete() + " new method obsolete=" + after.isObsolete());
        j.see("version after", () -> type.invokeMethod(j.main, after, List.of(), ClassType.INVOKE_SINGLE_THREADED));
        j.see("redefine with garbage", () -> {
            vm.redefineClasses(Map.of(redefined, new byte[] {1, 2, 3}));
            return "done";
        });
        j.see("redefine with another class's bytes", () -> {
            vm.redefineClasses(Map.of(redefined, Files.readAllBytes(Paths.get(j.classDir, "JdiConf$Base.class"))));
            return "done";
        });
        byte[] shape = Files.readAllBytes(Paths.get(j.classDir, "JdiConf$Derived.class"));
        j.see("redefine Derived unchanged", () -> {
            vm.redefineClasses(Map.of(j.type("JdiConf$Derived"), shape));
            return "done";
        });
    }

    static byte[] replace(byte[] in, String from, String to) {
        byte[] a = from.getBytes(StandardCharsets.UTF_8);
        byte[] b = to.getBytes(StandardCharsets.UTF_8);
        byte[] outBytes = in.clone();
        for (int i = 0; i + a.length <= outBytes.length; i++) {
            if (Arrays.equals(Arrays.copyOfRange(outBytes, i, i + a.length), a)) {
                System.arraycopy(b, 0, outBytes, i, b.length);
                return outBytes;
            }
        }
        throw new IllegalStateException(from + " not in the class file");
    }

    void modules() {
        j.section("modules");
        List<String> names = new ArrayList<>();
        for (ModuleReference m : vm.allModules()) {
            names.add(m.name() == null ? "(unnamed)" : m.name());
        }
        Collections.sort(names);
        out("  allModules " + names.size() + " include java.base " + names.contains("java.base")
                + " jdk.jdwp.agent " + names.contains("jdk.jdwp.agent") + " unnamed " + names.contains("(unnamed)"));
        ModuleReference mine = j.conf.module();
        out("  JdiConf's module " + mine.name() + " loader " + j.show(mine.classLoader()));
        ModuleReference base = j.type("java.lang.String").module();
        out("  String's module " + base.name() + " loader " + base.classLoader());
    }
}
