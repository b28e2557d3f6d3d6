package dev.symbiont.text;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.Excerpt;
import dev.symbiont.text.hf.HfTokenizer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Loads any tokenizer saved by {@link Tokenizer#save(Path)}, whatever its kind, and Hugging Face's. */
public final class Tokenizers {
    /** The tokenizer file of a directory, this library's or Hugging Face's. */
    public static final String FILE = "tokenizer.json";

    private Tokenizers() {}

    /**
     * Reads a tokenizer from a file or a directory. A directory is a run directory of this
     * library or a Hugging Face model directory: its tokenizer.json (either format), else GPT-2's
     * vocab.json + merges.txt. A file is a tokenizer file of this library (its "kind" says which)
     * a Hugging Face tokenizer.json (it has a "model"), or GPT-2's vocab.json with merges.txt beside it; see {@link HfTokenizer#load(Path)}.
     *
     * @throws IOException naming the file and what is wrong when it is not a valid tokenizer
     */
    public static Tokenizer load(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            Path file = path.resolve(FILE);
            if (Files.isRegularFile(file) && !HfTokenizer.isHuggingFaceFile(file)) return loadOwn(file);
            return HfTokenizer.load(path);
        }
        if (HfTokenizer.isHuggingFaceFile(path)) return HfTokenizer.load(path);
        return loadOwn(path);
    }

    /** A file written by {@link Tokenizer#save(Path)} of {@link CharTokenizer} or {@link BpeTokenizer}. */
    private static Tokenizer loadOwn(Path file) throws IOException {
        ObjectNode root = TokenizerJson.read(file);
        String kind = TokenizerJson.kind(file, root);
        return switch (kind) {
            case CharTokenizer.KIND -> CharTokenizer.fromJson(file, root);
            case BpeTokenizer.KIND -> BpeTokenizer.fromJson(file, root);
            default -> throw TokenizerJson.malformed(file, "unknown tokenizer kind " + Excerpt.quote(kind)
                    + "; expected \"" + CharTokenizer.KIND + "\" or \"" + BpeTokenizer.KIND + "\"");
        };
    }
}
