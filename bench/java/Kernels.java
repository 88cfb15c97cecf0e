import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Throughput kernels that expose JVMTI capability costs: the same code runs under plain java, the
 * reference agent and each jdwpd profile, and prints its own time per operation, so JVM start-up
 * and the agents' attach/exit costs stay out of the number.
 *
 * Usage: java Kernels KERNEL WARMUP_MS MEASURE_MS  ->  prints "KERNEL ns_per_op=N wall_ns_per_op=W ops=M"
 * ns_per_op is the process's CPU time over the measured window (the kernel thread, GC, JIT and any
 * agent thread: everything the JVM burns): other processes on a shared machine preempt the
 * kernel, which inflates wall time at random but not CPU time.  Time-bounded on purpose: under the reference agent the exception kernel is ~200x slower, and a
 * fixed amount of work would take minutes there.
 */
public class Kernels {
    static volatile long sink;

    interface Kernel {
        long run(int n);
    }

    /** Autoboxing in a loop: slowed by can_access_local_variables / breakpoints / pop_frame. */
    static long boxing(int n) {
        long total = 0;
        for (int i = 0; i < n; i++) {
            Long boxed = Long.valueOf(i * 31L);
            total += boxed;
        }
        return total;
    }

    /** Stackless, as control-flow exceptions in parsers and frameworks are: the throw itself is cheap. */
    static final class Signal extends RuntimeException {
        Signal() {
            super(null, null, false, false);
        }
    }

    static int thrower(int i) {
        if ((i & 1) == 0) throw new Signal();
        return i;
    }

    /** Throw and catch in a hot loop: deoptimizes at every throw once exception events are possible. */
    static long throwCatch(int n) {
        long caught = 0;
        for (int i = 0; i < n; i++) {
            try {
                caught += thrower(i);
            } catch (Signal e) {
                caught++;
            }
        }
        return caught;
    }

    static final class Point {
        final int x;
        final int y;

        Point(int x, int y) {
            this.x = x;
            this.y = y;
        }
    }

    /** Small short-lived objects: tagging/object-free bookkeeping would show here. */
    static long alloc(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            Point p = new Point(i, i + 1);
            int[] a = new int[4];
            a[i & 3] = p.x;
            s += a[i & 3] + p.y;
        }
        return s;
    }

    /** A bit of everything an application does: sorting, HashMap churn, streams. */
    static long mixed(int n) {
        Random r = new Random(n);
        long s = 0;
        for (int round = 0; round < n; round++) {
            int[] xs = new int[256];
            for (int i = 0; i < xs.length; i++) xs[i] = r.nextInt();
            java.util.Arrays.sort(xs);
            Map<Integer, String> m = new HashMap<>();
            for (int i = 0; i < 64; i++) m.put(xs[i] & 1023, "v" + i);
            for (int i = 0; i < 64; i++) m.remove(xs[i + 64] & 1023);
            List<Integer> list = new ArrayList<>(m.keySet());
            s += list.stream().filter(v -> (v & 1) == 0).mapToLong(Integer::longValue).sum();
            s += xs[0];
        }
        return s;
    }

    static Kernel pick(String name) {
        switch (name) {
            case "boxing": return Kernels::boxing;
            case "throw": return Kernels::throwCatch;
            case "alloc": return Kernels::alloc;
            case "mixed": return Kernels::mixed;
            default: throw new IllegalArgumentException("unknown kernel " + name);
        }
    }

    /** Ops per call of the kernel body: big enough that the clock is read rarely, small for slow modes. */
    static int batch(String name) {
        switch (name) {
            case "mixed": return 20;
            case "throw": return 10_000;
            default: return 100_000;
        }
    }

    public static void main(String[] args) {
        String name = args[0];
        long warmupNs = Long.parseLong(args[1]) * 1_000_000L;
        long measureNs = Long.parseLong(args[2]) * 1_000_000L;
        Kernel k = pick(name);
        int n = batch(name);
        long t0 = System.nanoTime();
        while (System.nanoTime() - t0 < warmupNs) sink += k.run(n);
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long ops = 0;
        long cpuStart = os.getProcessCpuTime();
        long start = System.nanoTime();
        long now;
        do {
            sink += k.run(n);
            ops += n;
            now = System.nanoTime();
        } while (now - start < measureNs);
        long cpu = os.getProcessCpuTime() - cpuStart;
        System.out.println(name + " ns_per_op=" + ((double) cpu / ops) + " wall_ns_per_op=" + ((double) (now - start) / ops)
                + " ops=" + ops);
    }
}
