import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * The debuggee of onthrow=/onuncaught=: it says "ready" and waits for a line on stdin (a test probes the
 * debugger port meanwhile), throws a subclass of IllegalStateException (which must not start debugging),
 * then throws and catches IllegalStateException twice (the first throw starts it).  With the argument
 * "uncaught" it ends with an uncaught exception; with "hold" it waits for a second line before ending.
 * A ticker thread counts every 10 ms meanwhile: how far it got after the throw tells whether the other
 * threads were stopped at the throw, and whether it counts again after it whether they run again.
 */
public class Trigger {
    static volatile int ticks;
    static int ticksAtThrow = -1;

    static class Subclass extends IllegalStateException {
    }

    static int work(int n) {
        try {
            if (n > 2) {
                IllegalStateException thrown = new IllegalStateException("trigger " + n);
                if (ticksAtThrow < 0) ticksAtThrow = ticks;  // made first: its first string concatenation is slow
                throw thrown; // @marker OT_THROW
            }
        } catch (IllegalStateException e) {
            return -n; // @marker OT_CAUGHT
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        Thread ticker = new Thread(() -> {
            while (true) {
                ticks++;
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "ticker");
        ticker.setDaemon(true);
        ticker.start();
        System.out.println("ready");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        try {
            throw new Subclass();
        } catch (IllegalStateException e) {
            System.out.println("subclass caught");
        }
        int sum = 0;
        for (int i = 0; i < 5; i++) sum += work(i);
        System.out.println("after " + sum);
        int before = ticks;  // the other threads run again once debugging has let the program go
        for (long end = System.nanoTime() + 10_000_000_000L; ticks == before && System.nanoTime() < end; )
            Thread.sleep(10);
        System.out.println(ticks != before ? "ticker runs" : "ticker stopped");
        System.out.flush();
        if (args.length > 0 && args[0].equals("hold")) {
            new BufferedReader(new InputStreamReader(System.in)).readLine();  // a debugger attaches meanwhile
            System.out.println("released");
        }
        if (args.length > 0 && args[0].equals("uncaught")) {
            ticksAtThrow = ticks;
            throw new UnsupportedOperationException("uncaught"); // @marker OT_UNCAUGHT
        }
    }
}
