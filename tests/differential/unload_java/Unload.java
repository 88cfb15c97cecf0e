import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;

/**
 * A class a debugger asked about must still unload.  main loads Plugin through a class loader of
 * its own, makes one and calls it, stops at LOADED (the debugger asks for Plugin's methods, fields,
 * line and variable tables, sets a breakpoint and a field watch in it, then clears them), drops the
 * loader and the instance, runs GCs until a WeakReference to the loader clears (or gives up), says
 * which, and stops at DROPPED (the debugger asks again, with the ids it was given).
 */
public class Unload {
    static ClassLoader loader;
    static Object plugin;
    static Object live = new Object(); // no fields: no id of its own can equal one of Plugin's

    public static void main(String[] args) throws Exception {
        URL here = Unload.class.getProtectionDomain().getCodeSource().getLocation();
        loader = new URLClassLoader("plugin-loader", new URL[] {here}, null);
        Class<?> c = loader.loadClass("Plugin");
        plugin = c.getDeclaredConstructor().newInstance();
        c.getMethod("work", int.class).invoke(plugin, 3);
        c = null;
        WeakReference<ClassLoader> gone = new WeakReference<>(loader);
        loaded();
        loader = null;
        plugin = null;
        boolean collected = false;
        for (int i = 0; i < 100 && !collected; i++) {
            System.gc();
            Thread.sleep(20);
            collected = gone.get() == null;
        }
        System.out.println("loader collected: " + collected);
        dropped();
        System.out.println("unload done");
    }

    static void loaded() {
        int here = 0; // @marker LOADED
    }

    static void dropped() {
        int here = 0; // @marker DROPPED
    }
}
