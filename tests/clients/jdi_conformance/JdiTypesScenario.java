import com.sun.jdi.*;
import com.sun.jdi.event.*;

import java.util.*;

/** ReferenceType, Method, Field, ClassLoaderReference and ClassObjectReference facts, with their error paths. */
class JdiTypesScenario {
    final JdiConformance j;
    final VirtualMachine vm;

    JdiTypesScenario(JdiConformance j) {
        this.j = j;
        this.vm = j.vm;
    }

    static void out(String s) {
        JdiConformance.out(s);
    }

    void run() throws Exception {
        j.startToPrepared();
        j.runTo(j.conf, "J_READY");
        for (String name : new String[] {"JdiConf", "JdiConf$Derived", "JdiConf$Base", "JdiConf$Greeter",
                "JdiConf$Color", "JdiConf$Redefined", "java.lang.String", "int[]", "long[][]", "java.lang.String[]",
                "ConfStrata"}) {
            type(j.type(name));
        }
        strata();
        lambda();
        methods(j.type("JdiConf$Derived"));
        methods(j.type("JdiConf$Greeter"));
        methods(j.type("JdiConf"));
        statics();
        loaders();
        dispose();
    }

    /** VirtualMachine.Dispose: the debuggee runs on to its end by itself, the client sees the disconnect. */
    void dispose() throws Exception {
        j.section("dispose");
        vm.eventRequestManager().createBreakpointRequest(j.at(j.conf, "J_LEAF")).enable();
        vm.dispose();
        out("  disposed");
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

    void type(ReferenceType t) throws Exception {
        j.section("type " + t.name());
        out("  signature " + t.signature() + " generic " + t.genericSignature() + " mirror "
                + t.getClass().getInterfaces()[0].getSimpleName());
        out("  modifiers " + t.modifiers() + " abstract=" + t.isAbstract() + " final=" + t.isFinal() + " static="
                + t.isStatic() + " public=" + t.isPublic() + " private=" + t.isPrivate() + " package="
                + t.isPackagePrivate());
        out("  status prepared=" + t.isPrepared() + " verified=" + t.isVerified() + " initialized="
                + t.isInitialized() + " failed=" + t.failedToInitialize());
        j.see("sourceName", t::sourceName);
        j.see("sourceNames Java", () -> t.sourceNames("Java"));
        j.see("sourcePaths", () -> t.sourcePaths(null));
        j.see("sourceDebugExtension", t::sourceDebugExtension);
        out("  strata " + t.availableStrata() + " default " + t.defaultStratum());
        j.see("majorVersion", t::majorVersion);
        j.see("minorVersion", t::minorVersion);
        j.see("constantPoolCount", t::constantPoolCount);
        j.see("constantPool", () -> JdiConformance.hash(t.constantPool()));
        out("  fields " + JdiConformance.names(t.fields()));
        out("  allFields " + JdiConformance.names(t.allFields()));
        out("  visibleFields " + JdiConformance.names(t.visibleFields()));
        out("  methods " + JdiConformance.names(t.methods()));
        out("  allMethods " + JdiConformance.sorted(names(t.allMethods())));
        out("  visibleMethods " + JdiConformance.sorted(names(t.visibleMethods())));
        out("  nestedTypes " + JdiConformance.sorted(names(t.nestedTypes())));
        out("  classObject " + j.show(t.classObject()) + " reflects " + t.classObject().reflectedType().name());
        out("  classLoader " + j.show(t.classLoader()) + " module " + t.module().name());
        j.see("allLineLocations", () -> t.allLineLocations().size());
        j.see("locationsOfLine J_LEAF", () -> JdiConformance.names(t.locationsOfLine(j.line("J_LEAF"))));
        // What the JDK itself allocated differs from one JVM to the next: only the debuggee's own are listed.
        j.see("instances", () -> {
            if (!t.name().startsWith("JdiConf")) {
                return "some=" + !t.instances(1).isEmpty();
            }
            List<String> found = new ArrayList<>();
            for (ObjectReference o : t.instances(0)) {
                found.add(o.referenceType().name());
            }
            return JdiConformance.sorted(found).toString();
        });
        if (t instanceof ClassType) {
            ClassType c = (ClassType) t;
            out("  superclass " + (c.superclass() == null ? "none" : c.superclass().name()) + " interfaces "
                    + JdiConformance.names(c.interfaces()) + " allInterfaces "
                    + JdiConformance.sorted(names(c.allInterfaces())) + " enum=" + c.isEnum());
            out("  subclasses " + JdiConformance.sorted(names(c.subclasses())));
        } else if (t instanceof InterfaceType) {
            InterfaceType i = (InterfaceType) t;
            out("  superinterfaces " + JdiConformance.names(i.superinterfaces()) + " subinterfaces "
                    + JdiConformance.names(i.subinterfaces()) + " implementors "
                    + JdiConformance.sorted(names(i.implementors())));
        } else if (t instanceof ArrayType) {
            ArrayType a = (ArrayType) t;
            out("  component " + a.componentSignature() + " " + a.componentTypeName());
            j.see("componentType", () -> a.componentType().name());
        }
    }

    /** ConfStrata carries a SMAP: its stratum Foo maps Foo.foo lines 1-5 to Java lines 6-10. */
    void strata() throws Exception {
        j.section("strata");
        ReferenceType t = j.type("ConfStrata");
        out("  strata " + t.availableStrata() + " default " + t.defaultStratum());
        j.see("sourceDebugExtension", () -> t.sourceDebugExtension().replace("\n", "|"));
        for (String stratum : new String[] {"Java", "Foo", "Nope"}) {
            j.see("sourceNames " + stratum, () -> t.sourceNames(stratum));
            j.see("sourcePaths " + stratum, () -> t.sourcePaths(stratum));
            j.see("allLineLocations " + stratum, () -> {
                List<String> found = new ArrayList<>();
                for (Location l : t.allLineLocations(stratum, null)) {
                    found.add(l.method().name() + " " + l.sourceName(stratum) + ":" + l.lineNumber(stratum) + " @"
                            + l.codeIndex());
                }
                return found;
            });
            j.see("locationsOfLine 1 " + stratum, () -> JdiConformance.names(t.locationsOfLine(stratum, null, 1)));
        }
        j.see("setDefaultStratum Foo", () -> {
            vm.setDefaultStratum("Foo");
            return vm.getDefaultStratum() + " " + t.defaultStratum();
        });
        Location touch = t.methodsByName("touch").get(0).location();
        j.see("a location in the default stratum", () -> touch.sourceName() + ":" + touch.lineNumber());
        j.see("back to Java", () -> {
            vm.setDefaultStratum(null);
            return touch.sourceName() + ":" + touch.lineNumber();
        });
    }

    static List<String> names(List<? extends Mirror> mirrors) {
        List<String> out = new ArrayList<>();
        for (Mirror m : mirrors) {
            if (m instanceof Method) {
                out.add(JdiConformance.sig((Method) m));
            } else {
                out.add(JdiConformance.hidden(((ReferenceType) m).name()));
            }
        }
        return out;
    }

    void lambda() throws Exception {
        ObjectReference lambda = (ObjectReference) j.conf.getValue(j.conf.fieldByName("lambda"));
        ReferenceType t = lambda.referenceType();
        j.section("lambda class");
        out("  name " + JdiConformance.hidden(t.name()) + " modifiers " + t.modifiers());
        j.see("sourceName", t::sourceName);
        j.see("allLineLocations", t::allLineLocations);
        for (Method m : t.methods()) {
            j.see("variables of " + m.name(), m::variables);
            j.see("arguments of " + m.name(), m::arguments);
            j.see("lineLocations of " + m.name(), m::allLineLocations);
            j.see("bytecodes of " + m.name(), () -> JdiConformance.hash(m.bytecodes()));
        }
    }

    void methods(ReferenceType t) throws Exception {
        j.section("methods of " + t.name());
        for (Method m : t.methods()) {
            out("  method " + m.name() + m.signature() + " generic " + m.genericSignature() + " modifiers "
                    + m.modifiers() + " native=" + m.isNative() + " abstract=" + m.isAbstract() + " synthetic="
                    + m.isSynthetic() + " bridge=" + m.isBridge() + " varargs=" + m.isVarArgs() + " ctor="
                    + m.isConstructor() + " clinit=" + m.isStaticInitializer() + " default=" + m.isDefault());
            out("    returnTypeName " + m.returnTypeName() + " argumentTypeNames " + m.argumentTypeNames());
            j.see("returnType", () -> m.returnType().name());
            j.see("argumentTypes", () -> JdiConformance.names(m.argumentTypes()));
            j.see("arguments", () -> JdiConformance.names(m.arguments()));
            j.see("variables", () -> JdiConformance.names(m.variables()));
            j.see("variablesByName x", () -> JdiConformance.names(m.variablesByName("x")));
            j.see("bytecodes", () -> JdiConformance.hash(m.bytecodes()));
            j.see("obsolete", m::isObsolete);
            j.see("location", () -> JdiConformance.where(m.location()));
            j.see("allLineLocations", () -> JdiConformance.names(m.allLineLocations()));
            j.see("locationOfCodeIndex 3", () -> JdiConformance.where(m.locationOfCodeIndex(3)));
            j.see("locationOfCodeIndex 100000", () -> JdiConformance.where(m.locationOfCodeIndex(100000)));
            j.see("locationsOfLine J_TOUCH", () -> JdiConformance.names(m.locationsOfLine(j.line("J_TOUCH"))));
        }
        j.see("methodsByName touch (I)I", () -> names(t.methodsByName("touch", "(I)I")));
        j.see("fieldByName hits", () -> t.fieldByName("hits"));
        j.see("fieldByName nothing", () -> t.fieldByName("nothing"));
        for (Field f : t.fields()) {
            out("  field " + f.name() + " " + f.signature() + " generic " + f.genericSignature() + " modifiers "
                    + f.modifiers() + " synthetic=" + f.isSynthetic() + " enumConstant=" + f.isEnumConstant());
            j.see("type of " + f.name(), () -> f.type().name());
        }
    }

    void statics() throws Exception {
        j.section("static values");
        List<Field> statics = new ArrayList<>();
        for (Field f : j.conf.fields()) {
            if (f.isStatic()) {
                statics.add(f);
            }
        }
        Map<Field, Value> values = j.conf.getValues(statics);
        for (Field f : statics) {
            out("  " + f.name() + " = " + j.show(values.get(f)));
        }
        Field instanceField = j.type("JdiConf$Derived").fieldByName("hits");
        j.see("getValue of an instance field", () -> j.conf.getValue(instanceField));
        j.see("getValue of another class's static", () -> j.conf.getValue(j.type("JdiConf$Base").fieldByName("baseCount")));
        j.see("getValue of an inherited static", () -> j.type("JdiConf$Derived").getValue(
                j.type("JdiConf$Base").fieldByName("baseCount")));
        ArrayReference classes = (ArrayReference) j.conf.getValue(j.conf.fieldByName("classes"));
        List<Value> classValues = classes.getValues();
        for (int i = 0; i < classValues.size(); i++) {
            ClassObjectReference c = (ClassObjectReference) classValues.get(i);
            j.see("classes[" + i + "] reflects", () -> {
                ReferenceType reflected = c.reflectedType();
                return reflected == null ? "reflects null" : reflected.name() + " " + reflected.signature();
            });
        }
        ClassObjectReference co = j.conf.classObject();
        out("  classObject " + j.show(co) + " type " + co.referenceType().name() + " reflected " + co.reflectedType().name());
    }

    void loaders() throws Exception {
        j.section("class loaders");
        ClassLoaderReference app = j.conf.classLoader();
        out("  loader " + j.show(app) + " type " + app.referenceType().name());
        List<String> visible = new ArrayList<>();
        int count = 0;
        for (ReferenceType t : app.visibleClasses()) {
            count++;
            if (t.name().startsWith("JdiConf") || t.name().equals("java.lang.Object") || t.name().equals("int[]")) {
                visible.add(JdiConformance.hidden(t.name()));
            }
        }
        // Not the count: the reference agent loads classes for itself (docs/conformance.md, deliberate differences).
        out("  visibleClasses more than 40 " + (count > 40) + ", including " + JdiConformance.sorted(visible));
        List<String> defined = new ArrayList<>();
        for (ReferenceType t : app.definedClasses()) {
            defined.add(JdiConformance.hidden(t.name()));
        }
        out("  definedClasses " + JdiConformance.sorted(defined));
        ClassLoaderReference platform = app.referenceType().classLoader();
        out("  the loader's loader " + j.show(platform));
    }
}
