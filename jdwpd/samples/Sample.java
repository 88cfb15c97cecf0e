import java.util.ArrayList;
import java.util.List;

/** The program `jdwpd demo` debugs: a little order book with a bit of everything to look at. */
public class Sample {
    static final String SHOP = "Café Ünïcode ☕";
    static int ordersTaken;

    static final class Item { // not a record: the sample runs on every JDK jdwpd supports, 11 included
        final String name;
        final int cents;

        Item(String name, int cents) {
            this.name = name;
            this.cents = cents;
        }

        int cents() {
            return cents;
        }
    }

    static final class Order {
        final int number;
        final List<Item> items = new ArrayList<>();
        boolean paid;

        Order(int number) {
            this.number = number;
        }

        int total() {
            int sum = 0;
            for (Item item : items) {
                sum += item.cents();
            }
            return sum;
        }
    }

    static Order take(int number, String... names) {
        Order order = new Order(number);
        for (String name : names) {
            order.items.add(new Item(name, 250 + 10 * name.length()));
        }
        ordersTaken++;
        return order;
    }

    static long checksum(int[] values) {
        long acc = 17;
        for (int v : values) {
            acc = acc * 31 + v;
        }
        return acc;
    }

    public static void main(String[] args) {
        Order first = take(1, "espresso", "croissant");
        Order second = take(2, "latte");
        int[] totals = {first.total(), second.total()};
        double average = (totals[0] + totals[1]) / 2.0;
        long sum = checksum(totals);
        char grade = average > 500 ? 'A' : 'B';
        boolean busy = ordersTaken > 1;
        String summary = SHOP + ": " + ordersTaken + " orders"; // @marker demo-break
        System.out.println(summary + ", average " + average + ", checksum " + sum + ", grade " + grade
                + (busy ? ", busy" : ""));
    }
}
