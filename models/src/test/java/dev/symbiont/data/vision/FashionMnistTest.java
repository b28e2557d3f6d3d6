package dev.symbiont.data.vision;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FashionMnistTest {
    @TempDir Path dir;

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = FashionMnist.class.getResourceAsStream(FashionMnist.SUBSET_RESOURCE + name)) {
            assertTrue(in != null, "no resource " + name);
            return in.readAllBytes();
        }
    }

    private static String sha256(byte[] bytes) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void theSubsetIsStratified600And100PerClass() throws IOException {
        LabeledImages train = FashionMnist.subset(Split.TRAIN), test = FashionMnist.subset(Split.TEST);
        assertEquals(6000, train.size());
        assertEquals(1000, test.size());
        int[] six = new int[10], one = new int[10];
        java.util.Arrays.fill(six, 600);
        java.util.Arrays.fill(one, 100);
        assertArrayEquals(six, train.classCounts());
        assertArrayEquals(one, test.classCounts());
        assertEquals(28, train.rows());
        assertEquals(28, test.cols());
        assertEquals(FashionMnist.CLASSES, train.classNames());
        assertEquals("Ankle boot", train.classNames().get(9));
        assertTrue(train.source().startsWith("classpath:"), train.source());
    }

    @Test
    void theShippedFilesMatchTheChecksumsInTheirReadme() throws Exception {
        String readme = new String(resource("README.md"), StandardCharsets.UTF_8);
        Matcher row = Pattern.compile("\\| (\\S+\\.gz) \\| ([0-9a-f]{64}) \\| ([0-9a-f]{64}) \\|").matcher(readme);
        Map<String, String[]> sums = new LinkedHashMap<>();
        while (row.find()) sums.put(row.group(1), new String[] {row.group(2), row.group(3)});
        assertEquals(4, sums.size(), "checksum rows in the README: " + sums.keySet());
        for (Split s : Split.values()) {
            for (String name : new String[] {s.imagesFile() + ".gz", s.labelsFile() + ".gz"}) {
                byte[] packed = resource(name);
                assertEquals(sums.get(name)[0], sha256(packed), name);
                try (var z = new GZIPInputStream(new java.io.ByteArrayInputStream(packed))) {
                    assertEquals(sums.get(name)[1], sha256(z.readAllBytes()), name + " decompressed");
                }
            }
        }
        assertTrue(readme.contains("github.com/zalandoresearch/fashion-mnist") && readme.contains("MIT")
                && readme.contains("dataset-fashion-mnist") && readme.contains("seed 2017"));
    }

    @Test
    void aDirectoryIsReadRawOrGzipDirectlyOrInTorchvisionsLayout() throws IOException {
        Path flat = dir.resolve("flat"), torch = dir.resolve("torch");
        Path raw = torch.resolve("FashionMNIST").resolve("raw");
        for (Split s : Split.values()) {
            for (String name : new String[] {s.imagesFile(), s.labelsFile()}) {
                byte[] packed = resource(name + ".gz");
                Files.createDirectories(flat);
                Files.write(flat.resolve(name + ".gz"), packed);
                Files.createDirectories(raw);
                try (var z = new GZIPInputStream(new java.io.ByteArrayInputStream(packed))) {
                    Files.write(raw.resolve(name), z.readAllBytes());
                }
            }
        }
        LabeledImages fromFlat = FashionMnist.load(flat, Split.TEST), fromTorch = FashionMnist.load(torch, Split.TEST);
        LabeledImages shipped = FashionMnist.subset(Split.TEST);
        assertEquals(flat.resolve("t10k-images-idx3-ubyte.gz").toString(), fromFlat.source());
        assertEquals(raw.resolve("t10k-images-idx3-ubyte").toString(), fromTorch.source());
        for (LabeledImages set : new LabeledImages[] {fromFlat, fromTorch}) {
            assertEquals(shipped.size(), set.size());
            for (int i = 0; i < set.size(); i += 97) {
                assertEquals(shipped.label(i), set.label(i));
                assertEquals(shipped.pixel(i, 14, 9), set.pixel(i, 14, 9));
            }
        }
    }

    @Test
    void aDirectoryWithoutTheFilesIsNamedInTheError() {
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> FashionMnist.load(dir, Split.TRAIN));
        assertTrue(e.getMessage().contains(dir.toString()) && e.getMessage().contains("train-images-idx3-ubyte[.gz]")
                && e.getMessage().contains("FashionMNIST/raw"), e.getMessage());
    }

    @Test
    void theInstalledFullSetHas60000And10000Images() throws IOException {
        assumeTrue(FashionMnist.installed(), "dataset-fashion-mnist is not installed");
        LabeledImages train = FashionMnist.load(Split.TRAIN), test = FashionMnist.load(null, Split.TEST);
        assertEquals(60000, train.size());
        assertEquals(10000, test.size());
        assertArrayEquals(new int[] {6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000}, train.classCounts());
        assertTrue(train.source().startsWith(FashionMnist.DEBIAN_DIR), train.source());
        // The subset's first test image is one of the full test set's: its bytes appear there.
        LabeledImages subset = FashionMnist.subset(Split.TEST);
        boolean found = false;
        for (int i = 0; i < test.size() && !found; i++) {
            boolean same = test.label(i) == subset.label(0);
            for (int y = 0; y < 28 && same; y++) for (int x = 0; x < 28 && same; x++) same = test.pixel(i, y, x) == subset.pixel(0, y, x);
            found = same;
        }
        assertTrue(found, "the subset's first test image is not in the full test set");
    }
}
