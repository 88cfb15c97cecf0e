/** Loaded by a throw-away class loader in Conf.unload(), then unloaded by a full GC. */
public class ConfUnloaded {
    static int made;

    public ConfUnloaded() {
        made++;
    }
}
