package lib;

/** A hot line: `java lib.Hot N` parses N texts; each ends at parser_return (issue 31.4-5). */
public class Hot {
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        long total = 0;
        for (int i = 0; i < n; i++) {
            String text = (i % 7 == 0) ? "a b c" : "a b";
            total += new Parser(i % 5).parse(text); // @marker hot_call
        }
        System.out.println("hot: total " + total);
    }
}
