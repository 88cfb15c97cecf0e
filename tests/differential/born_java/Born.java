/* Threads keep being started while the main thread stops at SUSPEND_ALL breakpoints, and each new
 * thread stops at one too.  A thread whose Thread.start() is under way when the VM is suspended must
 * start suspended. */
public class Born {
    static volatile boolean done;
    static volatile long spins;

    public static void main(String[] args) throws Exception {
        int stops = Integer.parseInt(args[0]);
        Thread starter = new Thread(Born::startMany, "starter");
        starter.start();
        for (int i = 0; i < stops; i++) {
            stop(i);
            pause(300_000);
        }
        done = true;
        starter.join();
        System.out.println("stopped " + stops + " times");
    }

    static void stop(int i) {
        spins += i; // @marker STOP
    }

    static void born() {
        spins++; // @marker BORN
    }

    static void startMany() {
        while (!done) {
            Thread born = new Thread(() -> { born(); pause(100_000); }, "born");
            born.start();
            try {
                born.join();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void pause(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) spins++;
    }
}
