package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.GenerationConfig;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.text.CharTokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.*;

/** generate --model opens a Hugging Face directory through the models' entry point when it can read the tokenizer. */
class HuggingFaceModelCommandTest {
    private static final String TEXT = "abcdefgh ij";

    /** A one-layer LlamaForCausalLM of the char tokenizer's vocabulary, random weights, under Hugging Face's keys. */
    static Path llama(Path dir, int vocab) throws Exception {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), """
                {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": %d, "hidden_size": 8,
                 "intermediate_size": 12, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
                 "max_position_embeddings": 64, "tie_word_embeddings": true}""".formatted(vocab));
        Map<String, int[]> shapes = new LinkedHashMap<>();
        shapes.put("model.embed_tokens.weight", new int[] {vocab, 8});
        shapes.put("model.layers.0.input_layernorm.weight", new int[] {8});
        shapes.put("model.layers.0.self_attn.q_proj.weight", new int[] {8, 8});
        shapes.put("model.layers.0.self_attn.k_proj.weight", new int[] {4, 8});
        shapes.put("model.layers.0.self_attn.v_proj.weight", new int[] {4, 8});
        shapes.put("model.layers.0.self_attn.o_proj.weight", new int[] {8, 8});
        shapes.put("model.layers.0.post_attention_layernorm.weight", new int[] {8});
        shapes.put("model.layers.0.mlp.gate_proj.weight", new int[] {12, 8});
        shapes.put("model.layers.0.mlp.up_proj.weight", new int[] {12, 8});
        shapes.put("model.layers.0.mlp.down_proj.weight", new int[] {8, 12});
        shapes.put("model.norm.weight", new int[] {8});
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        Generator g = new Generator(5);
        shapes.forEach((k, s) -> tensors.put(k, Tensor.randn(g, s)));
        Safetensors.write(dir.resolve("model.safetensors"), tensors, Map.of("format", "pt"));
        return dir;
    }

    @Test
    void should_generate_from_a_hugging_face_directory_whose_tokenizer_it_reads(@TempDir Path tmp) throws Exception {
        CharTokenizer tokenizer = CharTokenizer.fit(TEXT);
        Path dir = llama(tmp.resolve("llama"), tokenizer.vocabSize());
        tokenizer.save(dir.resolve("tokenizer.json"));
        CliRun r = run("generate", "--model", dir.toString(), "--prompt", "abc", "--tokens", "5", "--temperature", "0");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("abc") && r.out().strip().length() == 8, r.out());
    }

    /** generation_config.json's greedy decoding, stop ids and length drive the command; each flag overrides its one setting. */
    @Test
    void should_take_its_defaults_from_generation_config_and_let_flags_override_them(@TempDir Path tmp) throws Exception {
        CharTokenizer tokenizer = CharTokenizer.fit(TEXT);
        Path dir = llama(tmp.resolve("llama"), tokenizer.vocabSize());
        tokenizer.save(dir.resolve("tokenizer.json"));
        long[] prompt = java.util.Arrays.stream(tokenizer.encode("abc")).asLongStream().toArray();
        PretrainedModel p = PretrainedModels.load(dir);
        long[] free = p.generate(prompt, 12, new Generator(0));
        long stop = free[3 + 3];                                      // the fourth new token's id stops generation where it first comes
        int first = 3;
        while (free[first] != stop) first++;
        Files.writeString(dir.resolve("generation_config.json"), """
                {"do_sample": false, "max_new_tokens": 12, "eos_token_id": [%d, %d]}""".formatted(tokenizer.vocabSize() + 3, stop));

        CliRun r = run("generate", "--model", dir.toString(), "--prompt", "abc");
        assertEquals(0, r.code(), r.err());
        assertEquals(decode(tokenizer, java.util.Arrays.copyOf(free, first + 1)) + System.lineSeparator(), r.out(),
                "greedy, as generation_config.json says, up to and with its second eos id");
        assertTrue(r.err().matches("(?s)generate: prompt 3 tokens in [0-9.]+ s \\([0-9.]+ tokens/s\\); " + (first + 1 - 3)
                + " new tokens, decoding [0-9.]+ tokens/s\\R"), r.err());

        CliRun o = run("generate", "--model", dir.toString(), "--prompt", "abc", "--temperature", "1.3", "--top-k", "5", "--top-p", "0.9",
                "--repetition-penalty", "1.4", "--max-new-tokens", "7", "--seed", "4");
        assertEquals(0, o.code(), o.err());
        GenerationConfig expected = p.generation().withSampling(new Sampling(1.3, 5, 0.9, 1.4)).withMaxNewTokens(7);
        assertEquals(decode(tokenizer, p.generate(prompt, expected, new Generator(4))) + System.lineSeparator(), o.out());
    }

    private static String decode(CharTokenizer t, long[] ids) { return t.decode(java.util.Arrays.stream(ids).mapToInt(v -> (int) v).toArray()); }

    @Test
    void should_say_when_it_cannot_read_a_hugging_face_tokenizer(@TempDir Path tmp) throws Exception {
        Path dir = llama(tmp.resolve("llama"), 11);
        Files.writeString(dir.resolve("tokenizer.json"), "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\"}}");
        CliRun r = run("generate", "--model", dir.toString(), "--prompt", "abc");
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("symbiont generate: " + dir + " is a Hugging Face model directory, whose tokenizer Symbiont "
                + "cannot read yet: " + dir.resolve("tokenizer.json")), r.err());
    }
}
