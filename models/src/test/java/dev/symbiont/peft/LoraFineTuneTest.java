package dev.symbiont.peft;

import dev.symbiont.core.Generator;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.TokenWindows;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.optim.AdamW;
import dev.symbiont.train.Trainer;
import dev.symbiont.train.TrainerConfig;
import dev.symbiont.train.TrainingCheckpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** LoRA fine-tuning through the Trainer: the held-out loss falls, and checkpoints hold and resume the adapters alone. */
class LoraFineTuneTest {
    private static final int CONTEXT = 12, BATCH = 4;

    @TempDir
    Path tmp;

    /** A repetitive corpus of the tiny Llama's vocabulary: a 9-token phrase over and over. */
    private static int[] corpus() {
        int[] phrase = {3, 14, 15, 9, 26, 5, 3, 5, 8};
        int[] ids = new int[900];
        for (int i = 0; i < ids.length; i++) ids[i] = phrase[i % phrase.length];
        return ids;
    }

    private static DataLoader<SequenceExample, SequenceBatch> loader(int[] ids, long seed, String name) {
        return DataLoader.builder(new TokenWindows(ids, CONTEXT, CONTEXT / 2), SequenceExample::collate)
                .batchSize(BATCH).shuffle(seed).dropLast(true).name(name).build();
    }

    private Trainer<SequenceBatch> trainer(LoraModel lora, int steps, Path checkpoint, boolean resume) {
        int[] ids = corpus();
        var train = loader(Arrays.copyOfRange(ids, 0, 720), 1, "train");
        var val = loader(Arrays.copyOfRange(ids, 720, ids.length), 2, "val");
        var model = lora.model();
        Trainer.LossFunction<SequenceBatch> loss = b -> model.loss(b.input(), b.target());
        TrainerConfig config = TrainerConfig.steps(steps).withEval(steps, 4).withProgress(TrainerConfig.ProgressMode.NONE, System.err);
        if (checkpoint != null) config = config.withCheckpoint(checkpoint, 2, resume);
        return Trainer.builder(model, new AdamW(lora.parameterGroups(0), AdamW.options(1e-2)), train, loss)
                .eval(val, loss).config(config).checkpointState(TrainingCheckpoint.ModelState.TRAINABLE).build();
    }

    private LoraModel adapted(PretrainedModel base) {
        return Lora.apply(base.model(), ModuleNames.of(base.layout()), LoraConfig.of(4, 8, 0.05, "q_proj", "v_proj", "o_proj"),
                new Generator(11));
    }

    @Test
    void a_lora_fine_tune_of_a_tiny_llama_lowers_the_held_out_loss() throws IOException {
        PretrainedModel base = TinyBases.llama(tmp.resolve("base"));
        String baseWeights = WeightFingerprint.of(base.model());
        LoraModel lora = adapted(base);
        Trainer<SequenceBatch> trainer = trainer(lora, 40, null, false);
        double before = trainer.evaluate();
        Trainer.Result result = trainer.fit();
        System.out.printf("LoRA fine-tune: held-out loss %.4f -> %.4f%n", before, result.evalLoss());
        assertTrue(result.evalLoss() < 0.5 * before, "held-out loss " + before + " -> " + result.evalLoss());
        lora.unload();
        assertEquals(baseWeights, WeightFingerprint.of(base.model()), "the frozen base did not move");
    }

    @Test
    void checkpoints_hold_only_the_adapters_and_a_resumed_run_ends_where_an_unbroken_one_does() throws IOException {
        Path dir = tmp.resolve("base");
        TinyBases.llamaDir(dir);
        LoraModel unbroken = adapted(PretrainedModels.load(dir));
        trainer(unbroken, 4, null, false).fit();

        Path checkpoint = tmp.resolve("run/checkpoint.safetensors");
        trainer(adapted(PretrainedModels.load(dir)), 2, checkpoint, false).fit();
        var header = Safetensors.header(checkpoint);
        List<String> modelKeys = header.tensors().keySet().stream().filter(k -> k.startsWith("model.")).sorted().toList();
        assertEquals(12, modelKeys.size(), "A and B of 3 projections in 2 layers: " + modelKeys);
        assertTrue(modelKeys.stream().allMatch(k -> k.endsWith(".lora_A.weight") || k.endsWith(".lora_B.weight")), modelKeys.toString());
        assertEquals("trainable", header.metadata().get("model_state"));

        LoraModel resumed = adapted(PretrainedModels.load(dir));
        Trainer.Result r = trainer(resumed, 4, checkpoint, true).fit();
        assertEquals(2, r.startStep());
        Map<String, dev.symbiont.core.Tensor> expected = unbroken.adapterStateDict(), got = resumed.adapterStateDict();
        expected.forEach((k, t) -> assertArrayEquals(t.toFloatArray(), got.get(k).toFloatArray(), k + " bit for bit"));
    }

    @Test
    void a_checkpoint_of_other_adapters_is_refused_listing_the_keys() throws IOException {
        Path dir = tmp.resolve("base");
        TinyBases.llamaDir(dir);
        Path checkpoint = tmp.resolve("run/checkpoint.safetensors");
        trainer(adapted(PretrainedModels.load(dir)), 2, checkpoint, false).fit();
        PretrainedModel base = PretrainedModels.load(dir);
        LoraModel other = Lora.apply(base, LoraConfig.of(4, 8, 0, "q_proj", "v_proj"));
        var e = assertThrows(IOException.class, () -> trainer(other, 4, checkpoint, true).fit());
        assertTrue(e.getMessage().contains("trainable parameters of another model") && e.getMessage().contains("blocks.0.attn.out_proj.lora_A.weight"),
                e.getMessage());
    }
}
