package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Symbiont's own run directories open through the same entry point as Hugging Face's. */
class PretrainedModelsTest {
    private static final Tensor IDS = Tensor.fromArray(new long[] {1, 4, 2, 7, 3}, 1, 5);

    @Test
    void a_gpt_and_a_mamba_run_directory_load_with_their_logits_and_save_back(@TempDir Path tmp) throws Exception {
        List<CausalLM> models = List.of(new Gpt(GptConfig.of(11, 16, 2, 2, 8), new Generator(1), 0.3),
                new MambaLM(MambaLMConfig.of(11, 16, 2), new Generator(2)));
        for (CausalLM original : models) {
            Path dir = tmp.resolve(original.getClass().getSimpleName());
            original.eval();
            // as `symbiont train` writes it: the state dict with the family and config as metadata
            Safetensors.write(dir.resolve(SymbiontModelDirectory.WEIGHTS), original.stateDict(), original.metadata());
            PretrainedModel p = PretrainedModels.load(dir);
            assertEquals(original.getClass(), p.model().getClass());
            assertEquals("symbiont", p.layout().describe());
            assertEquals(GenerationConfig.DEFAULT, p.generation());
            assertEquals(0, original.forward(IDS).sub(p.model().forward(IDS)).abs().max().item(), "same weights, same logits");
            p.save(tmp.resolve("copy"));
            assertEquals(original.metadata(), Safetensors.header(tmp.resolve("copy").resolve(SymbiontModelDirectory.WEIGHTS)).metadata());
            assertEquals(0, original.forward(IDS).sub(PretrainedModels.load(tmp.resolve("copy")).model().forward(IDS)).abs().max().item());
        }
    }

    @Test
    void a_gpt_saved_before_its_architecture_was_recorded_loads_as_gpt(@TempDir Path dir) throws Exception {
        Gpt gpt = new Gpt(GptConfig.of(11, 16, 1, 2, 8), new Generator(3));
        Safetensors.write(dir.resolve(SymbiontModelDirectory.WEIGHTS), gpt.stateDict(), gpt.config().toMap());
        assertInstanceOf(Gpt.class, PretrainedModels.load(dir).model());
    }

    @Test
    void a_directory_of_neither_layout_is_refused_naming_both(@TempDir Path dir) throws Exception {
        Safetensors.write(dir.resolve("model.safetensors"), Map.of("w", Tensor.zeros(2)));
        var e = assertThrows(IOException.class, () -> PretrainedModels.load(dir));
        assertTrue(e.getMessage().contains("holds no model: neither a Hugging Face config.json nor a model.safetensors with Symbiont's metadata"),
                e.getMessage());
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertTrue(assertThrows(IOException.class, () -> PretrainedModels.load(file)).getMessage().endsWith("is a file; a model is a directory"));
    }
}
