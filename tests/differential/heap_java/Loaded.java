/** Loaded by Heap's own class loader, which the program drops with its instances. */
public class Loaded {
    static Object held = new Object();
    Object self = this;
}
