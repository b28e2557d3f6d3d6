package dev.symbiont.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.text.CharTokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.*;

/** finetune on a tiny Hugging Face Llama: the adapter in PEFT's layout, a checkpoint of the adapters alone, resume, merge, bad flags. */
class FinetuneCommandTest {
    private static final String TEXT = "abcdefgh ij ";

    @TempDir
    Path tmp;

    /** A one-layer Llama with a char tokenizer of TEXT's characters, and a corpus of TEXT repeated. */
    private Path base() throws Exception {
        CharTokenizer tokenizer = CharTokenizer.fit(TEXT);
        Path dir = HuggingFaceModelCommandTest.llama(tmp.resolve("llama"), tokenizer.vocabSize());
        tokenizer.save(dir.resolve("tokenizer.json"));
        Files.writeString(tmp.resolve("corpus.txt"), TEXT.repeat(80));
        return dir;
    }

    private CliRun finetune(String... more) {
        List<String> args = new ArrayList<>(List.of("finetune", "--out", tmp.resolve("out").toString(), "--batch", "2", "--context", "8",
                "--eval-every", "2", "--lr", "1e-2", "--backend", "cpu"));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    private String[] fresh(String... more) {
        List<String> args = new ArrayList<>(List.of("--model", tmp.resolve("llama").toString(), "--corpus", tmp.resolve("corpus.txt").toString()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void should_write_a_peft_adapter_and_a_checkpoint_of_the_adapters_then_resume() throws Exception {
        base();
        CliRun r = finetune(fresh("--steps", "4"));
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("finetune: LoRA r=8, alpha=16, dropout=0.05 on [q_proj, v_proj] (2 modules); trainable params: 224 ||"),
                r.out());                                                          // q_proj A 8×8 + B 8×8, v_proj A 8×8 + B 4×8
        Path out = tmp.resolve("out");
        JsonNode config = new ObjectMapper().readTree(out.resolve("adapter_config.json").toFile());
        assertEquals("LORA", config.get("peft_type").asText());
        assertEquals("[\"q_proj\",\"v_proj\"]", config.get("target_modules").toString());
        assertEquals(tmp.resolve("llama").toString(), config.get("base_model_name_or_path").asText());
        assertEquals(List.of("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight",
                        "base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight", "base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight"),
                Safetensors.header(out.resolve("adapter_model.safetensors")).tensors().keySet().stream().sorted().toList());
        var checkpoint = Safetensors.header(out.resolve("checkpoint.safetensors"));
        assertEquals(4, checkpoint.tensors().keySet().stream().filter(k -> k.startsWith("model.")).count(), "the adapters alone");
        assertEquals(tmp.resolve("llama").toString(), checkpoint.metadata().get("base.path"));
        assertEquals(32, checkpoint.metadata().get("base.fingerprint").length());

        CliRun resumed = finetune("--resume", "--steps", "6");
        assertEquals(0, resumed.code(), resumed.out() + resumed.err());
        assertTrue(resumed.out().contains("finetune: 2 steps in") && resumed.out().contains("(from step 4 to 6)"), resumed.out());
        assertEquals("6", Safetensors.header(out.resolve("checkpoint.safetensors")).metadata().get("step"));

        CliRun generated = run("generate", "--model", tmp.resolve("llama").toString(), "--adapter", out.toString(), "--prompt", "abc",
                "--tokens", "5", "--temperature", "0", "--backend", "cpu");
        assertEquals(0, generated.code(), generated.out() + generated.err());
        assertEquals(8, generated.out().strip().length(), generated.out());
    }

    @Test
    void should_refuse_to_resume_on_other_weights_naming_both() throws Exception {
        Path llama = base();
        assertEquals(0, finetune(fresh("--steps", "2")).code());
        Path weights = llama.resolve("model.safetensors");
        Map<String, Tensor> tensors = new LinkedHashMap<>(Safetensors.read(weights).tensors());
        tensors.put("model.norm.weight", tensors.get("model.norm.weight").add(1));
        Safetensors.write(weights, tensors, Map.of("format", "pt"));
        CliRun r = finetune("--resume", "--steps", "4");
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("fine-tunes " + llama + " (weights ") && r.err().contains("but " + llama + " holds other weights"), r.err());
    }

    @Test
    void should_merge_into_a_model_that_generates_as_base_and_adapter_do() throws Exception {
        base();
        assertEquals(0, finetune(fresh("--steps", "4", "--target", "q_proj,v_proj,down_proj", "--merge")).code());
        Path merged = tmp.resolve("out/merged");
        for (String f : new String[] {"config.json", "model.safetensors", "tokenizer.json"}) assertTrue(Files.exists(merged.resolve(f)), f);
        CliRun fromMerged = run("generate", "--model", merged.toString(), "--prompt", "abc", "--tokens", "12", "--temperature", "0", "--backend", "cpu");
        CliRun withAdapter = run("generate", "--model", tmp.resolve("llama").toString(), "--adapter", tmp.resolve("out").toString(),
                "--prompt", "abc", "--tokens", "12", "--temperature", "0", "--backend", "cpu");
        assertEquals(0, fromMerged.code(), fromMerged.err());
        assertEquals(withAdapter.out(), fromMerged.out());
    }

    @Test
    void ctrl_c_stops_after_the_step_saves_the_adapter_and_says_how_to_continue() throws Exception {
        base();
        List<String> args = new ArrayList<>(List.of("finetune", "--out", tmp.resolve("out").toString(), "--batch", "2", "--context", "8",
                "--backend", "cpu", "--merge"));
        args.addAll(List.of(fresh("--steps", "40")));
        CliRun r = run(cli -> ((FinetuneCommand) cli.getSubcommands().get("finetune").getCommand()).ctrlC.press(), args.toArray(String[]::new));
        assertEquals(130, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("finetune: stopping after the first step"), r.err());
        assertTrue(r.out().contains("finetune: not merged: the run stopped before --steps"), r.out());
        assertTrue(r.out().contains("finetune: interrupted at step 1 of 40; checkpoint in " + tmp.resolve("out/checkpoint.safetensors")
                + ". Continue with: symbiont finetune --out " + tmp.resolve("out") + " --resume"), r.out());
        assertTrue(Files.exists(tmp.resolve("out/adapter_model.safetensors")));
        assertFalse(Files.exists(tmp.resolve("out/merged")));
    }

    @Test
    void should_refuse_bad_flags_naming_them() throws Exception {
        base();
        assertRefused(finetune(fresh("--r", "0")), "--r must be a positive integer, got 0");
        assertRefused(finetune(fresh("--dropout", "1")), "--dropout must be in [0, 1), got 1.0");
        assertRefused(finetune(fresh("--target", "q_proj,,v_proj")), "--target 'q_proj,,v_proj' has an empty name");
        assertRefused(finetune(fresh("--target", "c_attn")), "--target c_attn: Lora.apply: target_modules [c_attn] matches no linear layer");
        assertRefused(finetune("--corpus", tmp.resolve("corpus.txt").toString()), "--model is required");
        assertRefused(run("finetune", "--model", tmp.resolve("llama").toString(), "--corpus", tmp.resolve("corpus.txt").toString(),
                "--out", tmp.resolve("out").toString(), "--context", "100"), "--context 100 exceeds the model's context of 64 tokens");
    }

    private static void assertRefused(CliRun r, String message) {
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("symbiont finetune: " + message), r.err());
    }
}
