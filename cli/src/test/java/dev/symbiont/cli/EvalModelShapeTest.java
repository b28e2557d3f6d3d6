package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** eval refuses an image model whose classes or channels are not its data's, naming the file. */
class EvalModelShapeTest {
    @Test
    void aModelOfAnotherClassOrChannelCountIsRefusedNamingTheFile(@TempDir Path dir) throws Exception {
        ImageArchitecture arch = ImageArchitecture.parse("resnet");
        for (int[] shape : new int[][] {{1, 5}, {3, 10}}) {
            Path out = dir.resolve("c" + shape[0] + "-" + shape[1]);
            ClassifierFiles.save(out, arch.build(8, shape[0], shape[1], new Generator(1)), arch.metadata(8, shape[0], shape[1]));
            CliRun run = CliRun.run("eval", "--model", out.toString(), "--data", "subset");
            assertEquals(2, run.code(), run.err());
            assertTrue(run.err().contains(out.resolve(ModelFiles.WEIGHTS) + ": the model takes " + shape[0] + "-channel images into "
                    + shape[1] + " classes; eval's Fashion-MNIST data has 1 channel and 10 classes"), run.err());
        }
    }
}
