/** Ticks for a while, printing each tick, then ends by itself: a program that must survive its debuggers. */
public class Ticker {
    static volatile int ticks;

    static void tick(int n) {
        ticks = n; // @marker tick
        System.out.println("tick " + n);
    }

    static int slow(int millis) throws InterruptedException {
        Thread.sleep(millis);
        return millis;
    }

    public static void main(String[] args) throws Exception {
        int count = Integer.parseInt(args[0]);
        long pause = Long.parseLong(args[1]);
        for (int i = 1; i <= count; i++) {
            tick(i);
            Thread.sleep(pause);
        }
        System.out.println("done");
    }
}
