/** Says its pid and arguments, gives a debugger args[0] ms, then exits with status 3. */
public class Exits {
    public static void main(String[] args) throws Exception {
        System.out.println("pid " + ProcessHandle.current().pid());
        System.out.println("args " + String.join(" ", args));
        Thread.sleep(Integer.parseInt(args[0]));
        System.out.println("done");
        System.exit(3);
    }
}
