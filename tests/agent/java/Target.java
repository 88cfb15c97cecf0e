import java.io.BufferedReader;
import java.io.InputStreamReader;

/* Debuggee of tests/agent: commands on stdin, one per line; "@NAME" comments mark lines the tests find. */
public class Target {
    static int counter = 7;
    static String greeting = "hello";
    int value = 42;
    long big = 1L << 40;
    double ratio = 2.5;
    String name = "target";
    int[] numbers = {1, 2, 3};
    String[] words = {"a", "b"};
    CharSequence[] seqs = {};

    int add(int a, int b) {
        int sum = a + b; // @ADD_1
        return sum; // @ADD_2
    }

    static int twice(int x) {
        return x * 2; // @TWICE
    }

    static int len(CharSequence s) {
        return s.length();
    }

    static int fail(int x) {
        throw new IllegalStateException("boom " + x); // @FAIL
    }

    void run(int i) {
        int local = i * 10; // @RUN_1
        int r = add(local, 1); // @RUN_2
        r = twice(r); // @RUN_3
        counter += r; // @RUN_4
    }

    static void catcher() {
        try {
            fail(1); // @CATCH_CALL
        } catch (IllegalStateException e) { // @CATCH_CLAUSE
            counter++; // @CAUGHT
        }
    }

    public static void main(String[] args) throws Exception {
        Target t = new Target();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("ready");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String[] cmd = line.trim().split(" ");
            switch (cmd[0]) {
                case "run":
                    for (int i = 0; i < Integer.parseInt(cmd[1]); i++) t.run(i); // @RUN_LOOP
                    break;
                case "load":
                    new Late().touch(); // @LOAD
                    break;
                case "touch":
                    t.value = t.value + 1; // @TOUCH
                    break;
                case "thread": {
                    Thread child = new Thread(() -> System.out.println("child says hi"), "child");
                    child.start();
                    child.join();
                    break;
                }
                case "contend": {
                    final Object lock = new Object();
                    final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
                    Thread holder = new Thread(() -> {
                        synchronized (lock) {
                            held.countDown();
                            try { Thread.sleep(300); } catch (InterruptedException e) { }
                        }
                    }, "holder");
                    holder.start();
                    held.await();
                    synchronized (lock) { // @CONTEND
                        lock.wait(50); // @WAIT
                    }
                    holder.join();
                    break;
                }
                case "unload": {
                    // A loader of its own (no parent) defines its own Late; dropping both lets GC unload it.
                    java.net.URL here = Target.class.getProtectionDomain().getCodeSource().getLocation();
                    java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {here}, null);
                    Class<?> late = Class.forName("Late", true, loader); // prepared: unloads are of prepared classes
                    System.out.println("loaded by " + late.getClassLoader().getClass().getSimpleName());
                    loader.close();
                    loader = null;
                    late = null;
                    for (int i = 0; i < 5; i++) {
                        System.gc();
                        Thread.sleep(50);
                    }
                    break;
                }
                case "catch":
                    catcher();
                    break;
                case "spin": {
                    long end = System.currentTimeMillis() + Long.parseLong(cmd[1]);
                    while (System.currentTimeMillis() < end) Thread.onSpinWait();
                    break;
                }
                case "exit":
                    System.out.println("bye " + counter);
                    System.out.flush();
                    return;
                default:
                    break;
            }
            System.out.println("ok " + cmd[0] + " " + counter);
            System.out.flush();
        }
    }
}

class Late {
    int touched;

    void touch() {
        touched++;
    }
}
