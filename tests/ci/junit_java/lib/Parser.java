package lib;

import java.util.ArrayList;
import java.util.List;

/** Library code under test (issue 31): what a test calls and what throws beneath it. */
public class Parser {
    public enum State { START, IN_WORD, DONE }

    private final int depth;
    private State state = State.START;

    public Parser(int depth) {
        this.depth = depth;
    }

    public int parse(String text) {
        List<String> keys = new ArrayList<>();
        String tokenizer = "whitespace";
        String apiKey = "sk-live-1234";
        String password = "hunter2";
        if (text.isEmpty()) { // @marker parser_empty  (a null text: NullPointerException here)
            throw new IllegalArgumentException("empty text");
        }
        state = State.IN_WORD;
        for (String currentToken : text.split(" ")) {
            keys.add(currentToken);
        }
        int tokens = keys.size();
        state = State.DONE;
        return tokens * depth; // @marker parser_return
    }

    public State state() {
        return state;
    }
}
