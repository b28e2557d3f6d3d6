package dev.symbiont.fuzz;

import dev.symbiont.core.Generator;
import dev.symbiont.io.ConfigPreflight;
import dev.symbiont.io.NonFiniteWeights;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A model file of the GPT or Mamba families loaded as a model directory loads it: the config in
 * the metadata checked against the tensors on the meta device ({@link ConfigPreflight}), the
 * weights checked for non-finite values, then the model built and loaded strictly. A refusal is
 * an {@link IOException} or an {@link IllegalArgumentException} naming the file (rethrown here as
 * the former); a load is consistent when the model's state dict has the file's keys.
 */
final class ModelFileTarget implements FuzzTarget {
    @Override public String name() { return "model"; }

    @Override public String suffix() { return ".safetensors"; }

    @Override public Class<? extends Exception> failure() { return IOException.class; }

    static CausalLM build(Map<String, String> metadata) {
        return switch (metadata.getOrDefault(CausalLM.ARCHITECTURE, "gpt")) {
            case "gpt" -> new Gpt(GptConfig.fromMap(metadata), new Generator(0), Gpt.GPT2_INIT_STD);
            case "mamba", "mamba2" -> new MambaLM(MambaLMConfig.fromMap(metadata), new Generator(0));
            default -> throw new IllegalArgumentException("architecture " + metadata.get(CausalLM.ARCHITECTURE) + " is not known");
        };
    }

    @Override
    public Object load(Path file) throws Exception {
        try {
            SafetensorsHeader header = Safetensors.header(file);
            ConfigPreflight.check(file, header, "", () -> build(header.metadata()));
            SafetensorsFile f = Safetensors.read(file);
            NonFiniteWeights.check(file, f.tensors(), false);
            CausalLM model = build(f.metadata());
            try {
                model.loadStateDict(f.tensors(), true);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + e.getMessage(), e);   // as the model directory's loader names it
            }
            return model;
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public void check(Object loaded, Path file, byte[] bytes) throws Exception {
        assertEquals(Safetensors.header(file).tensors().keySet(), ((CausalLM) loaded).stateDict().keySet());
    }

    /**
     * Building a model allocates its module objects and initialisation temporaries besides the
     * weights: a fixed 64 MiB (the first load also warms the library up) plus the usual bound.
     * What matters is that the bound does not grow with what the config declares.
     */
    @Override
    public long allocationBound(byte[] input) { return (64L << 20) + Fuzzer.allocationBound(input.length); }

    @Override
    public List<Mutation> formatMutations(Mutation generic) {
        return List.of(MetadataEdits::editValue, MetadataEdits::editValue, (in, rng) -> SafetensorsTarget.editHeader(in, rng, generic));
    }
}
