package tpdriver;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.safety.Cleaner;
import org.jsoup.safety.Safelist;
import org.jsoup.select.Elements;
import org.jsoup.select.NodeTraversor;
import org.jsoup.select.NodeVisitor;
import org.jsoup.select.Selector;

/**
 * Runs jsoup (a third-party library, built from Debian's source package) over real HTML pages: the test kit's
 * debuggee for scripted sessions on other people's code (tests/thirdparty).
 *
 * <p>Usage: {@code Driver DIR [ROUNDS]}: parses every *.html and *.html.gz of DIR, ROUNDS times (default 2).
 * Per page: a report (title, links, words: {@link #countWords} is the hot method, once per text node), the links
 * gathered by an anonymous visitor, the page handed to a background thread ("cleaner-worker") that cleans it with
 * a Safelist. Per round: a malformed CSS query whose {@code Selector.SelectorParseException} (a nested class,
 * thrown deep in jsoup's QueryParser) is caught here. Lines are named by {@code // @marker NAME}; keep markers
 * on the lines they name when editing.
 */
public class Driver {
    static int documentsParsed;
    static final String[] NAMES = {"title", "links", "words"};
    static final Map<String, String> cache = new HashMap<>();
    static int caught;

    /** A page's numbers. Its class loads at the first page's report, long after Driver and jsoup's parser. */
    static final class Report {
        final String title;
        final int links;
        final int words;
        final Mode mode;

        Report(String title, int links, int words, Mode mode) {
            this.title = title;
            this.links = links;
            this.words = words;
            this.mode = mode;
        }

        int weight() {
            return mode.weight(words);
        }
    }

    /** A subclass of a JDK collection. */
    static final class Links extends ArrayList<String> {
        Links() {
            super();
        }
    }

    /** An enum whose constants have bodies (Driver$Mode$1, Driver$Mode$2). */
    enum Mode {
        QUICK {
            int weight(int words) {
                return words;                                           // @marker enum_body
            }
        },
        FULL {
            int weight(int words) {
                return words * 2;
            }
        };

        abstract int weight(int words);
    }

    /** The hot method: called once per text node of every page (about 12,800 calls a round). */
    static int countWords(String text) {
        int words = 0;                                                  // @marker hot
        boolean inWord = false;
        for (int i = 0; i < text.length(); i++) {
            boolean letter = Character.isLetterOrDigit(text.charAt(i));
            if (letter && !inWord) {
                words++;
            }
            inWord = letter;
        }
        return words;                                                   // @marker hot_return
    }

    static void remember(String key, String value) {
        cache.put(key, value);                                          // @marker static_method
    }

    static Report report(Document doc, Mode mode) {
        int[] words = {0};
        NodeTraversor.traverse((node, depth) -> {
            if (node instanceof TextNode) {
                words[0] += countWords(((TextNode) node).getWholeText());  // @marker lambda
            }
        }, doc);
        Elements anchors = doc.select("a[href]");
        return new Report(doc.title(), anchors.size(), words[0], mode);
    }

    static Links links(Element root) {
        final Links accum = new Links();
        root.traverse(new NodeVisitor() {
            @Override
            public void head(Node node, int depth) {
                if (node instanceof Element && node.hasAttr("href")) {
                    accum.add(node.attr("abs:href"));                   // @marker anonymous
                }
            }
        });
        return accum;
    }

    static List<File> pages(File dir) {
        File[] found = dir.listFiles((d, name) -> (name.endsWith(".html") || name.endsWith(".html.gz"))
                && !name.startsWith("fake"));
        if (found == null) {
            throw new IllegalArgumentException("no such folder: " + dir);
        }
        Arrays.sort(found);
        return Arrays.asList(found);
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        File dir = new File(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        List<File> pages = pages(dir);
        BlockingQueue<Document> queue = new LinkedBlockingQueue<>();
        Document end = new Document("");
        AtomicInteger cleaned = new AtomicInteger();
        Thread worker = new Thread(() -> {
            Cleaner cleaner = new Cleaner(Safelist.basic());
            try {
                for (Document next = queue.take(); next != end; next = queue.take()) {
                    Document safe = cleaner.clean(next);
                    cleaned.addAndGet(safe.body() == null ? 0 : 1);     // @marker worker
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cleaner-worker");
        worker.start();

        long totalWords = 0;
        int totalLinks = 0;
        for (int round = 0; round < rounds; round++) {
            Mode mode = round % 2 == 0 ? Mode.QUICK : Mode.FULL;
            for (File page : pages) {
                Document doc = Jsoup.parse(page, null, "http://example.com/" + page.getName());  // @marker parse
                documentsParsed++;
                Report report = report(doc, mode);
                totalWords += report.weight();                          // @marker report_ready
                List<Node> items = doc.body() == null ? List.of() : doc.body().childNodes();
                Links links = links(doc);
                totalLinks += links.size();                             // @marker page_done
                remember(page.getName(), report.title);
                queue.put(doc);
            }
            try {
                Selector.select("div[", new Document(""));              // @marker bad_query
            } catch (Selector.SelectorParseException e) {
                caught++;                                               // @marker caught
            }
        }
        queue.put(end);
        worker.join(60_000);
        System.out.println("driver: done documents=" + documentsParsed + " pages=" + pages.size() + " words="
                + totalWords + " links=" + totalLinks + " cleaned=" + cleaned.get() + " caught=" + caught);  // @marker done
    }
}
