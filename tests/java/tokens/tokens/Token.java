package tokens;

/** Loaded only when the lexer makes its first token: after Main's breakpoints are set. */
public class Token {
    final String name;
    final Kind kind;
    static int made;

    Token(String name, Kind kind) {
        this.name = name;
        this.kind = kind;
        made++;
    }

    enum Kind { WORD, NUMBER, SYMBOL }
}
