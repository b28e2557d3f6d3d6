package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.nn.LoadReport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Checkpoints written by the GPT of commit 443b69f, before blocks took pluggable mixers, must
 * still load strictly and give the logits recorded then (to float rounding). Each {@code <name>.safetensors} is
 * what the CLI's {@code model.safetensors} holds (the state dict, the config in the metadata);
 * {@code <name>.logits.safetensors} holds the input {@code ids} (2, 7) and the {@code logits}
 * (2, 7, 11) that model computed in eval mode. {@code gpt2-tiny} is {@code GptConfig.of(11, 8,
 * 2, 2, 8).withFfSize(16)}; {@code llama-tiny} adds one kv head, RMSNorm, SwiGLU, RoPE (its
 * config predates the saved {@code rope_theta}) and an untied head. Both were drawn from
 * {@code new Gpt(config, new Generator(2024), 0.3)}. Do not regenerate them with newer code.
 */
class LegacyCheckpointTest {
    private static SafetensorsFile resource(String name) throws Exception {
        return Safetensors.read(Path.of(LegacyCheckpointTest.class.getResource(name).toURI()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpt2-tiny", "llama-tiny"})
    void should_load_a_checkpoint_from_before_mixers_strictly_with_the_same_logits(String name) throws Exception {
        SafetensorsFile checkpoint = resource(name + ".safetensors"), expected = resource(name + ".logits.safetensors");
        assertFalse(checkpoint.metadata().containsKey("rope_theta"), "written before RoPE's base was saved");
        GptConfig config = GptConfig.fromMap(checkpoint.metadata());
        assertEquals(GptConfig.DEFAULT_ROPE_THETA, config.ropeTheta());
        Gpt model = new Gpt(config, new Generator(0));
        LoadReport report = model.loadStateDict(checkpoint.tensors(), true);
        assertTrue(report.isClean(), report.toString());
        assertEquals(checkpoint.tensors().keySet(), model.stateDict().keySet(), "the same keys in the same order");
        model.eval();
        try (var noGrad = GradMode.disabled()) {
            Tensor logits = model.forward(expected.tensors().get("ids"));
            // Equal up to summation order: the vector width (AVX2 or AVX-512) changes how dot products are added up.
            assertArrayEquals(expected.tensors().get("logits").toFloatArray(), logits.toFloatArray(), 1e-5f, name + ": logits");
        }
    }
}
