import java.util.concurrent.CountDownLatch;

/**
 * Threads a debugger was shown end and are dropped: they must be collected as without a debugger.
 *
 * main starts CHURN threads that wait, stops at LISTED (the debugger lists them), lets them end,
 * keeps one ended thread (kept) and drops the others, runs GCs and stops at COLLECTED.
 */
public class Churn {
    static final int CHURN = 15;
    static Thread kept;

    public static void main(String[] args) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Thread[] threads = new Thread[CHURN];
        for (int i = 0; i < CHURN; i++) {
            threads[i] = new Thread(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "churn-" + i);
            threads[i].start();
        }
        listed();
        release.countDown();
        for (Thread t : threads) t.join();
        kept = threads[0];
        threads = null;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        collected();
        System.out.println("churn done");
    }

    static void listed() {
        int here = 0; // @marker LISTED
    }

    static void collected() {
        int here = 0; // @marker COLLECTED
    }
}
