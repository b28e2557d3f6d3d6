package dev.symbiont.cli;

import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code train --nproc 2} for the families besides the GPT ({@link TrainNprocTest}): the Mambas
 * reach the parameters one rank reaches with the global batch; the MoE GPT (whose balancing loss
 * and capacity depend on the batch) and the ResNet (whose batch norm sees each rank's half, as
 * PyTorch's DDP without SyncBatchNorm does) train on two ranks, rank 0 alone writing the run.
 */
class TrainNprocArchitecturesTest {
    private static final List<String> LM = List.of("--batch", "8", "--context", "16", "--d-model", "16", "--layers", "1", "--steps", "3",
            "--eval-every", "3", "--minutes", "30", "--backend", "cpu");

    @TempDir
    Path dir;

    private ChildJvm job;

    @BeforeEach
    void needsMpirun() {
        NprocJobs.requireMpirun();
    }

    @AfterEach
    void stop() {
        if (job != null) job.stop();
    }

    private List<String> languageModel(Path out, String arch) throws Exception {
        Path corpus = dir.resolve("corpus.txt");
        if (!Files.exists(corpus)) Files.writeString(corpus, "the cat sat on the mat. the dog sat on the log. ".repeat(60));
        List<String> args = new ArrayList<>(List.of("train", "--corpus", corpus.toString(), "--out", out.toString(), "--arch", arch));
        args.addAll(LM);
        args.addAll(switch (arch) {
            case "mamba" -> List.of("--d-state", "4", "--d-conv", "3", "--expand", "2");
            case "mamba2" -> List.of("--d-state", "8", "--head-dim", "8");
            case "moe" -> List.of("--heads", "2", "--experts", "4", "--experts-per-token", "2");
            default -> throw new IllegalArgumentException(arch);
        });
        return args;
    }

    private static List<String> onTwoRanks(List<String> args) {
        List<String> two = new ArrayList<>(args);
        two.addAll(List.of("--nproc", "2"));
        return two;
    }

    /** Runs {@code args} on two ranks and checks rank 0 alone wrote the model; returns the job's standard output. */
    private String trainOnTwoRanks(List<String> args, Path out) throws Exception {
        job = ChildJvm.start(NprocJobs.FAST_JVM, onTwoRanks(args));
        assertEquals(0, job.awaitExit(), job.stdout() + job.stderr());
        assertTrue(job.stdout().contains("; 2 ranks, "), job.stdout());
        assertEquals(1, NprocJobs.count(job.stdout(), "model saved to " + out.resolve(ModelFiles.WEIGHTS)), "rank 0 alone writes: " + job.stdout());
        return job.stdout();
    }

    @ParameterizedTest(name = "--arch {0}")
    @ValueSource(strings = {"mamba", "mamba2"})
    void a_mamba_on_two_ranks_reaches_the_parameters_of_one_rank_with_the_global_batch(String arch) throws Exception {
        Path two = dir.resolve("two"), one = dir.resolve("one");
        trainOnTwoRanks(languageModel(two, arch), two);
        CliRun single = CliRun.run(languageModel(one, arch).toArray(String[]::new));
        assertEquals(0, single.code(), single.err());
        Map<String, Tensor> expected = Safetensors.read(one.resolve(ModelFiles.WEIGHTS)).tensors();
        Map<String, Tensor> actual = Safetensors.read(two.resolve(ModelFiles.WEIGHTS)).tensors();
        assertEquals(expected.keySet(), actual.keySet());
        for (String key : expected.keySet()) {
            float[] e = expected.get(key).toFloatArray(), a = actual.get(key).toFloatArray();
            for (int i = 0; i < e.length; i++) assertEquals(e[i], a[i], 2e-5, key + "[" + i + "]");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"moe", "fashion-mnist"})
    void trains_on_two_ranks_and_the_run_it_writes_loads(String family) throws Exception {
        Path out = dir.resolve(family);
        List<String> args = family.equals("moe") ? languageModel(out, "moe")
                : List.of("train", "--task", "fashion-mnist", "--data", "subset", "--width", "4", "--batch", "32", "--steps", "3",
                        "--eval-every", "3", "--minutes", "30", "--backend", "cpu", "--out", out.toString());
        String said = trainOnTwoRanks(args, out);
        assertTrue(said.contains("3 steps of 32 = 2 ranks × 16") || said.contains("3 steps of 8 = 2 ranks × 4"), said);
        Map<String, Tensor> weights = Safetensors.read(out.resolve(ModelFiles.WEIGHTS)).tensors();
        assertTrue(weights.values().stream().allMatch(t -> allFinite(t.toFloatArray())), "finite weights after training");
        List<String> rows = Files.readAllLines(out.resolve(RunDirectory.METRICS));
        assertEquals(2, rows.size(), "a header and step 3's row, written once: " + rows);
    }

    private static boolean allFinite(float[] values) {
        for (float v : values) if (!Float.isFinite(v)) return false;
        return true;
    }
}
