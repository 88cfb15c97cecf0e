package names;

/** A nested exception class, as parsers have one: caught by a name written with dots. */
public class Selector {
    public static class ParseException extends RuntimeException {
        public ParseException(String message) {
            super(message);
        }
    }

    static int parse(String query) {
        if (query.isEmpty()) {
            throw new ParseException("empty query");
        }
        return query.length();
    }
}
