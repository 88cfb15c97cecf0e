import java.net.URL;
import java.net.URLClassLoader;

/**
 * Heap queries before and after objects become unreachable.  main loads Loaded through a class
 * loader of its own, makes instances of Loaded and of Item, stops at MADE (the debugger asks who
 * refers to the loaders, a class and an object), drops the loader and every instance, runs GCs and
 * stops at DROPPED (the debugger counts the instances again).
 */
public class Heap {
    static class Item {
        Object payload = new int[] {1, 2, 3};
    }

    static Item one;
    static Object[] objects;
    static Item[] items;
    static ClassLoader loader;

    public static void main(String[] args) throws Exception {
        URL here = Heap.class.getProtectionDomain().getCodeSource().getLocation();
        loader = new URLClassLoader("heap-loader", new URL[] {here}, null);
        Class<?> loaded = loader.loadClass("Loaded");
        objects = new Object[5];
        for (int i = 0; i < objects.length; i++) objects[i] = loaded.getDeclaredConstructor().newInstance();
        items = new Item[4];
        for (int i = 0; i < items.length; i++) items[i] = new Item();
        one = items[0];
        made();
        loaded = null;
        loader = null;
        objects = null;
        items = null;
        one = null;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        dropped();
        System.out.println("heap done");
    }

    static void made() {
        int here = 0; // @marker MADE
    }

    static void dropped() {
        int here = 0; // @marker DROPPED
    }
}
