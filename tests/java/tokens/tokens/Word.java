package tokens;

/** A token known to be a word: the verifier checks it is a Token, so both load before either is prepared. */
class Word extends Token {
    Word(String name) {
        super(name, Kind.WORD);
    }
}
