/** Compiled with -g:none by the test: no lines, no variables, no source file. */
public class NoLines {
    static int twice(int x) {
        int y = x * 2;
        return y;
    }

    static int run(int i) {
        int a = twice(i);
        int b = StepsThrough.lined(a);
        try {
            StepsThrough.raise(0);
        } catch (IllegalStateException e) {
            a++;
        }
        return a + b;
    }
}
