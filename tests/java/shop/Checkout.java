package shop;

import java.util.LinkedHashMap;
import java.util.Map;

public class Checkout {
    private final Map<Integer, Order> paid = new LinkedHashMap<>();
    private long revenue;
    static int instances;

    Checkout() {
        instances++;
    }

    double total(Order order) {
        double sum = 0;
        for (Item item : order.items) {
            sum += item.price() * item.quantity(); // @marker shop_sum
        }
        return sum;
    }

    void checkout(Order order, int i) {
        order.total = total(order);

        if (order.total > 0) { // @marker shop_checkout
            pay(order, (long) order.total);
        }
        order.status = Status.PAID; // @marker shop_after_pay
    }

    void pay(Order order, long amount) {
        revenue += amount; // @marker shop_pay
        paid.put(order.id, order);
    }

    long revenue() {
        return revenue;
    }

    String report(int round) {
        String summary = "round " + round + ": " + paid.size() + " paid"; // @marker shop_report
        return summary;
    }
}
