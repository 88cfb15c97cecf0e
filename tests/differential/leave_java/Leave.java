/**
 * A debugger leaves while something it started is under way: the program must end as it would have.
 *
 * Workers count while main stops at STOP (the debugger's breakpoint); the debugger invokes
 * slow(ms) on main (main sleeps there) and leaves meanwhile.  Once main is back from its stop it
 * waits for the workers, which end only if nothing holds them.  Args: none.
 */
public class Leave {
    static final int WORKERS = 3;
    static final int ROUNDS = 40;
    static final int[] counts = new int[WORKERS];
    static volatile boolean go;

    public static void main(String[] args) throws Exception {
        Thread[] workers = new Thread[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            final int n = i;
            workers[i] = new Thread(() -> work(n), "worker-" + i);
            workers[i].start();
        }
        stop();
        go = true;
        for (Thread w : workers) w.join();
        int total = 0;
        for (int c : counts) total += c;
        System.out.println("workers counted " + total);
        System.out.println("main done");
    }

    static void work(int n) {
        for (int k = 0; k < ROUNDS; k++) {
            counts[n]++;
            pause(20);
        }
        // A second lap after main's stop: a thread still held by the debugger never gets here.
        while (!go) pause(5);
        for (int k = 0; k < ROUNDS; k++) {
            counts[n]++;
            pause(5);
        }
    }

    static void stop() {
        int here = 0; // @marker STOP
    }

    static int slow(int ms) {
        pause(ms);
        return ms;
    }

    static void pause(int ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
