package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.text.CharTokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Model directories whose config contradicts their tensors are refused before the model is
 * built, naming the file and the field; non-finite weights and disagreeing tied copies too.
 */
class ModelDirectoryChecksTest {
    private static final String TEXT = "abcdefgh ij";

    private static Path save(Path dir, CausalLM model) throws Exception {
        ModelFiles.save(dir, model, CharTokenizer.fit(TEXT));
        return dir.resolve(ModelFiles.WEIGHTS);
    }

    private static Path gpt(Path dir) throws Exception {
        return save(dir, new Gpt(GptConfig.of(CharTokenizer.fit(TEXT).vocabSize(), 16, 2, 2, 8), new Generator(1)));
    }

    private static Path mamba(Path dir) throws Exception {
        return save(dir, new MambaLM(MambaLMConfig.of(CharTokenizer.fit(TEXT).vocabSize(), 16, 2), new Generator(1)));
    }

    /** Rewrites the file with its metadata and tensors edited. */
    private static void edit(Path weights, Consumer<Map<String, String>> metadata, Consumer<Map<String, Tensor>> tensors) throws Exception {
        SafetensorsFile f = Safetensors.read(weights);
        Map<String, String> meta = new LinkedHashMap<>(f.metadata());
        Map<String, Tensor> t = new LinkedHashMap<>(f.tensors());
        metadata.accept(meta);
        tensors.accept(t);
        Safetensors.write(weights, t, meta);
    }

    @Test
    void aGptDeclaringTensOfThousandsOfLayersIsRefusedNamingTheField(@TempDir Path dir) throws Exception {
        Path weights = gpt(dir);
        for (String layers : new String[] {"46341", "2147483647"}) {
            edit(weights, m -> m.put("n_layers", layers), t -> { });
            var e = assertThrows(IllegalArgumentException.class, () -> ModelFiles.load(dir));
            assertTrue(e.getMessage().startsWith(weights.toString()), e.getMessage());
            assertTrue(e.getMessage().contains("n_layers is " + layers + " but the tensors hold 2 layers"), e.getMessage());
        }
    }

    @Test
    void aMambaDeclaringTensOfThousandsOfLayersIsRefusedNamingTheField(@TempDir Path dir) throws Exception {
        Path weights = mamba(dir);
        edit(weights, m -> m.put("num_hidden_layers", "46341"), t -> { });
        var e = assertThrows(IllegalArgumentException.class, () -> ModelFiles.load(dir));
        assertTrue(e.getMessage().contains(weights + ": its config") && e.getMessage().contains("num_hidden_layers is 46341"), e.getMessage());
    }

    @Test
    void aVocabularyOrWidthTheTensorsDoNotHaveIsRefusedNamingTheKeyAndShapes(@TempDir Path dir) throws Exception {
        Path weights = gpt(dir);
        edit(weights, m -> m.put("d_model", "64"), t -> { });
        var e = assertThrows(IllegalArgumentException.class, () -> ModelFiles.load(dir));
        assertTrue(e.getMessage().startsWith(weights + ": its config and its tensors disagree"), e.getMessage());
        assertTrue(e.getMessage().contains("tok_emb.weight") && e.getMessage().contains("64"), e.getMessage());
        edit(weights, m -> m.put("d_model", "65536"), t -> { });
        var huge = assertThrows(IllegalArgumentException.class, () -> ModelFiles.load(dir));
        assertTrue(huge.getMessage().startsWith(weights + ": its config does not describe a buildable model"), huge.getMessage());
    }

    @Test
    void aContradictingMambaExpandIsRefusedNamingBothFields(@TempDir Path dir) throws Exception {
        Path weights = mamba(dir);
        edit(weights, m -> m.put("expand", "3"), t -> { });
        var e = assertThrows(IllegalArgumentException.class, () -> ModelFiles.load(dir));
        assertTrue(e.getMessage().contains("'expand' = 3 contradicts the inner width 32"), e.getMessage());
        assertTrue(e.getMessage().contains(weights.toString()), e.getMessage());
    }

    @Test
    void nanWeightsAreRefusedUnlessAllowed(@TempDir Path dir) throws Exception {
        Path weights = gpt(dir);
        edit(weights, m -> { }, t -> {
            float[] v = t.get("blocks.1.norm1.weight").toFloatArray();
            v[3] = Float.NaN;
            t.put("blocks.1.norm1.weight", Tensor.fromArray(v, v.length));
        });
        var e = assertThrows(IllegalArgumentException.class, () -> ModelFiles.load(dir));
        assertEquals(weights + ": tensor 'blocks.1.norm1.weight' holds NaN or infinite values "
                + "(refused; load with non-finite weights allowed to read it anyway)", e.getMessage());
        assertTrue(Float.isNaN(ModelFiles.load(dir, true).model().stateDict().get("blocks.1.norm1.weight").toFloatArray()[3]));
    }

    @Test
    void tiedCopiesWithDifferentValuesAreRefusedNamingBothKeys(@TempDir Path dir) throws Exception {
        Path weights = gpt(dir);
        edit(weights, m -> { }, t -> t.put("lm_head.weight", t.get("lm_head.weight").mul(2.0)));
        var e = assertThrows(IllegalArgumentException.class, () -> ModelFiles.load(dir));
        assertTrue(e.getMessage().contains("'tok_emb.weight' and 'lm_head.weight' are one tied parameter"), e.getMessage());
    }

    @Test
    void anUntouchedDirectoryStillLoads(@TempDir Path dir) throws Exception {
        gpt(dir.resolve("g"));
        mamba(dir.resolve("m"));
        assertEquals(CharTokenizer.fit(TEXT).vocabSize(), ModelFiles.load(dir.resolve("g")).model().vocab());
        assertEquals(CharTokenizer.fit(TEXT).vocabSize(), ModelFiles.load(dir.resolve("m")).model().vocab());
    }
}
