package writes;

/** A class whose other methods are hot: exits of one method must not stop them (issue 30, item 7). */
class Busy {
    static long helper(long x) {
        return x + 1;
    }

    static long target(int n) {
        long acc = 0;
        for (int i = 0; i < 20_000; i++) {
            acc = helper(acc);  // a call of another method of the class, from inside the watched one
        }
        return n <= 0 ? acc : target(n - 1) + n;  // recursion: each call's own exit
    }

    static int fails(int n) {
        if (n > 0) {
            throw new IllegalStateException("no");
        }
        return 7;
    }

    static void run() {
        long total = 0;
        for (int i = 0; i < 200_000; i++) {
            total = helper(total);
        }
        long t = target(2);
        int f = 0;
        try {
            f = fails(1);
        } catch (IllegalStateException e) {
            f = fails(0);
        }
        System.out.println("busy " + total + " " + t + " " + f);
    }
}
