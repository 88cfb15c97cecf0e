import java.util.concurrent.locks.LockSupport;

/**
 * Threads in every state a debugger shows, all in place when main reaches THREADS_IN_PLACE:
 * sleeping, waiting on a monitor, blocked entering a monitor main holds, parked, and one in a
 * thread group of its own.  Then main releases them all and the program ends by itself.
 */
public class Threads {
    static final Object held = new Object();
    static final Object waitedOn = new Object();
    static volatile boolean release = false;

    static void sleepLong() {
        try {
            Thread.sleep(600_000);
        } catch (InterruptedException e) {
            // released by main
        }
    }

    static void waitForRelease() {
        synchronized (waitedOn) {
            while (!release) {
                try {
                    waitedOn.wait();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    static void enterHeld() {
        synchronized (held) {
            held.hashCode();
        }
    }

    static void parkUntilReleased() {
        while (!release) {
            LockSupport.park();
        }
    }

    static void awaitState(Thread t, Thread.State state) throws InterruptedException {
        while (t.getState() != state) {
            Thread.sleep(1);
        }
    }

    public static void main(String[] args) throws Exception {
        ThreadGroup group = new ThreadGroup("grouped-threads");
        Thread sleeper = new Thread(Threads::sleepLong, "sleeper");
        Thread waiter = new Thread(Threads::waitForRelease, "waiter");
        Thread blocked = new Thread(Threads::enterHeld, "blocked");
        Thread parked = new Thread(Threads::parkUntilReleased, "parked");
        Thread grouped = new Thread(group, Threads::sleepLong, "grouped");
        Thread[] all = {sleeper, waiter, blocked, parked, grouped};
        synchronized (held) {
            for (Thread t : all) {
                t.start();
            }
            awaitState(sleeper, Thread.State.TIMED_WAITING);
            awaitState(waiter, Thread.State.WAITING);
            awaitState(blocked, Thread.State.BLOCKED);
            awaitState(parked, Thread.State.WAITING);
            awaitState(grouped, Thread.State.TIMED_WAITING);
            System.out.println("all in place"); // @marker THREADS_IN_PLACE
        }
        release = true;
        sleeper.interrupt();
        grouped.interrupt();
        synchronized (waitedOn) {
            waitedOn.notifyAll();
        }
        LockSupport.unpark(parked);
        for (Thread t : all) {
            t.join();
        }
        System.out.println("threads done"); // @marker THREADS_DONE
    }
}
