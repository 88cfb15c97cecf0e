package org.jsoup.planted;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;

/** Two threads editing two jsoup documents, each locking them in its own order: a deadlock. */
public class PlantedDeadlockTest {
    static void copyTitle(Document from, Document to) throws InterruptedException {
        synchronized (from) {
            Thread.sleep(300);
            synchronized (to) { // @marker planted_deadlock
                to.title(from.title());
            }
        }
    }

    @Test
    public void documentsCopyTitlesBothWays() throws InterruptedException {
        Document left = Jsoup.parse("<title>left</title>");
        Document right = Jsoup.parse("<title>right</title>");
        Thread a = new Thread(() -> run(left, right), "left-to-right");
        Thread b = new Thread(() -> run(right, left), "right-to-left");
        a.start();
        b.start();
        a.join();
        b.join();
    }

    private static void run(Document from, Document to) {
        try {
            copyTitle(from, to);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
