package dev.symbiont.fuzz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Every loader of files from strangers, fuzzed ({@link Fuzzer}): a few thousand seeded cases per
 * loader in the normal run, as many as asked for with {@code -Dsymbiont.fuzz.cases=100000}
 * (see docs/fuzzing.md). A new loader is one {@link FuzzTarget}, a corpus folder and a method here.
 */
class LoaderFuzzTest {
    @TempDir Path dir;

    @Test
    void theSafetensorsReaderSurvivesMutatedFiles() throws IOException, InterruptedException {
        Fuzzer.check(new SafetensorsTarget(), dir);
    }

    @Test
    void theTokenizerLoaderSurvivesMutatedBpeFiles() throws IOException, InterruptedException {
        Fuzzer.check(TokenizerTarget.bpe(), dir);
    }

    @Test
    void theTokenizerLoaderSurvivesMutatedHuggingFaceFiles() throws IOException, InterruptedException {
        Fuzzer.check(new HfTokenizerTarget(), dir);
    }

    @Test
    void theIdxReaderSurvivesMutatedFiles() throws IOException, InterruptedException {
        Fuzzer.check(new IdxTarget(), dir);
    }

    @Test
    void theTokenizerLoaderSurvivesMutatedCharFiles() throws IOException, InterruptedException {
        Fuzzer.check(TokenizerTarget.chars(), dir);
    }

    @Test
    void theTrainingCheckpointLoaderSurvivesMutatedCheckpoints() throws IOException, InterruptedException {
        Fuzzer.check(new CheckpointTarget(), dir);
    }

    @Test
    void theMetricsLogSurvivesMutatedFiles() throws IOException, InterruptedException {
        Fuzzer.check(new MetricsLogTarget(), dir);
    }

    @Test
    void modelFilesOfEveryLanguageFamilySurviveMutatedConfigsAndTensors() throws IOException, InterruptedException {
        Fuzzer.check(new ModelFileTarget(), dir);
    }
}
