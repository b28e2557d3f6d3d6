package dev.symbiont.cli;

import dev.symbiont.io.AtomicFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What a merged model's directory needs beside the weights its layout writes: the base's tokenizer files, so it loads on its own. */
final class MergedModel {
    /** The tokenizer files of Symbiont's runs and of Hugging Face directories (tokenizers' and GPT-2's, SentencePiece's). */
    static final List<String> TOKENIZER_FILES = List.of("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
            "vocab.json", "merges.txt", "tokenizer.model");

    private MergedModel() {}

    /** Copies each tokenizer file {@code base} has into {@code dir}, atomically. */
    static void copyTokenizer(Path base, Path dir) throws IOException {
        for (String name : TOKENIZER_FILES) {
            Path from = base.resolve(name);
            if (Files.isRegularFile(from)) AtomicFiles.write(dir.resolve(name), o -> Files.copy(from, o));
        }
    }
}
