package dev.symbiont.cuda;

import dev.symbiont.cuda.driver.ModuleImage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The compiled kernel groups the jar carries: {@code dev/symbiont/cuda/kernels/<group>.ptx} and
 * {@code <group>.fatbin}, built from {@code src/main/cuda/<group>.cu} by {@code build-kernels.sh}
 * and committed, so a build without nvcc has them too.
 */
final class KernelImages {
    static final String FOLDER = "/dev/symbiont/cuda/kernels/";

    private KernelImages() {}

    /** The PTX and fatbin of {@code group}; an error naming the group and the missing resource. */
    static ModuleImage load(String group) {
        return new ModuleImage(group, new String(read(group + ".ptx"), StandardCharsets.US_ASCII), read(group + ".fatbin"));
    }

    private static byte[] read(String file) {
        try (InputStream in = KernelImages.class.getResourceAsStream(FOLDER + file)) {
            if (in == null) {
                throw new IllegalStateException("cuda backend: kernel image " + FOLDER + file
                        + " is not in this build (run backend-cuda/build-kernels.sh)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cuda backend: reading kernel image " + FOLDER + file, e);
        }
    }
}
