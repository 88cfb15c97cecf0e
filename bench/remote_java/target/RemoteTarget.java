/**
 * The debuggee of the remote link's tests and bench (tests/remote, bench/remote.py): a main thread
 * that calls work() in a loop (the IDE waterfall stops there and steps over its lines), a few threads
 * that sleep, a string local built at run time (its text is in no class file: the wire test looks for
 * it in the link's bytes), `this` with fields of every kind.  Prints "tick N" every 100 ms from a
 * thread of its own, so that a test sees the JVM run on.
 */
public class RemoteTarget {
    String name = "remote-object";
    int count;
    long total;
    double ratio = 0.5;
    RemoteTarget next;
    String[] tags = {"alpha", "beta", "gamma"};
    java.util.List<String> seen = new java.util.ArrayList<>();

    public static void main(String[] args) throws Exception {
        String secret = new StringBuilder("txet-nialp-terces").reverse().toString();
        for (int t = 0; t < 3; t++) {
            Thread sleeper = new Thread(() -> {
                while (true) {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "sleeper-" + t);
            sleeper.setDaemon(true);
            sleeper.start();
        }
        Thread ticker = new Thread(() -> {
            for (int n = 0; ; n++) {
                System.out.println("tick " + n);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "ticker");
        ticker.setDaemon(true);
        ticker.start();
        RemoteTarget r = new RemoteTarget();
        r.next = new RemoteTarget();
        long limit = args.length > 0 ? Long.parseLong(args[0]) : Long.MAX_VALUE;
        for (long i = 0; i < limit; i++) {
            r.work((int) i, secret);
            Thread.sleep(1);
        }
    }

    void work(int i, String label) {
        int a = i * 2;
        String s = label + i;
        count++;
        total += a;
        name = s.substring(0, 6);
        double d = a * ratio;
        seen.add(name);
        if (seen.size() > 8) {
            seen.clear();
        }
        total += (long) d;
        count += s.length() > 100 ? 1 : 0;
        total -= 1;
        count -= 0;
        total += 1;
        name = label;
    }
}
