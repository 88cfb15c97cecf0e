package catches.lib;

/** Library code: it throws, and catches its own throws (what a test run does most). */
public class Library {
    public static int parseOr(String text, int fallback) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) { // @marker library_catch
            return fallback;
        }
    }

    public static int length(String text) {
        return text.length(); // @marker library_npe  (a null text: the JDK's helpful message names it)
    }
}
