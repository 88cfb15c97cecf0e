package loaders;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.IntUnaryOperator;

/**
 * Defines loaders.Plugin twice: each URLClassLoader reads it from this class directory with no parent
 * but the bootstrap loader, so each defines a copy of its own (with its nested and anonymous classes),
 * then calls one copy after the other.
 */
public class Loaders {
    public static void main(String[] args) throws Exception {
        URL here = Loaders.class.getProtectionDomain().getCodeSource().getLocation();
        String[] names = {"first", "second"};
        for (int i = 0; i < names.length; i++) {
            URLClassLoader loader = new URLClassLoader(names[i], new URL[] {here}, null);
            Class<?> c = loader.loadClass("loaders.Plugin");
            IntUnaryOperator plugin = (IntUnaryOperator) c.getConstructor(String.class).newInstance(names[i]);
            int out = plugin.applyAsInt(10 * (i + 1));
            System.out.println(names[i] + " " + out + " " + (c.getClassLoader() == loader)); // @marker loaders_out
        }
    }
}
