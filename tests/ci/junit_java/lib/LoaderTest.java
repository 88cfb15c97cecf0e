package lib;

import org.junit.jupiter.api.Test;

/** A test that fails where a class loader throws: its own Class.forName of a class that is not
 *  there (issue 31.10: class loaders' throws are judged by where they are caught, not left out). */
class LoaderTest {
    @Test
    void loadsAPluginThatIsMissing() throws Exception {
        String plugin = "lib.plugins.Missing";
        Class.forName(plugin); // @marker loader_forname
    }
}
