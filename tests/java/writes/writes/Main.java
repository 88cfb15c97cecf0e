package writes;

/** What a debugger writes (issue 30): locals, fields, statics, array elements, early returns. */
public class Main {
    static int limit = 3;
    static final String[] LABELS = {"a", "b", "c"};
    int count;
    String label = "start";

    public static void main(String[] args) {
        Main m = new Main();
        int local = 1;
        String text = "before";
        int[] numbers = {1, 2, 3};
        m.count = 5;  // @marker writes_set
        int decided = decide(local);
        String summary = "local=" + local + " text=" + text + " numbers=" + numbers[0] + "," + numbers[1]
                + " count=" + m.count + " label=" + m.label + " limit=" + limit + " LABELS=" + LABELS[0]
                + " decided=" + decided + " greet=" + greet();
        System.out.println(summary);  // @marker writes_end
        if (args.length > 0) {
            Busy.run();
        }
    }

    static int decide(int x) {
        return x * 10;  // @marker writes_decide
    }

    static String greet() {
        return "hello";  // @marker writes_greet
    }
}
