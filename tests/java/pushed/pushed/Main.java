package pushed;

/** A method stopped at again and again: its later stops come with their stack and locals pushed. */
public class Main {
    static long total;

    static int twice(int x) {
        return 2 * x;
    }

    static long step(int i, long l, double d, boolean z, char c, String s) {
        long acc = i + l; // @marker pushed_step
        total += acc;
        return acc;
    }

    static void outer(int i) {
        step(i, i * 10L, i / 2.0, i % 2 == 0, (char) ('a' + i % 26), "s" + i);
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            outer(i);
        }
        System.out.println("total " + total);
    }
}
