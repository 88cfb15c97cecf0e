/**
 * Stepped by the lines of a JSR-45 stratum: tests/differential/test_step_strata.py gives this class a
 * SourceDebugExtension after compiling it (javac writes none), its SMAP built from the markers below.
 */
public class Strata {
    static int sink;

    static int work(int x) {
        int a = x + 1; // @marker W1
        int b = a * 2; // @marker W2
        int c = b - 3; // @marker W3
        sink += c; // @marker W4
        int d = c + a; // @marker W5
        sink ^= d; // @marker W6
        return d; // @marker W7
    }

    static int unmapped(int x) {
        int e = x - 1; // @marker U1
        sink += e; // @marker U2
        return e; // @marker U3
    }

    static int run(int x) {
        int y = x * 3; // @marker R1
        y += work(y); // @marker R2
        y -= unmapped(y); // @marker R3
        y += work(y + 1); // @marker R4
        sink += y; // @marker R5
        return y; // @marker R6
    }
}
