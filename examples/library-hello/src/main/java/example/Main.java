package example;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.optim.AdamW;
import dev.symbiont.text.CharTokenizer;

import java.nio.file.Path;
import java.util.Arrays;

public class Main {
    public static void main(String[] args) throws Exception {
        // 1. Choose a backend: "cpu" (needs symbiont-backend-cpu) or "reference"; Backends.describe() lists them.
        Backend cpu = Backends.get("cpu");
        try (var scope = Backends.use(cpu)) {
            // 2. Data: a character tokenizer and (batch, seq) windows of ids with next-character targets.
            String text = "the cat sat on the mat. the dog sat on the log. ".repeat(20);
            CharTokenizer tokenizer = CharTokenizer.fit(text);
            int[] ids = tokenizer.encode(text);
            int batch = 8, seq = 32;

            // 3. Model and optimizer.
            GptConfig config = GptConfig.builder().vocab(tokenizer.vocabSize()).dModel(64).layers(2).heads(4).maxSeq(seq).build();
            Gpt model = new Gpt(config, new Generator(42));
            AdamW optimizer = new AdamW(model.namedParameters(), AdamW.options(3e-3));

            // 4. Train: forward, backward, step.
            Generator rng = new Generator(7);
            for (int step = 1; step <= 100; step++) {
                long[] x = new long[batch * seq], y = new long[batch * seq];
                for (int b = 0; b < batch; b++) {
                    int start = rng.nextInt(ids.length - seq - 1);
                    for (int t = 0; t < seq; t++) {
                        x[b * seq + t] = ids[start + t];
                        y[b * seq + t] = ids[start + t + 1];
                    }
                }
                Tensor loss = model.loss(Tensor.fromArray(x, batch, seq), Tensor.fromArray(y, batch, seq));
                loss.backward();
                optimizer.step();
                optimizer.zeroGrad();
                if (step % 25 == 0) System.out.printf("step %d loss %.3f%n", step, loss.item());
            }

            // 5. Save: the state dict, with the config in the file's metadata.
            Path file = Path.of("target/tiny-gpt.safetensors");
            Safetensors.write(file, model.stateDict(), config.toMap());

            // 6. Load: read() returns a SafetensorsFile record, its tensors by name and its metadata.
            SafetensorsFile saved = Safetensors.read(file);
            Gpt loaded = new Gpt(GptConfig.fromMap(saved.metadata()), new Generator(0));
            loaded.loadStateDict(saved.tensors(), true);

            // 7. Inference without gradients: sample 24 characters after a prompt (prompt + new tokens fit in maxSeq).
            loaded.eval();
            try (var noGrad = GradMode.disabled()) {
                long[] prompt = Arrays.stream(tokenizer.encode("the ")).asLongStream().toArray();
                long[] out = loaded.generate(prompt, 24, new Sampling(0.8, 0, 0.95), new Generator(1));
                System.out.println(tokenizer.decode(Arrays.stream(out).mapToInt(v -> (int) v).toArray()));
            }
        }
    }
}
