/** Stops of one thread at one line, again and again: locals of every kind, the stack below. */
public class Stops {
    static long sink;

    static void hit(int i, long j, double d, boolean b, char c, String s, int[] a, Object o) {
        long r = i + j; // @marker stops_hit
        sink += r + s.length() + a.length + (o == null ? 0 : 1) + (b ? 1 : 0) + c + (long) d;
    }

    static void twice(int i, int[] a) {
        hit(i, i * 10L, i / 2.0, i % 2 == 0, (char) ('a' + i), "s" + i, a, i % 3 == 0 ? null : a);
    }

    public static void main(String[] args) {
        int[] a = {1, 2};
        for (int i = 0; i < 6; i++) {
            twice(i, a);
        }
        System.out.println("done " + sink);
    }
}
