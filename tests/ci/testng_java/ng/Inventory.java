package ng;

import java.util.HashMap;
import java.util.Map;

/** Library code under test: what a TestNG test calls, and what throws beneath it. */
public class Inventory {
    private final Map<String, Integer> stock = new HashMap<>();

    public Inventory add(String name, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("a negative count: " + count);
        }
        int letters = name.length(); // @marker inventory_name  (a null name: NullPointerException here)
        stock.merge(name, count, Integer::sum);
        return letters > 0 ? this : this;
    }

    public int count(String name) {
        return stock.getOrDefault(name, 0);
    }
}
