package names.model;

public class Page extends Node {
    public Page(String label) {
        super(label);
    }
}
