/** The main thread renames itself each round, then stops in Shape.area at a new depth. */
public class Renamer {
    static int depth(int n) {
        if (n == 0) {
            return Shape.area(n);
        }
        return depth(n - 1) + 1;
    }

    public static void main(String[] args) throws Exception {
        int total = 0;
        for (int round = 0; round < 3; round++) {
            Thread.currentThread().setName("round-" + round);
            total += depth(2 + 3 * round);
        }
        total += Shape.perimeter(total);
        System.out.println("total " + total);
    }
}
