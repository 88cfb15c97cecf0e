/** Strings whose bytes differ between the JVM's modified UTF-8 and JDWP's standard UTF-8. */
public class Strings {
    static String nul = "a\0b";
    static String emoji = "smile \uD83D\uDE00 done";
    static String lone = "high \uD800 low \uDC00 end";
    static String mixed = "\0\uD83D\uDE00\uD800x";

    public static void main(String[] args) throws Exception {
        Thread.sleep(60_000);
    }
}
