package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.moe.MoeLayers;
import dev.symbiont.text.CharTokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code train --arch mamba|mamba2|moe}: the family and its config saved with the model, rebuilt by generate and --resume from the run directory alone. */
class ArchitectureTrainTest {
    @TempDir
    Path dir;

    private static final String TEXT = "the cat sat on the mat. the dog sat on the log. ".repeat(40);
    private static final String[] TINY = {"--batch", "8", "--context", "16", "--d-model", "16", "--layers", "1", "--eval-every", "3"};

    /** The result of one train command and the model it trained in memory. */
    private record Trained(CliRun run, CausalLM model) {}

    private Trained train(Path out, String... more) throws Exception {
        Path corpus = dir.resolve("corpus.txt");
        if (!Files.exists(corpus)) Files.writeString(corpus, TEXT);
        List<String> args = new ArrayList<>(List.of("train", "--corpus", corpus.toString(), "--out", out.toString()));
        args.addAll(List.of(TINY));
        args.addAll(List.of(more));
        TrainCommand[] command = new TrainCommand[1];
        CliRun r = run(cli -> command[0] = (TrainCommand) cli.getSubcommands().get("train").getCommand(), args.toArray(String[]::new));
        return new Trained(r, command[0].model);
    }

    /** What generate loads from {@code out} computes the trained model's logits, and the command's sampled text is that model's. */
    private static CausalLM assertGenerateUsesTheSavedModel(Path out, CausalLM trained) throws Exception {
        ModelFiles.Loaded loaded = ModelFiles.load(out);
        Tensor ids = Tensor.fromArray(new long[] {1, 2, 3, 4, 5, 1, 2}, 1, 7);
        try (var noGrad = GradMode.disabled()) {
            assertArrayEquals(trained.forward(ids).toFloatArray(), loaded.model().forward(ids).toFloatArray());
        }
        CliRun g = run("generate", "--model", out.toString(), "--prompt", "the ", "--tokens", "12", "--temperature", "1", "--top-p", "1",
                "--seed", "5");
        assertEquals(0, g.code(), g.err());
        long[] prompt = Arrays.stream(loaded.tokenizer().encode("the ")).asLongStream().toArray();
        long[] expected = loaded.model().generate(prompt, 12, new Sampling(1, 0, 1), new Generator(5));
        assertEquals(loaded.tokenizer().decode(Arrays.stream(expected).mapToInt(v -> (int) v).toArray()) + System.lineSeparator(), g.out());
        return loaded.model();
    }

    @Test
    void should_train_a_mamba_and_generate_from_the_saved_weights_with_no_flags() throws Exception {
        Path out = dir.resolve("mamba");
        Trained t = train(out, "--arch", "mamba", "--d-state", "4", "--d-conv", "3", "--expand", "2", "--steps", "6");
        assertEquals(0, t.run().code(), t.run().out() + t.run().err());
        assertTrue(t.run().out().contains("train: Mamba with"), t.run().out());
        MambaLM loaded = assertInstanceOf(MambaLM.class, assertGenerateUsesTheSavedModel(out, t.model()));
        MambaLMConfig c = loaded.config();
        assertEquals(List.of(16, 32, 4, 3, 1), List.of(c.dModel(), c.mixer().dInner(), c.mixer().dState(), c.mixer().dConv(), c.layers()));
        assertTrue(Safetensors.read(out.resolve(ModelFiles.WEIGHTS)).tensors().containsKey("backbone.layers.0.mixer.A_log"),
                "Hugging Face's keys");

        CliRun resumed = run("train", "--out", out.toString(), "--resume", "--steps", "8");
        assertEquals(0, resumed.code(), resumed.out() + resumed.err());
        assertTrue(resumed.err().contains("resuming from step 6 of 8") && resumed.out().contains("train: Mamba with"), resumed.out() + resumed.err());
    }

    @Test
    void should_train_a_mamba2_whose_loss_falls_and_generate_from_the_saved_weights_with_no_flags() throws Exception {
        Path out = dir.resolve("mamba2");
        Trained t = train(out, "--arch", "mamba2", "--d-state", "8", "--head-dim", "8", "--steps", "40", "--lr", "1e-2");
        assertEquals(0, t.run().code(), t.run().out() + t.run().err());
        assertTrue(t.run().out().contains("train: Mamba-2 with"), t.run().out());
        MambaLM loaded = assertInstanceOf(MambaLM.class, assertGenerateUsesTheSavedModel(out, t.model()));
        Mamba2Config c = assertInstanceOf(Mamba2Config.class, loaded.config().mixer());
        assertEquals(new Mamba2Config(16, 4, 8, 8, 1, 4, Mamba2Config.DEFAULT_CHUNK), c, "d_inner 32 in heads of 8, N 8");
        assertTrue(Safetensors.read(out.resolve(ModelFiles.WEIGHTS)).tensors().containsKey("backbone.layers.0.mixer.dt_bias"),
                "Hugging Face's Mamba2 keys");

        List<String> rows = Files.readAllLines(out.resolve(RunDirectory.METRICS));
        int loss = List.of(rows.getFirst().split(",")).indexOf("loss");
        double first = Double.parseDouble(rows.get(1).split(",")[loss]), last = Double.parseDouble(rows.getLast().split(",")[loss]);
        assertTrue(last < first - 0.5, "the training loss falls: " + first + " -> " + last);

        CliRun resumed = run("train", "--out", out.toString(), "--resume", "--steps", "42");
        assertEquals(0, resumed.code(), resumed.out() + resumed.err());
        assertTrue(resumed.err().contains("resuming from step 40 of 42") && resumed.out().contains("train: Mamba-2 with"), resumed.out() + resumed.err());
        assertError(run("train", "--out", out.toString(), "--resume", "--head-dim", "4"), "--head-dim 4 differs from the checkpoint's 8");
    }

    @Test
    void should_train_an_moe_with_its_balancing_loss_reported_and_generate_from_it() throws Exception {
        Path out = dir.resolve("moe");
        Trained t = train(out, "--arch", "moe", "--heads", "2", "--experts", "4", "--experts-per-token", "2", "--shared-experts", "1", "--steps", "6");
        assertEquals(0, t.run().code(), t.run().out() + t.run().err());
        assertTrue(t.run().out().contains("train: MoE GPT with"), t.run().out());
        assertTrue(t.run().err().contains(" aux "), "the progress line shows the auxiliary loss: " + t.run().err());
        Gpt loaded = assertInstanceOf(Gpt.class, assertGenerateUsesTheSavedModel(out, t.model()));
        MoeLayers moe = loaded.moe();
        assertEquals(List.of(4, 2, 1, 1), List.of(moe.experts(), moe.topK(), moe.shared(), moe.every()));
        assertEquals(22, moe.hidden(), "⌈8·16 / (3·2)⌉: two routed SwiGLU experts hold the dense MLP's weights");

        List<String> rows = Files.readAllLines(out.resolve(RunDirectory.METRICS));
        int aux = List.of(rows.getFirst().split(",")).indexOf("aux_loss");
        assertTrue(aux > 0, rows.getFirst());
        double balancing = Double.parseDouble(rows.get(1).split(",")[aux]);
        assertTrue(balancing > 0.005 && balancing < 0.05, "0.01 × a balancing loss near 1 (uniform routing): " + balancing);
    }

    @Test
    void should_refuse_flags_of_another_family_naming_the_flag_and_the_family() throws Exception {
        assertError(train(dir.resolve("a"), "--arch", "mamba", "--experts", "4").run(), "--experts applies to --arch moe, not to this run's --arch mamba");
        assertError(train(dir.resolve("b"), "--d-state", "8").run(), "--d-state applies to --arch mamba and mamba2, not to this run's --arch gpt");
        assertError(train(dir.resolve("c"), "--arch", "mamba", "--heads", "2").run(), "--heads applies to --arch gpt and moe, not to this run's --arch mamba");
        assertError(train(dir.resolve("d"), "--arch", "moe", "--experts", "2", "--experts-per-token", "3").run(), "--experts-per-token 3 exceeds --experts 2");
        assertError(train(dir.resolve("f"), "--arch", "mamba", "--head-dim", "8").run(), "--head-dim applies to --arch mamba2, not to this run's --arch mamba");
        assertError(train(dir.resolve("e"), "--arch", "rnn").run(), "--arch must be one of gpt, mamba, mamba2, moe, got 'rnn'");

        Path out = dir.resolve("m");
        assertEquals(0, train(out, "--arch", "mamba", "--steps", "3").run().code());
        assertError(run("train", "--out", out.toString(), "--resume", "--experts", "4"), "--experts applies to --arch moe, not to this run's --arch mamba");
        assertError(run("train", "--out", out.toString(), "--resume", "--d-state", "8"), "--d-state 8 differs from the checkpoint's 16");
    }

    private static void assertError(CliRun r, String message) {
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().strip().startsWith("symbiont train: " + message), r.err());
    }

    /** A model directory written before the family was recorded (GPT config keys only) loads as GPT. */
    @Test
    void should_load_a_model_saved_without_an_architecture_as_gpt() throws Exception {
        CharTokenizer tokenizer = CharTokenizer.fit(TEXT);
        GptConfig config = GptConfig.of(tokenizer.vocabSize(), 16, 1, 2, 16);
        Gpt gpt = new Gpt(config, new Generator(4));
        Path out = dir.resolve("old");
        Files.createDirectories(out);
        tokenizer.save(out.resolve(ModelFiles.TOKENIZER));
        Safetensors.write(out.resolve(ModelFiles.WEIGHTS), gpt.stateDict(), config.toMap());
        Gpt loaded = assertInstanceOf(Gpt.class, assertGenerateUsesTheSavedModel(out, gpt));
        assertEquals(config, loaded.config());
        assertEquals(null, loaded.moe());
    }
}
