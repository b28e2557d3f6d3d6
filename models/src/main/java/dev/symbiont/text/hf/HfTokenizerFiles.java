package dev.symbiont.text.hf;

import dev.symbiont.io.JsonFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the tokenizer of a Hugging Face model directory: {@code tokenizer.json} when there is one,
 * else GPT-2's {@code vocab.json} + {@code merges.txt}; with {@code tokenizer_config.json} and
 * {@code generation_config.json} from the same directory when present.
 */
final class HfTokenizerFiles {
    private HfTokenizerFiles() {}

    static HfTokenizer load(Path path) throws IOException {
        boolean isDirectory = Files.isDirectory(path);
        Path dir = isDirectory ? path : path.toAbsolutePath().getParent();
        if (!isDirectory) {
            if (!Files.exists(path)) throw new java.nio.file.NoSuchFileException(path.toString());
            if (path.getFileName().toString().equals(Gpt2Files.VOCAB)) return gpt2(path, path.resolveSibling(Gpt2Files.MERGES), dir);
            return tokenizerJson(path, dir);
        }
        Path json = dir.resolve(TokenizerJsonReader.FILE);
        if (Files.isRegularFile(json)) return tokenizerJson(json, dir);
        Path vocab = dir.resolve(Gpt2Files.VOCAB), merges = dir.resolve(Gpt2Files.MERGES);
        if (Files.isRegularFile(vocab) && Files.isRegularFile(merges)) return gpt2(vocab, merges, dir);
        String sentencePiece = Files.exists(dir.resolve("tokenizer.model"))
                ? "; tokenizer.model (a SentencePiece model) is not read: save the tokenizer with transformers to get a tokenizer.json" : "";
        throw new IOException(dir + ": no Hugging Face tokenizer: expected " + TokenizerJsonReader.FILE + ", or "
                + Gpt2Files.VOCAB + " and " + Gpt2Files.MERGES + sentencePiece);
    }

    /**
     * Whether {@code file} is a Hugging Face tokenizer file: GPT-2's vocab.json with merges.txt
     * beside it, or a tokenizer.json (see {@link TokenizerJsonReader#looksLikeTokenizerJson}).
     */
    static boolean isHuggingFaceFile(Path file) throws IOException {
        if (file.getFileName() != null && file.getFileName().toString().equals(Gpt2Files.VOCAB)
                && Files.isRegularFile(file.resolveSibling(Gpt2Files.MERGES))) {
            return true;
        }
        byte[] bytes;
        try (var in = Files.newInputStream(file)) {
            bytes = in.readNBytes(HfJson.MAX_TOKENIZER_BYTES + 1);
        }
        return bytes.length <= HfJson.MAX_TOKENIZER_BYTES && TokenizerJsonReader.looksLikeTokenizerJson(bytes);
    }

    private static HfTokenizer tokenizerJson(Path file, Path dir) throws IOException {
        TokenizerConfig config = TokenizerConfig.read(dir);
        return TokenizerJsonReader.read(file, JsonFiles.readUtf8(file, HfJson.MAX_TOKENIZER_BYTES), config, dir);
    }

    private static HfTokenizer gpt2(Path vocab, Path merges, Path dir) throws IOException {
        if (!Files.isRegularFile(merges)) throw new IOException(vocab + ": GPT-2's vocabulary needs its merges beside it, " + merges);
        return Gpt2Files.read(vocab, merges, TokenizerConfig.read(dir), dir);
    }
}
