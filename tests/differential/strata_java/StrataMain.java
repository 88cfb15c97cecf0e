/** Calls Strata.run once a round (its class has no SourceDebugExtension: stepped by Java lines); a second
 * argument pauses that many milliseconds a round (a debugger that leaves and comes back finds it running). */
public class StrataMain {
    public static void main(String[] args) throws InterruptedException {
        int rounds = Integer.parseInt(args[0]);
        long pause = args.length > 1 ? Long.parseLong(args[1]) : 0;
        Strata.sink = 1; // @marker SM_LOAD
        for (int i = 0; i < rounds; i++) {
            Strata.run(i); // @marker SM_CALL
            if (pause > 0) {
                Thread.sleep(pause);
            }
        }
        System.out.println("strata done " + Strata.sink);
    }
}
