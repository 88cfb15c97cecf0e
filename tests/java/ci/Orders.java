package ci;

public class Orders {
    static void place(int quantity) {
        String customer = "ada";
        if (quantity <= 0) {
            throw new IllegalStateException("quantity must be positive, was " + quantity + " for " + customer);
        }
    }
}
