import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A debugger disposes while its invoke waits on a monitor the program holds (the shape of
 * nsk/jdi/VirtualMachine/dispose/dispose005): the program must end as it would have.
 *
 * Thread "tested" stops at STOP (the debugger's breakpoint, SUSPEND_EVENT_THREAD); the debugger
 * invokes held() on it, not single-threaded.  held() tells main it runs, then waits for the gate
 * main holds.  main prints "invoked" and lets the gate go once the file named by args[0] exists
 * (the test creates it around its Dispose, so the call ends just before, during or after the
 * debugger's leaving).  Then main waits for "tested", which ends only if nothing holds it, and
 * neither must main be held.  Args: the release file.
 */
public class DisposeInvoke {
    static final Object gate = new Object();
    static final Object called = new Object();
    static boolean entered;

    public static void main(String[] args) throws Exception {
        Path release = Path.of(args[0]);
        Thread tested = new Thread(DisposeInvoke::tested, "tested");
        synchronized (gate) {
            tested.start();
            synchronized (called) {
                while (!entered) called.wait();
            }
            System.out.println("invoked");
            while (!Files.exists(release)) Thread.sleep(1);
        }
        tested.join();
        System.out.println("main done");
    }

    static void tested() {
        stop();
        System.out.println("tested done");
    }

    static void stop() {
        int here = 0; // @marker STOP
    }

    static void held() {
        synchronized (called) {
            entered = true;
            called.notifyAll();
        }
        synchronized (gate) {
            // nothing: the call ends as soon as main lets the gate go
        }
    }
}
