package names;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import names.model.Node;
import names.model.Page;

/** Names as a developer writes them (issue 30): statics by simple name, imports, captured locals. */
public class Main {
    static int documentsParsed = 3;
    static final String[] NAMES = {"alpha", "beta"};
    static final Map<String, Integer> cache = new HashMap<>();
    int instanceCount = 11;

    /** A subclass of a JDK collection: a view follows the class hierarchy. */
    static class Items extends ArrayList<Object> {
    }

    public static void main(String[] args) {
        cache.put("k", 42);
        Items items = new Items();
        items.add(new Page("home"));
        items.add(new Node("leaf"));
        Object page = items.get(0);
        int checked = inStatic(items, page);  // @marker names_static
        List<String> accum = new ArrayList<>();
        accum.add("first");
        Runnable lambda = () -> {
            accum.add("from lambda " + documentsParsed);  // @marker names_lambda
        };
        lambda.run();
        Supplier<Integer> anonymous = new Supplier<Integer>() {
            @Override
            public Integer get() {
                return accum.size() + NAMES.length;  // @marker names_anonymous
            }
        };
        int total = anonymous.get() + new Main().inInstance();
        try {
            Selector.parse("");
        } catch (Selector.ParseException e) {
            total++;
        }
        System.out.println("checked " + checked + " total " + total);  // @marker names_end
    }

    static int inStatic(List<Object> items, Object page) {
        int n = items.size();  // @marker names_in_static
        return n + documentsParsed;
    }

    int inInstance() {
        Runnable inner = new Runnable() {
            @Override
            public void run() {
                instanceCount++;  // @marker names_inner
            }
        };
        inner.run();
        return instanceCount;
    }
}
