/** Loaded by Unload's own class loader only; asked about by the debugger, then unloaded. */
public class Plugin {
    static int calls;
    static String name = "plugin";
    int total;

    public int work(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += i; // @marker WORK
        }
        total += sum;
        calls++;
        return sum;
    }
}
