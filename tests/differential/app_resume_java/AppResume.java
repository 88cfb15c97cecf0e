/** The program resumes a thread its debugger holds (Thread.resume, JDK < 20): held at a breakpoint
 * (args[0] "breakpoint"), or suspended by the debugger while it counts ("counting"). */
public class AppResume {
    static volatile boolean resumeNow;
    static volatile boolean resumeReturned;
    static volatile boolean resumeeRan;
    static volatile boolean stopCounting;
    static volatile long counted;

    public static void main(String[] args) throws Exception {
        boolean counting = args[0].equals("counting");
        Thread resumee = new Thread(counting ? AppResume::count : AppResume::run, "resumee");
        resumee.start();
        while (!resumeNow) {
            Thread.sleep(5);
        }
        resumee.resume();
        resumeReturned = true;
        stopCounting = true;
        resumee.join();
        System.out.println("resumee ran: " + resumeeRan);
    }

    static void run() {
        held();
        resumeeRan = true;
    }

    static void held() {
        int here = 0; // @marker HELD
    }

    static void count() {
        while (!stopCounting) {
            counted++;
        }
        resumeeRan = true;
    }
}
