package ci;

import java.util.ArrayList;
import java.util.List;

/** Starts one child JVM per mode given (same class path), waits for them all, and exits with 1 if any failed. */
public class Forker {
    public static void main(String[] args) throws Exception {
        String java = System.getProperty("java.home") + "/bin/java";
        String classpath = System.getProperty("java.class.path");
        List<Process> children = new ArrayList<>();
        for (String mode : args) {
            children.add(new ProcessBuilder(java, "-cp", classpath, "ci.Child", mode).inheritIO().start());
        }
        int failed = 0;
        for (Process child : children) {
            if (child.waitFor() != 0) {
                failed++;
            }
        }
        System.out.println("forker: " + failed + " of " + children.size() + " children failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
