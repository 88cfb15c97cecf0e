/** "victim" sleeps in a loop while "renamer" renames it (every 2 ms, or as fast as it can with "tight"). */
public class Spinner {
    public static void main(String[] args) throws Exception {
        boolean tight = args.length > 0 && args[0].equals("tight");
        Thread victim = new Thread(() -> {
            long spins = 0;
            while (spins >= 0) {
                spins++;
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "victim");
        victim.setDaemon(true);
        victim.start();
        Thread renamer = new Thread(() -> {
            int i = 0;
            while (true) {
                victim.setName("n" + i++);
                if (!tight) {
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "renamer");
        renamer.setDaemon(true);
        int ready = 1; // @marker SPIN_READY
        renamer.start();
        Thread.sleep(600_000L * ready);
    }
}
