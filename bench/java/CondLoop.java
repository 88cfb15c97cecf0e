/* A hot loop with a breakpoint in it (bench/conditions.py): its condition is false at every hit
 * (or true, for the logpoint runs).  Prints the loop's cost per iteration. */
public class CondLoop {
    static int limit = -1;  // a static the field-only condition reads

    static int work(int i) {
        int x = i * 7; // @marker COND_BP
        return x ^ (x >>> 3);
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        long sum = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) sum += work(i);
        long t1 = System.nanoTime();
        System.out.println("NS_PER_ITER " + (t1 - t0) / (double) n + " sum " + sum);
    }
}
