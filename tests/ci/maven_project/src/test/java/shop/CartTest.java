package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void totalIsTheSumOfThePrices() {
        Cart cart = new Cart().add(3).add(4).add(5);
        int expected = 12;
        int actual = cart.total();
        assertEquals(expected, actual, "cart total"); // @marker junit_cart_assert
    }

    @Test
    void emptyCartIsFree() {
        assertEquals(0, new Cart().total());
    }
}
