package dev.symbiont.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.Excerpt;
import dev.symbiont.io.Utf8;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Byte-level byte-pair encoding (GPT-2 style). Ids 0..255 are the byte values; id 256 + r is
 * merge r, the concatenation of its two parts. Text is split into chunks by GPT-2's rule (a
 * leading space stays with the following word; see {@link Pretokenizer}), each chunk is turned
 * into its UTF-8 bytes, and merges are applied within the chunk, lowest rank first. Because the
 * base vocabulary holds every byte, any string without lone surrogates encodes and decodes back
 * exactly, emoji included.
 *
 * <p>Saved as {@code {"kind": "bpe", "version": 1, "pretokenizer": "gpt2", "merges": [[left, right], ...]}}.
 *
 * <p>A token is at most {@link #MAX_TOKEN_BYTES} bytes, and only its length is kept: its bytes are
 * expanded from the merges when asked for. A file of n merges therefore costs memory linear in n,
 * even one whose merges double the token each time (30 such merges would otherwise name a
 * gigabyte).
 */
public final class BpeTokenizer implements Tokenizer {
    static final String KIND = "bpe";
    static final String PRETOKENIZER = "gpt2";
    /** Ids below this are single bytes. */
    public static final int BYTE_VOCAB = 256;
    /**
     * The longest token, in bytes. Real vocabularies stay far below (GPT-2's longest tokens are
     * 128 bytes); the bound keeps decoding proportional to the ids and lets a loader reject a
     * merge chain that grows the token without end. Training stops merging a pair past it.
     */
    public static final int MAX_TOKEN_BYTES = 1024;

    private final int[][] merges;          // merges[r] = {left, right}, making id 256 + r
    private final Map<Long, Integer> rank; // pair -> r
    private final int[] tokenLength;       // id -> how many bytes it stands for

    /**
     * A tokenizer from its merges, in rank order; each part must be a byte or an earlier merge,
     * and each merged token at most {@link #MAX_TOKEN_BYTES} long.
     */
    public BpeTokenizer(List<int[]> merges) {
        int n = merges.size();
        this.merges = new int[n][];
        this.rank = new HashMap<>(n * 2);
        this.tokenLength = new int[BYTE_VOCAB + n];
        Arrays.fill(tokenLength, 0, BYTE_VOCAB, 1);
        for (int r = 0; r < n; r++) {
            int[] m = merges.get(r);
            int id = BYTE_VOCAB + r;
            if (m.length != 2) throw new IllegalArgumentException("bpe: merge " + r + " has " + m.length + " parts, not 2");
            for (int part : m) {
                if (part < 0 || part >= id) {
                    throw new IllegalArgumentException("bpe: merge " + r + " uses id " + part
                            + ", which is not a byte or an earlier merge (must be in [0, " + id + "))");
                }
            }
            int length = tokenLength[m[0]] + tokenLength[m[1]]; // both at most MAX_TOKEN_BYTES: no overflow
            if (length > MAX_TOKEN_BYTES) {
                throw new IllegalArgumentException("bpe: merges[" + r + "] = [" + m[0] + ", " + m[1] + "] makes a token of "
                        + length + " bytes, over the limit of " + MAX_TOKEN_BYTES);
            }
            if (rank.putIfAbsent(BpeTrainer.pair(m[0], m[1]), r) != null) {
                throw new IllegalArgumentException("bpe: merge " + r + " repeats the pair (" + m[0] + ", " + m[1] + ")");
            }
            this.merges[r] = m.clone();
            tokenLength[id] = length;
        }
    }

    /**
     * Learns merges on {@code corpus} until the vocabulary has {@code vocabSize} ids (fewer if
     * the corpus runs out of pairs to merge).
     */
    public static BpeTokenizer train(String corpus, int vocabSize) {
        if (vocabSize < BYTE_VOCAB) {
            throw new IllegalArgumentException("bpe: vocabSize must be at least " + BYTE_VOCAB + " (the bytes), got " + vocabSize);
        }
        return new BpeTokenizer(BpeTrainer.train(corpus, vocabSize - BYTE_VOCAB));
    }

    /** Reads a file written by {@link #save(Path)}. */
    public static BpeTokenizer load(Path file) throws IOException {
        return fromJson(file, TokenizerJson.read(file, KIND));
    }

    @Override
    public int vocabSize() { return tokenLength.length; }

    /** Number of merges; the vocabulary is 256 + this. */
    public int mergeCount() { return merges.length; }

    /** Merge {@code r} as {left, right}; it makes id 256 + r. */
    public int[] merge(int r) { return merges[r].clone(); }

    /** The bytes id {@code id} stands for. */
    public byte[] tokenBytes(int id) {
        if (id < 0 || id >= tokenLength.length) {
            throw new IllegalArgumentException("bpe: id " + id + " is outside the vocabulary [0, " + tokenLength.length + ")");
        }
        byte[] bytes = new byte[tokenLength[id]];
        expand(id, bytes, 0, new int[MAX_TOKEN_BYTES]);
        return bytes;
    }

    /**
     * @throws IllegalArgumentException naming the index of a lone surrogate, which has no UTF-8 form
     */
    @Override
    public int[] encode(String text) {
        checkNoLoneSurrogates(text);
        int[] ids = new int[16];
        int n = 0;
        int[] symbols = new int[16];
        for (String chunk : Pretokenizer.split(text)) {
            byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
            if (symbols.length < bytes.length) symbols = new int[bytes.length];
            for (int i = 0; i < bytes.length; i++) symbols[i] = bytes[i] & 0xFF;
            int len = applyMerges(symbols, bytes.length);
            if (ids.length < n + len) ids = Arrays.copyOf(ids, Math.max(ids.length * 2, n + len));
            System.arraycopy(symbols, 0, ids, n, len);
            n += len;
        }
        return Arrays.copyOf(ids, n);
    }

    /** Ids to bytes to UTF-8; byte runs that are not valid UTF-8 (a cut multi-byte character) become U+FFFD. */
    @Override
    public String decode(int[] ids) {
        long total = 0;
        for (int i = 0; i < ids.length; i++) {
            checkId(ids[i], i);
            total += tokenLength[ids[i]];
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("bpe: " + ids.length + " ids decode to " + total + " bytes, more than a Java array holds");
        }
        byte[] bytes = new byte[(int) total];
        int[] stack = new int[MAX_TOKEN_BYTES];
        int at = 0;
        for (int id : ids) at = expand(id, bytes, at, stack);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Writes the bytes of {@code id} into {@code out} from {@code at}, left part before right,
     * without recursion: {@code stack} holds the right parts still to write, at most one per
     * level of the merge tree, so a token of n bytes needs fewer than n slots.
     */
    private int expand(int id, byte[] out, int at, int[] stack) {
        int top = 0;
        stack[top++] = id;
        while (top > 0) {
            int t = stack[--top];
            while (t >= BYTE_VOCAB) {
                int[] m = merges[t - BYTE_VOCAB];
                stack[top++] = m[1];
                t = m[0];
            }
            out[at++] = (byte) t;
        }
        return at;
    }

    @Override
    public void save(Path file) throws IOException {
        ObjectNode root = TokenizerJson.envelope(KIND);
        root.put("pretokenizer", PRETOKENIZER);
        ArrayNode array = root.putArray("merges");
        for (int[] m : merges) array.addArray().add(m[0]).add(m[1]);
        TokenizerJson.write(file, root);
    }

    static BpeTokenizer fromJson(Path file, ObjectNode root) throws IOException {
        JsonNode pre = root.get("pretokenizer");
        if (pre == null || !PRETOKENIZER.equals(pre.asText(null))) {
            throw TokenizerJson.malformed(file, "\"pretokenizer\" must be \"" + PRETOKENIZER + "\", found " + Excerpt.of(pre));
        }
        JsonNode array = TokenizerJson.array(file, root, "merges");
        List<int[]> merges = new ArrayList<>(array.size());
        for (int r = 0; r < array.size(); r++) {
            JsonNode m = array.get(r);
            if (!m.isArray() || m.size() != 2 || !m.get(0).isInt() || !m.get(1).isInt()) {
                throw TokenizerJson.malformed(file, "merges[" + r + "] must be a [left, right] pair of ids, found " + Excerpt.of(m));
            }
            merges.add(new int[] {m.get(0).intValue(), m.get(1).intValue()});
        }
        try {
            return new BpeTokenizer(merges);
        } catch (IllegalArgumentException e) {
            throw TokenizerJson.malformed(file, e.getMessage());
        }
    }

    /** Merges symbols[0..len) by rank, lowest first, until no adjacent pair has a merge; returns the new length. */
    private int applyMerges(int[] symbols, int len) {
        while (len > 1) {
            int bestRank = Integer.MAX_VALUE;
            for (int i = 0; i + 1 < len; i++) {
                Integer r = rank.get(BpeTrainer.pair(symbols[i], symbols[i + 1]));
                if (r != null && r < bestRank) bestRank = r;
            }
            if (bestRank == Integer.MAX_VALUE) break;
            int[] m = merges[bestRank];
            len = mergeInPlace(symbols, len, m[0], m[1], BYTE_VOCAB + bestRank);
        }
        return len;
    }

    /** Replaces each (left, right) in symbols[0..len), left to right, by id; returns the new length. */
    static int mergeInPlace(int[] symbols, int len, int left, int right, int id) {
        int out = 0;
        for (int i = 0; i < len; i++) {
            if (i + 1 < len && symbols[i] == left && symbols[i + 1] == right) {
                symbols[out++] = id;
                i++;
            } else {
                symbols[out++] = symbols[i];
            }
        }
        return out;
    }

    private void checkId(int id, int position) {
        if (id < 0 || id >= tokenLength.length) {
            throw new IllegalArgumentException("bpe: id " + id + " at position " + position
                    + " is outside the vocabulary [0, " + tokenLength.length + ")");
        }
    }

    private static void checkNoLoneSurrogates(String text) {
        int i = Utf8.firstLoneSurrogate(text);
        if (i >= 0) {
            throw new IllegalArgumentException(String.format(
                    "bpe: lone surrogate U+%04X at index %d has no UTF-8 encoding", (int) text.charAt(i), i));
        }
    }
}
