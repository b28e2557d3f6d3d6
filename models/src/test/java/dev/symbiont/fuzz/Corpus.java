package dev.symbiont.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The committed inputs under {@code src/test/resources/fuzz-corpus/<target>/}: valid seeds the
 * mutations start from ({@code seed-*}) and minimal reproducers of loader bugs found so far.
 */
public final class Corpus {
    private Corpus() {}

    /** The bytes of one corpus file. */
    public static byte[] bytes(String target, String name) {
        String resource = "/fuzz-corpus/" + target + "/" + name;
        try (InputStream in = Corpus.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalArgumentException("no corpus file " + resource);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The file names in a target's corpus folder, sorted. */
    public static List<String> names(String target) {
        try (Stream<Path> files = Files.list(Path.of(Corpus.class.getResource("/fuzz-corpus/" + target).toURI()))) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Copies a corpus file into {@code dir} under its own name, so messages name it. */
    public static Path copy(String target, String name, Path dir) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, bytes(target, name));
        return file;
    }
}
