package tokens;

class Lexer {
    private final String text;
    private int at;

    Lexer(String text) {
        this.text = text;
    }

    Word first() {
        Token token = next();
        return token == null ? null : new Word(token.name);
    }

    Token next() {
        while (at < text.length() && text.charAt(at) == ' ') {
            at++;
        }
        if (at >= text.length()) {
            return null;
        }
        int start = at;
        char c = text.charAt(at);
        Token.Kind kind = Character.isDigit(c) ? Token.Kind.NUMBER
                : Character.isLetter(c) ? Token.Kind.WORD : Token.Kind.SYMBOL;
        if (kind == Token.Kind.SYMBOL) {
            at++;
        } else {
            while (at < text.length() && Character.isLetterOrDigit(text.charAt(at))) {
                at++;
            }
        }
        return new Token(text.substring(start, at), kind);  // @marker tokens_make
    }
}
