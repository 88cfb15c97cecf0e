import com.sun.jdi.*;

import java.util.*;

/** Values as both JDI clients print them: no IDs (an object is #n, in the order first seen since the last
 * forget()), hidden classes without their address (Sample$$Lambda$14/0x0000000800c03000). */
final class ValueText {
    private final Map<Long, Integer> objectNames = new HashMap<>();
    private final int defaultDepth;

    ValueText(int defaultDepth) {
        this.defaultDepth = defaultDepth;
    }

    void forget() {
        objectNames.clear();
    }

    String name(ObjectReference o) {
        Integer n = objectNames.get(o.uniqueID());
        if (n == null) {
            n = objectNames.size() + 1;
            objectNames.put(o.uniqueID(), n);
        }
        return "#" + n;
    }

    static String hidden(String typeName) {
        return typeName.replaceAll("/0x[0-9a-f]+", "/ADDR");
    }

    String show(Value v) {
        return show(v, defaultDepth);
    }

    String show(Value v, int depth) {
        if (v == null) {
            return "null";
        }
        if (v instanceof VoidValue) {
            return "void";
        }
        if (v instanceof StringReference) {
            return "\"" + ((StringReference) v).value() + "\" " + name((ObjectReference) v);
        }
        if (v instanceof CharValue) {
            return "'" + v + "'";
        }
        if (v instanceof PrimitiveValue) {
            return v.type().name() + " " + v;
        }
        if (v instanceof ArrayReference) {
            ArrayReference a = (ArrayReference) v;
            StringBuilder sb = new StringBuilder(a.type().name() + " " + name(a) + " [");
            if (depth > 0) {
                List<Value> values = a.getValues();
                for (int i = 0; i < values.size(); i++) {
                    sb.append(i == 0 ? "" : ", ").append(show(values.get(i), depth - 1));
                }
            } else {
                sb.append(a.length()).append(" elements");
            }
            return sb.append("]").toString();
        }
        if (v instanceof ThreadReference) {
            return "thread " + ((ThreadReference) v).name() + " " + name((ObjectReference) v);
        }
        if (v instanceof ThreadGroupReference) {
            return "group " + ((ThreadGroupReference) v).name() + " " + name((ObjectReference) v);
        }
        if (v instanceof ClassObjectReference) {
            return "class " + hidden(((ClassObjectReference) v).reflectedType().name()) + " " + name((ObjectReference) v);
        }
        ObjectReference o = (ObjectReference) v;
        return "instance of " + hidden(o.referenceType().name()) + " " + name(o);
    }
}
