/** Loaded by Sample.lateLoad() through Class.forName, well after VM start: a ClassPrepare to wait for. */
public class LateLoaded {
    static final String GREETING = "late";
    int counter = 3;

    public LateLoaded() {
        counter += 1; // @marker LATE_CTOR
    }

    @Override
    public String toString() {
        return GREETING + counter;
    }
}
