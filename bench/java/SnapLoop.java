import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/* A snapshot point five frames deep (bench/snapshots.py): each call's time is the thread's pause
 * when a debugger captures there; prints the median and 90th percentile in microseconds. */
public class SnapLoop {
    static class Item {
        String name;
        int qty;
        Item(String name, int qty) { this.name = name; this.qty = qty; }
    }

    static int sink;
    List<Item> items = new ArrayList<>();
    String label = "snapshot";
    int[] nums = {1, 2, 3, 4, 5, 6, 7, 8};

    void d5(int n, String s) {
        sink = n * 2; // @marker SNAP_BP
    }
    void d4(int n) { d5(n, "s"); }
    void d3(int n) { long l = n * 10L; d4(n); }
    void d2(int n) { Item first = items.get(0); d3(n); }
    void d1(int n) { d2(n); }

    public static void main(String[] args) throws Exception {
        SnapLoop s = new SnapLoop();
        s.items.add(new Item("lamp", 2));
        s.items.add(new Item("desk", 1));
        int n = Integer.parseInt(args[0]);
        long[] took = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            s.d1(i);
            took[i] = System.nanoTime() - t0;
        }
        long[] tail = Arrays.copyOfRange(took, n / 5, n);  // after a warm-up fifth
        Arrays.sort(tail);
        System.out.println("PAUSE_US " + tail[tail.length / 2] / 1000.0 + " " + tail[tail.length * 9 / 10] / 1000.0);
    }
}
