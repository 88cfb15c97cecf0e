package shop;

import java.util.ArrayList;
import java.util.List;

public class Cart {
    private final List<Integer> prices = new ArrayList<>();

    public Cart add(int price) {
        prices.add(price);
        return this;
    }

    public int total() {
        int sum = 0;
        for (int i = 1; i < prices.size(); i++) { // the bug the test finds: the first price is skipped
            sum += prices.get(i);
        }
        return sum;
    }
}
