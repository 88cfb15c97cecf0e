import java.util.concurrent.CountDownLatch;

/**
 * onthrow= with includevirtualthreads=y (JDK 21+): a virtual thread started before the exception that
 * starts debugging and one started after it, both parked until the end; then the program throws Look,
 * where the test's debugger, stopped there by an exception request, lists the threads.
 */
public class VtTrigger {
    static class Look extends RuntimeException {
    }

    /** A virtual thread that runs (JVMTI's VirtualThreadStart comes at its first run, not at start()) and parks. */
    static Thread parked(String name, CountDownLatch end) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        Thread thread = Thread.ofVirtual().name(name).start(() -> {
            running.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        running.await();
        return thread;
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch end = new CountDownLatch(1);
        Look look = new Look();  // loaded before debugging starts: the debugger names it in its request
        Thread before = parked("vt-before", end);
        try {
            throw new IllegalStateException("trigger"); // @marker VT_TRIGGER
        } catch (IllegalStateException e) {
            System.out.println("triggered");
        }
        Thread after = parked("vt-after", end);
        try {
            throw look; // @marker VT_LOOK
        } catch (Look e) {
            System.out.println("looked");
        }
        end.countDown();
        before.join();
        after.join();
        System.out.println("done");
    }
}
