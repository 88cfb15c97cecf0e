/** Ends in the way its argument says: normally, by System.exit, by an uncaught exception, or never (to be killed). */
public class Ends {
    public static void main(String[] args) throws Exception {
        System.out.println("started");
        switch (args[0]) {
            case "normal":
                return;
            case "exit":
                System.exit(Integer.parseInt(args[1]));
                break;
            case "throw":
                throw new IllegalStateException("uncaught on purpose");
            case "hang":
                Thread.sleep(600_000);
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }
}
