package ng;

import org.testng.Assert;
import org.testng.annotations.Test;

/** Every way a TestNG test ends, for `jdwpd ci --on-test-failure` (issue 31.1: TestNG too). */
public class InventoryTest {
    @Test
    public void countsWhatWasAdded() { // a failure: TestNG's assertion
        int restocked = 5;
        Inventory inventory = new Inventory().add("bolts", restocked);
        Assert.assertEquals(inventory.count("bolts"), restocked + 1, "bolts in stock"); // @marker ng_assert
    }

    @Test
    public void rejectsAMissingName() { // an error: a NullPointerException thrown in the library
        String name = null;
        int count = 2;
        new Inventory().add(name, count); // @marker ng_error
    }

    @Test(expectedExceptions = IllegalArgumentException.class)
    public void refusesANegativeCount() { // expected by the annotation: no failure
        new Inventory().add("nuts", -1);
    }

    @Test(expectedExceptions = IllegalArgumentException.class, expectedExceptionsMessageRegExp = "a negative count: -[0-9]+")
    public void refusesANegativeCountWithItsMessage() { // expected, its message matches: no failure
        new Inventory().add("nuts", -4);
    }

    @Test(expectedExceptions = IllegalArgumentException.class, expectedExceptionsMessageRegExp = "no such thing")
    public void refusesWithAnotherMessage() { // a failure: the message does not match the regexp
        int count = -5;
        new Inventory().add("nuts", count); // @marker ng_regexp
    }

    @Test
    public void expectThrowsIsNoFailure() {
        Assert.expectThrows(IllegalArgumentException.class, () -> new Inventory().add("nuts", -3));
    }

    @Test
    public void passes() {
        Assert.assertEquals(new Inventory().add("screws", 3).count("screws"), 3);
    }
}
