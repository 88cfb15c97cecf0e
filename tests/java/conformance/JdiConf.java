import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * The JDI conformance suite's debuggee (tests/clients/jdi_conformance): a deterministic flow whose
 * every state a JDI client inspects is held still on purpose.  At J_READY (main inside two entries
 * of mainLock) three threads are parked for good: "holder" owns lockA and waits on holderWait,
 * "blocked" wants lockA, "waiter" waits on waitLock.  Main releases them after J_READY, so a
 * scenario that does not stop there sees the same program.  Everything printed is deterministic.
 */
public class JdiConf {
    interface Greeter {
        String greet(String who);

        static String shout(String s) {
            return s.toUpperCase() + "!"; // @marker J_SHOUT
        }

        default String polite(String who) {
            return "dear " + greet(who);
        }
    }

    static class Base implements Greeter {
        protected int baseValue = 7;
        static long baseCount;

        public String greet(String who) {
            return "hello " + who;
        }

        String kind() {
            return "base";
        }
    }

    static final class Derived extends Base implements Comparable<Derived> {
        final List<String> names = new ArrayList<>();
        int hits;
        double ratio = 0.5;
        Derived next;

        @Override
        String kind() {
            return "derived";
        }

        public int compareTo(Derived other) {
            return Integer.compare(hits, other.hits);
        }

        /** Contends for lockA from an instance method: the frame's `this` is not the monitor. */
        void enterA() {
            synchronized (lockA) {
                hits += 1000; // @marker J_BLOCKED_GOT
            }
        }

        int touch(int by) {
            hits += by; // @marker J_TOUCH
            return hits;
        }

        static int fail(String why) {
            throw new IllegalStateException(why); // @marker J_FAIL
        }

        native int nowhere();
    }

    abstract static class Shape {
        abstract double area();
    }

    /** Redefined by the vm scenario: its string constant JDI-ONE becomes JDI-TWO. */
    static class Redefined {
        static String version() {
            return "JDI-ONE";
        }
    }

    enum Color { RED, GREEN }

    /** Named by a field's type, never loaded: JDI's ClassNotLoadedException. */
    static class NeverLoaded {
    }

    static final Object mainLock = new Object();
    static final Object lockA = new Object();
    static final Object holderWait = new Object();
    static final Object waitLock = new Object();
    static boolean released;

    static Derived derived = new Derived();
    static Derived other = new Derived();
    static Base base = new Base();
    static Greeter greeter = derived;
    static int[] ints = {10, 20, 30, 40, 50};
    static String[] strings = {"a", null, "c"};
    static Object[] objects = {derived, "text", ints};
    static long[][] matrix = {{1L, 2L}, {}};
    static String text = "h\u00e9llo \uD83D\uDE00";
    static Color color = Color.GREEN;
    static Object transientObject;
    static boolean flag;
    static NeverLoaded never;
    static Class<?>[] classes = {int.class, void.class, String[].class, Greeter.class, long[][].class};
    static Runnable lambda = () -> flag = !flag;
    static char letter = 'j';
    static float ratio = 1.25f;
    static Thread holder;
    static Thread blocked;
    static Thread waiter;

    static void ready(int a, String b) {
        flag = !flag; // @marker J_READY
    }

    static int leaf(int x) {
        int y = x + 1; // @marker J_LEAF
        return y;
    }

    static int mid(int x) {
        int r = leaf(x * 2); // @marker J_MID
        return r + 1;
    }

    static int guarded(int x) {
        try {
            return Derived.fail("guarded " + x); // @marker J_CALL_FAIL
        } catch (IllegalStateException e) {
            return e.getMessage().length(); // @marker J_CAUGHT
        }
    }

    static int divide(int a, int b) {
        try {
            return a / b; // @marker J_DIVIDE
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    /** A ClassNotFoundException thrown inside the JDK's class loading and caught here. */
    static boolean missing() {
        try {
            Class.forName("no.such.Missing");
            return false;
        } catch (ClassNotFoundException e) {
            return true; // @marker J_MISSING_CAUGHT
        }
    }

    static void park(Object lock, String name) {
        synchronized (lock) {
            while (!released) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    System.out.println(name + " interrupted");
                    return;
                }
            }
        }
    }

    static void startParked() throws InterruptedException {
        holder = new Thread(() -> {
            synchronized (lockA) {
                park(holderWait, "holder");
            }
        }, "holder");
        blocked = new Thread(() -> derived.enterA(), "blocked");
        waiter = new Thread(() -> park(waitLock, "waiter"), "waiter");
        waiter.setUncaughtExceptionHandler((t, e) -> System.out.println("waiter stopped: " + e));
        holder.start();
        while (holder.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
        blocked.start();
        waiter.start();
        while (blocked.getState() != Thread.State.BLOCKED || waiter.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
    }

    static void releaseParked() throws InterruptedException {
        released = true;
        for (Object lock : new Object[] {holderWait, waitLock}) {
            synchronized (lock) {
                lock.notifyAll();
            }
        }
        holder.join();
        blocked.join();
        waiter.join();
    }

    static WeakReference<ClassLoader> loadUnloadable() throws Exception {
        URL here = JdiConf.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader loader = new URLClassLoader(new URL[] {here}, null);
        Class<?> c = Class.forName("ConfUnloaded", true, loader);
        c.getDeclaredConstructor().newInstance();
        return new WeakReference<>(loader);
    }

    static void unload() throws Exception {
        WeakReference<ClassLoader> gone = loadUnloadable();
        for (int i = 0; i < 500 && gone.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        System.out.println("unloaded " + (gone.get() == null)); // @marker J_UNLOADED
    }

    static void workers() throws InterruptedException {
        Thread[] ts = new Thread[2];
        for (int i = 0; i < ts.length; i++) {
            final int slot = i;
            ts[i] = new Thread(() -> {
                Derived mine = slot == 0 ? derived : other;
                for (int k = 0; k < 3; k++) {
                    mine.touch(slot + 1); // @marker J_WORK
                }
            }, "jworker-" + i);
        }
        for (Thread t : ts) {
            t.start();
            t.join();
        }
    }

    static int raced;

    static synchronized void race(int n) {
        raced += n; // @marker J_RACE
    }

    /** Two threads hit the same breakpoints at the same time. */
    static void racers() throws InterruptedException {
        Thread[] ts = new Thread[2];
        for (int i = 0; i < ts.length; i++) {
            final int by = i + 1;
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 4; k++) {
                    race(by);
                }
            }, "racer-" + i);
        }
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }

    static void uncaught() throws InterruptedException {
        Thread doomed = new Thread(() -> {
            throw new UnsupportedOperationException("doomed"); // @marker J_UNCAUGHT
        }, "jdoomed");
        doomed.setUncaughtExceptionHandler((t, e) -> System.out.println("uncaught: " + e.getMessage()));
        doomed.start();
        doomed.join();
    }

    static volatile boolean go;
    static int virtualRuns;

    static void virtualBody() {
        virtualRuns += 1; // @marker J_VIRTUAL
    }

    /** With the "virtual" argument on JDK 21+: virtualBody() on a virtual thread (by reflection: --release 17). */
    static void virtualPhase() throws Exception {
        java.lang.reflect.Method ofVirtual;
        try {
            ofVirtual = Thread.class.getMethod("ofVirtual");
        } catch (NoSuchMethodException e) {
            System.out.println("no virtual threads");
            return;
        }
        Object builder = ofVirtual.invoke(null);
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        builderType.getMethod("name", String.class).invoke(builder, "jvirtual");
        Runnable body = JdiConf::virtualBody;
        Thread t = (Thread) builderType.getMethod("start", Runnable.class).invoke(builder, body);
        t.join();
        System.out.println("virtual runs " + virtualRuns);
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("wait")) {
            // Started without suspension: a debugger attaches to the running VM, then lets it go.
            while (!go) {
                Thread.sleep(5);
            }
        }
        ConfStrata.touch();
        if (args.length > 0 && args[0].equals("virtual")) {
            virtualPhase();
            return;
        }
        other.hits = 5;
        derived.next = other;
        derived.names.add("first");
        transientObject = new int[] {1, 2, 3};
        String before = Redefined.version();
        startParked();
        synchronized (mainLock) {
            synchronized (mainLock) {
                ready(3, "three"); // @marker J_CALL_READY
            }
        }
        releaseParked();
        int m = mid(4); // @marker J_CALL_MID
        int g = guarded(2) + divide(7, 0) + (missing() ? 1 : 0);
        lambda.run(); // @marker J_RUN_LAMBDA
        derived.touch(1);
        workers();
        derived.touch(0); // @marker J_TOUCH_AGAIN
        racers();
        uncaught();
        base.baseValue = derived.baseValue + 1;
        unload();
        System.out.println("jdi conf done " + m + " " + g + " " + derived.hits + " " + other.hits + " "
                + before + " " + Redefined.version() + " " + flag + " " + raced + " " + base.baseValue + " " + ints[1]); // @marker J_DONE
    }
}
