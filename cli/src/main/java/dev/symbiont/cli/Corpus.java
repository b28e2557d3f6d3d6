package dev.symbiont.cli;

import dev.symbiont.data.TokenWindows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/** The training text: a file, or the public-domain corpus shipped in the jar (see its README). */
final class Corpus {
    static final String SHIPPED = "/dev/symbiont/corpus/sonnets-psalms-proverbs.txt";
    /**
     * The largest corpus read: 256 MiB, far more text than a character-level model trains on
     * here, and at about {@value #BYTES_PER_CHARACTER} bytes per character in memory already 3 GiB.
     */
    static final long MAX_BYTES = 256L << 20;
    /** The text (up to 2 bytes a character), its ids (4) and the two splits' copies of them (4). */
    static final int BYTES_PER_CHARACTER = 10;

    private Corpus() {}

    /**
     * The text of {@code file} (null: the shipped corpus); a missing, non-UTF-8, empty or too
     * large file, or one that is not a regular file, throws saying which. Decoded as it is read,
     * so the bytes are never held beside the text.
     */
    static String read(Path file) throws IOException {
        if (file == null) {
            try (InputStream in = Corpus.class.getResourceAsStream(SHIPPED)) {
                if (in == null) throw new IOException("the shipped corpus " + SHIPPED + " is missing from the jar");
                return decode(in, 1 << 20, SHIPPED);
            }
        }
        if (Files.isDirectory(file)) throw new IOException("corpus " + file + " is a directory, not a text file");
        if (!Files.exists(file)) throw new IOException("corpus file " + file + " does not exist");
        if (!Files.isRegularFile(file)) {
            throw new IOException("corpus " + file + " is not a regular file (a device, pipe or socket has no size to check); give a text file");
        }
        long size = Files.size(file);
        if (size > MAX_BYTES) throw tooLarge(file.toString(), size);
        String text;
        try (InputStream in = Files.newInputStream(file)) {
            text = decode(in, (int) size, file.toString());
        } catch (NoSuchFileException e) {
            throw new IOException("corpus file " + file + " does not exist", e);
        }
        if (text.isBlank()) throw new IOException("corpus " + file + " is empty: it holds no text to train on");
        return text;
    }

    private static IOException tooLarge(String name, long size) {
        return new IOException(String.format(Locale.ROOT, "corpus %s is %,d bytes, more than the %,d a corpus may hold (in memory each "
                + "character takes about %d bytes: text, ids and splits); train on a part of it", name, size, MAX_BYTES, BYTES_PER_CHARACTER));
    }

    /** UTF-8 from {@code in}, in pieces of 64 KiB; {@code expected} sizes the text's buffer. */
    private static String decode(InputStream in, int expected, String name) throws IOException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        StringBuilder text = new StringBuilder(expected);
        ByteBuffer bytes = ByteBuffer.allocate(1 << 16);
        CharBuffer chars = CharBuffer.allocate(1 << 16);
        long consumed = 0; // bytes decoded before the buffer's start, for the offset in messages
        for (boolean end = false; !end; ) {
            int got = in.read(bytes.array(), bytes.position(), bytes.remaining());
            end = got < 0;
            if (!end) bytes.position(bytes.position() + got);
            if (consumed + bytes.position() > MAX_BYTES) throw tooLarge(name, consumed + bytes.position()); // a file that grew
            bytes.flip();
            CoderResult result;
            do {
                result = decoder.decode(bytes, chars, end);
                if (result.isError()) {
                    throw new IOException(String.format("corpus %s is not UTF-8 text: invalid byte 0x%02x at offset %d",
                            name, bytes.get(bytes.position()) & 0xff, consumed + bytes.position()));
                }
                text.append(chars.flip());
                chars.clear();
            } while (result.isOverflow());
            consumed += bytes.position();
            bytes.compact();
        }
        decoder.flush(chars);
        return text.append(chars.flip()).toString();
    }

    /**
     * Windows of {@code context} ids of one split, every {@code stride}; a split too small for one
     * batch is an error naming the split, its size in {@code unit}s and the flags, not a NaN loss.
     */
    static TokenWindows windows(String split, int[] ids, int context, int batch, int stride, String corpusName, String unit) {
        int count = ids.length < context + 1 ? 0 : (ids.length - context - 1) / Math.max(1, stride) + 1; // TokenWindows' size, checked first
        if (count < batch) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "the %s split of %s (%d %s) holds %d windows of --context %d, fewer than one --batch of %d; "
                            + "use a larger corpus or a smaller --batch or --context", split, corpusName, ids.length, unit, count, context, batch));
        }
        return new TokenWindows(ids, context, Math.max(1, stride));
    }

    /**
     * Cross-entropy (nats per token) of {@code eval} under the training text's token frequencies
     * (add-one smoothed): what a model that ignores context scores, the bar to clear.
     */
    static double unigramLoss(int[] train, int[] eval, int vocab) {
        double[] counts = new double[vocab];
        Arrays.fill(counts, 1);
        for (int id : train) counts[id]++;
        double total = train.length + vocab, loss = 0;
        for (int id : eval) loss -= Math.log(counts[id] / total);
        return loss / eval.length;
    }
}
