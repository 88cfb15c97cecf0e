package catches.runner;

/** A framework class that catches its own probing throws (like an option parser): no test's failure. */
public class Checks {
    public static boolean isNumber(String text) {
        try {
            Long.parseLong(text);
            return true;
        } catch (NumberFormatException e) { // @marker checks_catch
            return false;
        }
    }
}
