package org.jsoup.planted;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.select.Elements;
import org.junit.jupiter.api.Test;

/** Defects planted in copies of jsoup's own tests (its ElementTest, SelectorTest): issue 31's kinds. */
public class PlantedTest {
    @Test
    public void wrongExpectedValue() { // a failure: <failure> in the XML
        Document doc = Jsoup.parse("<div><p>One</p><p>Two</p></div>");
        Elements ps = doc.select("p");
        int expected = 3;
        assertEquals(expected, ps.size(), "paragraphs"); // @marker planted_assert
    }

    @Test
    public void unexpectedException() { // an error: thrown inside jsoup's selector parser
        Document doc = Jsoup.parse("<div><p>One</p></div>");
        String query = "p:matches((";
        doc.select(query);
    }

    @Test
    public void backgroundThreadFails() throws InterruptedException { // passes; its thread dies
        String html = "<p>no div here</p>";
        Thread worker = new Thread(() -> {
            Document parsed = Jsoup.parse(html);
            String text = parsed.selectFirst("div").text(); // @marker planted_uncaught
            System.out.println(text);
        }, "planted-worker");
        worker.start();
        worker.join();
    }

    @Test
    public void passes() {
        assertEquals("One", Jsoup.parse("<p>One</p>").selectFirst("p").text());
    }
}
