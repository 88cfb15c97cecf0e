/** Calls Strata.run once a round (its class has no SourceDebugExtension: stepped by Java lines). */
public class StrataMain {
    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        Strata.sink = 1; // @marker SM_LOAD
        for (int i = 0; i < rounds; i++) {
            Strata.run(i); // @marker SM_CALL
        }
        System.out.println("strata done " + Strata.sink);
    }
}
