package lib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** Every way a test ends, for `jdwpd ci --on-test-failure` (issue 31.1-2). */
class ParserTest {
    @Test
    void rejectsNull() { // an error: NullPointerException thrown in Parser, under this test
        String input = null;
        int depth = 3;
        new Parser(depth).parse(input);
    }

    @Test
    void countsInAHelper() { // a failure in a helper the test calls
        int expectedTokens = 4;
        checkTokens("a b c", expectedTokens);
    }

    private void checkTokens(String text, int expected) {
        int got = new Parser(1).parse(text);
        assertEquals(expected, got, "tokens of '" + text + "'");
    }

    @Test
    void expectedThrowIsNoFailure() {
        assertThrows(IllegalArgumentException.class, () -> new Parser(1).parse(""));
    }

    @Test
    void caughtInTheTestIsNoFailure() {
        try {
            new Parser(1).parse("");
        } catch (IllegalArgumentException e) {
            assertEquals("empty text", e.getMessage());
        }
    }

    @Test
    void anAssumptionIsNoFailure() {
        assumeTrue(false, "not on this machine");
    }

    @Test
    void passes() {
        assertEquals(6, new Parser(2).parse("x y z"));
    }
}
