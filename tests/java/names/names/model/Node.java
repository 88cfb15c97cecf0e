package names.model;

public class Node {
    public final String label;

    public Node(String label) {
        this.label = label;
    }
}
