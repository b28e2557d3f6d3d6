package dev.symbiont.text.hf;

import dev.symbiont.io.Excerpt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The BPE model of a Hugging Face tokenizer: a vocabulary of strings and ranked merges. A word
 * starts as one token per character (with {@code byte_fallback}, an unknown character as its
 * UTF-8 bytes {@code <0xNN>}; otherwise as {@code unk_token}), then merges apply lowest rank first
 * ({@link WordMerger}). With {@code ignore_merges} (Llama 3) a word that is itself in the
 * vocabulary is taken whole. Results are cached per word, as Hugging Face does.
 */
final class BpeModel {
    /** Options of the "model" object besides vocab and merges. */
    record Options(String unkToken, boolean fuseUnk, boolean byteFallback, boolean ignoreMerges) {}

    private static final int CACHE_CAPACITY = 10_000;
    private static final int MAX_CACHED_LENGTH = 256;

    private final Map<String, Integer> vocab;
    private final String[] tokens;       // id -> token; null where no token has the id
    private final int[] charIds;         // BMP char -> id of the one-char token, -1 where none
    private final int[] byteIds;         // byte -> id of <0xNN>, -1 where none or no byte fallback
    private final PairRanks ranks;
    private final int[] mergeLeft, mergeRight, mergeResult; // by rank
    private final int unkId;
    private final Options options;
    private final Map<String, int[]> cache = new ConcurrentHashMap<>();

    /**
     * Checks every merge names tokens of the vocabulary, its concatenation included, as Hugging
     * Face does; {@code mergeWhere.apply(r)} names merge r in an error ("model.merges[3]").
     */
    BpeModel(SourceFile source, Map<String, Integer> vocab, String[] tokens, List<String[]> merges,
             IntFunction<String> mergeWhere, Options options) throws IOException {
        this.vocab = vocab;
        this.tokens = tokens;
        this.options = options;
        int n = merges.size();
        ranks = new PairRanks(n);
        mergeLeft = new int[n];
        mergeRight = new int[n];
        mergeResult = new int[n];
        for (int r = 0; r < n; r++) {
            String[] m = merges.get(r);
            mergeLeft[r] = idOf(source, m[0], mergeWhere.apply(r), m);
            mergeRight[r] = idOf(source, m[1], mergeWhere.apply(r), m);
            mergeResult[r] = idOf(source, m[0] + m[1], mergeWhere.apply(r), m);
            ranks.put(mergeLeft[r], mergeRight[r], r);
        }
        charIds = new int[Character.MAX_VALUE + 1];
        Arrays.fill(charIds, -1);
        for (var e : vocab.entrySet()) if (e.getKey().length() == 1) charIds[e.getKey().charAt(0)] = e.getValue();
        byteIds = new int[256];
        Arrays.fill(byteIds, -1);
        if (options.byteFallback()) {
            for (int b = 0; b < 256; b++) byteIds[b] = vocab.getOrDefault(String.format("<0x%02X>", b), -1);
        }
        if (options.unkToken() == null) {
            unkId = -1;
        } else {
            Integer unk = vocab.get(options.unkToken());
            if (unk == null) throw source.error("model.unk_token", Excerpt.quote(options.unkToken()) + " is not in the vocabulary");
            unkId = unk;
        }
    }

    private int idOf(SourceFile source, String token, String where, String[] merge) throws IOException {
        Integer id = vocab.get(token);
        if (id == null) {
            throw source.error(where, "the merge " + Excerpt.quote(merge[0] + " " + merge[1]) + " names "
                    + Excerpt.quote(token) + ", which is not in the vocabulary");
        }
        return id;
    }

    /** The id of {@code token} in the vocabulary, or -1. */
    int id(String token) {
        Integer id = vocab.get(token);
        return id == null ? -1 : id;
    }

    /** The token of {@code id}, or null when the vocabulary has none. */
    String token(int id) {
        return id >= 0 && id < tokens.length ? tokens[id] : null;
    }

    /** One more than the largest id of the vocabulary. */
    int idLimit() { return tokens.length; }

    int mergeCount() { return mergeResult.length; }

    /** Merge r as its two tokens. */
    String[] merge(int r) { return new String[] {tokens[mergeLeft[r]], tokens[mergeRight[r]]}; }

    /** Appends the ids of {@code word} (one pre-tokenized piece) to {@code out}. */
    void encode(String word, IdBuffer out) {
        if (word.isEmpty()) return;
        if (options.ignoreMerges()) {
            Integer whole = vocab.get(word);
            if (whole != null) {
                out.add(whole);
                return;
            }
        }
        int[] ids = cache.get(word);
        if (ids == null) {
            ids = merged(word);
            if (word.length() < MAX_CACHED_LENGTH && cache.size() < CACHE_CAPACITY) cache.put(word, ids);
        }
        out.addAll(ids);
    }

    private int[] merged(String word) {
        int[] symbols = new int[word.length() * 3]; // a UTF-16 unit is at most 3 byte tokens
        int n = 0;
        boolean pendingUnk = false; // unknown characters wait, so that fuse_unk can join a run of them
        for (int i = 0; i < word.length(); ) {
            int cp = word.codePointAt(i);
            i += Character.charCount(cp);
            int id = cp <= Character.MAX_VALUE ? charIds[cp] : id(Character.toString(cp));
            byte[] bytes = id < 0 ? byteTokens(cp) : null;
            if (id >= 0 || bytes != null) {
                if (pendingUnk) symbols[n++] = unkId;
                pendingUnk = false;
                if (id >= 0) symbols[n++] = id;
                else for (byte b : bytes) symbols[n++] = byteIds[b & 0xFF];
                continue;
            }
            if (unkId < 0) {
                throw new IllegalArgumentException("tokenizer: no token for " + describe(cp) + " in " + Excerpt.quote(word)
                        + ", and the model has neither byte_fallback nor an unk_token");
            }
            if (pendingUnk && !options.fuseUnk()) symbols[n++] = unkId;
            pendingUnk = true;
        }
        if (pendingUnk) symbols[n++] = unkId;
        return WordMerger.merge(symbols, n, ranks, mergeResult);
    }

    /** The UTF-8 bytes of {@code cp} when byte fallback is on and each has its {@code <0xNN>} token, else null. */
    private byte[] byteTokens(int cp) {
        if (!options.byteFallback()) return null;
        byte[] bytes = Character.toString(cp).getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) if (byteIds[b & 0xFF] < 0) return null;
        return bytes;
    }

    private static String describe(int cp) {
        return String.format("'%s' (U+%04X)", Character.toString(cp), cp);
    }
}
