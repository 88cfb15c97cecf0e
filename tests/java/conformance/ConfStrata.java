/** A class the suite gives a SourceDebugExtension (JSR-45 SMAP) after compiling it. */
public class ConfStrata {
    static int touched;

    static int touch() {
        touched++; // @marker C_STRATA_TOUCH
        return touched;
    }
}
