/** Runs the kotlinc-compiled KtInlineKt without Kotlin's runtime library (none of its code needs it). */
public class KtMain {
    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        System.out.println("sum " + KtInlineKt.run(rounds)); // @marker KM_CALL
    }
}
