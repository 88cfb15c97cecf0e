/* Two threads pass the same line over and over: a SUSPEND_ALL breakpoint there stops them in turn. */
public class TwoStops {
    static volatile boolean done;
    static volatile long hits;

    public static void main(String[] args) throws Exception {
        Thread one = new Thread(TwoStops::loop, "one");
        Thread two = new Thread(TwoStops::loop, "two");
        one.start();
        two.start();
        one.join();
        two.join();
        System.out.println("done");
    }

    static void loop() {
        while (!done) {
            hit();
        }
    }

    static void hit() {
        hits++; // @marker HIT
    }
}
