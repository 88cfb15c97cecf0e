package shop;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

public class Order {
    final int id;
    final String customer;
    final List<Item> items = new ArrayList<>();
    final List<String> tags = List.of("web", "eu");
    double total;
    Status status = Status.NEW;
    Optional<String> note = Optional.empty();

    Order(int id, String customer) {
        this.id = id;
        this.customer = customer;
    }

    @Override
    public String toString() {
        return "Order#" + id + "(" + customer + ")";
    }
}

enum Status { NEW, PAID }

record Item(String name, double price, int quantity) { }
