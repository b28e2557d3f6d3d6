package dev.symbiont.text;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.Excerpt;

import java.io.IOException;
import java.nio.file.Path;

/** Loads any tokenizer saved by {@link Tokenizer#save(Path)}, whatever its kind. */
public final class Tokenizers {
    private Tokenizers() {}

    /**
     * Reads the file and builds the tokenizer its "kind" names.
     *
     * @throws IOException naming the file and what is wrong when it is not a valid tokenizer file
     */
    public static Tokenizer load(Path file) throws IOException {
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
