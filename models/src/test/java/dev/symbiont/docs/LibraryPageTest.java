package dev.symbiont.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/library.md shows a user's pom and program; examples/library-hello holds the same two files
 * and the reactor builds it with its own pom (no parent), so `mvn verify` on a Maven running on
 * JDK 17 proves the page's pom compiles Symbiont code. This test keeps the page and the example equal.
 */
class LibraryPageTest {
    /** Tests run in the module's folder; the page and the example are beside it. */
    private static final Path ROOT = Path.of("..");
    private static final Pattern SYMBIONT_VERSION = Pattern.compile("<symbiont\\.version>([^<]*)</symbiont\\.version>");

    private static List<String> blocks(String markdown, String language) {
        Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        List<String> out = new ArrayList<>();
        while (m.find()) out.add(m.group(1));
        return out;
    }

    private static String read(String path) throws IOException {
        return Files.readString(ROOT.resolve(path)).replace("\r\n", "\n");
    }

    /** The pom with the Symbiont version left out: the page may lag a version bump. */
    private static String withoutVersion(String pom) {
        return SYMBIONT_VERSION.matcher(pom).replaceAll("<symbiont.version>VERSION</symbiont.version>");
    }

    @Test
    void thePagesPomIsTheExamplesPom() throws IOException {
        String page = read("docs/library.md");
        String pom = read("examples/library-hello/pom.xml");
        assertEquals(withoutVersion(pom), withoutVersion(blocks(page, "xml").get(0)),
                "docs/library.md's pom and examples/library-hello/pom.xml differ");
    }

    @Test
    void thePagesProgramIsTheExamplesMain() throws IOException {
        String page = read("docs/library.md");
        assertEquals(read("examples/library-hello/src/main/java/example/Main.java"), blocks(page, "java").get(0),
                "docs/library.md's program and examples/library-hello's Main.java differ");
    }

    @Test
    void theExampleBuildsAgainstThisCheckoutOnAJdk25Toolchain() throws IOException {
        String pom = read("examples/library-hello/pom.xml");
        Matcher version = SYMBIONT_VERSION.matcher(pom);
        assertTrue(version.find(), "the example names symbiont.version");
        Matcher parentVersion = Pattern.compile("<artifactId>symbiont-parent</artifactId>\\s*<version>([^<]*)</version>")
                .matcher(read("pom.xml"));
        assertTrue(parentVersion.find());
        assertEquals(parentVersion.group(1), version.group(1), "the reactor resolves the example's Symbiont from this checkout");
        assertTrue(read("pom.xml").contains("<module>examples/library-hello</module>"), "the reactor builds the example");
        // Without this a Maven on JDK 17 fails with "release version 25 not supported".
        assertTrue(pom.contains("<artifactId>maven-toolchains-plugin</artifactId>")
                && pom.contains("<goal>select-jdk-toolchain</goal>") && pom.contains("<version>[25,)</version>"), pom);
    }
}
