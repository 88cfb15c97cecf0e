package loaders;

import java.util.function.IntUnaryOperator;

/** Loaded twice by Loaders, each time by a loader of its own. */
public class Plugin implements IntUnaryOperator {
    private final String name;

    public Plugin(String name) {
        this.name = name;
    }

    @Override
    public int applyAsInt(int n) {
        int doubled = n * 2; // @marker loaders_apply
        Helper helper = new Helper(doubled);
        Runnable bump = new Runnable() {
            @Override
            public void run() {
                helper.total += name.length(); // @marker loaders_anon
            }
        };
        bump.run();
        return helper.total;
    }

    static class Helper {
        int total;

        Helper(int start) {
            total = start + 1; // @marker loaders_nested
        }
    }
}
