package dev.symbiont.data.vision;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Finds and reads the IDX pair of a split, in a directory or on the classpath. A directory may
 * hold the files as released ({@code train-images-idx3-ubyte.gz}, ...) or unpacked, directly or
 * in torchvision's layout ({@code <dir>/<Name>/raw/}), so a PyTorch user's download is found.
 */
final class IdxImageFiles {
    private IdxImageFiles() {}

    /** Reads the split from {@code dir}, whose files must be there. */
    static LabeledImages read(Path dir, String torchvisionName, Split split, List<String> classes) throws IOException {
        Path folder = folder(dir, torchvisionName).orElseThrow(() -> new NoSuchFileException(dir.toString(), null,
                "expected " + split.imagesFile() + "[.gz] and " + split.labelsFile() + "[.gz] here or in "
                        + dir.resolve(torchvisionName).resolve("raw")));
        return LabeledImages.read(find(folder, split.imagesFile()), find(folder, split.labelsFile()), classes);
    }

    /** Whether {@code dir} holds both splits. */
    static boolean complete(Path dir, String torchvisionName) {
        return folder(dir, torchvisionName).isPresent();
    }

    /** Reads the split from classpath folder {@code folder} (ending in '/'), where the files are gzip. */
    static LabeledImages readResource(String folder, Split split, List<String> classes) throws IOException {
        String images = folder + split.imagesFile() + ".gz", labels = folder + split.labelsFile() + ".gz";
        try (InputStream x = open(images); InputStream y = open(labels)) {
            return LabeledImages.read("classpath:" + images, x, "classpath:" + labels, y, classes);
        }
    }

    private static InputStream open(String resource) throws NoSuchFileException {
        InputStream in = IdxImageFiles.class.getResourceAsStream(resource);
        if (in == null) throw new NoSuchFileException("classpath:" + resource, null, "not on the classpath");
        return in;
    }

    /** {@code dir} or its torchvision folder, whichever holds all four files. */
    private static Optional<Path> folder(Path dir, String torchvisionName) {
        return List.of(dir, dir.resolve(torchvisionName).resolve("raw")).stream()
                .filter(d -> List.of(Split.values()).stream().allMatch(s -> exists(d, s.imagesFile()) && exists(d, s.labelsFile())))
                .findFirst();
    }

    private static boolean exists(Path dir, String name) {
        return Files.isRegularFile(dir.resolve(name + ".gz")) || Files.isRegularFile(dir.resolve(name));
    }

    private static Path find(Path dir, String name) {
        Path gz = dir.resolve(name + ".gz");
        return Files.isRegularFile(gz) ? gz : dir.resolve(name);
    }
}
