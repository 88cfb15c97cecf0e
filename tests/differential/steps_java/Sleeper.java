/** A thread that spends its life in Thread.sleep (a native frame on top): steps start there. */
public class Sleeper {
    static volatile int ticks;

    static void nap() throws InterruptedException {
        while (true) {
            Thread.sleep(200); // @marker SL_SLEEP
            ticks++; // @marker SL_TICK
        }
    }

    public static void main(String[] args) throws Exception {
        Thread sleeper = new Thread(() -> {
            try {
                nap();
            } catch (InterruptedException e) {
                return;
            }
        }, "sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        Thread.sleep(Long.parseLong(args[0]));
        System.out.println("ticks " + ticks);
    }
}
