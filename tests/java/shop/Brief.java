package shop;

import java.util.Optional;

/** A short-lived debuggee: one order paid, and the VM ends at once (the API holds it at its death). */
public class Brief {
    public static void main(String[] args) {
        Checkout checkout = new Checkout();
        Order order = new Order(1, "ada");
        order.items.add(new Item("pen", 2.5, 1));
        order.note = Optional.empty();
        checkout.checkout(order, 0);
    }
}
