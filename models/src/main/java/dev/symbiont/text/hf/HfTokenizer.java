package dev.symbiont.text.hf;

import dev.symbiont.io.AtomicFiles;
import dev.symbiont.io.Utf8;
import dev.symbiont.text.Tokenizer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A Hugging Face tokenizer: a {@code tokenizer.json} (byte-level BPE as GPT-2, Llama 3 and Qwen2
 * ship it, or SentencePiece-style BPE with byte fallback as Llama 2 and Mistral do), or GPT-2's
 * {@code vocab.json} + {@code merges.txt}, with the special tokens of {@code tokenizer_config.json}.
 * Encoding runs Hugging Face's pipeline: added tokens are cut out first (never split), each
 * stretch between them is normalized, pre-tokenized into words, and each word BPE-encoded; then
 * the post-processor's special tokens (a BOS) are put around the ids.
 *
 * <p>Load one with {@link dev.symbiont.text.Tokenizers#load(Path)} (a model directory or a file).
 *
 * <p>Round trips: byte-level tokenizers decode their ids to exactly the text. SentencePiece-style
 * ones give the text as Hugging Face does: the "▁" put before the text is dropped again, so a
 * text that itself starts with a space comes back without it (Llama 2's {@code Strip} decoder
 * removes one leading space).
 */
public final class HfTokenizer implements Tokenizer {
    /** Writes the tokenizer.json this tokenizer was read from, or one equivalent to it. */
    @FunctionalInterface
    interface Source {
        void writeTo(OutputStream out) throws IOException;
    }

    private final PreTokenizer preTokenizer;
    private final BpeModel model;
    private final AddedTokens added;
    private final Decoder decoder; // null: tokens joined with spaces
    private final SpecialTokens specials;
    private final Source source;
    private final int vocabSize;

    HfTokenizer(Normalizer normalizer, PreTokenizer preTokenizer, BpeModel model, Decoder decoder,
                SpecialTokens specials, Source source) {
        this.preTokenizer = preTokenizer;
        this.model = model;
        this.added = new AddedTokens(specials.added(), normalizer);
        this.decoder = decoder;
        this.specials = specials;
        this.source = source;
        int limit = model.idLimit();
        for (AddedToken t : specials.added()) limit = Math.max(limit, t.id() + 1);
        this.vocabSize = limit;
    }

    /**
     * Loads a Hugging Face tokenizer: a model directory (its {@code tokenizer.json}, else GPT-2's
     * {@code vocab.json} + {@code merges.txt}), a {@code tokenizer.json}, or a {@code vocab.json}
     * with {@code merges.txt} beside it; {@code tokenizer_config.json} and
     * {@code generation_config.json} are read from the same directory when present.
     *
     * @throws IOException naming the file, and the JSON path or line, of anything malformed or unsupported
     */
    public static HfTokenizer load(Path path) throws IOException {
        return HfTokenizerFiles.load(path);
    }

    /**
     * Whether {@code file} is a Hugging Face tokenizer file (a tokenizer.json, or GPT-2's vocab.json
     * with merges.txt beside it) rather than one of this library's own tokenizer files.
     */
    public static boolean isHuggingFaceFile(Path file) throws IOException {
        return HfTokenizerFiles.isHuggingFaceFile(file);
    }

    /** The ids of {@code text} with the special tokens the tokenizer adds (transformers' {@code encode(text)}). */
    @Override
    public int[] encode(String text) {
        return encode(text, true);
    }

    /**
     * The ids of {@code text}; with {@code addSpecialTokens}, the post-processor's tokens around
     * them (Llama's BOS). Added tokens written in the text (e.g. {@code <|begin_of_text|>}) are
     * always their own ids, whichever the flag.
     *
     * @throws IllegalArgumentException naming the index of a lone surrogate (it has no UTF-8), or a
     *                                  character the vocabulary cannot express (no byte fallback, no unk_token)
     */
    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
        checkNoLoneSurrogates(text);
        IdBuffer ids = new IdBuffer();
        if (addSpecialTokens) ids.addAll(specials.template().prefix());
        List<Piece> words = new ArrayList<>();
        for (AddedTokens.Segment segment : added.split(text)) {
            if (segment.id() >= 0) {
                ids.add(segment.id());
                continue;
            }
            words.clear();
            preTokenizer.split(new Piece(segment.text(), segment.atStart()), words);
            for (Piece word : words) model.encode(word.text(), ids);
        }
        if (addSpecialTokens) ids.addAll(specials.template().suffix());
        return ids.toArray();
    }

    /** The tokens {@code text} encodes to, without special tokens (transformers' {@code tokenize}). */
    public List<String> tokenize(String text) {
        List<String> tokens = new ArrayList<>();
        for (int id : encode(text, false)) tokens.add(idToToken(id));
        return tokens;
    }

    /** The text of {@code ids}, special tokens included. */
    @Override
    public String decode(int[] ids) {
        return decode(ids, false);
    }

    /**
     * The text of {@code ids}, leaving out special tokens when {@code skipSpecialTokens}.
     * Follows the {@code tokenizers} library: transformers' optional
     * {@code clean_up_tokenization_spaces} rewrite is not applied, so byte-level decoding is exact.
     *
     * @throws IllegalArgumentException naming the first id that has no token
     */
    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        List<String> tokens = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            AddedToken special = added.get(ids[i]);
            String token = special != null ? special.content() : model.token(ids[i]);
            if (token == null) {
                throw new IllegalArgumentException("tokenizer: id " + ids[i] + " at position " + i
                        + (ids[i] >= 0 && ids[i] < vocabSize ? " has no token" : " is outside the vocabulary [0, " + vocabSize + ")"));
            }
            if (skipSpecialTokens && special != null && special.special()) continue;
            tokens.add(token);
        }
        return decoder == null ? String.join(" ", tokens) : String.join("", decoder.decode(tokens));
    }

    /** One more than the largest id, added tokens included (GPT-2: 50257). */
    @Override
    public int vocabSize() { return vocabSize; }

    /** The id of a token (an added token, or one of the model's vocabulary), or empty. */
    public OptionalInt tokenToId(String token) {
        int id = added.id(token);
        if (id < 0) id = model.id(token);
        return id < 0 ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /** The token of {@code id} as the vocabulary writes it ("Ġworld" in byte-level ones), or null when there is none. */
    public String idToToken(int id) {
        AddedToken special = added.get(id);
        return special != null ? special.content() : model.token(id);
    }

    /** The added tokens (special or not), by id order. */
    public List<AddedToken> addedTokens() {
        return specials.added().stream().sorted(java.util.Comparator.comparingInt(AddedToken::id)).toList();
    }

    @Override
    public OptionalInt bosId() { return specials.bos(); }

    @Override
    public int[] eosIds() { return specials.eos().clone(); }

    @Override
    public OptionalInt padId() { return specials.pad(); }

    @Override
    public OptionalInt modelMaxLength() { return specials.modelMaxLength(); }

    /** The ids {@code encode(text, true)} puts before the text's. */
    public int[] prefixIds() { return specials.template().prefix().clone(); }

    /** The ids {@code encode(text, true)} puts after the text's. */
    public int[] suffixIds() { return specials.template().suffix().clone(); }

    /**
     * Writes Hugging Face's tokenizer.json, atomically: the file this tokenizer was read from, or
     * (from vocab.json + merges.txt) the one transformers would make of them. tokenizer_config.json
     * is not written.
     */
    @Override
    public void save(Path file) throws IOException {
        AtomicFiles.write(file, source::writeTo);
    }

    private static void checkNoLoneSurrogates(String text) {
        int i = Utf8.firstLoneSurrogate(text);
        if (i >= 0) {
            throw new IllegalArgumentException(String.format(
                    "tokenizer: lone surrogate U+%04X at index %d has no UTF-8 encoding", (int) text.charAt(i), i));
        }
    }
}
