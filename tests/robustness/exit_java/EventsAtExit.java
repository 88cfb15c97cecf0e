/** A burst of events right before main returns: short threads started and joined, then many calls of one method. */
public class EventsAtExit {
    static class Burst {
        static volatile long sink;

        static void tick(int i) {
            sink += i;
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int calls = Integer.parseInt(args[1]);
        System.out.println("started");
        Thread[] all = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            all[i] = new Thread(() -> { }, "burst-" + i);
            all[i].start();
        }
        for (Thread t : all) {
            t.join();
        }
        for (int i = 0; i < calls; i++) {
            Burst.tick(i);
        }
        // main returns at once: whatever is still queued must reach the debugger before VMDeath
    }
}
