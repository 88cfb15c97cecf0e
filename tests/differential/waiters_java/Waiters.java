/** Starts N daemon threads that wait on one monitor for good, prints "started", and sleeps. */
public class Waiters {
    static final Object LOCK = new Object();

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                synchronized (LOCK) {
                    try {
                        LOCK.wait();
                    } catch (InterruptedException e) {
                        // ends the thread
                    }
                }
            }, "waiter-" + i);
            t.setDaemon(true);
            t.start();
        }
        System.out.println("started");
        Thread.sleep(600_000);
    }
}
