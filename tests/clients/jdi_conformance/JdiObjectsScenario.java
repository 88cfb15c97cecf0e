import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.util.*;

/** ObjectReference, StringReference, ArrayReference, ClassType, ArrayType, InterfaceType: values, invokes, errors. */
class JdiObjectsScenario {
    final JdiConformance j;
    final VirtualMachine vm;
    ThreadReference main;

    JdiObjectsScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
    }

    static void out(String s) {
        JdiConformance.out(s);
    }

    Value stat(String name) {
        return j.conf.getValue(j.conf.fieldByName(name));
    }

    void run() throws Exception {
        j.startToPrepared();
        j.runTo(j.conf, "J_READY");
        main = j.main;
        objects();
        invokes();
        collection();
        monitors();
        strings();
        arrays();
        classTypes();
        collected();
        j.toTheEnd();
    }

    ArrayReference doomed;
    ObjectReference made;

    void collected() throws Exception {
        // The static transientObject is the only reference to its int[]: once the field is cleared, a GC takes it.
        j.section("collected");
        BreakpointRequest r = vm.eventRequestManager().createBreakpointRequest(j.at(j.conf, "J_LEAF"));
        r.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        r.enable();
        vm.resume();
        BreakpointEvent b = j.await(BreakpointEvent.class);
        vm.eventRequestManager().deleteEventRequest(r);
        out("  at " + JdiConformance.where(b.location()) + " main suspended=" + main.isSuspended());
        gc();
        out("  after gc collected=" + doomed.isCollected());
        j.see("length of a collected array", doomed::length);
        j.see("getValues of a collected array", doomed::getValues);
        j.see("setValue into a collected array", () -> {
            doomed.setValue(0, vm.mirrorOf(1));
            return "set";
        });
        j.see("referenceType of a collected array", () -> doomed.referenceType().name());
        j.see("owningThread of a collected array", doomed::owningThread);
        j.see("disableCollection of a collected array", () -> {
            doomed.disableCollection();
            return "done";
        });
        j.see("invoke on a collected array", () -> doomed.invokeMethod(main, j.type("java.lang.Object")
                .methodsByName("getClass").get(0), List.of(), ObjectReference.INVOKE_SINGLE_THREADED));
        j.see("isCollected of the one made by newInstance", made::isCollected);
        j.see("a collected array as a value", () -> {
            ((ClassType) j.conf).setValue(j.conf.fieldByName("transientObject"), doomed);
            return "set";
        });
    }

    void objects() throws Exception {
        j.section("object values");
        ObjectReference derived = (ObjectReference) stat("derived");
        ReferenceType dt = derived.referenceType();
        out("  derived " + j.show(derived) + " type " + dt.name());
        Map<Field, Value> values = derived.getValues(dt.allFields());
        for (Field f : dt.allFields()) {
            out("  " + f.declaringType().name() + "." + f.name() + " = " + j.show(values.get(f)));
        }
        Field hits = dt.fieldByName("hits");
        Field ratio = dt.fieldByName("ratio");
        Field next = dt.fieldByName("next");
        Field names = dt.fieldByName("names");
        j.see("setValue hits 42", () -> {
            derived.setValue(hits, vm.mirrorOf(42));
            return derived.getValue(hits);
        });
        j.see("setValue hits a long", () -> {
            derived.setValue(hits, vm.mirrorOf(42L));
            return derived.getValue(hits);
        });
        j.see("setValue hits a string", () -> {
            derived.setValue(hits, vm.mirrorOf("no"));
            return derived.getValue(hits);
        });
        j.see("setValue ratio an int", () -> {
            derived.setValue(ratio, vm.mirrorOf(3));
            return derived.getValue(ratio);
        });
        j.see("setValue next null", () -> {
            derived.setValue(next, null);
            return derived.getValue(next);
        });
        j.see("setValue next a string", () -> {
            derived.setValue(next, vm.mirrorOf("wrong"));
            return derived.getValue(next);
        });
        j.see("setValue names (final) null", () -> {
            derived.setValue(names, null);
            return derived.getValue(names);
        });
        j.see("setValue never (type not loaded) a string", () -> {
            ((ClassType) j.conf).setValue(j.conf.fieldByName("never"), vm.mirrorOf("x"));
            return "set";
        });
        j.see("setValue never (type not loaded) null", () -> {
            ((ClassType) j.conf).setValue(j.conf.fieldByName("never"), null);
            return stat("never");
        });
        j.see("getValue of a static through the object", () -> derived.getValue(j.conf.fieldByName("flag")));
        j.see("getValue of another class's field", () -> derived.getValue(j.conf.fieldByName("flag")));
        j.see("getValue of Greeter's field", () -> derived.getValue(j.type("JdiConf").fieldByName("text")));
        out("  hashCode/equals stable " + derived.equals(stat("greeter")) + " " + derived.equals(stat("other")));
    }

    void invokes() throws Exception {
        j.section("invokes");
        ObjectReference derived = (ObjectReference) stat("derived");
        ClassType dt = (ClassType) derived.referenceType();
        ClassType bt = (ClassType) j.type("JdiConf$Base");
        Method kind = dt.concreteMethodByName("kind", "()Ljava/lang/String;");
        Method baseKind = bt.concreteMethodByName("kind", "()Ljava/lang/String;");
        Method touch = dt.concreteMethodByName("touch", "(I)I");
        Method fail = dt.concreteMethodByName("fail", "(Ljava/lang/String;)I");
        Method polite = j.type("JdiConf$Greeter").methodsByName("polite").get(0);
        int single = ObjectReference.INVOKE_SINGLE_THREADED;
        j.see("kind virtual", () -> derived.invokeMethod(main, kind, List.of(), single));
        j.see("Base.kind virtual", () -> derived.invokeMethod(main, baseKind, List.of(), single));
        j.see("Base.kind nonvirtual", () -> derived.invokeMethod(main, baseKind, List.of(),
                single | ObjectReference.INVOKE_NONVIRTUAL));
        j.see("touch 5", () -> derived.invokeMethod(main, touch, List.of(vm.mirrorOf(5)), single));
        j.see("touch 5 resuming all", () -> derived.invokeMethod(main, touch, List.of(vm.mirrorOf(5)), 0));
        j.see("touch a short", () -> derived.invokeMethod(main, touch, List.of(vm.mirrorOf((short) 2)), single));
        j.see("touch a string", () -> derived.invokeMethod(main, touch, List.of(vm.mirrorOf("x")), single));
        j.see("touch no arguments", () -> derived.invokeMethod(main, touch, List.of(), single));
        j.see("polite (default method)", () -> derived.invokeMethod(main, polite, List.of(vm.mirrorOf("you")), single));
        j.see("fail (throws)", () -> dt.invokeMethod(main, fail, List.of(vm.mirrorOf("on purpose")), single));
        j.see("fail through the object", () -> derived.invokeMethod(main, fail, List.of(vm.mirrorOf("x")), single));
        j.see("static method as instance", () -> dt.invokeMethod(main, touch, List.of(vm.mirrorOf(1)), single));
        ThreadReference holder = (ThreadReference) stat("holder");
        j.see("on a thread not suspended by an event", () -> derived.invokeMethod(holder, kind, List.of(), single));
        j.see("hashCode equal", () -> derived.invokeMethod(main, j.type("java.lang.Object").methodsByName("hashCode")
                .get(0), List.of(), single).equals(derived.invokeMethod(main, j.type("java.lang.Object")
                .methodsByName("hashCode").get(0), List.of(), single)));
        j.see("polite nonvirtual (the interface's default)", () -> derived.invokeMethod(main, polite,
                List.of(vm.mirrorOf("x")), single | ObjectReference.INVOKE_NONVIRTUAL));
        Method greet = j.type("JdiConf$Greeter").methodsByName("greet").get(0);
        j.see("greet (abstract) nonvirtual", () -> derived.invokeMethod(main, greet, List.of(vm.mirrorOf("x")),
                single | ObjectReference.INVOKE_NONVIRTUAL));
        j.see("greet (abstract) virtual", () -> derived.invokeMethod(main, greet, List.of(vm.mirrorOf("x")), single));
        j.see("a constructor as a method", () -> derived.invokeMethod(main, dt.concreteMethodByName("<init>", "()V"),
                List.of(), single));
        j.see("touch null", () -> derived.invokeMethod(main, touch, Collections.singletonList(null), single));
        StringReference csv = vm.mirrorOf("a,b,,c");
        j.see("String.split returns an array", () -> j.show(csv.invokeMethod(main, ((ClassType) csv.referenceType())
                .concreteMethodByName("split", "(Ljava/lang/String;)[Ljava/lang/String;"), List.of(vm.mirrorOf(",")),
                single), 2));
        ClassType threadClass = (ClassType) j.type("java.lang.Thread");
        j.see("Thread.sleep(5)", () -> threadClass.invokeMethod(main, threadClass.concreteMethodByName("sleep", "(J)V"),
                List.of(vm.mirrorOf(5L)), single));
        j.see("Thread.sleep(-1) throws", () -> threadClass.invokeMethod(main,
                threadClass.concreteMethodByName("sleep", "(J)V"), List.of(vm.mirrorOf(-1L)), single));
        j.see("Math.max(int, int) given (byte, char)", () -> ((ClassType) j.type("java.lang.Math")).invokeMethod(main,
                ((ClassType) j.type("java.lang.Math")).concreteMethodByName("max", "(II)I"),
                List.of(vm.mirrorOf((byte) 3), vm.mirrorOf('a')), single));
        InterfaceType greeter = (InterfaceType) j.type("JdiConf$Greeter");
        Method shout = greeter.methodsByName("shout").get(0);
        j.see("Greeter.shout (static interface method)", () -> greeter.invokeMethod(main, shout,
                List.of(vm.mirrorOf("hey")), single));
        j.see("Greeter.polite through InterfaceType", () -> greeter.invokeMethod(main, polite,
                List.of(vm.mirrorOf("x")), single));
        j.see("Greeter.shout null", () -> greeter.invokeMethod(main, shout, Collections.singletonList(null), single));
    }

    void collection() throws Exception {
        j.section("collection");
        made = ((ClassType) j.type("JdiConf$Base")).newInstance(main,
                ((ClassType) j.type("JdiConf$Base")).concreteMethodByName("<init>", "()V"), List.of(),
                ObjectReference.INVOKE_SINGLE_THREADED);
        out("  newInstance " + j.show(made) + " collected=" + made.isCollected());
        made.disableCollection();
        made.disableCollection();
        vm.instanceCounts(List.of(made.referenceType()));
        gc();
        out("  pinned twice, after gc collected=" + made.isCollected());
        made.enableCollection();
        gc();
        out("  unpinned once, after gc collected=" + made.isCollected());
        made.enableCollection();
        gc();
        out("  unpinned, after gc collected=" + made.isCollected());
        // While the whole VM is suspended both servers hold every object they named (as the reference pins
        // all on SuspendAll): the collected cases come in collected(), at a SUSPEND_EVENT_THREAD stop.
        doomed = (ArrayReference) stat("transientObject");
        ((ClassType) j.conf).setValue(j.conf.fieldByName("transientObject"), null);
        gc();
        out("  transientObject cleared, after gc collected=" + doomed.isCollected());
        ObjectReference derived = (ObjectReference) stat("derived");
        j.see("referringObjects of derived", () -> {
            List<String> found = new ArrayList<>();
            for (ObjectReference o : derived.referringObjects(0)) {
                found.add(o.referenceType().name());
            }
            return JdiConformance.sorted(found);
        });
        j.see("referringObjects at most 1", () -> derived.referringObjects(1).size());
        j.see("referringObjects -1", () -> derived.referringObjects(-1).size());
    }

    /** A full GC in the debuggee, through System.gc() (the invoke resumes nobody else). */
    void gc() throws Exception {
        ClassType system = (ClassType) j.type("java.lang.System");
        system.invokeMethod(main, system.concreteMethodByName("gc", "()V"), List.of(), ObjectReference.INVOKE_SINGLE_THREADED);
    }

    void monitors() throws Exception {
        j.section("monitors");
        for (String lock : new String[] {"mainLock", "lockA", "holderWait", "waitLock"}) {
            ObjectReference o = (ObjectReference) stat(lock);
            ThreadReference owner = o.owningThread();
            List<String> waiting = new ArrayList<>();
            for (ThreadReference t : o.waitingThreads()) {
                waiting.add(t.name());
            }
            out("  " + lock + " owner=" + (owner == null ? "none" : owner.name()) + " entryCount=" + o.entryCount()
                    + " waiting=" + JdiConformance.sorted(waiting));
        }
    }

    void strings() throws Exception {
        j.section("strings");
        StringReference text = (StringReference) stat("text");
        out("  text " + j.show(text) + " length " + text.value().length());
        String[] samples = {"", "ascii", "nul\u0000inside", "clef \uD834\uDD1E", "\u00e9\u4e2d"};
        for (String s : samples) {
            StringReference m = vm.mirrorOf(s);
            out("  mirrorOf " + j.show(m) + " same=" + m.value().equals(s));
        }
        ArrayReference strings = (ArrayReference) stat("strings");
        out("  strings " + j.show(strings));
        out("  String.length via invoke " + j.show(text.invokeMethod(main,
                j.type("java.lang.String").methodsByName("length").get(0), List.of(), ObjectReference.INVOKE_SINGLE_THREADED)));
    }

    void arrays() throws Exception {
        j.section("arrays");
        ArrayReference ints = (ArrayReference) stat("ints");
        out("  ints " + j.show(ints) + " length " + ints.length());
        j.see("getValues 1..3", () -> ints.getValues(1, 3).toString());
        j.see("getValues 0..-1", () -> ints.getValues(0, -1).size());
        j.see("getValues 5..0", () -> ints.getValues(5, 0).size());
        j.see("getValues 4..2", () -> ints.getValues(4, 2));
        j.see("getValues -1..1", () -> ints.getValues(-1, 1));
        j.see("getValue 5", () -> ints.getValue(5));
        j.see("setValue 1", () -> {
            ints.setValue(1, vm.mirrorOf(-20));
            return ints.getValues().toString();
        });
        j.see("setValues 2.. from 1", () -> {
            ints.setValues(2, List.of(vm.mirrorOf(7), vm.mirrorOf(8), vm.mirrorOf(9)), 1, 2);
            return ints.getValues().toString();
        });
        j.see("setValues too many", () -> {
            ints.setValues(List.of(vm.mirrorOf(1), vm.mirrorOf(2), vm.mirrorOf(3), vm.mirrorOf(4), vm.mirrorOf(5),
                    vm.mirrorOf(6)));
            return ints.getValues().toString();
        });
        j.see("setValue a string", () -> {
            ints.setValue(0, vm.mirrorOf("x"));
            return "set";
        });
        j.see("setValue 9", () -> {
            ints.setValue(9, vm.mirrorOf(1));
            return "set";
        });
        ArrayReference objects = (ArrayReference) stat("objects");
        out("  objects " + j.show(objects, 2));
        j.see("objects setValue a thread", () -> {
            objects.setValue(1, main);
            return j.show(objects.getValue(1));
        });
        ArrayReference strings = (ArrayReference) stat("strings");
        j.see("strings setValue an int[]", () -> {
            strings.setValue(1, ints);
            return "set";
        });
        ArrayReference matrix = (ArrayReference) stat("matrix");
        out("  matrix " + j.show(matrix, 2));
        ArrayType longs = (ArrayType) j.type("long[]");
        j.see("long[] newInstance 3", () -> longs.newInstance(3));
        j.see("long[][] newInstance 2", () -> ((ArrayType) matrix.referenceType()).newInstance(2));
        j.see("set a new row", () -> {
            ArrayReference row = longs.newInstance(1);
            row.setValue(0, vm.mirrorOf(99L));
            matrix.setValue(1, row);
            return j.show(matrix, 2);
        });
        j.see("matrix setValue an int[]", () -> {
            matrix.setValue(0, ints);
            return "set";
        });
    }

    void classTypes() throws Exception {
        j.section("class types");
        ClassType derived = (ClassType) j.type("JdiConf$Derived");
        ClassType base = (ClassType) j.type("JdiConf$Base");
        Method ctor = derived.concreteMethodByName("<init>", "()V");
        int single = ObjectReference.INVOKE_SINGLE_THREADED;
        j.see("newInstance Derived", () -> derived.newInstance(main, ctor, List.of(), single));
        j.see("newInstance with Base's constructor", () -> derived.newInstance(main,
                base.concreteMethodByName("<init>", "()V"), List.of(), single));
        j.see("newInstance with a method", () -> derived.newInstance(main,
                derived.concreteMethodByName("kind", "()Ljava/lang/String;"), List.of(), single));
        ClassType conf = (ClassType) j.conf;
        j.see("setValue letter", () -> {
            conf.setValue(conf.fieldByName("letter"), vm.mirrorOf('k'));
            return stat("letter");
        });
        j.see("setValue ratio a double", () -> {
            conf.setValue(conf.fieldByName("ratio"), vm.mirrorOf(2.0));
            return stat("ratio");
        });
        j.see("setValue text an object", () -> {
            conf.setValue(conf.fieldByName("text"), stat("derived"));
            return stat("text");
        });
        j.see("setValue greeter other", () -> {
            conf.setValue(conf.fieldByName("greeter"), stat("other"));
            return stat("greeter");
        });
        j.see("setValue of a final static", () -> {
            conf.setValue(conf.fieldByName("mainLock"), null);
            return stat("mainLock");
        });
        j.see("setValue of an instance field", () -> {
            conf.setValue(derived.fieldByName("hits"), vm.mirrorOf(1));
            return "set";
        });
        Method mid = conf.concreteMethodByName("mid", "(I)I");
        j.see("invoke mid 2 (hits no breakpoint)", () -> conf.invokeMethod(main, mid, List.of(vm.mirrorOf(2)), single));
        j.see("invoke an instance method statically", () -> conf.invokeMethod(main,
                derived.concreteMethodByName("kind", "()Ljava/lang/String;"), List.of(), single));
        j.see("superclass of Derived", () -> derived.superclass().name());
        j.see("enum constants", () -> {
            List<String> found = new ArrayList<>();
            ClassType color = (ClassType) j.type("JdiConf$Color");
            for (Field f : color.fields()) {
                if (f.isEnumConstant()) {
                    found.add(f.name() + "=" + j.show(color.getValue(f)));
                }
            }
            return found;
        });
    }
}
