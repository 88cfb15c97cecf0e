import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;

/**
 * The conformance suite's own debuggee: monitors, field writes, a class that is unloaded, threads
 * to interrupt and stop.  Deterministic phases; markers name the lines scenarios stop at.  The
 * "threads" argument adds the phase with sleeping threads (a scenario that asks for it must
 * interrupt or stop them, else it waits for their sleep to end).
 */
public class Conf {
    static final Object lock = new Object();
    static final Object waitLock = new Object();
    static int counter;
    int value = 1;
    String label = "conf";

    int bump(int by) {
        value = value + by; // @marker C_BUMP
        return value;
    }

    static int twice(int x) {
        return x * 2; // @marker C_TWICE
    }

    static int outer(int x) {
        int r = twice(x); // @marker C_OUTER
        return r + 1;
    }

    static void holding(Thread contender) {
        counter += 1; // @marker C_HOLDING
    }

    static void contend() throws InterruptedException {
        Thread contender = new Thread(() -> {
            synchronized (lock) {
                counter += 10; // @marker C_CONTENDER_GOT
            }
        }, "contender");
        synchronized (lock) {
            contender.start();
            while (contender.getState() != Thread.State.BLOCKED) {
                Thread.sleep(1);
            }
            holding(contender);
        }
        contender.join();
    }

    static void waits() throws InterruptedException {
        synchronized (waitLock) {
            waitLock.wait(5); // @marker C_WAIT
        }
    }

    static WeakReference<ClassLoader> loadUnloadable() throws Exception {
        URL here = Conf.class.getProtectionDomain().getCodeSource().getLocation();
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
        counter += 100; // @marker C_AFTER_UNLOAD
    }

    static void parked() {
        counter += 1000; // @marker C_PARKED
    }

    static void threads() throws InterruptedException {
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(20000);
            } catch (InterruptedException e) {
                System.out.println("sleeper interrupted");
            }
        }, "sleeper");
        Thread victim = new Thread(() -> {
            try {
                Thread.sleep(20000);
            } catch (InterruptedException e) {
                System.out.println("victim interrupted");
            }
        }, "victim");
        victim.setUncaughtExceptionHandler((t, e) -> System.out.println("victim stopped: " + e));
        sleeper.start();
        victim.start();
        while (sleeper.getState() != Thread.State.TIMED_WAITING || victim.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        parked();
        sleeper.join();
        victim.join();
    }

    public static void main(String[] args) throws Exception {
        ConfStrata.touch();
        Conf conf = new Conf();
        conf.bump(2); // @marker C_CALL_BUMP
        int r = outer(5); // @marker C_CALL_OUTER
        contend(); // @marker C_CALL_CONTEND
        waits(); // @marker C_CALL_WAITS
        unload(); // @marker C_CALL_UNLOAD
        if (args.length > 0 && args[0].equals("threads")) {
            threads();
        }
        System.out.println("conf done " + r + " " + counter + " " + conf.value); // @marker C_DONE
    }
}
