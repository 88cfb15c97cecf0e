/** The shortest useful JVM life: start, print, exit.  Its wall time is what debuggability costs a CLI or a test. */
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello");
    }
}
