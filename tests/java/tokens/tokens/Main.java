package tokens;

import java.util.ArrayList;
import java.util.List;

/** A small lexer over real text, for requests naming types that are not loaded yet (issue 30). */
public class Main {
    static long scanned;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        long total = 0;
        for (int round = 0; round < rounds; round++) {
            Lexer lexer = new Lexer("let answer = 42 + width * (height - 1);");
            List<Token> tokens = new ArrayList<>();
            Token token = lexer.first();  // a Word: the verifier loads Word and Token, prepares neither
            while (token != null) {
                tokens.add(token);
                total += token.name.length();  // @marker tokens_loop
                token = lexer.next();
            }
            System.out.println("round " + round + ": " + tokens.size() + " tokens");  // @marker tokens_round
        }
        System.out.println("hot: " + Hot.spin(args.length > 1 ? Long.parseLong(args[1]) : 1000));
        System.out.println("total " + total);  // @marker tokens_end
    }
}
