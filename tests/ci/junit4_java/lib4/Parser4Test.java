package lib4;

import static org.junit.Assert.assertEquals;

import lib.Parser;
import org.junit.Test;

/** JUnit 4 through the vintage engine: an error, a failure, an expected exception, and the two ways
 * {@code @Test(expected=...)} fails a test: another exception, or none (issue 31.1). */
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

    @Test(expected = IllegalStateException.class)
    public void expectsAnotherException() { // fails: an IllegalArgumentException is no IllegalStateException
        String text = "";
        int depth = 3;
        new Parser(depth).parse(text);
    }

    @Test(expected = IllegalArgumentException.class)
    public void expectsAnExceptionNeverThrown() { // fails: nothing is thrown
        int tokens = new Parser(1).parse("a b");
    }
}
