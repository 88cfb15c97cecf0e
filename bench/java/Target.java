/**
 * Debuggee of the debugger-driven benchmarks.  `java Target MODE [N]`; every mode ends by itself
 * (a loop that would run forever stops after 10 minutes), so a lost debugger never leaves a JVM.
 * Lines the benchmarks find are marked with `// @marker NAME`.
 */
public class Target {
    static volatile long sink;
    static final long FOREVER_NS = 600_000_000_000L;

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        switch (mode) {
            case "hits": hits(); break;
            case "steps": steps(); break;
            case "over": over(); break;
            case "jdk": jdk(); break;
            case "deep": deepLoop(); break;
            case "classes": classes(Integer.parseInt(args[1])); break;
            case "filter": filter(Long.parseLong(args[1])); break;
            case "entry": entry(Long.parseLong(args[1])); break;
            default: throw new IllegalArgumentException(mode);
        }
    }

    static boolean timeLeft(long start) {
        return System.nanoTime() - start < FOREVER_NS;
    }

    // ---- breakpoint hits and round trips
    static void hits() {
        long start = System.nanoTime();
        int i = 0;
        while (timeLeft(start)) hit(i++);
    }

    static void hit(int i) {
        sink = i; // @marker HIT
    }

    // ---- single steps through plain code (no calls), step MIN and LINE
    static void steps() {
        long start = System.nanoTime();
        int i = 0;
        while (timeLeft(start)) {
            int a = i; // @marker STEP_START
            a = a * 3 + 1;
            a = a ^ (a >>> 7);
            a = a + i;
            sink = a;
            i++;
        }
    }

    // ---- step over a line whose call executes about a million bytecodes
    static long heavy(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += i ^ (s >>> 3);
        return s;
    }

    static void over() {
        long start = System.nanoTime();
        while (timeLeft(start)) {
            sink = heavy(100_000); // @marker HEAVY_CALL
            sink++; // @marker AFTER_HEAVY
        }
    }

    // ---- step into a line that calls into the JDK, with java.* and jdk.* excluded
    static void jdk() {
        long start = System.nanoTime();
        java.util.List<String> words = new java.util.ArrayList<>();
        int i = 0;
        while (timeLeft(start)) {
            words.add(String.format("w%05d", i % 1000)); words.sort(null); // @marker JDK_CALL
            if (words.size() > 50) words.clear(); // @marker AFTER_JDK
            i++;
        }
    }

    // ---- a 50-deep stack with locals of every kind
    static void deep(int depth, long big, double ratio, String text, int[] numbers) {
        int level = depth * 2;
        Object self = text;
        boolean odd = (depth & 1) == 1;
        char letter = (char) ('a' + depth % 26);
        if (depth > 1) {
            deep(depth - 1, big + level, ratio * 1.5, text, numbers);
        } else {
            sink = level + letter + (odd ? 1 : 0) + self.hashCode(); // @marker DEEP_BOTTOM
        }
    }

    static void deepLoop() {
        long start = System.nanoTime();
        int[] numbers = {1, 2, 3};
        while (timeLeft(start)) deep(50, 1L << 40, 2.5, "deep", numbers);
    }

    // ---- many classes loaded (generated sources G0..Gn-1), then idle for the debugger
    static void classes(int n) throws Exception {
        for (int i = 0; i < n; i++) Class.forName("G" + i).getMethod("m0", int.class).invoke(null, i);
        long start = System.nanoTime();
        System.out.println("loaded " + n);
        System.out.flush();
        while (timeLeft(start)) {
            Thread.sleep(50); // @marker CLASSES_IDLE
        }
    }

    // ---- filtered requests: a hot loop measured in-process while rare hits happen
    static void target(long i) {
        sink += i; // @marker FILTER_TARGET
    }

    static void filter(long n) throws Exception {
        Thread rare = new Thread(() -> {
            long start = System.nanoTime();
            while (timeLeft(start)) {
                target(-1);
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "rare");
        rare.setDaemon(true);
        rare.start();
        ready(); // the debugger sets its requests here
        long t0 = System.nanoTime();
        for (long i = 0; i < n; i++) target(i);
        System.out.println("elapsed_ns=" + (System.nanoTime() - t0));
    }

    static void ready() {
        sink++; // @marker READY
    }

    static final class Hot {
        static void f(long i) {
            sink += i;
        }
    }

    static final class Rare {
        static void g(long i) {
            sink -= i;
        }
    }

    static void entry(long n) {
        ready();
        long t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            if (i % 100 == 0) Rare.g(i);
            else Hot.f(i);
        }
        System.out.println("elapsed_ns=" + (System.nanoTime() - t0));
    }
}
