/**
 * Debuggee of bench/api.py and bench/jdi_roundtrips.py.  `java Probe MODE`; every mode ends by
 * itself after 10 minutes, so a lost debugger never leaves a JVM.
 *
 *   api   a loop: hit(i) (a breakpoint hit -> resume loop), then a 5-deep call chain whose
 *         bottom holds locals of every kind, objects two levels deep, strings and arrays
 *         (the snapshot: 5 frames with locals, depth 2)
 *   idle  prints "idle", then sleeps (round trips on a running VM; JDI caches nothing then)
 */
public class Probe {
    static volatile long sink;
    static final long FOREVER_NS = 600_000_000_000L;

    static final class Address {
        String street;
        int zip;

        Address(String street, int zip) {
            this.street = street;
            this.zip = zip;
        }
    }

    static final class Customer {
        String name;
        int tier;
        Address address;

        Customer(String name, int tier, Address address) {
            this.name = name;
            this.tier = tier;
            this.address = address;
        }
    }

    static final class Item {
        String name;
        long cents;
        int quantity;

        Item(String name, long cents, int quantity) {
            this.name = name;
            this.cents = cents;
            this.quantity = quantity;
        }
    }

    static final class Order {
        long id;
        Customer customer;
        Item[] items;
        double total;
        String note;

        Order(long id, Customer customer, Item[] items, String note) {
            this.id = id;
            this.customer = customer;
            this.items = items;
            this.note = note;
        }
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "api": api(); break;
            case "idle": idle(); break;
            default: throw new IllegalArgumentException(args[0]);
        }
    }

    static boolean timeLeft(long start) {
        return System.nanoTime() - start < FOREVER_NS;
    }

    // ---- the API's hit loop and snapshot
    static void hit(int i) {
        sink = i; // @marker PROBE_HIT
    }

    static void api() {
        long start = System.nanoTime();
        Customer customer = new Customer("Ada Lovelace", 3, new Address("12 St James's Square", 1815));
        Item[] items = {new Item("tea", 450, 2), new Item("scones", 320, 6), new Item("jam", 275, 1)};
        int i = 0;
        while (timeLeft(start)) {
            hit(i);
            Order order = new Order(i, customer, items, "order #" + i);
            sink += checkout(order, i % 7);
            i++;
        }
    }

    static long checkout(Order order, int round) {
        String where = "checkout";
        long subtotal = 0;
        return price(order, subtotal, where.length() + round);
    }

    static long price(Order order, long subtotal, int step) {
        Item first = order.items[0];
        double rate = 0.2;
        return tax(order, first, rate, subtotal + step);
    }

    static long tax(Order order, Item item, double rate, long base) {
        int[] bands = {0, 1000, 5000, 20000};
        boolean exempt = order.customer.tier > 4;
        return total(order, bands, exempt ? 0 : rate, base + item.cents);
    }

    static long total(Order order, int[] bands, double rate, long base) {
        char currency = 'E';
        String label = order.note;
        Customer who = order.customer;
        long cents = base + (long) (base * rate) + currency + label.length() + who.tier; // @marker PROBE_SNAP
        order.total = cents / 100.0;
        return cents;
    }

    // ---- an idle VM: threads that sleep
    static void idle() throws Exception {
        Thread worker = new Thread(() -> {
            long start = System.nanoTime();
            while (timeLeft(start)) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "probe-worker");
        worker.setDaemon(true);
        worker.start();
        System.out.println("idle");
        System.out.flush();
        long start = System.nanoTime();
        while (timeLeft(start)) {
            Thread.sleep(50); // @marker PROBE_IDLE
        }
    }
}
