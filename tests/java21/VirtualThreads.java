import java.util.concurrent.locks.LockSupport;

/** Virtual threads for the debugger (tests/differential/test_virtual_threads.py; compiled with --release 21,
 *  so it lives outside tests/java, which the JDK 17 build compiles): a virtual thread parked (unmounted) for
 *  the whole session, one that runs work() to a breakpoint, and a platform thread that runs the same work(),
 *  so that PlatformThreadsOnly has something to tell apart. */
public class VirtualThreads {
    static volatile boolean release;

    static int work(int n) {
        int doubled = n * 2;
        String label = "n=" + n;
        int result = doubled + label.length(); // @marker VT_WORK
        return result; // @marker VT_WORK_NEXT
    }

    static void ready() {
        System.out.println("ready"); // @marker VT_MAIN_READY
    }

    /** "many": that many virtual threads run work() at once (the session stops each at a breakpoint). */
    static void many(int count) throws Exception {
        Thread[] threads = new Thread[count];
        for (int i = 0; i < count; i++) {
            int n = i;
            threads[i] = Thread.ofVirtual().name("vt-" + i).start(() -> work(n));
        }
        for (Thread t : threads) t.join();
        System.out.println("many done");
    }

    static volatile long spins;

    /** "spin": a virtual thread counts, mounted all along, while main stops at VT_MAIN_READY. */
    static void spin() throws Exception {
        Thread spinner = Thread.ofVirtual().name("vt-spinner").start(() -> {
            while (!release) spins++;
        });
        while (spins == 0) Thread.sleep(1);
        ready();
        release = true;
        spinner.join();
        System.out.println("done"); // @marker VT_SPIN_DONE
    }

    /** "nap": a virtual thread sleeps (it unmounts, and may come back on another carrier) between two lines. */
    static int nap() {
        int before = 1;
        try {
            Thread.sleep(20); // @marker VT_NAP
        } catch (InterruptedException e) {
            before = -1;
        }
        int after = before + 1; // @marker VT_NAP_NEXT
        return after;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("nap")) {
            Thread napper = Thread.ofVirtual().name("vt-napper").start(VirtualThreads::nap);
            napper.join();
            System.out.println("done");
            return;
        }
        if (args.length == 2 && args[0].equals("many")) {
            many(Integer.parseInt(args[1]));
            return;
        }
        if (args.length == 1 && args[0].equals("spin")) {
            spin();
            return;
        }
        Thread sleeper = Thread.ofVirtual().name("vt-sleeper").start(() -> {
            while (!release) LockSupport.park();
        });
        // Parked (and so unmounted) before the debugger looks: the same state under both servers.
        while (sleeper.getState() != Thread.State.WAITING) Thread.sleep(1);
        Thread worker = Thread.ofVirtual().name("vt-worker").unstarted(() -> work(21));
        ready();
        worker.start();
        worker.join();
        Thread platform = Thread.ofPlatform().name("pt-worker").start(() -> work(4));
        platform.join();
        release = true;
        LockSupport.unpark(sleeper);
        sleeper.join();
        System.out.println("done"); // @marker VT_DONE
    }
}
