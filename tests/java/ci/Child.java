package ci;

/** One child JVM of Forker: "fine" computes, "throw" dies of an uncaught exception, "assert" lets a
 * balance go negative (an --assert probe catches it), "deadlock" never ends. */
public class Child {
    static final Object LEFT = new Object();
    static final Object RIGHT = new Object();

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        switch (mode) { // Java 11 syntax: the tests' sources compile with --release 11 (tests --jdk 11)
            case "fine": System.out.println("fine: total " + Ledger.total(new int[] {3, 4, 5})); break;
            case "throw": Orders.place(-1); break;
            case "assert": System.out.println("assert: balance " + Ledger.settle(100, new int[] {30, 50, 40})); break;
            case "deadlock": deadlock(); break;
            case "ticks": ticks(); break;
            default: throw new IllegalArgumentException(mode);
        }
    }

    static void ticks() throws InterruptedException {
        for (int round = 0; round < 6; round++) {
            System.out.println("ticks: total " + Ledger.total(new int[] {round}));
            Thread.sleep(700);
        }
    }

    static void deadlock() throws InterruptedException {
        Thread a = new Thread(() -> lockBoth(LEFT, RIGHT), "left-then-right");
        Thread b = new Thread(() -> lockBoth(RIGHT, LEFT), "right-then-left");
        a.start();
        b.start();
        a.join();
        b.join();
    }

    static void lockBoth(Object first, Object second) {
        synchronized (first) {
            pause();
            synchronized (second) {
                System.out.println("never printed");
            }
        }
    }

    static void pause() {
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
