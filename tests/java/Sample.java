import java.util.ArrayList;
import java.util.List;

/**
 * The main debuggee: a deterministic flow that ends by itself (exit code 0).
 *
 * Tests find lines by the marker comments, never by number: keep each marker
 * on the line it names.  Everything printed to stdout is deterministic; worker
 * threads compute but never print, so output order does not depend on timing.
 */
public class Sample {
    // Statics of every primitive type, and strings that stress modified UTF-8.
    static boolean sBoolean = true;
    static byte sByte = (byte) -7;
    static char sChar = '\u00e9';
    static short sShort = (short) -32768;
    static int sInt = 2147483647;
    static long sLong = -9223372036854775808L;
    static float sFloat = 3.25f;
    static double sDouble = -0.125;
    static String sAscii = "hello";
    static String sUnicode = "h\u00e9llo w\u00f6rld \u2713";
    static String sSupplementary = "clef \uD834\uDD1E smile \uD83D\uDE00";
    static String sEmpty = "";
    static String sNull = null;

    static int[] sInts = {1, 2, 3, -4};
    static long[] sLongs = {10000000000L, -1L};
    static double[] sDoubles = {0.5, -1.75};
    static float[] sFloats = {1.5f};
    static boolean[] sBooleans = {true, false, true};
    static char[] sChars = {'a', '\u00df', '\u4e2d'};
    static byte[] sBytes = {0, 127, -128};
    static short[] sShorts = {300, -300};
    static String[] sStrings = {"alpha", null, "gamma"};
    static Object[] sObjects = {Integer.valueOf(5), "str", null, new int[] {9}};
    static int[][] sMatrix = {{1, 2}, {3}, {}};
    static int[] sEmptyInts = new int[0];

    interface Shape {
        double area();

        String name();
    }

    static class Circle implements Shape {
        final double radius;

        Circle(double radius) {
            this.radius = radius;
        }

        public double area() {
            return 3.0 * radius * radius; // @marker CIRCLE_AREA
        }

        public String name() {
            return "circle";
        }
    }

    static class Square implements Shape {
        final double side;

        Square(double side) {
            this.side = side;
        }

        public double area() {
            return side * side;
        }

        public String name() {
            return "square";
        }
    }

    /** An inner (non-static) class: it holds this$0. */
    class Inner {
        int innerValue = 11;

        int outerSum() {
            return innerValue + fInt; // @marker INNER_SUM
        }
    }

    // Instance fields of every primitive type, an object graph and nulls.
    boolean fBoolean = false;
    byte fByte = 42;
    char fChar = 'x';
    short fShort = -1234;
    int fInt = 123456;
    long fLong = 9876543210L;
    float fFloat = 1.5f;
    double fDouble = 2.25;
    String fString = "instance";
    Object fNull = null;
    Shape fShape = new Circle(2.0);
    List<String> fList = new ArrayList<>();

    static int factorial(int n) {
        if (n <= 1) {
            return 1; // @marker FACT_BASE
        }
        return n * factorial(n - 1); // @marker FACT_RECURSE
    }

    int compute(int x) {
        int doubled = x * 2; // @marker COMPUTE_START
        int total = doubled + fInt; // @marker COMPUTE_TOTAL
        return total; // @marker COMPUTE_RETURN
    }

    static double totalArea(Shape[] shapes) {
        double sum = 0;
        for (Shape shape : shapes) {
            sum += shape.area(); // @marker TOTAL_AREA_LOOP
        }
        return sum;
    }

    static void thrower(int depth) {
        if (depth == 0) {
            throw new IllegalStateException("boom"); // @marker THROW
        }
        thrower(depth - 1);
    }

    static int catcher() {
        try {
            thrower(2); // @marker CALL_THROWER
        } catch (IllegalStateException e) { // @marker CATCH_CLAUSE
            return e.getMessage().length(); // @marker CAUGHT
        }
        return -1;
    }

    static int workers() throws InterruptedException {
        final int[] results = new int[3];
        Thread[] threads = new Thread[results.length];
        for (int i = 0; i < threads.length; i++) {
            final int slot = i;
            threads[i] = new Thread(() -> results[slot] = work(slot), "worker-" + i);
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        return results[0] + results[1] + results[2]; // @marker WORKERS_JOINED
    }

    static int work(int slot) {
        int acc = 0;
        for (int i = 0; i <= slot * 10; i++) {
            acc += i; // @marker WORK_LOOP
        }
        return acc;
    }

    static void uncaughtInThread() throws InterruptedException {
        Thread doomed = new Thread(() -> {
            throw new UnsupportedOperationException("uncaught in thread"); // @marker UNCAUGHT_THROW
        }, "doomed");
        // The default handler would print a stack trace with line numbers to
        // stderr; a quiet handler keeps the output stable.
        doomed.setUncaughtExceptionHandler((t, e) -> System.out.println("uncaught: " + e.getMessage()));
        doomed.start();
        doomed.join();
    }

    static Object lateLoad() throws Exception {
        Class<?> late = Class.forName("LateLoaded"); // @marker LATE_LOAD
        return late.getDeclaredConstructor().newInstance();
    }

    public static void main(String[] args) throws Exception {
        Sample sample = new Sample();
        boolean lBoolean = true;
        byte lByte = (byte) 0x7f;
        char lChar = 'q';
        short lShort = (short) 512;
        int lInt = -99;
        long lLong = 1L << 40;
        float lFloat = -2.5f;
        double lDouble = 1e-3;
        String lString = "local \u00e7a \uD83D\uDE80";
        int[] lInts = sInts;
        Object lNull = null;
        System.out.println("start " + lBoolean + lByte + lChar + lShort + lInt + lLong + lFloat + lDouble); // @marker MAIN_LOCALS
        int fact = factorial(5); // @marker CALL_FACTORIAL
        int computed = sample.compute(fact); // @marker CALL_COMPUTE
        Sample.Inner inner = sample.new Inner();
        int innerSum = inner.outerSum(); // @marker CALL_INNER
        double area = totalArea(new Shape[] {sample.fShape, new Square(3.0)}); // @marker CALL_AREA
        int caught = catcher(); // @marker CALL_CATCHER
        int worked = workers(); // @marker CALL_WORKERS
        uncaughtInThread(); // @marker CALL_UNCAUGHT
        Object late = lateLoad(); // @marker CALL_LATE
        sample.fList.add(lString);
        System.out.println("results " + fact + " " + computed + " " + innerSum + " " + area + " " + caught + " "
                + worked + " " + late + " " + lInts.length + " " + (lNull == null)); // @marker MAIN_RESULTS
        System.out.println("done"); // @marker MAIN_END
    }
}
