/**
 * Steps that an exception carries out of frames, and line steps in code without lines (NoLines, compiled
 * with -g:none by the test).  Every round runs each case once; a scenario takes one case per round.
 */
public class StepsThrough {
    static int sink;

    static void raise(int depth) {
        if (depth == 0) {
            throw new IllegalStateException("deep"); // @marker ST_THROW
        }
        raise(depth - 1);
    }

    static int catchHere(int depth) {
        try {
            raise(depth); // @marker ST_CALL
        } catch (IllegalStateException e) { // @marker ST_CATCH
            sink++; // @marker ST_CAUGHT
        }
        return sink;
    }

    static int passThrough(int depth) {
        int r = depth + 1; // @marker ST_PASS
        raise(depth); // @marker ST_PASS_CALL
        return r;
    }

    static int catchAbove(int depth) {
        try {
            return passThrough(depth);
        } catch (IllegalStateException e) { // @marker ST_CATCH_ABOVE
            return -1; // @marker ST_CAUGHT_ABOVE
        }
    }

    static void throwHere() {
        try {
            if (sink >= 0) throw new IllegalArgumentException("here"); // @marker ST_THROW_HERE
            sink--;
        } catch (IllegalArgumentException e) { // @marker ST_CATCH_HERE
            sink += 2; // @marker ST_CAUGHT_HERE
        }
    }

    static int lined(int x) {
        return x + 1; // @marker ST_LINED
    }

    static void visit(Integer x) {
        sink += x; // @marker ST_VISIT
    }

    static class Lazy {
        static int value = compute(); // @marker ST_CLINIT

        static int compute() {
            return 42;
        }
    }

    static void lazy() {
        sink += Lazy.value; // @marker ST_LAZY
    } // @marker ST_LAZY_END

    static void viaJdk() {
        java.util.List.of(1, 2).forEach(StepsThrough::visit); // @marker ST_VIA_JDK
    }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        for (int i = 0; i < rounds; i++) {
            catchHere(2);
            catchAbove(1);
            throwHere();
            viaJdk();
            if (i == rounds - 2) lazy();
            sink += NoLines.run(i); // @marker ST_CALL_NOLINES
        }
        System.out.println("rounds done " + sink); // @marker ST_DONE
    }
}
