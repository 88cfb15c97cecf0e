package catches;

import catches.lib.Library;
import catches.runner.Checks;
import catches.runner.Runner;

/** Throws caught in many places; which of them an exception request with a catch filter reports:
 *  ROUNDS library catches, ROUNDS framework probes, one failure the runner records (caught by
 *  reflection's caller), and one uncaught exception in a thread of its own. */
public class Main {
    public static final int ROUNDS = 200;

    public static class Subject {
        public void fails() {
            String word = null;
            Library.length(word);
        }

        public void passes() {
            Library.parseOr("12", 0);
        }
    }

    public static void main(String[] args) throws Exception {
        int sum = 0;
        for (int i = 0; i < ROUNDS; i++) {
            sum += Library.parseOr("x" + i, i);
            sum += Checks.isNumber("y" + i) ? 1 : 0;
        }
        Runner.run(new Subject(), "passes");
        Runner.run(new Subject(), "fails");
        Thread t = new Thread(() -> {
            throw new IllegalStateException("from a background thread");
        }, "background");
        t.start();
        t.join();
        System.out.println("catches: sum " + sum + " recorded " + Runner.recorded); // @marker done
    }
}
