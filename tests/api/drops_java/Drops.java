/** A burst of hits on one line, each with a big String to log: the in-VM logpoint's captures fill the
 * agent's queue to the daemon (32 MiB) while the daemon is stopped, and the rest are dropped. */
public class Drops {
    static volatile long sink;

    static void hit(int i, String big) {
        sink += i + big.length(); // @marker drops_hit
    }

    public static void main(String[] args) throws Exception {
        int hits = Integer.parseInt(args[0]), bigLen = Integer.parseInt(args[1]);
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < bigLen; k++) sb.append((char) ('a' + k % 26));
        String big = sb.toString();
        System.out.println("ready");
        Thread.sleep(Long.parseLong(args[2]));  // the script stops the daemon meanwhile
        for (int i = 0; i < hits; i++) hit(i, big);
        System.out.println("burst done");
        Thread.sleep(Long.parseLong(args[3]));  // the script lets the daemon go on meanwhile
    }
}
