/** Main stops at a breakpoint; meanwhile another thread interrupts it.  After the resume, main's sleep
 * must end at once with an InterruptedException: the interrupt belongs to the program. */
public class Interrupted {
    static volatile boolean ready;
    static volatile boolean sent;

    static void stop() {
        System.out.println("at the stop"); // @marker STOP
    }

    public static void main(String[] args) throws Exception {
        Thread main = Thread.currentThread();
        Thread other = new Thread(() -> {
            while (!ready) {
                Thread.onSpinWait();
            }
            try {
                Thread.sleep(300);  // main is at its breakpoint by now
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            main.interrupt();
            sent = true;
        }, "interrupter");
        other.start();
        ready = true;
        stop();
        long start = System.nanoTime();
        try {
            Thread.sleep(20_000);
            System.out.println("slept, never interrupted");
        } catch (InterruptedException e) {
            System.out.println("interrupted within " + ((System.nanoTime() - start) / 1_000_000_000) + " s");
        }
        other.join();
    }
}
