package shop;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The scripting API's debuggee: rounds of orders paid at a checkout, until killed. */
public class Main {
    static volatile int rounds;

    public static void main(String[] args) throws Exception {
        Checkout checkout = new Checkout();
        Thread auditor = new Thread(() -> {
            while (true) {
                long seen = checkout.revenue(); // @marker shop_audit
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "auditor");
        auditor.setDaemon(true);
        auditor.start();
        int id = 0;
        for (int round = 1; ; round++) {
            rounds = round;
            List<Order> orders = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Order order = new Order(++id, i % 2 == 0 ? "ada" : "bob");
                order.items.add(new Item("pen", 2.5, i + 1));
                if (i % 2 == 1) {
                    order.items.add(new Item("lamp", 60.0 + round, 2));
                }
                order.note = i == 3 ? Optional.of("gift") : Optional.empty();
                orders.add(order);
            }
            for (int i = 0; i < orders.size(); i++) {
                checkout.checkout(orders.get(i), i);
            }
            checkout.report(round);
            final int r = round;
            Thread failing = new Thread(() -> {
                throw new IllegalStateException("round " + r + " failed"); // @marker shop_throw
            }, "failing-" + round);
            failing.setUncaughtExceptionHandler((t, e) -> { });
            failing.start();
            failing.join();
            Thread.sleep(20);
        }
    }
}
