package lib4;

import static org.junit.Assert.assertEquals;

import lib.Parser;
import org.junit.Test;

/** JUnit 4 through the vintage engine: an error, a failure, and an expected exception (issue 31.1). */
public class Parser4Test {
    @Test
    public void rejectsNull() {
        String input = null;
        new Parser(2).parse(input);
    }

    @Test
    public void counts() {
        int expected = 5;
        assertEquals(expected, new Parser(1).parse("a b"));
    }

    @Test(expected = IllegalArgumentException.class)
    public void expectsTheException() {
        new Parser(1).parse("");
    }
}
