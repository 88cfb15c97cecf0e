package lib4;

import lib.Parser;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.ExpectedException;

/** JUnit 4's {@code ExpectedException} rule (issue 31.1): it catches what the test throws and
 * judges it after the test's frame is gone.  Two tests it passes, and the three ways it fails one:
 * another exception, none, and an error in a test that expects nothing. */
public class Rule4Test {
    @Rule
    public ExpectedException thrown = ExpectedException.none();

    @Test
    public void expectsTheException() {
        thrown.expect(IllegalArgumentException.class);
        thrown.expectMessage("empty");
        new Parser(1).parse("");
    }

    @Test
    public void expectsNothingAndThrowsNothing() {
        new Parser(1).parse("a");
    }

    @Test
    public void expectsAnotherException() { // fails: an IllegalArgumentException is no IllegalStateException
        thrown.expect(IllegalStateException.class);
        String text = "";
        new Parser(2).parse(text);
    }

    @Test
    public void expectsAnExceptionNeverThrown() { // fails: nothing is thrown
        thrown.expect(IllegalArgumentException.class);
        int tokens = new Parser(1).parse("a b");
    }

    @Test
    public void rejectsNull() { // fails: the rule expects nothing, so the NullPointerException is the test's error
        String input = null;
        int depth = 4;
        new Parser(depth).parse(input);
    }
}
