/** Facts the reply memo keeps: area() holds the breakpoint, perimeter() is redefined by the test. */
public class Shape {
    static int area(int n) {
        int side = n + 2; // @marker SHAPE_AREA
        return side * side;
    }

    static int perimeter(int n) {
        return 4 * n;
    }
}
