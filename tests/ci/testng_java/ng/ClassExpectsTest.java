package ng;

import org.testng.annotations.Test;

/** {@code @Test(expectedExceptions=...)} on the class: each public method is a test that expects it. */
@Test(expectedExceptions = IllegalArgumentException.class)
public class ClassExpectsTest {
    public void refusesANegativeCountByTheClassAnnotation() { // expected by the class's annotation: no failure
        int count = -2;
        new Inventory().add("washers", count);
    }
}
